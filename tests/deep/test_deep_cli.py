"""`lit-search deep start|next|results` and `lit-search report` on a session, run as a user runs
them, against the fake providers serving the small world: the contract's names, JSON fields and
exit codes; bad lists and damaged files changing nothing; a `deep next` killed at any moment."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from command import command_env, command_runner, lit_search_command  # noqa: E402
from deep_world import World  # noqa: E402
from small_world import small_world  # noqa: E402

from litsearch.deep.session import as_document, as_text  # noqa: E402
from litsearch.deep.session_file import load  # noqa: E402

BATCH_FIELDS = {"row", "doi", "pmid", "arxiv_id", "openalex_id", "paper_id", "title", "abstract", "year", "venue",
                "why"}
STEP_FIELDS = {"session", "round", "done", "stop_reason", "judged", "relevant", "batch", "yield", "requests"}


@pytest.fixture(scope="module")
def world():
    with World(small_world(), share=1.0) as served:
        yield served


@pytest.fixture
def run(world, tmp_path):
    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    return command_runner(env, tmp_path, prefix=["deep"], timeout=300)


def whole(path: Path) -> dict:
    """The session at ``path`` (its document and papers file, read and checked) as one document."""
    document = as_document(load(path))
    document.pop("saved_at")
    return document


def start(run, name="review.json", *extra: str) -> dict:
    out = run(["start", "coral reef bleaching", "--session", name, "--batch", "3", "--format", "json", "-q", *extra])
    return json.loads(out.stdout)


def test_start_next_results_report_through_the_contract(run, tmp_path, world):
    step = start(run)
    assert STEP_FIELDS <= set(step) and step["session"] == "review.json"
    assert step["round"] == 1 and step["done"] is False and step["stop_reason"] is None
    assert [row["row"] for row in step["batch"]] == [1, 2, 3]
    assert all(BATCH_FIELDS <= set(row) for row in step["batch"])
    assert step["yield"][0]["round"] == 1 and step["yield"][0]["new_candidates"] > 3
    first = [row["doi"] for row in step["batch"]]

    step = json.loads(run(["next", "review.json", "--relevant", "1", "--maybe", f"doi:{first[1]}",
                           "--variant", "zooxanthellae", "--format", "json", "-q"]).stdout)
    assert step["round"] == 2 and step["judged"] == 3 and step["relevant"] == 1
    assert step["yield"][0] == {**step["yield"][0], "judged": 3, "relevant": 1}
    assert not {row["doi"] for row in step["batch"]} & set(first)  # a judged paper is never shown again
    assert sum(step["requests"].values()) == sum(entry["requests"] for entry in step["yield"])
    document = whole(tmp_path / "review.json")
    assert [c["verdict"] for c in document["candidates"] if c["paper"].get("doi") in first] == \
        ["relevant", "maybe", "not"]
    assert "zooxanthellae" in document["queries"]  # the judge's query was searched in round 2

    markdown = run(["next", "review.json", "--relevant", "1,2", "--rest", "maybe"]).stdout
    assert markdown.startswith("## Deep search: coral reef bleaching") and "Round 3:" in markdown
    assert "quoted from the sources" in markdown and "Found by" in markdown
    assert "Judged so far: 6 (relevant 3, maybe 2, not 1)" in markdown  # every verdict counted

    results = run(["results", "review.json", "--format", "json"]).stdout
    papers = json.loads(results)["results"]
    verdicts = [paper["verdict"] for paper in papers]
    assert verdicts == sorted(verdicts, key=["relevant", "maybe"].index) and verdicts.count("relevant") == 3
    every = json.loads(run(["results", "review.json", "--format", "json", "--all"]).stdout)["results"]
    assert len(every) > len(papers) and every[len(papers)]["verdict"] is None
    assert all(paper["why"] for paper in every)  # explained when shown, never shown or not
    saved = whole(tmp_path / "review.json")["candidates"]
    assert all(c["why"] for c in saved if c["shown_round"]) and not any(c["why"] for c in saved if not c["shown_round"])
    table = run(["results", "review.json", "--all", "--format", "markdown"]).stdout
    marks = re.findall(r"\*\*(relevant|maybe|not judged)\*\* ·", table)
    assert marks[:len(papers)] == verdicts and set(marks[len(papers):]) == {"not judged"}
    assert len(marks) == len(every)
    assert "6 papers judged (3 relevant, 2 maybe, 1 not relevant) over 3 rounds" in table
    run(["results", "review.json", "-o", str(tmp_path / "included.bib")])
    assert (tmp_path / "included.bib").read_text().count("@") == len(papers)
    # --rejected: the papers judged not relevant, last (after the unjudged with --all), for a PRISMA flow
    rejected = json.loads(run(["results", "review.json", "--format", "json", "--rejected"]).stdout)
    nots = [c for c in saved if c["verdict"] == "not"]
    assert nots and [paper["verdict"] for paper in rejected["results"]] == verdicts + ["not"] * len(nots)
    assert {paper["session_key"] for paper in rejected["results"][len(papers):]} == {c["key"] for c in nots}
    both = json.loads(run(["results", "review.json", "--format", "json", "--all", "--rejected"]).stdout)["results"]
    assert [paper["session_key"] for paper in both] == [paper["session_key"] for paper in every] + \
        [paper["session_key"] for paper in rejected["results"][len(papers):]]
    run(["results", "review.json", "--rejected", "-o", str(tmp_path / "screened.ris")])
    assert (tmp_path / "screened.ris").read_text().count("KW  - lit-search verdict: not relevant") == len(nots)
    # the session's providers, not the listing's none; the listing's own time stays 0 (docs/deep.md)
    listed = json.loads(results)
    assert listed["providers_searched"] and set(listed["requests"]) <= set(listed["providers_searched"])
    assert listed["providers_searched"][0] in whole(tmp_path / "review.json")["search_providers"]
    assert listed["search_time_ms"] == 0

    report = command_runner(command_env(world.env), tmp_path)(["report", "review.json"]).stdout
    assert report.startswith("## Methods: deep search") and "| 3 |" in report and "still open" in report
    assert "6 papers were judged (3 relevant, 2 maybe, 1 not relevant)" in report
    assert not re.search(r"\bc\d+\b", report)  # the session's keys are its own: papers are named by title
    assert "No limits or filters were applied." in report and listed["filters"] == []


def test_the_methods_and_results_say_the_sessions_filters(run, tmp_path, world):
    """A review's methods must say its limits: the session keeps them for every round, and the
    report and the results' JSON name them (they said only "N records left out by the filters")."""
    start(run, "limited.json", "--year", "2015-", "--type", "article")
    report = command_runner(command_env(world.env), tmp_path)(["report", "limited.json"]).stdout
    assert "Limits and filters, kept in every round: year 2015–; type article." in report
    listed = json.loads(run(["results", "limited.json", "--all", "--format", "json"]).stdout)
    assert listed["filters"] == ["year 2015–", "type article"]


