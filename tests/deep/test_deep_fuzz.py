"""Hostile session files and verdict lists, generated: a valid saved session whose document or
papers file is then changed at random (any value at any path replaced by JSON of another type,
keys deleted, added or written twice, huge and negative numbers, NaN and Infinity, deep nesting,
very long text, lone surrogates and control characters, the bytes cut or spoiled), and LISTs of
every form a judge or a tool might type. Every such file is read as the loader promises: either a
session that saves and reads back the same (and that the steps can show and extend), or one
line naming the problem (a UsageError, exit 2), with both files unchanged; never another
exception. A verdict LIST is resolved or refused with a UsageError, and the session is unchanged.
The command line is then run on a few of the damaged files: one line on stderr, exit 2."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings, strategies as st
from hypothesis.control import currently_in_test_context

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from built_sessions import paper, session_of  # noqa: E402
from command import command_env, lit_search_command  # noqa: E402

from litsearch.core.errors import ExitCode, UsageError  # noqa: E402
from litsearch.core.filters import Filters  # noqa: E402
from litsearch.core.records import Paper  # noqa: E402
from litsearch.deep.paper_store import papers_path  # noqa: E402
from litsearch.deep.pool import Pool  # noqa: E402
from litsearch.deep.session import (PAPER_FIELDS, VERDICTS, Options, Round, Session, as_document,  # noqa: E402
                                    as_text, paper_as_dict)
from litsearch.deep.session_file import load, save as save_to  # noqa: E402
from litsearch.deep.steps import check_step, given_list  # noqa: E402
from litsearch.deep.verdicts import apply, recount, resolve  # noqa: E402
from litsearch.runtime.files import write_file_atomically  # noqa: E402
from litsearch.search.record import filters_as_dict  # noqa: E402

# Modest counts, so the file runs in seconds; FUZZ_EXAMPLES=10000 for a longer hunt (a few minutes).
EXAMPLES = os.environ.get("FUZZ_EXAMPLES")
FUZZ = settings(max_examples=int(EXAMPLES or 200), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def save(path: Path, session: Session) -> None:
    save_to(path, session, write_file_atomically)


def whole(session: Session) -> dict:
    return {**as_document(session), "saved_at": ""}


def rich_session() -> Session:
    """A session with a value in every kind of field: two rounds, verdicts, a batch, filters,
    waiting queries, references, and records with lists and maps."""
    papers = [paper(1, authors=["A. Reef", "B. Coral"], citation_count=12, external_ids={"MAG": "77", "PMCID": "PMC1"},
                    publication_types=["journal-article"], updates=[{"type": "erratum", "doi": "10.1/e", "n": [1, "a"]}]),
              paper(2, pmid="12345", openalex_id="W2", retracted=False, score=0.5),
              paper(3, arxiv_id="2101.00001", journal="Reef Science", volume="4", issue="2", pages="1-9"),
              paper(4, semantic_scholar_id="abc123def", tldr="Short.", oa_url="https://example.org/4"),
              paper(5, publication_date="2001-05-06", url="https://example.org/5"),
              paper(6, title="Bleaching, ünïcödé and “quotes” — 珊瑚")]
    session = session_of(papers, batch=3)
    session.variants, session.queries = ["coral bleaching heat"], ["coral reef bleaching", "coral bleaching heat"]
    session.filters = Filters(venue="Reef Science", min_citations=2)
    session.pending_queries, session.asked_ids, session.recommended_with = ["thermal stress"], ["W9"], "c4,c5"
    session.rounds.append(Round(2, new_candidates=2, requests={"openalex": 2}, cached={"openalex": 1},
                                actions=["references of c4"], queries=["coral"], notes=["a note"], stop_check="go on"))
    candidates = list(session.candidates.values())
    for candidate, verdict in zip(candidates[3:], ("relevant", "maybe", "not")):
        candidate.verdict, candidate.judged_round, candidate.shown_round = verdict, 1, 1
        candidate.score, candidate.log_odds, candidate.why = 0.25, -1.5, f"why {candidate.key}"
    candidates[3].chased, candidates[3].refs = ["links:openalex"], ["W2", "W3"]
    session.batch = [c.key for c in candidates[:3]]
    for candidate in candidates[:3]:
        candidate.shown_round = 2
    recount(session)
    return session


def _pristine() -> tuple[bytes, bytes]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.json"
        save(path, rich_session())
        load(path)  # the base must itself be a session the loader accepts
        return path.read_bytes(), papers_path(path).read_bytes()


DOCUMENT, PAPERS = _pristine()
WHOLE = as_text(rich_session()).encode()  # version 1: every record in the document, no papers file


# ---------------------------------------------------------------- values and edits

class Raw(str):
    """JSON text put into a document as it is (what json.dumps cannot write: deep nesting,
    thousands of digits, a lone surrogate's escape)."""


DEEP = 100_000
SPECIAL = [
    0, -1, 1, 2, 10**30, -(10**30), 2**63, 10**400, 1e308, -0.0, 0.5, math.nan, math.inf, -math.inf,
    True, False, None, "", " ", "x" * 100_001, "\ud800", "a\udfffb", "\x00\n\x1f\x7f\u2028\u202e", "c1", "c0",
    "c99", "c007", "relevant", "maybe", "not", "openalex", "nosuch", "saturated", "semantic", [], {}, [[[[]]]],
    ["c1"], ["c1", "c1"], ["x"] * 10_001, {f"k{n}": 1 for n in range(10_001)}, {"openalex": -5}, {"": None},
    Raw("[" * DEEP + "]" * DEEP), Raw('{"a":' * 5_000 + "1" + "}" * 5_000), Raw("[" * 900 + "]" * 900),
    Raw("1" * 5_000), Raw("1e999"), Raw("-1e999"), Raw("1e-999"), Raw("NaN"), Raw("-Infinity"),
    Raw('"\\ud800"'), Raw('"\\udc00\\ud800x"'), Raw('"\\ud83d\\ude00"'), Raw('"\\u0000"'),
]
SCALARS = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(st.characters(exclude_categories=()), max_size=12))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
VALUES = st.sampled_from(SPECIAL) | JSON
WORDS = ["", " ", "c1", "c2", "c3", "c6", "c7", "c0", "c01", "relevant", "maybe", "not", "openalex", "semanticscholar",
         "pubmed", "crossref", "nosuch", "saturated", "budget", "exhausted", "semantic", "none", "search", "citing",
         "references", "W2", "x" * 100_001, "\ud800", "a\udc00", "\n", "\x00", "\u2028", "ünï 珊瑚 😀"]
