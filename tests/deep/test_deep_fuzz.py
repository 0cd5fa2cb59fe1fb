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
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from built_sessions import paper, session_of  # noqa: E402
from command import command_env, lit_search_command  # noqa: E402

from litsearch.core.errors import ExitCode, UsageError  # noqa: E402
from litsearch.core.filters import Filters  # noqa: E402
from litsearch.core.records import Paper  # noqa: E402
from litsearch.deep.paper_store import papers_path  # noqa: E402
from litsearch.deep.pool import Pool  # noqa: E402
from litsearch.deep.session import VERDICTS, Round, Session, as_document  # noqa: E402
from litsearch.deep.session_file import load, save as save_to  # noqa: E402
from litsearch.deep.steps import given_list  # noqa: E402
from litsearch.deep.verdicts import apply, resolve  # noqa: E402
from litsearch.runtime.files import write_file_atomically  # noqa: E402

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
    from litsearch.deep.verdicts import recount
    recount(session)
    return session


def _pristine() -> tuple[bytes, bytes]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.json"
        save(path, rich_session())
        load(path)  # the base must itself be a session the loader accepts
        return path.read_bytes(), papers_path(path).read_bytes()


DOCUMENT, PAPERS = _pristine()


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
        path = data.draw(st.sampled_from(_nodes(self.document)), label="path")
        parent = _at(self.document, path[:-1]) if path else None
        kinds = ["replace", "add"] + (["delete"] if path else []) + (["twice"] if isinstance(parent, dict) else [])
        kind = data.draw(st.sampled_from(kinds), label="edit")
        if kind == "replace":
            self.document = _put(self.document, path, self.value(data.draw(VALUES, label="value")))
        elif kind == "delete":
            del parent[path[-1]]
        elif kind == "add":  # a key nobody knows, beside the others (or in place of a scalar)
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
        return (b"\xef\xbb\xbf" if data.draw(st.booleans(), label="BOM") else b"") + body


def spoiled(data: st.DataObject, body: bytes) -> bytes:
    """``body`` cut at any byte, with bytes put in, or one byte changed; or as it is."""
    kind = data.draw(st.sampled_from(["none", "cut", "insert", "change"]), label="bytes")
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
        return None
    assert files(folder) == before  # reading writes nothing
    save(path, session)
    again = load(path)
    assert whole(again) == whole(session)
    shown(again)
    taken_on(path, again)
    return session


def shown(session: Session) -> None:
    """What `deep next --show` and `deep results --format json` make of the session, written as
    UTF-8 (what reaches the terminal or the file)."""
    from litsearch.deep.results import as_search_result
    from litsearch.render.deep import results_json, step_payload, step_text
    from litsearch.core.sanitize import json_text

    json_text(step_payload(session, "s.json")).encode("utf-8")
    step_text(session, "s.json", width=100).encode("utf-8")
    result = as_search_result(session, include_unjudged=True, include_rejected=True)
    json_text(results_json(result, session, "s.json")).encode("utf-8")


def taken_on(path: Path, session: Session) -> None:
    """The state read is one a step can leave: the batch judged, a new paper added under the next
    key, the whole saved and read back the same."""
    if not session.done and session.rounds:
        apply(session, resolve(session, {}, rest="not"))
    number = session.next_number
    Pool(session).add([(Paper(provider="openalex", title=f"A new paper on coral bleaching, number {number}",
                              doi=f"10.9999/new{number}"), {"round": max(1, session.round), "via": "search"})])
    save(path, session)
    assert whole(load(path)) == whole(session)


def _written(folder: Path, document: bytes, side: bytes = PAPERS) -> Path:
    (folder / "s.json").write_bytes(document)
    (folder / "s.papers.jsonl").write_bytes(side)
    return folder / "s.json"


# ---------------------------------------------------------------- the document