def test_the_report_is_written_to_a_file_with_o(run, tmp_path, world):
    """`report FILE -o OUT`, as `deep results` has it: the format from OUT's extension (or
    --format), the file replaced whole, one line saying so; a bad target refused before reading."""
    start(run, "methods.json")
    report = command_runner(command_env(world.env), tmp_path)
    said = report(["report", "methods.json", "-o", "methods.md"]).stdout
    assert said == "Wrote the report to methods.md.\n"
    assert (tmp_path / "methods.md").read_text() == report(["report", "methods.json"]).stdout
    report(["report", "methods.json", "-o", "methods.txt", "--format", "json"])
    assert json.loads((tmp_path / "methods.txt").read_text())["kind"] == "deep-search session"
    refused = report(["report", "methods.json", "-o", "methods.bib"], code=2).stderr
    assert "unknown extension" in refused and ".md" in refused and not (tmp_path / "methods.bib").exists()
    assert "writes a file" in report(["report", "methods.json", "-o", "x.md", "--format", "table"], code=2).stderr


def test_the_report_of_a_session_in_the_terminal_view(run, tmp_path, world):
    """`report --format table` on a session: the methods wrapped to the terminal, each round a
    block of its own (no Markdown table), every request of a round still there."""
    start(run, "view.json")
    run(["next", "view.json", "--relevant", "1", "-q"])
    env = command_env(world.env, COLUMNS="64")
    view = command_runner(env, tmp_path)(["report", "view.json", "--format", "table"]).stdout
    markdown = command_runner(env, tmp_path)(["report", "view.json"]).stdout
    lines = view.splitlines()
    assert lines[0] == "Methods: deep search" and "Rounds" in lines and "|---" not in view
    assert max(len(line) for line in lines) <= 64
    words = " ".join(view.split())  # a round's line wraps with its continuation indented
    assert "Round 1: 3 judged, 1 relevant, 0 maybe;" in words
    assert re.search(r"Round 2: 0 judged, 0 relevant, 0 maybe; [\d,]+ new candidates?; [\d,]+ requests?", words)
    block = next(n for n, line in enumerate(lines) if line.startswith("Round 2: "))
    assert lines[block + 1].startswith("    ") or lines[block + 1].startswith("  asked: ")
    assert "3 papers were judged (1 relevant, 0 maybe, 2 not relevant)" in " ".join(view.split())
    # every request a round sent, as the Markdown lists it: the same words, wrapped
    asked = re.findall(r"^\| 2 \|.*\| ([^|]+) \|$", markdown, re.M)[0]
    assert " ".join(asked.split()).replace("\\", "") in " ".join(" ".join(view.split()).split("asked: ")[2:])


def test_exit_codes_and_bad_lists_change_nothing(run, tmp_path):
    start(run)
    session = tmp_path / "review.json"
    before = session.read_bytes()
    for flags, words in ((["--relevant", "0"], "row 0 is not in the batch"),
                         (["--maybe", "4"], "row 4 is not in the batch (rows 1–3); a PMID is written PMID:4"),
                         (["--not", "PMID:999999"], "is not a paper of this session"),
                         (["--relevant", "1", "--not", "1"], "named in both --relevant and --not"),
                         (["--relevant", "what"], "unrecognised paper id"),
                         (["--rest", "relevant"], "invalid choice")):
        out = run(["next", "review.json", *flags], code=2)
        assert words in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr
        assert session.read_bytes() == before
    assert "already exists" in run(["start", "topic", "--session", "review.json"], code=2).stderr
    assert "ends in .json" in run(["start", "topic", "--session", "review.txt"], code=2).stderr
    assert "between 1 and 100" in run(["start", "topic", "--session", "new.json", "--batch", "0"], code=2).stderr
    assert not (tmp_path / "new.json").exists()
    (tmp_path / "damaged.json").write_text('{"kind": "deep-search session", "version": 1, "topic": 5}')
    assert "damaged session" in run(["next", "damaged.json"], code=2).stderr
    assert "no such file" in run(["next", "missing.json"], code=2).stderr
    (tmp_path / "record.json").write_text('{"record_version": 1}')
    assert "not a lit-search deep-search session" in run(["results", "record.json"], code=2).stderr