NUMBERS = [0, -1, 1, 2, 3, 6, 7, 20, 100, 5_000, 20_001, 2**31, 2**63, 10**30, -(10**30), 10**400, -(10**400)]


def alike(value: Any) -> st.SearchStrategy:
    """Another value of the type ``value`` has: other text, another number, the list's own items
    in another order, repeated or fewer, some of the map's entries."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.sampled_from(NUMBERS) | st.integers()
    if isinstance(value, float):
        return st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 0.0, 1.0, -1e-300]) | st.floats()
    if isinstance(value, str):
        return st.sampled_from(WORDS) | st.text(st.characters(exclude_categories=()), max_size=20)
    if isinstance(value, list):
        return st.lists(st.sampled_from(value), max_size=len(value) + 2) if value else st.just([])
    if isinstance(value, dict):
        return st.sets(st.sampled_from(list(value)), max_size=len(value)).map(
            lambda names: {name: value[name] for name in value if name in names}) if value else st.just({})
    return VALUES


def _nodes(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of every value in a decoded JSON value, the root first."""
    found = [path]
    if isinstance(value, dict):
        for name, item in value.items():
            found += _nodes(item, (*path, name))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += _nodes(item, (*path, position))
    return found


def _kinds(value: Any) -> dict[tuple, list[tuple]]:
    """The paths of every value but the root, by field: list positions as "*"."""
    found: dict[tuple, list[tuple]] = {}
    for path in _nodes(value)[1:]:
        found.setdefault(tuple("*" if isinstance(step, int) else step for step in path), []).append(path)
    return found


def _at(root: Any, path: tuple) -> Any:
    for step in path:
        root = root[step]
    return root