def document_of(edits: list[tuple[tuple, Any]]) -> bytes:
    """The pristine document with each (path, value) put in (for the examples below)."""
    text = Text(json.loads(DOCUMENT))
    for path, value in edits:
        text.document = _put(text.document, path, text.value(value))
    body = json.dumps(text.document)
    for name, raw in text.raw.items():
        body = body.replace(name, raw)
    return body.encode("utf-8", "surrogatepass")


@FUZZ
@given(st.data())
def test_an_edited_document_reads_as_a_session_or_one_line(data):
    text = Text(json.loads(DOCUMENT))
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        text.edit(data)
    body = spoiled(data, text.encoded(data))
    with tempfile.TemporaryDirectory() as folder:
        _written(Path(folder), body)
        read_back(Path(folder))


@pytest.mark.parametrize("edits", [
    [(("candidates", 0, "score"), 10**400)],  # a score too large for a float
    [(("candidates", 5, "log_odds"), -(10**400))],
    [(("topic",), "coral \ud800 reefs")],  # a lone surrogate: read, it could never be saved
    [(("candidates", 4, "why"), Raw('"\\udfff"'))],
    [(("filters", "venue"), "\udc80")],
    [(("candidates", 0, "evidence", 0, "via\ud800"), 1)],
    [(("next_number",), -3), (("candidates",), []), (("batch",), [])],  # the next paper would be c-3
    [(("next_number",), 0), (("candidates",), []), (("batch",), [])],
])
def test_found_documents(tmp_path, edits):
    _written(tmp_path, document_of(edits))
    read_back(tmp_path)


# ---------------------------------------------------------------- the papers file

def _rehashed(document: dict, side: bytes) -> dict:
    document["papers"] = {"bytes": len(side), "sha256": hashlib.sha256(side).hexdigest()}
    return document


@FUZZ
@given(st.data())
def test_an_edited_papers_file_reads_as_a_session_or_one_line(data):
    document = json.loads(DOCUMENT)
    side = PAPERS
    kind = data.draw(st.sampled_from(["record", "bytes"]), label="kind")
    if kind == "record":
        # a record as a later round appends it (a new line, the candidate pointed at it), edited
        lines = side.splitlines(keepends=True)
        line = data.draw(st.integers(0, len(lines) - 1), label="line")
        text = Text(json.loads(lines[line]))
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            text.edit(data)
        record = spoiled(data, text.encoded(data))
        if data.draw(st.booleans(), label="line end"):
            record += b"\n"
        key = json.loads(lines[line])["key"]
        next(c for c in document["candidates"] if c["key"] == key)["record_at"] = len(side)
        side += record
        _rehashed(document, side)
    else:
        side = spoiled(data, side)
        if data.draw(st.booleans(), label="rehash"):  # a hostile pair made consistent, or a damaged papers file
            _rehashed(document, side)
    with tempfile.TemporaryDirectory() as folder:
        _written(Path(folder), json.dumps(document).encode(), side)
        read_back(Path(folder))


def _appended(record: bytes) -> tuple[bytes, bytes]:
    """The pristine pair with ``record`` appended as c1's record."""
    document = json.loads(DOCUMENT)
    document["candidates"][0]["record_at"] = len(PAPERS)
    side = PAPERS + record
    return json.dumps(_rehashed(document, side)).encode(), side


@pytest.mark.parametrize("record", [
    b'{"key":"c1","paper":{"title":"\xed\xa0\x80"},"terms":{}}\n',  # a surrogate written raw: not UTF-8
    b'{"key":"c1","paper":{"title":"coral \\ud800"},"terms":{}}\n',  # nor as an escape
    b'{"key":"c1","paper":{"title":"T","authors":["\\udfff"]},"terms":{}}\n',
    b'{"key":"c1","paper":{"title":"T"},"terms":{"\\ud800":1}}\n',
    b'{"key":"c1","paper":{"title":"T","score":1e999},"terms":{}}\n',
    b'{"key":"c1","paper":{"title":"T","year":' + b"9" * 400 + b"},\"terms\":{}}\n",
])
def test_found_papers_files(tmp_path, record):
    _written(tmp_path, *_appended(record))
    read_back(tmp_path)