def test_a_complete_session_shows_its_stop_and_refuses_verdicts(run, tmp_path):
    first = start(run, "small.json", "--max-judged", "2")  # a budget below the batch (3) cuts the batch
    assert len(first["batch"]) == 2
    step = json.loads(run(["next", "small.json", "--relevant", "1", "--format", "json"]).stdout)
    assert step["done"] is True and step["stop_reason"] == "budget" and step["batch"] == []
    assert step["judged"] == 2 and "2 papers judged: the limit set by --max-judged (2)" in step["stop_check"]
    again = json.loads(run(["next", "small.json", "--format", "json"]).stdout)
    assert again == step
    assert "this session is complete (budget)" in run(["next", "small.json", "--relevant", "1"], code=2).stderr
    assert "The search is complete: budget" in run(["next", "small.json"]).stdout


def test_a_next_killed_at_any_moment_keeps_every_verdict(world, tmp_path):
    """kill -9 during `deep next`: the file is the step before or the step after, or the verdicts
    with the round still owed, which the next call runs; never a partial file or a lost verdict."""
    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    run = command_runner(env, tmp_path, prefix=["deep"], timeout=300)
    session = tmp_path / "review.json"
    start(run)
    for delay in (0.0, 0.4, 0.8, 1.5, 3.0):
        before = whole(session)
        batch = list(before["batch"])
        process = subprocess.Popen([*lit_search_command(), "deep", "next", "review.json", "--relevant", "1", "-q"],
                                   cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        after = whole(session)  # read and checked: never a partial file
        verdicts = {c["key"]: c["verdict"] for c in after["candidates"]}
        if after["batch"] == batch:  # killed before the verdicts were written
            assert after == before
            run(["next", "review.json", "--relevant", "1", "-q"])
        else:
            assert verdicts[batch[0]] == "relevant" and all(verdicts[key] == "not" for key in batch[1:])
            if not after["batch"] and not after["done"]:  # killed during the round: it is owed
                owed = json.loads(run(["next", "review.json", "--format", "json", "-q"]).stdout)
                assert owed["batch"] and owed["round"] == len(after["rounds"]) + 1
        # no temporary left; a step killed while it held the session leaves its lock file, which the
        # next step takes over (tests/deep/test_step_lock.py)
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".review.") and p.name.endswith(".tmp")]
    final = whole(session)
    assert sum(1 for c in final["candidates"] if c["verdict"] == "relevant") == 5


# A `deep next` that signals itself (SIGKILL, or SIGTERM) at a counted point of its writes:
# before or after its ``count``-th rename, or in the papers file's append: SIGKILL after
# ``count`` bytes of it (a kill cuts a write short), SIGTERM after the whole of it (a signal
# Python handles never does: the system call finishes or is retried, then the handler runs).
STOPPED_AT = """
import os, signal, sys
from litsearch.deep import paper_store
name, where, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def stop():
    os.kill(os.getpid(), getattr(signal, name))
if where == "append":
    whole = paper_store._write_all
    def cut(descriptor, at, blob):
        whole(descriptor, at, blob[:count] if name == "SIGKILL" else blob)
        stop()
    paper_store._write_all = cut
else:
    rename, seen = os.replace, []
    def counted(*args):
        seen.append(args)
        if len(seen) == count and where == "before-rename":
            stop()
        rename(*args)
        if len(seen) == count and where == "after-rename":
            stop()
    os.replace = counted
from litsearch.cli import main
sys.exit(main(sys.argv[4:]))
"""


@pytest.mark.parametrize("where,count,state", [
    ("before-rename", 1, "before"),  # the verdicts' document not yet in place
    ("after-rename", 1, "owed"),  # the verdicts saved, the round not run
    ("append", 0, "owed"), ("append", 700, "owed"), ("append", 10**9, "owed"),  # the round's records, cut anywhere
    ("before-rename", 2, "owed"),  # the records appended and flushed, the document not replaced
    ("after-rename", 2, "after"),
])
def test_a_next_killed_during_the_append_or_the_rename_keeps_the_last_step(world, tmp_path, where, count, state):
    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    run = command_runner(env, tmp_path, prefix=["deep"], timeout=300)
    session = tmp_path / "review.json"
    start(run)
    before = whole(session)
    killed = subprocess.run([sys.executable, "-c", STOPPED_AT, "SIGKILL", where, str(count), "deep", "next",
                             "review.json", "--relevant", "1", "-q"], cwd=tmp_path, env=env, capture_output=True,
                            timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    after = whole(session)  # read and checked
    verdicts = {c["key"]: c["verdict"] for c in after["candidates"]}
    if state == "before":
        assert after == before
    else:
        assert verdicts[before["batch"][0]] == "relevant" and all(verdicts[k] == "not" for k in before["batch"][1:])
        assert (after["batch"] == [] and len(after["rounds"]) == 1) == (state == "owed")
    step = json.loads(run(["next", "review.json", "--format", "json", "-q",
                           *(["--relevant", "1"] if state == "before" else [])]).stdout)
    assert step["round"] == (3 if state == "after" else 2) and step["batch"] and step["relevant"] == 1
    papers = (tmp_path / "review.papers.jsonl").read_bytes()
    assert papers.endswith(b"\n") and all(json.loads(line) for line in papers.splitlines())  # a cut line is gone
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".review.")]


@pytest.mark.parametrize("where,count", [("before-rename", 1), ("after-rename", 1), ("append", 0),
                                         ("before-rename", 2), ("after-rename", 2)])
