"""A deep-search session end to end against the fake providers, in-process: a seeded simulated
judge reads every batch until the session stops. The small world hides half of the relevant
papers from any search for the topic (tests/deep/small_world.py); only chasing finds them."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from deep_world import Judge, World, judge_batch  # noqa: E402
from small_world import small_world  # noqa: E402

from litsearch.core.config import Settings  # noqa: E402
from litsearch.core.filters import Filters  # noqa: E402
from litsearch.core.services import PacePolicy  # noqa: E402
from litsearch.deep.rounds import Timing, advance, start  # noqa: E402
from litsearch.deep.session import Options, as_document, from_document  # noqa: E402
from litsearch.net.http import HttpClient  # noqa: E402
from litsearch.providers import registry  # noqa: E402


def run_session(world: World, judge: Judge, options: Options) -> tuple[list, list]:
    """(the doc ids in the order judged, the session after every step read back from its document)."""
    settings = Settings.from_env(world.env, services=registry.services())
    unpaced = {name: PacePolicy(0.0, 8, retries=0) for name in registry.providers()}
    order: list = []
    states: list = []

    async def go():
        async with HttpClient(settings, policies=unpaced) as http:
            session = await start(http, "coral reef bleaching", [], Filters(), options)
            states.append(from_document(as_document(session), "s"))
            while not session.done:
                await advance(http, session, judge_batch(world, judge, session, order), [], Timing())
                states.append(from_document(as_document(session), "s"))  # every step survives its file
            return session

    return order, states, asyncio.run(go())


@pytest.fixture(scope="module")
def world():
    with World(small_world(), share=1.0) as served:
        yield served


def test_chasing_finds_what_no_search_can(world):
    collection = world.collection
    judge = Judge(set(collection.qrels["1"]), "1", hit=1.0, false_alarm=0.0)
    order, states, session = run_session(world, judge, Options(batch=5, max_judged=60, stop_window=20, stop_yield=0))
    hidden = {f"h{n}" for n in range(1, 11)}
    searched = {world.doc_id(c.paper) for c in states[0].candidates.values()}
    assert not hidden & searched  # the topic's own search finds none of them
    found = {doc for doc in order if doc in judge.relevant}
    assert hidden <= found  # chasing the visible ones brought every hidden one
    assert len(order) == len(set(order))  # a judged paper is never shown again
    assert session.done and session.stop_reason in ("saturated", "exhausted")
    assert sum(1 for doc in order[:20] if doc in judge.relevant) >= 15  # relevant ones come first
    assert {entry["via"] for c in session.candidates.values() for entry in c.evidence} >= \
        {"search", "references", "citing", "recommended", "semantic"}


def test_the_stop_says_saturated_once_nothing_relevant_is_left(world):
    judge = Judge(set(world.collection.qrels["1"]), "1", hit=1.0, false_alarm=0.0)
    order, _, session = run_session(world, judge, Options(batch=5, max_judged=200, stop_window=15, stop_yield=0))
    assert session.stop_reason == "saturated"
    assert set(judge.relevant) <= set(order)
    assert "0 relevant" in session.rounds[-1].stop_check
    curve = [(r.judged, r.relevant) for r in session.rounds]
    assert curve[-1] == (5, 0) and curve[-2] == (5, 0) and curve[-3] == (5, 0)


def test_the_stop_line_under_every_batch_is_the_rule_as_it_stands(world):
    """The class: the line was worked out when the verdicts came, before the round chased, so a
    batch read "1 relevant paper still to chase" under the round that had chased it, and the next
    step's stop seemed to come from nowhere."""
    from litsearch.deep.stop import pending_chases, rule_now

    judge = Judge(set(world.collection.qrels["1"]), "1", hit=1.0, false_alarm=0.0)
    _, states, _ = run_session(world, judge, Options(batch=5, max_judged=60, stop_window=20, stop_yield=0))
    shown = [state for state in states[1:] if not state.done and state.batch]  # the first batch has no verdicts yet
    assert len(shown) >= 3
    for state in shown:
        assert state.rounds[-1].stop_check == rule_now(state)
        assert ("still to chase" in state.rounds[-1].stop_check) == bool(pending_chases(state))


def test_the_budget_stops_at_max_judged(world):
    judge = Judge(set(world.collection.qrels["1"]), "1", seed=3)
    order, _, session = run_session(world, judge, Options(batch=4, max_judged=10, stop_window=20))
    assert session.stop_reason == "budget" and len(order) == 10  # the last batch is cut to the budget
    assert "--max-judged (10)" in session.rounds[-1].stop_check


def test_a_round_spends_no_more_than_its_budget(world):
    judge = Judge(set(world.collection.qrels["1"]), "1", hit=1.0, false_alarm=0.0)
    _, _, session = run_session(world, judge, Options(batch=10, max_judged=30, round_requests=5, stop_window=10))
    assert all(sum(r.requests.values()) <= 5 for r in session.rounds[1:])
    assert any("left for the next round" in note for r in session.rounds for note in r.notes)


def test_rerank_semantic_reorders_the_top_of_each_round_by_meaning(world, tmp_path, monkeypatch):
    sys.path.insert(0, str(Path(__file__).parent.parent / "semantic"))
    from model_support import model_folder

    monkeypatch.setenv("LITSEARCH_RERANK_MODEL", str(model_folder(tmp_path / "model")))
    judge = Judge(set(world.collection.qrels["1"]), "1", hit=1.0, false_alarm=0.0)
    order, _, session = run_session(world, judge, Options(batch=5, max_judged=15, rerank="semantic"))
    assert len(order) == 15
    assert any("close in meaning to the topic" in c.why for c in session.candidates.values())
    assert not [note for r in session.rounds for note in r.notes if "re-ranking off" in note]


def test_rerank_without_a_model_keeps_the_order_and_says_why(world, tmp_path, monkeypatch):
    monkeypatch.setenv("LITSEARCH_RERANK_MODEL", str(tmp_path / "no-such-model"))
    judge = Judge(set(world.collection.qrels["1"]), "1", hit=1.0, false_alarm=0.0)
    plain, _, _ = run_session(world, judge, Options(batch=5, max_judged=15, rerank="none"))
    asked, _, session = run_session(world, judge, Options(batch=5, max_judged=15, rerank="semantic"))
    assert asked == plain  # the lexical order, byte for byte the same papers
    assert any("semantic re-ranking off" in note for r in session.rounds for note in r.notes)