# ---------------------------------------------------------------- verdict LISTs

def listed_session() -> Session:
    session = session_of(6, batch=3)
    session.candidates["c5"].verdict, session.candidates["c5"].judged_round = "maybe", 1
    session.candidates["c1"].paper.pmid = "4242"
    return session


ITEMS = st.sampled_from(["0", "1", "2", "3", "4", "01", "00", "+1", "-1", "1.0", "1e1", "١", "٢", "²", "Ⅳ", "1_0",
                         "2-3", "1-3", "3-1", "0-2", "1–3", "1 - 2", "1-02", "١-٣", "1-2-3", "1--2", "-", "–", "1-",
                         "c1", "c5", "c6", "c7", "c0", "c01", "C1", "c1 c2", "1 2", "c", "10.5555/t1", "doi:10.5555/t2",
                         "https://doi.org/10.5555/t3", "10.5555/T4", "10.9999/nobody", "PMID:4242", "pmid:0042",
                         "PMID:", "4242", "W1", "arXiv:2101.00001", "CorpusId:1", " ", "\t1\t", "\x00", "\ud800",
                         "1\n2", "x" * 5_000, "\\1", "[1]"]) | st.text(max_size=12)
LISTS = (st.lists(ITEMS, max_size=5).flatmap(lambda items: st.sampled_from([",", ", ", ",,", " ,", "\n"]).map(
    lambda comma: comma.join(items))) | st.text(max_size=30) | st.none())


@settings(max_examples=300, deadline=None)
@given(LISTS, LISTS, LISTS, st.sampled_from(["not", "maybe", "relevant", "", "NOT"]))
@example("1,,2", None, None, "not")
@example("1", "1", None, "not")
@example("c5", None, None, "not")
@example("1-3", "2", None, "maybe")
def test_a_verdict_list_is_resolved_or_refused_in_one_line_and_changes_nothing(relevant, maybe, rejected, rest):
    session = listed_session()
    before = whole(session)
    try:
        verdicts = resolve(session, {"relevant": relevant, "maybe": maybe, "not": rejected}, rest)
    except UsageError as error:
        assert error.exit_code == ExitCode.USAGE
        assert len(str(error).splitlines()) == 1, str(error)
        assert whole(session) == before
        return
    assert whole(session) == before
    assert set(session.batch) <= set(verdicts.given) <= set(session.candidates)
    assert set(verdicts.given.values()) <= set(VERDICTS)
    apply(session, verdicts)
    assert all(session.candidates[key].verdict == verdict for key, verdict in verdicts.given.items())


ANYTHING = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10) | st.binary(max_size=4)
            | st.lists(st.integers(-2, 9) | st.text(max_size=4) | st.floats() | st.none(), max_size=4)
            | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
            | st.tuples(st.integers(0, 9), st.text(max_size=3)) | st.sets(st.integers(0, 9), max_size=3))


@settings(max_examples=200, deadline=None)
@given(ANYTHING)
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

DAMAGED = {
    "huge-score": document_of([(("candidates", 0, "score"), 10**400)]),
    "surrogate": document_of([(("topic",), "coral \ud800 reefs")]),
    "cut": DOCUMENT[: len(DOCUMENT) // 2],
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_the_command_line_says_a_damaged_session_in_one_line(tmp_path, name):
    path = _written(tmp_path, DAMAGED[name])
    before = files(tmp_path)
    env = command_env(LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    for args in (["deep", "next", path.name, "--show"], ["deep", "results", path.name, "--format", "json"]):
        proc = subprocess.run([*lit_search_command(), *args], capture_output=True, env=env, cwd=tmp_path, timeout=120)
        stderr = proc.stderr.decode("utf-8")
        assert "Traceback" not in stderr and proc.returncode == ExitCode.USAGE, (args, proc.returncode, stderr)
        assert len(stderr.strip().splitlines()) == 1, stderr
        assert "damaged session" in stderr or "cut short" in stderr, stderr
        assert proc.stdout == b""
        assert files(tmp_path) == before