def test_a_next_stopped_by_sigterm_keeps_a_complete_step_and_says_where_it_stands(world, tmp_path, where, count):
    """SIGTERM (a `timeout`, a cancelled job) at any point of a step's writes unwinds it as Ctrl-C
    does: one line saying where the session stands, exit 143, the session at a complete step
    (the verdicts either not yet recorded or every one kept), and no temporary file left (a kill
    -9 leaves them to the next save)."""
    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    run = command_runner(env, tmp_path, prefix=["deep"], timeout=300)
    session = tmp_path / "review.json"
    start(run)
    before = whole(session)
    stopped = subprocess.run([sys.executable, "-c", STOPPED_AT, "SIGTERM", where, str(count), "deep", "next",
                              "review.json", "--relevant", "1", "-q"], cwd=tmp_path, env=env, capture_output=True,
                             timeout=300)
    assert stopped.returncode == 143, stopped.stderr
    assert stopped.stderr.decode() == ("lit-search deep: terminated (SIGTERM); see where it stands with "
                                       "`lit-search deep next review.json --show`\n")
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".review.") and p.name.endswith(".tmp")]
    after = whole(session)  # read and checked: a complete step
    recorded = after != before
    if recorded:
        verdicts = {c["key"]: c["verdict"] for c in after["candidates"]}
        assert verdicts[before["batch"][0]] == "relevant"
        assert all(verdicts[key] == "not" for key in before["batch"][1:])
    step = json.loads(run(["next", "review.json", "--format", "json", "-q",
                           *([] if recorded else ["--relevant", "1"])]).stdout)
    assert step["batch"] and step["relevant"] == 1


def test_a_step_that_cannot_write_says_where_the_session_stands_and_loses_nothing(world, tmp_path):
    """A full disk or a file-size limit mid-step (here RLIMIT_FSIZE, which Python turns into EFBIG):
    one line, exit 2, pointing to --show; the session reads after it, every verdict of a step
    that completed kept."""
    import resource

    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    run = command_runner(env, tmp_path, prefix=["deep"], timeout=300)
    start(run)
    run(["next", "review.json", "--relevant", "1", "-q"])
    size = (tmp_path / "review.json").stat().st_size

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))

    limited = command_runner(env, tmp_path, prefix=["deep"], timeout=300, preexec=small_files)
    out = limited(["next", "review.json", "--relevant", "1,2", "-q", "--no-cache"], code=2)  # the cache would warn
    first, *more = out.stderr.splitlines()
    assert "cannot write" in first and "File too large" in first and more == []
    assert first.endswith("the session is as its last complete step left it: see where it stands with "
                          "`lit-search deep next review.json --show`")
    document = whole(tmp_path / "review.json")  # readable: the last complete step
    assert sum(c["verdict"] == "relevant" for c in document["candidates"]) >= 1
    assert run(["next", "review.json", "--show", "-q"]).returncode == 0


