"""The Python API's deep search (litsearch.api.deep_start, deep_next, deep_results): the same
steps, JSON and checks as `lit-search deep` and the MCP tools, against the fake providers' small
world; a bad argument, or a step while another holds the session, is a ValueError of one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from small_world import served  # noqa: E402,F401 (the fixture)

from litsearch.api import deep_next, deep_results, deep_start  # noqa: E402
from litsearch.deep.step_lock import held  # noqa: E402

STEP_FIELDS = {"session", "round", "done", "stop_reason", "judged", "relevant", "batch", "yield", "requests"}


def test_start_next_results_and_one_step_at_a_time(served, tmp_path):
    first = deep_start("coral reef bleaching", "review.json", batch=3)
    json.dumps(first)  # plain data
    assert STEP_FIELDS <= set(first) and first["round"] == 1 and len(first["batch"]) == 3
    with pytest.raises(ValueError, match="row 0 is not in the batch"):
        deep_next("review.json", relevant="0")
    with pytest.raises(ValueError, match="already exists"):
        deep_start("coral reef bleaching", "review.json")
    before = (tmp_path / "review.json").read_bytes()
    with held(tmp_path / "review.json"):
        with pytest.raises(ValueError, match="another step on this session is running") as refused:
            deep_next("review.json", relevant=[1])
        assert "\n" not in str(refused.value)
        with pytest.raises(ValueError, match="another step on this session is running"):
            deep_next("review.json", show=True)  # what the file says mid-step is not where it stands
    assert (tmp_path / "review.json").read_bytes() == before
    assert deep_next("review.json", show=True)["batch"] == first["batch"]  # records nothing
    assert (tmp_path / "review.json").read_bytes() == before
    with pytest.raises(ValueError, match="show records nothing; leave out relevant"):
        deep_next("review.json", show=True, relevant=[1])
    with pytest.raises(ValueError, match="show records nothing; leave out rest"):
        deep_next("review.json", show=True, rest="maybe")
    second = deep_next("review.json", relevant=[1], not_="2,3")
    assert second["round"] == 2 and second["relevant"] == 1 and second["yield"][0]["judged"] == 3
    results = deep_results("review.json")
    assert [paper["verdict"] for paper in results["results"]] == ["relevant"]
    assert deep_results("review.json", fmt="ris").count("TY  -") == 1
    excluded = deep_results("review.json", include_rejected=True)
    assert [paper["verdict"] for paper in excluded["results"]] == ["relevant", "not", "not"]
    assert excluded["providers_searched"] and set(excluded["requests"]) <= set(excluded["providers_searched"])
    assert deep_results("review.json", fmt="ris", include_rejected=True).count("lit-search verdict: not relevant") == 2
    assert not (tmp_path / ".review.json.lock").exists()


def test_the_api_takes_the_commands_stop_and_budget_options_and_one_string_as_one_variant(served, tmp_path):
    """The Python door sets what the command line sets (a review that must not miss anything sets a
    longer stop window), and ``variants="TSS"`` is one phrasing, not the queries "T" and "S"."""
    deep_start("coral reef bleaching", "review.json", variants="reef heat stress", batch=3, max_requests=50,
               round_requests=20, stop_window=120, stop_yield=1)
    document = json.loads((tmp_path / "review.json").read_text())
    assert {name: document["options"][name] for name in ("max_requests", "round_requests", "stop_window",
                                                         "stop_yield")} == \
        {"max_requests": 50, "round_requests": 20, "stop_window": 120, "stop_yield": 1}
    assert document["variants"] == ["reef heat stress"]
    with pytest.raises(ValueError, match="stop_yield must be between 0 and stop_window - 1"):
        deep_start("coral reef bleaching", "other.json", stop_window=10, stop_yield=10)
    step = deep_next("review.json", relevant="1", variants="symbiont loss")
    assert "symbiont loss" in json.loads((tmp_path / "review.json").read_text())["queries"] and step["round"] == 2
