"""A deep search when the providers fail: nothing searched is never a session "exhausted".

- ``deep start`` with every provider failing exits 3 with one line and writes no file (the
  command, the MCP tool, the Python API alike); once they answer, the same start works;
- a ``deep next`` whose round ends with nothing to judge because its requests failed for now
  (HTTP 503) exits 3, keeps every verdict and owes the round, which the next step runs;
- a refusal that asking again would meet again (HTTP 400) counts its lead as asked: the session
  is not held back by it and can end "exhausted";
- a judge's query that every provider failed waits for the next round instead of being lost.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from command import command_env, command_runner  # noqa: E402
from deep_world import World  # noqa: E402
from fake_server import Answer  # noqa: E402
from small_world import small_world  # noqa: E402

from litsearch.deep.session_file import load  # noqa: E402
from litsearch.deep.stop import pending_chases  # noqa: E402

TOPIC = "coral reef bleaching"
QUICK = {"LITSEARCH_BACKOFF": "0.01", "LITSEARCH_CONNECT_TIMEOUT": "0.5"}


@contextmanager
def outage(world: World, status: int, only=lambda path: True):
    """Every route of the fake server for which ``only(path)`` holds answers ``status`` until the
    block ends (the answers as they were afterwards)."""
    routes = dict(world.server._routes)
    for path, responder in routes.items():
        if only(path):
            world.server.route(path, lambda request, status=status: Answer(status, '{"error": "down for a test"}'))
    try:
        yield
    finally:
        for path, responder in routes.items():
            world.server.route(path, responder)


@pytest.fixture
def world():
    with World(small_world(), share=1.0) as served:
        yield served


@pytest.fixture
def run(world, tmp_path):
    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"), **QUICK)
    return command_runner(env, tmp_path, prefix=["deep"], timeout=300)


def files(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir() if path.name != "cache"}


def test_a_start_with_every_provider_down_exits_3_and_writes_nothing(run, world, tmp_path):
    with outage(world, 503):
        failed = run(["start", TOPIC, "--session", "review.json", "-q"], code=3)
    line = failed.stderr.strip()
    assert "every provider failed, so nothing was searched and no session file was written" in line
    assert "\n" not in line and "Semantic Scholar" in line and "503" in line
    assert files(tmp_path) == set()  # no session, no papers file, no lock left behind
    step = json.loads(run(["start", TOPIC, "--session", "review.json", "--format", "json", "-q"]).stdout)
    assert step["done"] is False and step["batch"]  # the same start, once they answer



def test_a_start_offline_with_nothing_cached_says_to_start_it_online(run, tmp_path):
    """Offline, a topic no earlier search cached fails at every provider: "later" would fail again,
    so the line says to start it online; after, an offline start answers from the cache."""
    failed = run(["start", TOPIC, "--session", "review.json", "--offline", "-q"], code=3)
    assert "start it again online (not offline)" in failed.stderr and "later" not in failed.stderr
    assert files(tmp_path) == set()
    run(["start", TOPIC, "--session", "online.json", "-q"])
    step = json.loads(run(["start", TOPIC, "--session", "review.json", "--offline", "--format", "json", "-q"]).stdout)
    assert step["batch"]

def test_a_start_with_one_provider_down_goes_on_and_says_so(run, world, tmp_path):
    with outage(world, 503, only=lambda path: path.startswith("/openalex")):
        step = json.loads(run(["start", TOPIC, "--session", "review.json", "--format", "json", "-q"]).stdout)
    assert step["done"] is False and step["batch"]
    assert any("failed: OpenAlex" in note for note in load(tmp_path / "review.json").rounds[0].notes)


def test_a_start_that_found_nothing_while_a_provider_was_down_is_not_exhausted(run, world, tmp_path):
    """Nothing found by the providers that answered, and one failed for now: it might hold the
    topic's literature, so the start exits 3 and writes nothing, as when every provider fails.
    With every provider answering and nothing found, the session is complete: exhausted."""
    topic = "quasicrystal phason dynamics"  # no paper of the small world has these words
    with outage(world, 503, only=lambda path: path.startswith("/openalex")):
        failed = run(["start", topic, "--session", "review.json", "-q"], code=3)
    assert "the search found nothing to judge while OpenAlex (HTTP 503" in failed.stderr
    assert "no session file was written" in failed.stderr and files(tmp_path) == set()
    step = json.loads(run(["start", topic, "--session", "review.json", "--format", "json", "-q"]).stdout)
    assert step["done"] is True and step["stop_reason"] == "exhausted" and step["batch"] == []


def whole_first_batch(run) -> dict:
    """A session whose first batch holds every candidate the first search found: after it, only
    the chasing can bring anything."""
    step = json.loads(run(["start", TOPIC, "--session", "review.json", "--batch", "100", "--format", "json",
                           "-q"]).stdout)
    assert step["done"] is False and len(step["batch"]) < 100
    return step


def test_a_round_that_failed_for_now_is_owed_not_exhausted(run, world, tmp_path):
    first = whole_first_batch(run)
    relevant = [row["row"] for row in first["batch"] if "bleach" in row["title"].lower()]
    with outage(world, 503):
        failed = run(["next", "review.json", "--relevant", ",".join(map(str, relevant)), "-q"], code=3)
    line = failed.stderr.strip()
    assert "no candidate left to judge" in line and "every verdict is kept" in line and "\n" not in line
    kept = load(tmp_path / "review.json")
    assert not kept.done and not kept.batch and len(kept.judged("relevant")) == len(relevant)
    assert len(kept.rounds) == 1  # the failed round is not on file: it is owed
    shown = run(["next", "review.json", "--show"]).stdout
    assert "deep next review.json" in shown  # where it stands: a round owed, and the command that runs it
    step = json.loads(run(["next", "review.json", "--format", "json", "-q"]).stdout)
    assert step["round"] == 2 and step["done"] is False and step["batch"]
    found = {row["title"] for row in step["batch"]}
    assert any("symbio" in title.lower() or "zooxanthellae" in title.lower() for title in found)


def test_a_lasting_refusal_counts_as_asked_and_the_session_can_end(run, world, tmp_path):
    first = whole_first_batch(run)
    relevant = [row["row"] for row in first["batch"] if "bleach" in row["title"].lower()]
    with outage(world, 400):
        step = json.loads(run(["next", "review.json", "--relevant", ",".join(map(str, relevant)), "--format", "json",
                               "-q"]).stdout)
    assert step["done"] is True and step["stop_reason"] == "exhausted"
    session = load(tmp_path / "review.json")
    notes = session.rounds[-1].notes
    assert notes and all("not asked again" in note for note in notes if "failed" in note)
    assert pending_chases(session) == 0


def test_a_judge_query_every_provider_failed_waits_for_the_next_round(run, world, tmp_path):
    run(["start", TOPIC, "--session", "review.json", "--batch", "3", "-q"])
    searches = ("/s2/graph/v1/paper/search", "/openalex/works", "/eutils/esearch.fcgi", "/europepmc/search")

    def only_its_search(path):  # the judge's query fails at every provider; Semantic Scholar's chasing answers
        return path in searches

    with outage(world, 503, only=only_its_search):
        step = json.loads(run(["next", "review.json", "--relevant", "1", "--variant", "zooxanthellae expulsion",
                               "--format", "json", "-q"]).stdout)
    assert step["done"] is False and step["batch"]
    session = load(tmp_path / "review.json")
    assert session.pending_queries == ["zooxanthellae expulsion"]
    assert "zooxanthellae expulsion" not in session.queries
    assert any("failed at every provider, asked again next round" in note for note in session.rounds[-1].notes)
    run(["next", "review.json", "-q"])
    session = load(tmp_path / "review.json")
    assert "zooxanthellae expulsion" in session.queries and not session.pending_queries


def test_the_mcp_tool_and_the_api_start_refuse_alike(world, tmp_path, monkeypatch):
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run as run_async, text_of

    from litsearch.api import deep_start
    from litsearch.core.errors import FetchFailed
    from litsearch.net.pacing import PROCESS_PACE_BOOK

    for name, value in {**world.env, **QUICK, "LITSEARCH_CACHE_DIR": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    PROCESS_PACE_BOOK.clear()

    async def start():
        async with in_process() as client:
            return await client.call_tool("deep_search_start", {"topic": TOPIC, "session": "mcp.json"})

    with outage(world, 503):
        with pytest.raises(FetchFailed, match="every provider failed"):
            deep_start(TOPIC, "api.json")
        answer = run_async(start())
    assert answer.is_error and "every provider failed" in text_of(answer)
    assert files(tmp_path) == set()


def test_a_round_with_nothing_new_yet_chases_again_then_leaves_the_rest_to_the_next_step(run, world, tmp_path):
    """Nothing left to judge while the round's budget (5 requests here) left leads waiting: the
    round chases again at once, up to three passes; past them the session is neither exhausted
    nor owed a verdict: it says more leads wait, and the next steps chase them until none is left."""
    step = json.loads(run(["start", TOPIC, "--session", "review.json", "--batch", "100", "--round-requests", "5",
                           "--format", "json", "-q"]).stdout)
    # Papers whose every citation stays among the papers judged already: chasing them finds nothing new.
    others = [row["row"] for row in step["batch"] if "colour" in row["title"].lower()]
    assert len(others) >= 5
    step = json.loads(run(["next", "review.json", "--relevant", ",".join(map(str, others)), "--format", "json",
                           "-q"]).stdout)
    assert step["done"] is False and step["batch"] == [] and step["round"] == 2
    session = load(tmp_path / "review.json")
    assert any("nothing new to judge after 3 passes of chasing" in note for note in session.rounds[-1].notes)
    sent = sum(session.rounds[-1].requests.values())
    assert sent > 5  # more than one pass of its 5-request budget, and the round says so
    assert (f"chased in 3 passes, as nothing was left to judge after the first; each pass within the round's "
            f"budget (5 requests): {sent} requests in all") in session.rounds[-1].notes
    shown = run(["next", "review.json", "--show"]).stdout
    assert "found nothing new to judge yet" in shown and "deep next review.json" in shown
    assert "there is no batch to judge" in run(["next", "review.json", "--relevant", "1"], code=2).stderr
    for _ in range(20):
        step = json.loads(run(["next", "review.json", "--format", "json", "-q"]).stdout)
        if step["done"]:
            break
        assert step["batch"] == []
    assert step["done"] and step["stop_reason"] == "exhausted"
    assert pending_chases(load(tmp_path / "review.json")) == 0
