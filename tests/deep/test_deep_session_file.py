"""The session on disk (deep/session_file.py, deep/paper_store.py), in-process: the document of
what changes beside an append-only papers file; a save appends only the new and changed records;
a session of version 1 is read and written as version 2; a killed append is never read and is cut
at the next save; a write stopped at any byte leaves the last complete step; a damaged or hostile
papers file is one line naming the problem."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from litsearch.core.errors import InputError
from litsearch.core.filters import Filters
from litsearch.core.records import Paper
from litsearch.deep import paper_store
from litsearch.deep.paper_store import MAX_RECORD_BYTES, papers_path
from litsearch.deep.pool import Pool
from litsearch.deep.session import Options, Round, Session, as_document, as_text
from litsearch.deep.session_file import load, save as save_to
from litsearch.runtime.files import write_file_atomically
from litsearch.deep.verdicts import apply, resolve


def save(path: Path, session: Session) -> None:
    save_to(path, session, write_file_atomically)


def paper(n: int, **fields) -> Paper:
    return Paper(provider="openalex", title=f"Colouring sparse graphs greedily, part {n}", doi=f"10.1000/p{n}",
                 openalex_id=f"W{n}", year=2000 + n, abstract=f"Part {n}: we colour sparse graphs and bound colours.",
                 **fields)


def built(count: int = 6) -> Session:
    session = Session(topic="graph colouring heuristics", variants=[], filters=Filters(), options=Options(batch=3))
    session.rounds.append(Round(1))
    Pool(session).add([(paper(n), {"round": 1, "via": "search", "rank": n}) for n in range(1, count + 1)])
    session.batch = list(session.candidates)[:3]
    return session


def whole(session: Session) -> dict:
    return {**as_document(session), "saved_at": ""}


def lines(path: Path) -> list[bytes]:
    return papers_path(path).read_bytes().splitlines(keepends=True)


def test_papers_file_name_is_beside_the_session():
    assert papers_path("a/review.json") == Path("a/review.papers.jsonl")
    assert papers_path("Review.JSON") == Path("Review.papers.jsonl")


def test_a_save_appends_only_new_and_changed_records_and_reads_back_the_same(tmp_path):
    path = tmp_path / "s.json"
    session = built()
    save(path, session)
    document = json.loads(path.read_text())
    assert document["version"] == 2 and "abstract" not in path.read_text()  # the records are beside it
    assert len(lines(path)) == 6 and whole(load(path)) == whole(session)

    apply(session, resolve(session, {"relevant": "1"}, rest="not"))  # verdicts only: nothing appended
    before = papers_path(path).read_bytes()
    save(path, session)
    assert papers_path(path).read_bytes() == before and whole(load(path)) == whole(session)

    session = load(path)  # a new step reads the file back
    pool = Pool(session)
    pool.add([(paper(7), {"round": 2, "via": "citing"}),  # new
              (replace(paper(2), citation_count=41, abstract=None), {"round": 2, "via": "references"})])  # changes c2
    session.candidates["c3"].terms = {"colour": 9}  # terms changed alone
    session.candidates["c4"].verdict, session.candidates["c4"].judged_round = "maybe", 1  # state only
    save(path, session)
    added = [json.loads(line)["key"] for line in lines(path)[6:]]
    assert sorted(added) == ["c2", "c3", "c7"]
    save(path, session)  # saved again unchanged: the appended records are known as written
    assert len(lines(path)) == 9
    again = load(path)
    assert whole(again) == whole(session)
    assert again.candidates["c2"].paper.citation_count == 41 and again.candidates["c3"].terms == {"colour": 9}

    del again.candidates["c5"]  # set aside: its line is left unused, never read
    size = papers_path(path).stat().st_size
    save(path, again)
    assert papers_path(path).stat().st_size == size and "c5" not in load(path).candidates


def test_lines_the_document_does_not_name_are_never_read(tmp_path):
    path = tmp_path / "s.json"
    save(path, built())
    stranger = json.dumps({"key": "c99", "paper": {"title": "Planted"}, "terms": {}}).encode() + b"\n"
    older = json.dumps({"key": "c1", "paper": {"title": "An older c1"}, "terms": {}}).encode() + b"\n"
    _rewrite(path, lambda document, side: (document, side + stranger + older))
    session = load(path)
    assert "c99" not in session.candidates and session.candidates["c1"].paper.title.startswith("Colouring")


def test_a_killed_append_is_ignored_then_cut(tmp_path):
    path = tmp_path / "s.json"
    session = built()
    save(path, session)
    whole_line = json.dumps({"key": "c50", "paper": {"title": "another process's"}, "terms": {}}).encode() + b"\n"
    with open(papers_path(path), "ab") as side:
        side.write(whole_line + b'{"key":"c2","paper":{"tit')  # a whole uncommitted line, then a cut one
    assert whole(load(path)) == whole(session)
    session = load(path)
    session.candidates["c2"].paper = replace(session.candidates["c2"].paper, citation_count=3)
    save(path, session)
    every = lines(path)
    assert all(line.endswith(b"\n") for line in every) and every[6] == whole_line
    assert [json.loads(line)["key"] for line in every[7:]] == ["c2"]
    assert whole(load(path)) == whole(session)


class Stopped(BaseException):
    """A write stopped where a kill would stop it (raised past every ``except Exception``)."""


@pytest.mark.parametrize("migrating", [False, True])
def test_a_save_stopped_at_any_write_leaves_a_complete_step(tmp_path, monkeypatch, migrating):
    """Every few bytes of the append, every flush and every rename of a save, stopped in turn
    (as a kill stops it): the files read back are the step before or the step after, and the
    next save over what the stop left reads back the same."""
    path = tmp_path / "s.json"
    first = built()
    if migrating:
        path.write_text(as_text(first))  # version 1: this save writes the papers file whole
    else:
        save(path, first)
    pristine = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def restored_step() -> Session:
        for name in [p.name for p in tmp_path.iterdir()]:
            (tmp_path / name).unlink()
        for name, body in pristine.items():
            (tmp_path / name).write_bytes(body)
        step = load(path)
        apply(step, resolve(step, {"relevant": "2"}, rest="not"))
        Pool(step).add([(paper(8), {"round": 2, "via": "citing"}),
                        (replace(paper(1), citation_count=7), {"round": 2, "via": "citing"})])
        return step

    before, after = whole(first), whole(restored_step())
    appended = sum(len(paper_store.record_line(restored_step().candidates[key])) for key in ("c1", "c7"))
    stops = [("pwrite", n) for n in range(0, appended + 1, max(1, appended // 7))] + [("pwrite", appended)]
    stops += [("replace", n) for n in range(1, 4)] + [("fsync", n) for n in range(1, 4)]
    outcomes = set()
    for kind, count in stops:
        step = restored_step()
        _stop_at(monkeypatch, kind, count)
        try:
            save(path, step)
            finished = True
        except Stopped:
            finished = False
        monkeypatch.undo()
        read = whole(load(path))
        assert read in (before, after), (kind, count)
        assert read == after or not finished
        outcomes.add((finished, read == after))
        save(path, load(path))  # the next step saves over whatever the stop left
        assert whole(load(path)) == read and all(line.endswith(b"\n") for line in lines(path))
    assert (False, False) in outcomes  # stopped before the commit
    assert ((False, True) in outcomes) == migrating  # stopped after the whole document, before the papers file


def _stop_at(monkeypatch, kind: str, count: int) -> None:
    calls = [0]
    real = {"pwrite": os.pwrite, "replace": os.replace, "fsync": os.fsync}[kind]

    def stopping(*args):
        calls[0] += 1
        if kind == "pwrite":  # ``count`` bytes of the append reach the file, then the stop
            descriptor, data, at = args
            written = real(descriptor, bytes(data)[: max(0, count - sum(_written))], at)
            _written.append(written)
            if sum(_written) >= count:
                raise Stopped()
            return written
        if calls[0] == count:
            raise Stopped()
        return real(*args)

    _written: list[int] = []
    monkeypatch.setattr(os, kind, stopping)


# ---------------------------------------------------------------- version 1

def test_a_session_of_version_1_is_read_and_saved_as_version_2(tmp_path):
    path = tmp_path / "old.json"
    session = built()
    apply(session, resolve(session, {"relevant": "1,2"}, rest="maybe"))
    path.write_text(as_text(session))
    assert json.loads(path.read_text())["version"] == 1 and not papers_path(path).exists()
    old = load(path)
    assert whole(old) == whole(session)
    save(path, old)
    assert json.loads(path.read_text())["version"] == 2 and len(lines(path)) == 6
    assert whole(load(path)) == whole(session)


def test_a_copied_pair_reads_as_the_original_and_a_lone_document_says_why(tmp_path):
    path = tmp_path / "s.json"
    save(path, built())
    (tmp_path / "copy").mkdir()
    shutil.copy(path, tmp_path / "copy" / "renamed.json")
    shutil.copy(papers_path(path), tmp_path / "copy" / "renamed.papers.jsonl")
    assert whole(load(tmp_path / "copy" / "renamed.json")) == whole(load(path))
    shutil.copy(path, tmp_path / "lone.json")
    with pytest.raises(InputError, match=r"its papers file lone\.papers\.jsonl is missing \(a session is two files"):
        load(tmp_path / "lone.json")


# ---------------------------------------------------------------- damaged and hostile papers files

def _rewrite(path: Path, edit, rehash: bool = True) -> None:
    """``edit(document, side bytes) -> (document, side bytes)``, the header naming the new side
    when ``rehash`` (a hostile pair made consistent), the old one when not (a damaged side)."""
    document = json.loads(path.read_text())
    document, side = edit(document, papers_path(path).read_bytes())
    if rehash:
        document["papers"] = {"bytes": len(side), "sha256": hashlib.sha256(side).hexdigest()}
    path.write_text(json.dumps(document))
    papers_path(path).write_bytes(side)


def _point(key: str, at) -> callable:
    def edit(document, side):
        next(c for c in document["candidates"] if c["key"] == key)["record_at"] = at
        return document, side
    return edit


def _last_line(replacement: bytes):
    def edit(document, side):
        kept = side[: side.rstrip(b"\n").rfind(b"\n") + 1]
        return document, kept + replacement
    return edit


def _shifted(document, side):
    """Every record a line further down (an empty line put first)."""
    for candidate in document["candidates"]:
        candidate["record_at"] += 1
    return document, side


def _record(**changes) -> bytes:
    record = {"key": "c6", "paper": {"title": "T"}, "terms": {"t": 1}}
    record.update(changes)
    return json.dumps(record).encode() + b"\n"


HOSTILE = [
    ("truncated line", _last_line(b'{"key":"c6","paper":{"title":"T"}'), True,
     r"s\.papers\.jsonl line 6: the record is cut short"),
    ("a record of another candidate", _point("c2", 0), True, "line 1 is the record of 'c1', not of candidate 'c2'"),
    ("missing record_at", lambda d, s: (d["candidates"][1].pop("record_at") and d, s), True,
     r"'candidates\[1\]\.record_at' is missing"),
    ("record_at past the end", _point("c2", 10**6), True, "points at byte 1000000, which starts no record"),
    ("record_at inside a line", _point("c2", 3), True, "points at byte 3, which starts no record"),
    ("record_at negative", _point("c2", -1), True, "points at byte -1"),
    ("record_at at the end", lambda d, s: _point("c2", len(s))(d, s), True, "which starts no record of s.papers.jsonl"),
    ("record_at true", _point("c2", True), True, r"'candidates\[1\]\.record_at' should be a whole number"),
    ("oversize line", _last_line(b'{"key":"c6","paper":{"title":"' + b"x" * MAX_RECORD_BYTES + b'"}}\n'), True,
     "line 6: longer than 16 MB"),
    ("not JSON", _last_line(b"{oops}\n"), True, "line 6: not a JSON record"),
    ("an empty line", lambda d, s: _point("c1", 0)(*_shifted(d, b"\n" + s)), True, "line 1: not a JSON record"),
    ("invalid UTF-8", _last_line(b'{"key":"c6","paper":{"title":"\xff"},"terms":{}}\n'), True, "line 6: not a JSON"),
    ("deeply nested", _last_line(b"[" * 100_000 + b"\n"), True, "line 6: not a JSON record"),
    ("a list, not a record", _last_line(b"[1]\n"), True, "line 6: 'record' is not an object"),
    ("paper year as text", _last_line(_record(paper={"title": "T", "year": "1999"})), True,
     r"'record\.paper\.year' should be a whole number or null"),
    ("terms of text", _last_line(_record(terms={"t": "3"})), True, r"'record\.terms\..+' should be a whole number"),
    ("key a number", _last_line(_record(key=6)), True, r"'record\.key' should be text"),
    ("no terms", _last_line(json.dumps({"key": "c6", "paper": {"title": "T"}}).encode() + b"\n"), True,
     r"'record\.terms' is missing"),
    ("oversize authors", _last_line(_record(paper={"title": "T", "authors": ["a"] * 10_001})), True,
     r"'record\.paper\.authors' holds 10,001 entries"),
    ("a byte changed", lambda d, s: (d, s.replace(b"part 1", b"part 9", 1)), False, "does not match the session"),
    ("cut short", lambda d, s: (d, s[:-40]), False, r"holds \d[\d,]* bytes; the session names"),
    ("header too large", lambda d, s: ({**d, "papers": {"bytes": 10**12, "sha256": ""}}, s), False,
     "at most 200 MB are read"),
    ("header missing", lambda d, s: ({k: v for k, v in d.items() if k != "papers"}, s), False, "'papers' is missing"),
    ("header of text", lambda d, s: ({**d, "papers": {"bytes": "9", "sha256": ""}}, s), False,
     r"'papers\.bytes' should be a whole number"),
    ("header without its hash", lambda d, s: ({**d, "papers": {"bytes": len(s)}}, s), False,
     r"'papers\.sha256' is missing"),
    ("a hash of a number", lambda d, s: ({**d, "papers": {"bytes": len(s), "sha256": 5}}, s), False,
     r"'papers\.sha256' should be text"),
    ("negative length", lambda d, s: ({**d, "papers": {"bytes": -1, "sha256": ""}}, s), False,
     "it names -1 bytes of s.papers.jsonl"),
]


@pytest.mark.parametrize("name,edit,rehash,message", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_damaged_or_hostile_papers_file_is_one_line(tmp_path, name, edit, rehash, message):
    path = tmp_path / "s.json"
    save(path, built())
    _rewrite(path, edit, rehash)
    with pytest.raises(InputError, match=message) as caught:
        load(path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}: ")


def test_a_papers_file_that_is_no_file(tmp_path):
    path = tmp_path / "s.json"
    save(path, built())
    papers_path(path).unlink()
    papers_path(path).mkdir()
    with pytest.raises(InputError, match="its papers file s.papers.jsonl is not a regular file"):
        load(path)


def test_unused_lines_that_outweigh_the_live_ones_are_dropped_by_a_whole_write(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    session = built()
    save(path, session)
    monkeypatch.setattr(paper_store, "REWRITE_OVER", 0)
    for count in (1, 2):  # every record changed: once appended (half unused), then the file written whole
        session = load(path)
        for candidate in session.candidates.values():
            candidate.paper = replace(candidate.paper, citation_count=count)
        save(path, session)
        assert len(lines(path)) == (12 if count == 1 else 6)
        assert whole(load(path)) == whole(session)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_two_steps_saving_one_session_in_turn_leave_a_readable_pair(tmp_path):
    """Two steps read the same files (two MCP calls at once); each save leaves the pair whole:
    the last one saved is the session (as when the session was one file)."""
    path = tmp_path / "s.json"
    save(path, built())
    first, second = load(path), load(path)
    Pool(first).add([(paper(20), {"round": 2, "via": "citing"})])
    Pool(second).add([(paper(30), {"round": 2, "via": "citing"})])
    save(path, first)
    save(path, second)  # appends after the first's line, which it keeps (unused)
    assert whole(load(path)) == whole(second) and len(lines(path)) == 8
    third = load(path)
    path.write_text(as_text(first))  # someone wrote the whole session: the next save writes the papers file
    papers_path(path).unlink()
    save(path, third)
    assert whole(load(path)) == whole(third)


def test_a_start_over_a_papers_file_left_alone_replaces_it(tmp_path):
    path = tmp_path / "s.json"
    papers_path(path).write_bytes(b'{"left": "by a killed start"}\n' * 3)
    save(path, built())
    assert len(lines(path)) == 6 and whole(load(path)) == whole(built())


def test_a_record_of_the_longest_length_is_read_and_one_byte_more_is_not(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    session = built()
    save(path, session)
    biggest = max(session.candidates.values(), key=lambda c: len(paper_store.record_line(c)))
    longest = len(paper_store.record_line(biggest)) - 1  # without its line end
    monkeypatch.setattr(paper_store, "MAX_RECORD_BYTES", longest)
    assert whole(load(path)) == whole(session)
    paper_store.record_line(biggest)
    monkeypatch.setattr(paper_store, "MAX_RECORD_BYTES", longest - 1)
    with pytest.raises(InputError, match="line [0-9]: longer than"):
        load(path)
    with pytest.raises(ValueError, match="at most"):  # nor is one written
        paper_store.record_line(biggest)


def test_an_empty_session_round_trips(tmp_path):
    path = tmp_path / "s.json"
    session = built(0)
    save(path, session)
    assert papers_path(path).read_bytes() == b"" and whole(load(path)) == whole(session)


def test_unused_lines_are_dropped_only_once_they_outweigh_the_live_ones(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    save(path, built())

    def change(keys, count):
        session = load(path)
        for key in keys:
            session.candidates[key].paper = replace(session.candidates[key].paper, citation_count=count)
        save(path, session)
        assert whole(load(path)) == whole(session)
        return len(lines(path))

    assert change(["c1", "c2", "c3"], 1) == 9 and change(["c4", "c5", "c6"], 1) == 12  # unused < 1 MB: kept
    monkeypatch.setattr(paper_store, "REWRITE_OVER", 0)
    assert change(["c1", "c2", "c3"], 2) == 6  # unused outweigh the live ones: written whole
    assert change(["c1", "c2", "c3"], 3) == 9  # 3 unused lines, 6 live: kept
    assert change(["c1", "c2", "c3"], 4) == 12  # as many bytes unused as live (the same lengths): kept
    assert change(["c4"], 5) == 6  # one more: written whole


def test_a_papers_file_replaced_under_a_step_is_written_whole_by_its_save(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    save(path, built())
    mine, theirs = load(path), load(path)
    monkeypatch.setattr(paper_store, "REWRITE_OVER", 0)
    for candidate in theirs.candidates.values():
        candidate.paper = replace(candidate.paper, citation_count=5)
    save(path, theirs)
    for candidate in theirs.candidates.values():
        candidate.paper = replace(candidate.paper, citation_count=6)
    save(path, theirs)  # the papers file is now another file, its lines elsewhere
    Pool(mine).add([(paper(9), {"round": 2, "via": "citing"})])
    save(path, mine)
    assert whole(load(path)) == whole(mine)


def test_short_writes_are_written_on_from_where_they_stopped(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    save(path, built())
    session = load(path)
    Pool(session).add([(paper(n), {"round": 2, "via": "citing"}) for n in (11, 12, 13)])
    pwrite = os.pwrite
    monkeypatch.setattr(os, "pwrite", lambda fd, data, at: pwrite(fd, bytes(data)[:7], at))
    save(path, session)
    monkeypatch.undo()
    assert whole(load(path)) == whole(session)


def test_no_descriptor_is_left_open(tmp_path):
    path = tmp_path / "s.json"
    folder = Path("/proc/self/fd")
    if not folder.is_dir():
        pytest.skip("needs /proc")
    before = len(list(folder.iterdir()))
    session = built()
    save(path, session)
    session = load(path)
    Pool(session).add([(paper(9), {"round": 2, "via": "citing"})])
    save(path, session)
    load(path)
    assert len(list(folder.iterdir())) == before


def test_a_save_holds_the_folder_for_itself_and_reads_share_it(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    other = os.open(tmp_path, os.O_RDONLY)
    try:
        with paper_store.locked(tmp_path, exclusive=True):
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)
        with paper_store.locked(tmp_path, exclusive=False):
            fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)
            fcntl.flock(other, fcntl.LOCK_UN)
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released
    finally:
        os.close(other)


def test_a_papers_file_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "s.json"
    save(path, built())
    papers_path(path).unlink()
    os.mkfifo(papers_path(path))
    with pytest.raises(InputError, match="is not a regular file"):
        load(path)


def full() -> Session:
    """A session with a value other than the default in every field the document holds."""
    session = built()
    session.variants, session.queries, session.created_at = ["greedy colouring"], ["q1", "q2"], "2026-01-02T03:04:05Z"
    session.filters = Filters(venue="Graphs", min_citations=2)
    session.done, session.stop_reason, session.batch = True, "saturated", []
    session.search_providers, session.asked_ids = ["openalex"], ["W77"]
    session.pending_queries, session.recommended_with = ["later"], "c1,c2"
    session.rounds[0].actions, session.rounds[0].notes, session.rounds[0].stop_check = ["asked"], ["n"], "said"
    session.rounds[0].requests = {"openalex": 3}
    for n, candidate in enumerate(session.candidates.values()):
        candidate.verdict, candidate.judged_round, candidate.shown_round = "maybe", 1, 1
        candidate.score, candidate.log_odds = 0.123456789 + n, -1.23456789 - n
        candidate.why, candidate.chased, candidate.refs = f"why {n}", ["links:openalex"], [f"W{n}0"]
    return session


def test_every_field_of_the_document_reads_back(tmp_path):
    path = tmp_path / "s.json"
    session = full()
    save(path, session)
    again = load(path)
    assert whole(again) == whole(session) and again.created_at == session.created_at
    for candidate in again.candidates.values():  # stored rounded, as in a whole document
        original = session.candidates[candidate.key]
        assert candidate.score == round(original.score, 6) and candidate.log_odds == round(original.log_odds, 4)
        assert (candidate.why, candidate.chased, candidate.refs) == (original.why, original.chased, original.refs)
    document = json.loads(path.read_text())
    assert document["tool"]["name"] == "lit-search" and document["saved_at"].endswith("Z")


DAMAGED_DOCUMENT = [
    (lambda d: d.update(kind="search"), "not a lit-search deep-search session"),
    (lambda d: d.update(version=3), "a session of version 3; this lit-search reads versions 1 and 2"),
    (lambda d: d["candidates"][0].update(score="high"), r"'candidates\[0\]\.score' should be"),
    (lambda d: d["candidates"][0].update(why=5), r"'candidates\[0\]\.why' should be text"),
    (lambda d: d["candidates"][0].update(evidence={}), r"'candidates\[0\]\.evidence' is not a list"),
    (lambda d: d["candidates"][0].update(verdict="yes"), "has verdict 'yes'"),
    (lambda d: d.update(candidates=d["candidates"] * 2), "appears twice"),
    (lambda d: d.update(batch=["c99"]), "the batch names unknown candidate 'c99'"),
]


@pytest.mark.parametrize("edit,message", DAMAGED_DOCUMENT)
def test_a_damaged_document_is_one_line(tmp_path, edit, message):
    path = tmp_path / "s.json"
    save(path, built())
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match=message) as caught:
        load(path)
    assert "\n" not in str(caught.value)


def test_a_save_holds_the_folder_while_it_writes_and_removes_a_killed_saves_temporaries(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    path = tmp_path / "s.json"
    left = [tmp_path / ".s.json.x1.tmp", tmp_path / ".s.papers.jsonl.x2.tmp"]
    kept = [tmp_path / ".other.json.x3.tmp", tmp_path / ".s.json.x4.keep", tmp_path / "s.json.x5.tmp"]
    for name in left + kept:
        name.write_text("")
    held = []

    def writing(target, text):
        probe = os.open(tmp_path, os.O_RDONLY)
        try:
            fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(probe)
        write_file_atomically(target, text)

    save_to(path, built(), writing)
    assert held and all(held)
    assert not any(name.exists() for name in left) and all(name.exists() for name in kept)


def test_reading_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    import gc

    path = tmp_path / "s.json"
    save(path, built())
    load(path)
    assert gc.isenabled()
    gc.disable()
    try:
        load(path)
        assert not gc.isenabled()
    finally:
        gc.enable()
