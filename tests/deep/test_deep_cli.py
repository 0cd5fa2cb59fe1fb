"""`lit-search deep start|next|results` and `lit-search report` on a session, run as a user runs
them, against the fake providers serving the small world: the contract's names, JSON fields and
exit codes; bad lists and damaged files changing nothing; a `deep next` killed at any moment."""

from __future__ import annotations

import json
import os
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

from litsearch.deep.session import as_document, load  # noqa: E402

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

    results = run(["results", "review.json", "--format", "json"]).stdout
    papers = json.loads(results)["results"]
    verdicts = [paper["verdict"] for paper in papers]
    assert verdicts == sorted(verdicts, key=["relevant", "maybe"].index) and verdicts.count("relevant") == 3
    every = json.loads(run(["results", "review.json", "--format", "json", "--all"]).stdout)["results"]
    assert len(every) > len(papers) and every[len(papers)]["verdict"] is None
    run(["results", "review.json", "-o", str(tmp_path / "included.bib")])
    assert (tmp_path / "included.bib").read_text().count("@") == len(papers)

    report = command_runner(command_env(world.env), tmp_path)(["report", "review.json"]).stdout
    assert report.startswith("## Methods: deep search") and "| 3 |" in report and "still open" in report


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
    start(run, "small.json", "--max-judged", "3")
    step = json.loads(run(["next", "small.json", "--relevant", "1", "--format", "json"]).stdout)
    assert step["done"] is True and step["stop_reason"] == "budget" and step["batch"] == []
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
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".review.")]  # no temporary left
    final = whole(session)
    assert sum(1 for c in final["candidates"] if c["verdict"] == "relevant") == 5