def _put(root: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _at(root, path[:-1])[path[-1]] = value
    return root


class Text:
    """A decoded document being edited, with what its JSON text must hold that json.dumps would
    not write (raw values, a key written twice), by placeholders."""

    def __init__(self, document: Any):
        self.document, self.raw = document, {}

    def placeholder(self, text: str) -> str:
        name = f"\x01{len(self.raw)}\x01"
        self.raw[json.dumps(name)] = text
        return name

    def value(self, value: Any) -> Any:
        # a copy: a later edit may add to a list or map drawn from SPECIAL, which every example shares
        return self.placeholder(str(value)) if isinstance(value, Raw) else copy.deepcopy(value)

    def edit(self, data: st.DataObject) -> None:
        # a field first (every value of a list alike: "candidates[*].why"), then one value of it
        kinds = _kinds(self.document)
        kind = data.draw(st.sampled_from(sorted(kinds, key=repr)[::-1] or [()]), label="field")
        path = data.draw(st.sampled_from(kinds.get(kind, [()])), label="path")
        if data.draw(st.sampled_from([False] * 49 + [True]), label="the root instead"):
            path = ()  # the whole document (or record) replaced, now and then
        parent = _at(self.document, path[:-1]) if path else None
        kinds = ["alike", "alike", "replace", "replace", "replace", "add"] + (["delete"] if path else []) \
            + (["twice"] if isinstance(parent, dict) else [])
        kind = data.draw(st.sampled_from(kinds), label="edit")
        if kind == "alike":  # another value of the same type: the state, not the types, is then what is wrong
            self.document = _put(self.document, path, self.value(data.draw(alike(_at(self.document, path)),
                                                                           label="value")))
        elif kind == "replace":
            self.document = _put(self.document, path, self.value(data.draw(VALUES, label="value")))
        elif kind == "delete":
            del parent[path[-1]]
        elif kind == "add":  # a key nobody knows, beside the others (or an item more in a list)
            target = _at(self.document, path)
            if isinstance(target, dict):
                target[data.draw(st.text(max_size=8), label="key")] = self.value(data.draw(VALUES, label="value"))
            elif isinstance(target, list):
                target.append(self.value(data.draw(VALUES, label="value")))
        else:  # the key of ``path`` written twice: the copy first (the file's value wins) or last (the copy wins)
            first = data.draw(st.booleans(), label="copy first")
            copied = self.placeholder(json.dumps(path[-1]))
            extra = {copied: self.value(data.draw(VALUES, label="value"))}
            self.document = _put(self.document, path[:-1], {**extra, **parent} if first else {**parent, **extra})

    def encoded(self, data: st.DataObject) -> bytes:
        text = json.dumps(self.document, ensure_ascii=data.draw(st.booleans(), label="ascii"))
        for name, raw in self.raw.items():
            text = text.replace(name, raw)
        body = text.encode("utf-8", "surrogatepass")  # a lone surrogate written raw is not UTF-8
        bom = data.draw(st.sampled_from([False] * 9 + [True]), label="BOM")  # which a document may have, a record not
        return (b"\xef\xbb\xbf" if bom else b"") + body


def spoiled(data: st.DataObject, body: bytes, rarely: bool = True) -> bytes:
    """``body`` cut at any byte, with bytes put in, or one byte changed; or as it is (the most
    often when ``rarely``)."""
    kind = data.draw(st.sampled_from(["none"] * (8 if rarely else 1) + ["cut", "insert", "change"]), label="bytes")
    if kind == "none":
        return body
    at = data.draw(st.integers(0, len(body)), label="at")
    if kind == "cut":
        return body[:at]
    garbage = data.draw(st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\x00", b"\n", b"\r\n", b'"', b"}", b"{}\n"])
                        | st.binary(min_size=1, max_size=8), label="garbage")
    if kind == "insert":
        return body[:at] + garbage + body[at:]
    return body[:at] + garbage[:1] + body[at + 1:]


# ---------------------------------------------------------------- what must hold of every file

def files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def told(outcome: str) -> None:
    """An outcome counted by ``--hypothesis-show-statistics`` (how many files were read back, how
    many refused and why), inside a property test."""
    if currently_in_test_context():
        event(outcome)


def read_back(folder: Path) -> Session | None:
    """The session in ``folder``, or None when the loader refused it in one line (exit 2) and
    left both files as they were; any other exception fails the test. A session read is saved,
    and must read back the same; the steps must be able to show it and take it on."""
    path = folder / "s.json"
    before = files(folder)
    try:
        session = load(path)
    except UsageError as error:
        message = str(error)
        assert error.exit_code == ExitCode.USAGE
        assert message.strip() and len(message.splitlines()) == 1 and message == message.strip(), message
        assert files(folder) == before
        told("refused: " + message.split(": ", 1)[-1][:90])
        return None
    told("read")
    assert files(folder) == before  # reading writes nothing
    as_written(before, session)
    save(path, session)
    again = load(path)
    assert whole(again) == whole(session)
    shown(again)
    taken_on(path, again)
    return session


KEPT = ("topic", "variants", "queries", "search_providers", "asked_ids", "pending_queries", "recommended_with", "done",
        "stop_reason", "batch", "next_number", "created_at")
EMPTY = (None, [], {}, "", False)


def as_written(written: dict[str, bytes], session: Session) -> None:
    """What the session read holds is what its files say, field for field (a value read as
    another, or as nothing, would be saved so at the next step: the researcher's data changed
    without a word). Fields the files leave out take their defaults."""
    document = json.loads(written["s.json"].decode("utf-8-sig"))
    for name in KEPT:
        if name in document:
            assert getattr(session, name) == document[name], name
    for name, value in document["options"].items():
        if name in Options.__dataclass_fields__:
            assert getattr(session.options, name) == value, name
    filters = filters_as_dict(session.filters)
    for name, value in document.get("filters", {}).items():
        # blank text is no filter, as nothing is; an entity's resolution is kept while its filter is
        if name in filters and name != "resolved" and value not in EMPTY and not str(value).isspace():
            assert filters[name] == value, name
    for entry, read in zip(document["rounds"], session.rounds, strict=True):
        assert {name: value for name, value in entry.items() if name in Round.__dataclass_fields__} \
            == {name: getattr(read, name) for name in entry if name in Round.__dataclass_fields__}
    assert list(session.candidates) == [entry["key"] for entry in document["candidates"]]
    side = written.get("s.papers.jsonl", b"")
    for entry in document["candidates"]:
        candidate = session.candidates[entry["key"]]
        for name, value in entry.items():
            if name in ("evidence", "verdict", "judged_round", "shown_round", "why", "chased", "refs"):
                assert getattr(candidate, name) == value, name
            elif name in ("score", "log_odds"):  # a number, kept as a float
                assert getattr(candidate, name) == float(value), name
        record = entry if document["version"] == 1 else \
            json.loads(side[entry["record_at"]: side.index(b"\n", entry["record_at"])])
        assert record["key"] == entry["key"]  # the candidate's own record, not another's
        assert candidate.terms == record.get("terms", {})
        paper = paper_as_dict(candidate.paper)  # "provider" is "merged" when the record names none
        assert {name: value for name, value in record["paper"].items()
                if name in PAPER_FIELDS and value not in (None, [], {}, "")} \
            == {name: value for name, value in paper.items() if name != "provider" or record["paper"].get("provider")}


def shown(session: Session) -> None:
    """What `deep next --show` and `deep results --format json` make of the session, written as
    UTF-8 (what reaches the terminal or the file)."""
    from litsearch.core.sanitize import json_text
    from litsearch.deep.results import as_search_result
    from litsearch.render.deep import results_json, step_payload, step_text

    json_text(step_payload(session, "s.json")).encode("utf-8")
    step_text(session, "s.json", width=100).encode("utf-8")
    result = as_search_result(session, include_unjudged=True, include_rejected=True)
    json_text(results_json(result, session, "s.json")).encode("utf-8")


def taken_on(path: Path, session: Session) -> None:
    """The state read is one a step can take on, as `deep next` does without its requests: the
    batch judged (the budget and the stop rule checked), a new paper under the next key, the
    candidates scored, the next batch chosen and explained; then saved, and read back the same."""
    from litsearch.deep import rounds, score, stop

    if not session.done and session.rounds and session.batch:
        rounds.judge(session, resolve(session, {}, rest="not"), [])
    if not session.done:
        session.rounds.append(Round(len(session.rounds) + 1))
        pool = Pool(session)
        pool.add([(Paper(provider="openalex", title=f"A new paper on coral bleaching, number {session.next_number}",
                         doi=f"10.9999/new{session.next_number}"), {"round": session.round, "via": "search", "rank": 1})])
        score.score_candidates(session)
        pool.set_aside()
        session.batch = [c.key for c in score.next_order(session)[: session.options.batch]]
        score.explain(session, session.batch)
        session.rounds[-1].stop_check = stop.rule_now(session)
    save(path, session)
    assert whole(load(path)) == whole(session)


def _written(folder: Path, document: bytes, side: bytes | None = PAPERS) -> Path:
    (folder / "s.json").write_bytes(document)
    if side is not None:
        (folder / "s.papers.jsonl").write_bytes(side)
    return folder / "s.json"


# ---------------------------------------------------------------- the document

def document_of(edits: list[tuple[tuple, Any]], base: bytes = DOCUMENT) -> bytes:
    """The pristine document (or ``base``) with each (path, value) put in (for the examples below)."""
    text = Text(json.loads(base))
    for path, value in edits:
        text.document = _put(text.document, path, text.value(value))
    body = json.dumps(text.document)
    for name, raw in text.raw.items():
        body = body.replace(name, raw)
    return body.encode("utf-8", "surrogatepass")


@FUZZ
@given(planted=st.none(), data=st.data())
# Found by this test: each was read, then stopped a step with a traceback (an internal error, exit 1), could
# not be saved, or saved a session that could not be read back, or was saved other than it was written
@example(planted=(2, [(("candidates", 0, "score"), 10**400)]), data=None)  # OverflowError: a score beyond a float
@example(planted=(2, [(("candidates", 5, "log_odds"), -(10**400))]), data=None)
@example(planted=(2, [(("candidates", 3, "evidence", 0, "rank"), 10**400)]), data=None)  # OverflowError in the scoring
@example(planted=(2, [(("candidates", 0, "evidence", 0, "provider"), -1)]), data=None)  # TypeError in `deep results`
@example(planted=(2, [(("candidates", 0, "evidence", 0, "rank"), "1")]), data=None)
@example(planted=(2, [(("topic",), "coral \ud800 reefs")]), data=None)  # read, then never saved (UnicodeEncodeError)
@example(planted=(2, [(("candidates", 4, "why"), Raw('"\\udfff"'))]), data=None)
@example(planted=(2, [(("filters", "venue"), "\udc80")]), data=None)
@example(planted=(2, [(("candidates", 0, "evidence", 0, "via\ud800"), 1)]), data=None)
@example(planted=(2, [(("next_number",), -3), (("candidates",), []), (("batch",), [])]), data=None)  # the next paper: c-3
@example(planted=(2, [(("next_number",), 0), (("candidates",), []), (("batch",), [])]), data=None)
@example(planted=(1, [(("candidates", 2, "paper", "title"), "")]), data=None)  # saved without its title: unreadable
@example(planted=(1, [(("candidates", 0, "paper", "provider"), "")]), data=None)  # saved without it: read back "merged"
@example(planted=(2, [(("filters", "min_citations"), "5")]), data=None)  # read as no filter, and saved so
@example(planted=(2, [(("filters", "max_citations"), -1)]), data=None)
@example(planted=(2, [(("created_at",), 0)]), data=None)  # read as "", and saved so
def test_an_edited_document_reads_as_a_session_or_one_line(planted, data):
    whole_version = False
    if planted is not None:
        whole_version = planted[0] == 1
        body = document_of(planted[1], WHOLE if whole_version else DOCUMENT)
    else:
        whole_version = data.draw(st.sampled_from([False, False, True]), label="version 1")
        text = Text(json.loads(WHOLE if whole_version else DOCUMENT))
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            text.edit(data)
        body = spoiled(data, text.encoded(data))
    with tempfile.TemporaryDirectory() as folder:
        _written(Path(folder), body, None if whole_version else PAPERS)
        read_back(Path(folder))


def _rehashed(document: dict, side: bytes) -> dict:
    document["papers"] = {"bytes": len(side), "sha256": hashlib.sha256(side).hexdigest()}
    return document


OF_EVERY_TYPE = [None, True, 0, 1.5, "x", [], {}]


@pytest.mark.parametrize("part", ["document", "record"])
def test_every_field_of_every_other_type_or_left_out(part):
    """Each field of the document, and of a record, given a value of each JSON type in turn, or
    left out: read as a session that saves and reads back as written, or refused in one line
    (the sweep the property tests sample, whole)."""
    lines = PAPERS.splitlines(keepends=True)
    if part == "document":
        fields = {kind: paths[0] for kind, paths in _kinds(json.loads(DOCUMENT)).items()}
    else:
        fields = {}
        for number, line in enumerate(lines):
            for kind, paths in _kinds(json.loads(line)).items():
                fields.setdefault(kind, (number, paths[0]))
    for kind, where in fields.items():
        for value in [*OF_EVERY_TYPE, "left out"]:
            document = json.loads(DOCUMENT)
            side = PAPERS
            if part == "document":
                edited, path = document, where
            else:
                number, path = where
                edited = json.loads(lines[number])
            if value == "left out":
                del _at(edited, path[:-1])[path[-1]]
            else:
                edited = _put(edited, path, copy.deepcopy(value))
            if part == "record":
                key = json.loads(lines[number])["key"]
                next(c for c in document["candidates"] if c["key"] == key)["record_at"] = len(side)
                side += json.dumps(edited).encode() + b"\n"
                document = _rehashed(document, side)
            else:
                document = edited
            with tempfile.TemporaryDirectory() as folder:
                _written(Path(folder), json.dumps(document).encode(), side)
                read_back(Path(folder))


# ---------------------------------------------------------------- the papers file

def _appended(record: bytes) -> tuple[bytes, bytes]:
    """The pristine pair with ``record`` appended as c1's record."""
    document = json.loads(DOCUMENT)
    document["candidates"][0]["record_at"] = len(PAPERS)
    side = PAPERS + record
    return json.dumps(_rehashed(document, side)).encode(), side


def _tail(extra: bytes) -> tuple[bytes, bytes]:
    """The pristine pair with ``extra`` appended to the papers file, and counted in its header."""
    side = PAPERS + extra
    return json.dumps(_rehashed(json.loads(DOCUMENT), side)).encode(), side


@FUZZ
@given(planted=st.none(), data=st.data())
# Found by this test: a record (appended, and c1 pointed at it; or a tail no candidate points at) that was read,
# then could never be saved (UnicodeEncodeError, an internal error), or made the next save's line unreadable
@example(planted=(b"\xff", False), data=None)  # the session's bytes end inside a line: the next append joins it
@example(planted=(b'{"key":"c9","paper":{"title":"T"},"terms":{}}', False), data=None)
@example(planted=(b'{"key":"c1","paper":{"title":"\xed\xa0\x80"},"terms":{}}\n', True), data=None)  # a surrogate's bytes
@example(planted=(b'{"key":"c1","paper":{"title":"coral \\ud800"},"terms":{}}\n', True), data=None)  # its escape
@example(planted=(b'{"key":"c1","paper":{"title":"T","authors":["\\udfff"]},"terms":{}}\n', True), data=None)
@example(planted=(b'{"key":"c1","paper":{"title":"T"},"terms":{"\\ud800":1}}\n', True), data=None)
@example(planted=(b'{"key":"c1","paper":{"title":"T","score":1e999},"terms":{}}\n', True), data=None)
@example(planted=(b'{"key":"c1","paper":{"title":"T","year":' + b"9" * 400 + b'},"terms":{}}\n', True), data=None)
def test_an_edited_papers_file_reads_as_a_session_or_one_line(planted, data):
    if planted is not None:
        body, side = _appended(planted[0]) if planted[1] else _tail(planted[0])
        with tempfile.TemporaryDirectory() as folder:
            _written(Path(folder), body, side)
            read_back(Path(folder))
        return
    document = json.loads(DOCUMENT)
    side = PAPERS
    kind = data.draw(st.sampled_from(["record"] * 3 + ["bytes"]), label="kind")
    if kind == "record":
        # a record as a later round appends it (a new line, the candidate pointed at it), edited
        lines = side.splitlines(keepends=True)
        line = data.draw(st.integers(0, len(lines) - 1), label="line")
        text = Text(json.loads(lines[line]))
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            text.edit(data)
        record = spoiled(data, text.encoded(data))
        if data.draw(st.sampled_from([True] * 9 + [False]), label="line end"):
            record += b"\n"
        key = json.loads(lines[line])["key"]
        next(c for c in document["candidates"] if c["key"] == key)["record_at"] = len(side)
        side += record
        _rehashed(document, side)
    else:
        side = spoiled(data, side, rarely=False)
        if data.draw(st.booleans(), label="rehash"):  # a hostile pair made consistent, or a damaged papers file
            _rehashed(document, side)
    with tempfile.TemporaryDirectory() as folder:
        _written(Path(folder), json.dumps(document).encode(), side)
        read_back(Path(folder))


# ---------------------------------------------------------------- verdict LISTs

def listed_session() -> Session:
    session = session_of(6, batch=3)
    session.candidates["c5"].verdict, session.candidates["c5"].judged_round = "maybe", 1
    session.candidates["c1"].paper.pmid = "4242"
    return session


ITEMS = st.sampled_from(["1", "2", "3", "1-3", "2-3", "c1", "c5", "10.5555/t4", "PMID:4242", "4", "0", "01", "00",
                         "+1", "-1", "1.0", "1e1", "١", "٢", "²", "Ⅳ", "1_0", "3-1", "0-2", "1–3", "1 - 2", "1-02", "١-٣",
                         "1-2-3", "1--2", "-", "–", "1-", "c6", "c7", "c0", "c01", "C1", "c1 c2", "1 2", "c",
                         "doi:10.5555/t2", "https://doi.org/10.5555/t3", "10.5555/T4", "10.9999/nobody", "pmid:0042",
                         "PMID:", "4242", "W1", "arXiv:2101.00001", "CorpusId:1", " ", "\t1\t", "\x00", "\ud800",
                         "1\n2", "x" * 5_000, "9" * 5_000, "\\1", "[1]"]) | st.text(max_size=12)
LISTS = (st.none() | st.lists(ITEMS, min_size=1, max_size=4).flatmap(
    lambda items: st.sampled_from([","] * 6 + [", ", ",,", " ,", "\n"]).map(lambda comma: comma.join(items)))
    | st.text(max_size=30))
SELDOM = st.tuples(st.integers(0, 2), LISTS).map(lambda drawn: drawn[1] if drawn[0] == 2 else None)  # mostly none


@settings(max_examples=int(EXAMPLES or 300), deadline=None)
@given(LISTS, SELDOM, SELDOM, st.sampled_from(["not"] * 8 + ["maybe"] * 6 + ["relevant", "", "NOT"]))
@example("1,,2", None, None, "not")
@example("1", "1", None, "not")
@example("c5", None, None, "not")
@example("1-3", "2", None, "maybe")
@example("9" * 5_000, None, None, "not")  # found: a ValueError (int() reads 4,300 digits at most), exit 1
@example(None, "1-" + "9" * 4_301, None, "not")
def test_a_verdict_list_is_resolved_or_refused_in_one_line_and_changes_nothing(relevant, maybe, rejected, rest):
    session = listed_session()
    before = whole(session)
    lists = {"relevant": relevant, "maybe": maybe, "not": rejected}
    try:
        check_step(session, lists, rest, [], "s.json")  # what `deep next` checks before any request or write
        verdicts = resolve(session, lists, rest)
    except UsageError as error:
        assert error.exit_code == ExitCode.USAGE
        assert len(str(error).splitlines()) == 1, str(error)
        assert whole(session) == before
        told("refused: " + str(error)[:40])
        return
    told("resolved")
    assert whole(session) == before
    assert set(session.batch) <= set(verdicts.given) <= set(session.candidates)
    assert set(verdicts.given.values()) <= set(VERDICTS)
    apply(session, verdicts)
    assert all(session.candidates[key].verdict == verdict for key, verdict in verdicts.given.items())


ANYTHING = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10) | st.binary(max_size=4)
            | st.lists(st.integers(-2, 9) | st.text(max_size=4) | st.floats() | st.none(), max_size=4)
            | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
            | st.tuples(st.integers(0, 9), st.text(max_size=3)) | st.sets(st.integers(0, 9), max_size=3))