def test_a_session_of_version_1_still_opens_and_is_saved_as_version_2(run, tmp_path):
    start(run)
    session = tmp_path / "review.json"
    old = whole(session)
    session.write_text(as_text(load(session)))  # what lit-search 0.4.10 and earlier wrote
    (tmp_path / "review.papers.jsonl").unlink()
    assert json.loads(run(["results", "review.json", "--all", "--format", "json"]).stdout)["results"]
    assert json.loads(session.read_text())["version"] == 1  # reading writes nothing
    step = json.loads(run(["next", "review.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
    assert step["round"] == 2 and json.loads(session.read_text())["version"] == 2
    now = whole(session)
    assert [c["key"] for c in now["candidates"]][: len(old["candidates"])] == [c["key"] for c in old["candidates"]]
    assert [c["paper"] for c in now["candidates"][:3]] != [] and now["candidates"][0]["verdict"] == "relevant"


def test_a_copied_session_reads_and_a_damaged_papers_file_is_one_line(run, tmp_path):
    start(run)
    (tmp_path / "copy").mkdir()
    for name in ("review.json", "review.papers.jsonl"):
        (tmp_path / "copy" / name.replace("review", "mine")).write_bytes((tmp_path / name).read_bytes())
    copied = json.loads(run(["results", "copy/mine.json", "--all", "--format", "json"]).stdout)
    original = json.loads(run(["results", "review.json", "--all", "--format", "json"]).stdout)
    assert copied["results"] == original["results"] and copied["session"] == "copy/mine.json"
    (tmp_path / "copy" / "mine.papers.jsonl").unlink()
    out = run(["next", "copy/mine.json", "--relevant", "1"], code=2)
    assert "its papers file mine.papers.jsonl is missing" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    papers = tmp_path / "review.papers.jsonl"
    papers.write_bytes(papers.read_bytes().replace(b'"title":"', b'"title":"X', 1))
    out = run(["results", "review.json"], code=2)
    assert "does not match the session" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    report = command_runner(command_env(), tmp_path)(["report", "review.json"], code=2)
    assert "does not match the session" in report.stderr


def test_a_session_reached_through_a_link_is_continued_where_it_lies(run, tmp_path):
    """The class: a session (or any file lit-search writes) kept elsewhere and named through a
    symbolic link; a step must update the files the link leads to, not put new ones beside it."""
    (tmp_path / "synced").mkdir()
    run(["start", "coral reef bleaching", "--session", "synced/review.json", "--batch", "3", "-q"])
    (tmp_path / "mine.json").symlink_to("synced/review.json")
    step = json.loads(run(["next", "mine.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
    assert step["round"] == 2 and step["session"] == "mine.json"
    assert (tmp_path / "mine.json").is_symlink() and not (tmp_path / "mine.papers.jsonl").exists()
    assert sorted(p.name for p in (tmp_path / "synced").iterdir()) == ["review.json", "review.papers.jsonl"]
    assert whole(tmp_path / "synced" / "review.json")["candidates"][0]["verdict"] == "relevant"
    assert whole(tmp_path / "mine.json") == whole(tmp_path / "synced" / "review.json")
    out = run(["results", "mine.json", "-o", "refs.bib"])
    assert (tmp_path / "refs.bib").read_text().startswith("@")
    os.mkfifo(tmp_path / "pipe.bib")
    out = run(["results", "mine.json", "-o", "pipe.bib"], code=2)
    assert "-o pipe.bib: not a regular file; lit-search replaces the files it writes whole" in out.stderr.splitlines()[0]
    assert (tmp_path / "pipe.bib").is_fifo()  # checked before any work, left as it was


def test_a_step_while_another_holds_the_session_is_refused_and_changes_nothing(run, tmp_path):
    from litsearch.deep.step_lock import held

    start(run)
    session = tmp_path / "review.json"
    before = (session.read_bytes(), (tmp_path / "review.papers.jsonl").read_bytes())
    with held(session):  # another step is running
        out = run(["next", "review.json", "--relevant", "1"], code=2)
        assert "review.json: another step on this session is running" in out.stderr.splitlines()[0]
        assert "Traceback" not in out.stderr and out.stdout == ""
        assert (session.read_bytes(), (tmp_path / "review.papers.jsonl").read_bytes()) == before
        # --show too: while a step runs, the file holds the batch being judged and no next round
        # yet, which it would have shown as "a round owed" (then a bare `next` judged unseen papers)
        out = run(["next", "review.json", "--show"], code=2)
        assert "review.json: another step on this session is running" in out.stderr.splitlines()[0]
        assert out.stdout == ""
        with held(tmp_path / "second.json"):  # two starts of one new session at once
            out = run(["start", "coral reef bleaching", "--session", "second.json"], code=2)
            assert "another step on this session is running" in out.stderr and not (tmp_path / "second.json").exists()
    step = json.loads(run(["next", "review.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
    assert step["round"] == 2 and not (tmp_path / ".review.json.lock").exists()


def test_no_output_is_ever_written_over_a_session(run, tmp_path, world):
    """The class: a file lit-search writes (-o, --record) named like a session file. A session is
    a .json like a JSON export or a search record, so `-o review.json` is an easy slip; it had
    replaced every verdict with the list of papers."""
    start(run)
    kept = (tmp_path / "review.json").read_bytes(), (tmp_path / "review.papers.jsonl").read_bytes()
    (tmp_path / "linked.json").symlink_to("review.json")
    for argv in (["results", "review.json", "-o", "review.json"],
                 ["results", "review.json", "--format", "json", "-o", "linked.json"]):
        out = run(argv, code=2)
        assert "is a deep-search session: writing there would replace it; name another file" in out.stderr
    search = command_runner(command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache")), tmp_path)
    out = search(["search", "coral reef bleaching", "--record", "review.json", "-q"], code=2)
    assert "--record review.json is a deep-search session" in out.stderr
    assert ((tmp_path / "review.json").read_bytes(), (tmp_path / "review.papers.jsonl").read_bytes()) == kept
    run(["results", "review.json", "--format", "json", "-o", "export.json"])  # any other file is fine
    again = run(["results", "export.json", "--format", "json", "-o", "export.json"], code=2)  # not a session
    assert "export.json" in again.stderr


def test_a_session_file_is_told_by_its_first_bytes(tmp_path):
    from litsearch.deep.session_file import session_file_kind

    (tmp_path / "a.json").write_text('{"kind":"deep-search session","version":2}')
    (tmp_path / "b.json").write_text(' {\n  "kind" : "deep-search session"}')  # reformatted by an editor
    (tmp_path / "c.json").write_text('{"query": "kind deep-search session"}')
    (tmp_path / "d.papers.jsonl").write_text('{"key":"c1","paper":{}}\n')
    (tmp_path / "e.jsonl").write_text('{"key":"c1","paper":{}}\n')
    os.mkfifo(tmp_path / "f.json")
    kinds = {name: session_file_kind(tmp_path / name) for name in ("a.json", "b.json", "c.json", "d.papers.jsonl",
                                                                    "e.jsonl", "f.json", "missing.json")}
    assert kinds == {"a.json": "a deep-search session", "b.json": "a deep-search session", "c.json": None,
                     "d.papers.jsonl": "a deep-search session's papers file", "e.jsonl": None, "f.json": None,
                     "missing.json": None}


def test_show_prints_where_the_session_stands_and_records_nothing(run, tmp_path, world):
    """After Ctrl-C a session may hold a batch nobody saw, or verdicts with the round owed; `next`
    with no list would judge an unseen batch not relevant, so --show is how to look."""
    step = start(run)
    session = tmp_path / "review.json"
    before = session.read_bytes(), (tmp_path / "review.papers.jsonl").read_bytes()
    shown = json.loads(run(["next", "review.json", "--show", "--format", "json"]).stdout)
    assert shown["batch"] == step["batch"] and shown["round"] == 1 and shown["judged"] == 0
    assert (session.read_bytes(), (tmp_path / "review.papers.jsonl").read_bytes()) == before
    out = run(["next", "review.json", "--show", "--relevant", "1", "--variant", "x"], code=2)
    assert "--show records nothing; leave out --relevant, --variant" in out.stderr
    assert "leave out --rest" in run(["next", "review.json", "--show", "--rest", "maybe"], code=2).stderr
    assert "leave out --rest" in run(["next", "review.json", "--show", "--rest", "not"], code=2).stderr
    # verdicts recorded, round owed (a step stopped between its two saves)
    from litsearch.deep.rounds import judge
    from litsearch.deep.session_file import load, save
    from litsearch.deep.verdicts import resolve
    from litsearch.runtime.files import write_file_atomically

    owed = load(session)
    judge(owed, resolve(owed, {"relevant": "1"}, "not"), [])
    save(session, owed, write_file_atomically)
    shown = json.loads(run(["next", "review.json", "--show", "--format", "json"]).stdout)
    assert shown["batch"] == [] and shown["done"] is False and shown["judged"] == 3
    assert "run `lit-search deep next review.json` (no verdicts)" in run(["next", "review.json", "--show"]).stdout
    out = run(["next", "review.json", "--relevant", "1"], code=2)
    assert ("there is no batch to judge: the verdicts are recorded and the next round has not shown one") in out.stderr
    assert "run `lit-search deep next review.json` (no verdicts)" in out.stderr
    assert json.loads(run(["next", "review.json", "--format", "json", "-q"]).stdout)["round"] == 2
    out = run(["start", "coral reef bleaching", "--session", "review.json"], code=2)
    assert "see where it stands with `lit-search deep next review.json --show`" in out.stderr


def test_a_verdict_flag_given_twice_adds_up(run, tmp_path):
    start(run)
    run(["next", "review.json", "--relevant", "1", "--relevant", "3", "--maybe", "2", "-q"])
    verdicts = [c["verdict"] for c in whole(tmp_path / "review.json")["candidates"][:3]]
    assert verdicts == ["relevant", "maybe", "relevant"]


def test_ctrl_c_says_where_the_session_stands(tmp_path):
    from litsearch.cli.common import run_command
    from litsearch.cli.deep import _where
    from litsearch.cli.interrupt import StepInterrupted

    (tmp_path / "my review.json").write_text("{}")
    hint = _where(str(tmp_path / "my review.json"))
    assert hint == f"see where it stands with `lit-search deep next '{tmp_path}/my review.json' --show`"
    assert _where(str(tmp_path / "none.json")) == "no session was written"

    def interrupted():
        raise StepInterrupted(hint)

    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert run_command("lit-search deep", interrupted) == 130
    assert err.getvalue() == f"lit-search deep: interrupted; {hint}\n"


def test_a_query_searched_already_is_not_searched_again(run, tmp_path):
    start(run, "review.json", "--variant", "Coral Reef Bleaching", "--variant", "reef heat stress",
          "--variant", "REEF HEAT STRESS")
    out = run(["next", "review.json", "--relevant", "1", "--variant", "coral reef bleaching", "--variant",
               "reef heat stress", "--variant", "symbiont loss", "--variant", "Symbiont Loss", "-q", "--format", "json"])
    document = whole(tmp_path / "review.json")
    assert document["variants"] == ["reef heat stress"]
    searched = [query.casefold() for query in document["queries"]]
    assert searched.count("coral reef bleaching") == 1 and searched.count("reef heat stress") == 1
    assert searched.count("symbiont loss") == 1
    # The judge is told which of its queries were not searched again, and why; the round keeps it
    left_out = ["the judge's query “coral reef bleaching” not searched again: searched already",
                "the judge's query “reef heat stress” not searched again: searched already"]
    assert json.loads(out.stdout)["notes"] == left_out
    assert all(note in document["rounds"][0]["notes"] for note in left_out)
    again = run(["next", "review.json", "--variant", "Symbiont loss", "--maybe", "1", "-q"]).stdout
    assert "This step: the judge's query “Symbiont loss” not searched again: searched already" in again


def test_the_judges_own_query_is_named_first_under_the_batch(run, tmp_path):
    """Under the batch, what the round asked is cut after a few requests: the judge's own query
    comes first, never hidden in "and N more"."""
    start(run)
    out = run(["next", "review.json", "--relevant", "1,2", "--variant", "symbiont loss in corals", "-q"]).stdout
    asked = next(line for line in out.splitlines() if " asked: " in line)
    assert asked.split(" asked: ", 1)[1].startswith("the judge query “symbiont loss in corals”")


def test_a_step_that_names_no_row_says_the_whole_batch_took_the_rest(run, tmp_path):
    """`deep next FILE --max-judged 500` (or only --variant) judges the shown batch by --rest, as
    documented; the step says so, since the user may have meant to change a setting only."""
    start(run)
    step = json.loads(run(["next", "review.json", "--max-judged", "500", "--format", "json", "-q"]).stdout)
    assert step["notes"] == ["no row was named: 3 rows of round 1's batch were judged not relevant, as rows not named are"]
    step = json.loads(run(["next", "review.json", "--rest", "maybe", "--format", "json", "-q"]).stdout)
    assert step["notes"][0].endswith("were judged maybe, as rows not named are")
    named = json.loads(run(["next", "review.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
    assert named["notes"] == []  # rows named: the rest taking --rest is the usual step, not news


def test_a_verdict_changed_by_id_is_said_by_the_step(run, tmp_path):
    first = start(run)
    run(["next", "review.json", "--relevant", "1", "-q"])
    earlier = first["batch"][1]["doi"] or first["batch"][1]["openalex_id"]
    step = json.loads(run(["next", "review.json", "--relevant", earlier, "--format", "json", "-q"]).stdout)
    assert len(step["notes"]) == 2 and "verdict changed from not to relevant" in step["notes"][1]
    assert "(read in round 1)" in step["notes"][1]
    assert step["notes"][0].startswith("no row of the batch was named, only papers read before: 3 rows")
    shown = json.loads(run(["next", "review.json", "--show", "--format", "json"]).stdout)
    assert shown["notes"] == []  # said once, by the step that did it; the round keeps it for the report
    assert any("verdict changed from not to relevant" in note
               for note in whole(tmp_path / "review.json")["rounds"][1]["notes"])


def test_a_topic_of_several_sentences_is_searched_whole_and_sentence_by_sentence(run, tmp_path, world):
    topic = "Coral reef bleaching. Reef heat stress and recovery."
    seen = len(world.server.requests)
    run(["start", topic, "--session", "s.json", "--batch", "3", "--variant", "symbiont loss", "-q"])
    document = whole(tmp_path / "s.json")
    assert document["queries"] == [topic, "symbiont loss", "Coral reef bleaching", "Reef heat stress and recovery"]
    assert document["variants"] == ["symbiont loss"]  # the user's variants stay the user's
    actions = " ".join(document["rounds"][0]["actions"])
    assert "sentences searched one by one too" in actions
    # Every query reaches every provider: OpenAlex in one request, its OR folding them all;
    # Semantic Scholar's relevance search, which has no OR, one request per query.
    sent = world.server.requests[seen:]
    asked_s2 = [r.param("query") for r in sent if r.path == "/s2/graph/v1/paper/search"]
    assert sorted(asked_s2) == sorted(document["queries"])
    asked_openalex = [r.param("search") for r in sent if r.path == "/openalex/works" and r.param("search")]
    assert len(asked_openalex) == 1 and all(q.split(".")[0].lower() in asked_openalex[0].lower()
                                            for q in document["queries"])
    assert "Semantic Scholar: 3 further queries searched one by one" in actions


def test_a_failed_sentence_search_is_a_note_and_costs_only_itself(tmp_path):
    """Semantic Scholar failing on one sentence's own search: the round notes it, the other
    sentence and every other provider's answers are kept, and the session goes on."""
    from fake_server import Answer

    with World(small_world(), share=1.0) as served:
        s2_search = served.server._routes["/s2/graph/v1/paper/search"]

        def failing(request):
            if request.param("query") == "Reef heat stress and recovery":
                return Answer(400, '{"error": "Unacceptable query"}')
            return s2_search(request)

        served.server.route("/s2/graph/v1/paper/search", failing)
        env = command_env(served.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
        run = command_runner(env, tmp_path, prefix=["deep"], timeout=300)
        step = json.loads(run(["start", "Coral reef bleaching. Reef heat stress and recovery.", "--session", "s.json",
                               "--batch", "3", "--format", "json", "-q"]).stdout)
        assert step["done"] is False and len(step["batch"]) == 3
        first = whole(tmp_path / "s.json")["rounds"][0]
        assert any("Semantic Scholar" in note and "Reef heat stress and recovery" in note for note in first["notes"])
        assert "Semantic Scholar: 2 further queries searched one by one" in " ".join(first["actions"])
        step = json.loads(run(["next", "s.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
        assert step["round"] == 2 and step["judged"] == 3 and step["relevant"] == 1


def test_the_sentence_searches_run_while_the_round_search_does(tmp_path):
    """The further queries Semantic Scholar is asked one by one go out while the round's own
    search is still waiting for OpenAlex (within each provider's pace), not after it: OpenAlex
    here answers once a sentence's own search has arrived, or after 30 s, which a start that
    searched them after the round's search would need (the client waits up to 60 s for an answer
    here, so no timeout can let a sentence through first)."""
    import threading

    with World(small_world(), share=1.0) as served:
        routes = served.server._routes
        s2_search, openalex_works = routes["/s2/graph/v1/paper/search"], routes["/openalex/works"]
        sentence_seen = threading.Event()
        order: list[str] = []

        def s2(request):
            if request.param("query") != TOPIC_OF_SENTENCES:
                sentence_seen.set()
            return s2_search(request)

        def openalex(request):
            if request.param("search"):
                order.append("sentence first" if sentence_seen.wait(timeout=30) else "openalex first")
            return openalex_works(request)

        served.server.route("/s2/graph/v1/paper/search", s2)
        served.server.route("/openalex/works", openalex)
        env = command_env(served.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"), LITSEARCH_READ_TIMEOUT="60",
                          LITSEARCH_PROVIDER_BUDGET="120")
        run = command_runner(env, tmp_path, prefix=["deep"], timeout=300)
        run(["start", TOPIC_OF_SENTENCES, "--session", "s.json", "--batch", "3", "-q"])
        assert order and order[0] == "sentence first"


TOPIC_OF_SENTENCES = "Coral reef bleaching. Reef heat stress and recovery."


def test_a_complete_session_goes_on_with_new_queries_or_a_larger_budget(run, tmp_path):
    """A review that must go further: the judge's new query reopens a saturated or exhausted
    session; a larger --max-judged (or --max-requests) one stopped at its budget. Asked again
    without either, a complete session is shown as it is."""
    start(run, "small.json", "--max-judged", "2")
    stopped = json.loads(run(["next", "small.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
    assert stopped["done"] is True and stopped["stop_reason"] == "budget"
    kept = (tmp_path / "small.json").read_bytes()
    out = run(["next", "small.json", "--variant", "reef heat stress"], code=2)
    assert "stopped at its budget and 2 papers judged" in out.stderr and "give a larger --max-judged" in out.stderr
    assert "--max-judged must be between 1 and 5,000" in run(["next", "small.json", "--max-judged", "0"], code=2).stderr
    out = run(["next", "small.json", "--relevant", "1"], code=2)
    assert "complete (budget)" in out.stderr and "go on with a larger --max-judged" in out.stderr
    shown = run(["next", "small.json", "--format", "markdown"]).stdout  # the stop again, with the way on
    assert "To go on: `lit-search deep next small.json --max-judged N` with N above 2." in shown
    assert (tmp_path / "small.json").read_bytes() == kept
    going = json.loads(run(["next", "small.json", "--max-judged", "4", "--format", "json", "-q"]).stdout)
    assert going["done"] is False and going["round"] == 2 and 0 < len(going["batch"]) <= 2
    assert going["notes"] == ["reopened after the stop (budget): papers to judge at most 2 → 4"]  # said, not only filed
    document = whole(tmp_path / "small.json")
    assert document["options"]["max_judged"] == 4
    assert "reopened after the stop (budget): papers to judge at most 2 → 4" in document["rounds"][0]["notes"]
    # judged to its end (exhausted or budget), then a new query takes it further
    step = going
    while not step["done"]:
        step = json.loads(run(["next", "small.json", "--format", "json", "-q"]).stdout)
    if step["stop_reason"] == "budget":
        step = json.loads(run(["next", "small.json", "--max-judged", "5000", "--format", "json", "-q"]).stdout)
        while not step["done"]:
            step = json.loads(run(["next", "small.json", "--format", "json", "-q"]).stdout)
    assert step["stop_reason"] in ("exhausted", "saturated")
    # a budget spent already, on a session stopped for any reason, is refused, the session unchanged
    kept = (tmp_path / "small.json").read_bytes()
    judged = step["judged"]
    for budget in (1, judged):
        out = run(["next", "small.json", "--max-judged", str(budget)], code=2)
        assert f"--max-judged {budget:,}: {judged:,} papers are judged already; a new budget must be above {judged:,}" \
            in out.stderr
    sent = sum(step["requests"].values())
    assert f"--max-requests {sent:,}: {sent:,} requests were sent already" in \
        run(["next", "small.json", "--max-requests", str(sent)], code=2).stderr
    assert (tmp_path / "small.json").read_bytes() == kept
    shown = run(["next", "small.json", "--format", "table"]).stdout
    assert "To look further: lit-search deep next small.json --variant" in shown
    assert "go on with new queries (--variant)" in run(["next", "small.json", "--maybe", "1"], code=2).stderr
    rounds = len(whole(tmp_path / "small.json")["rounds"])
    again = json.loads(run(["next", "small.json", "--variant", "zooxanthellae expulsion", "--format", "json", "-q"]).stdout)
    document = whole(tmp_path / "small.json")
    assert "zooxanthellae expulsion" in document["queries"] and len(document["rounds"]) == rounds + 1
    assert again["round"] == rounds + 1 and (again["batch"] or again["done"])


def test_the_request_budget_is_not_overshot_by_a_round(run, tmp_path):
    """--max-requests is a limit on the session: a round sends at most what is left of it (it had
    sent its own budget, 60, whatever was left: 14 of a budget of 10), and the stop names the
    limit to raise."""
    first = start(run, "few.json", "--max-requests", "10")
    step, spent = first, []
    while not step["done"]:
        step = json.loads(run(["next", "few.json", "--relevant", "1", "--format", "json", "-q"]).stdout)
        spent.append(sum(step["requests"].values()))
    assert step["stop_reason"] == "budget"
    first_round = first["yield"][0]["requests"]
    assert first_round <= 10 and spent[-1] <= 10, spent
    out = run(["next", "few.json", "--not", "1"], code=2)
    assert "go on with a larger --max-requests" in out.stderr
    assert "--max-requests N` with N above 10." in run(["next", "few.json", "--format", "markdown"]).stdout
    # reopened, the next batch's stop line is the rule's check now, not the stop it had said
    going = run(["next", "few.json", "--max-requests", "100", "--format", "markdown"]).stdout
    stop_line = [line for line in going.splitlines() if "Stop rule:" in line]
    assert "Round" in going and stop_line and "is reached" not in stop_line[0], going[-600:]
    assert "judged after the first find" in stop_line[0]


def test_a_start_that_finds_nothing_says_what_to_try_not_where_results_are(run, tmp_path):
    """Every provider answered and nothing was found: the session is kept (the record of a search
    that found nothing), complete, exhausted; the step offers other words (a variant reopens it)
    or a new session for other filters, not a list of results that has nothing in it."""
    out = run(["start", "coral reef bleaching", "--session", "none.json", "--year", "2100-", "--format", "markdown"])
    assert "**The search is complete: exhausted.**" in out.stdout
    assert "Results (relevant, then maybe)" not in out.stdout
    assert "Nothing was found for these words and filters: `lit-search deep next none.json --variant" in out.stdout
    assert "other filters need a new session" in out.stdout
    assert json.loads(run(["next", "none.json", "--show", "--format", "json"]).stdout)["stop_reason"] == "exhausted"
    shown = run(["next", "none.json", "--show"]).stdout  # the terminal's view too
    assert "Nothing was found for these words and filters" in shown and "deep results" not in shown.split("Next:")[0]


@pytest.mark.parametrize("name", [".", "/", "./", ""])
def test_a_step_on_a_folder_like_name_is_one_line_not_an_internal_error(run, name):
    """`deep next .` built its lock file's name from a path with no name: "internal error:
    ValueError: PosixPath('.') has an empty name", exit 1. The name is checked first, as --show does."""
    out = run(["next", name], code=2)
    assert "session file" in out.stderr and "internal error" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2  # the line, and where help is


@pytest.mark.parametrize("step, says", [("start", "a session file that exists already"),
                                        ("next", "a bad LIST (nothing is recorded)"),
                                        ("results", "an output file that cannot be written")])
def test_each_steps_help_ends_with_its_exit_codes(run, step, says):
    """`deep start --help` is where a new user looks for what exit 3 means, not `deep --help`."""
    out = run([step, "--help"]).stdout
    codes = out[out.index("exit codes:"):]
    assert "2 usage or input error" in codes and says in " ".join(codes.split())