@settings(max_examples=int(EXAMPLES or 200), deadline=None)
@given(ANYTHING)
@example(10**5_000)  # found: a ValueError (Python writes out 4,300 digits at most), exit 1
@example([1, -(10**5_000)])
def test_a_verdict_list_from_a_tool_or_the_api_is_text_or_one_usage_error(value):
    session = listed_session()
    before = whole(session)
    try:
        text = given_list(value, "relevant")
    except UsageError as error:
        assert len(str(error).splitlines()) == 1
        return
    assert text is None or isinstance(text, str)
    try:
        resolve(session, {"relevant": text}, "not")
    except UsageError:
        pass
    assert whole(session) == before


# ---------------------------------------------------------------- the command line

DAMAGED = {  # found by the tests above (a cut document aside): each was an internal error, exit 1, or read
    "huge-score": (document_of([(("candidates", 0, "score"), 10**400)]), PAPERS),
    "filter": (document_of([(("filters", "min_citations"), "5")]), PAPERS),
    "surrogate": (document_of([(("topic",), "coral \ud800 reefs")]), PAPERS),
    "evidence": (document_of([(("candidates", 0, "evidence", 0, "provider"), -1)]), PAPERS),
    "inside-a-line": _tail(b"\xff"),
    "cut": (DOCUMENT[: len(DOCUMENT) // 2], PAPERS),
}


def _run(folder: Path, *args: str) -> tuple[int, str, bytes]:
    """lit-search ``args`` in ``folder``: its exit code, stderr (the problem in one line, and for
    a mistyped argument the pointer to --help) and stdout."""
    env = command_env(LITSEARCH_CACHE_DIR=str(folder / "cache"))
    proc = subprocess.run([*lit_search_command(), *args], capture_output=True, env=env, cwd=folder, timeout=120)
    stderr = proc.stderr.decode("utf-8")
    first, *more = stderr.strip().splitlines() or [""]
    assert "Traceback" not in stderr and first.startswith("lit-search deep: "), stderr
    assert more in ([], ["Try 'lit-search deep next --help'."]), stderr
    return proc.returncode, stderr, proc.stdout


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_the_command_line_says_a_damaged_session_in_one_line(tmp_path, name):
    path = _written(tmp_path, *DAMAGED[name])
    before = files(tmp_path)
    for args in (["next", path.name, "--show"], ["results", path.name, "--format", "json"]):
        code, stderr, stdout = _run(tmp_path, "deep", *args)
        assert code == ExitCode.USAGE and stdout == b"" and len(stderr.splitlines()) == 1, (args, code, stderr)
        assert "damaged session" in stderr or "cut short" in stderr, stderr
        assert files(tmp_path) == before


def test_the_command_line_refuses_a_row_of_thousands_of_digits_and_changes_nothing(tmp_path):
    _written(tmp_path, DOCUMENT)
    before = files(tmp_path)
    code, stderr, _ = _run(tmp_path, "deep", "next", "s.json", "--relevant", "9" * 5_000)
    assert code == ExitCode.USAGE and "is not in the batch (rows 1–3)" in stderr, stderr
    assert files(tmp_path) == before


def test_every_filter_a_session_writes_is_one_its_reader_takes(tmp_path):
    """The session's reader checks each filter's type (FILTERS_SHAPE): a filter added to Filters
    and not to it would make every session using it unreadable. With every filter set, the
    session saved reads back with the same filters."""
    from datetime import date

    from litsearch.deep.session import FILTERS_SHAPE

    every = Filters(date_from=date(2001, 1, 1), date_to=date(2020, 12, 31), venue="Reef Science", author="Coral",
                    open_access=True, types=("journal-article",), preprints=False, min_citations=2, max_citations=90,
                    source="S1", institution="I2", topic="T3", publisher="P4", funder="F5", countries=("AU",),
                    continents=("oceania",), resolved={"source": ("S1", "Reef Journal")})
    written = filters_as_dict(every)
    assert set(written) <= set(FILTERS_SHAPE.fields), set(written) - set(FILTERS_SHAPE.fields)
    session = rich_session()
    session.filters = every
    path = tmp_path / "every.json"
    save(path, session)
    assert load(path).filters == every
