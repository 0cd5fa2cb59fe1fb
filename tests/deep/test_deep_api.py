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


def test_a_path_object_is_a_session_name_and_a_wrong_kind_of_argument_is_named(served, tmp_path):
    """pathlib.Path as the session (it advanced the file, then raised TypeError: the new batch
    was never seen); a value of the wrong kind is a ValueError naming the argument, the file
    unchanged (a float row was "'float' object is not iterable", bytes b"1" named row 49)."""
    session = tmp_path / "path.json"
    first = deep_start("coral reef bleaching", session, batch=3)
    assert first["session"] == str(session) and len(first["batch"]) == 3
    before = session.read_bytes()
    for arguments, said in [({"relevant": 1.0}, "relevant: give rows or ids"), ({"maybe": b"1"}, "not bytes"),
                            ({"not_": {"row": 1}}, "not_: give rows or ids"), ({"relevant": [True]}, "not bool"),
                            ({"variants": 5}, "variants takes a phrasing or a list of them"), ({"max_judged": "100"}, "whole number")]:
        with pytest.raises(ValueError, match=said) as refused:
            deep_next(session, **arguments)
        assert "\n" not in str(refused.value) and "Error" not in str(refused.value)
        assert session.read_bytes() == before, arguments
    for name in ("", ".", "/", None, 5):  # "." built a lock file name from no name: a pathlib error
        with pytest.raises(ValueError, match="session"):
            deep_next(name)
    second = deep_next(session, relevant=1)
    assert second["round"] == 2 and second["session"] == str(session)
    assert deep_results(session)["results"]


def test_the_step_says_its_stop_in_the_apis_words_and_fetch_failed_is_exported(served, tmp_path):
    import litsearch.api as api

    assert issubclass(api.FetchFailed, api.LitSearchError) and "FetchFailed" in api.__all__
    deep_start("coral reef bleaching", "small.json", batch=3, max_judged=3)
    stopped = deep_next("small.json", relevant=[1])
    assert stopped["done"] and stopped["stop_reason"] == "budget"
    assert "max_judged" in stopped["stop_check"] and "--max-judged" not in stopped["stop_check"]


def test_an_error_of_the_work_is_not_shown_inside_another():
    """run_sync ran the work inside its `except RuntimeError` (no loop yet): every error then
    printed "RuntimeError: no running event loop … During handling of the above exception" first."""
    from litsearch.api._run import run_sync

    async def fails():
        raise LookupError("the provider said no")

    with pytest.raises(LookupError) as raised:
        run_sync(fails())
    assert raised.value.__context__ is None


def test_a_csv_of_no_papers_has_the_verdict_columns(served, tmp_path):
    deep_start("coral reef bleaching", "empty.json", batch=3)
    header = deep_results("empty.json", fmt="csv").splitlines()[0]
    assert header.endswith(",abstract,verdict,judged_round,why")  # as a CSV with rows has them


def test_a_correction_alone_says_it_judged_the_batch_and_a_budget_below_the_step_is_refused(served, tmp_path):
    """Naming only a paper read earlier judged the whole batch on screen "not", silently; a new
    --max-judged below what the step itself judges ended the step above it (40 against 25)."""
    first = deep_start("coral reef bleaching", "fix.json", batch=3)
    second = deep_next("fix.json", relevant=[1, 2])
    before = (tmp_path / "fix.json").read_bytes()
    with pytest.raises(ValueError, match="this step judges the 3 rows of the batch; a new budget must be at least 6"):
        deep_next("fix.json", maybe=first["batch"][0]["key"], max_judged=5)
    assert (tmp_path / "fix.json").read_bytes() == before
    third = deep_next("fix.json", maybe=first["batch"][0]["key"])
    said = " ".join(third["notes"])
    assert "no row of the batch was named, only papers read before: 3 rows of round 2's batch were judged not " \
           "relevant" in said, said
    assert "verdict changed from relevant to maybe" in said
    assert len(second["batch"]) == 3


def test_an_exhausted_session_is_not_reopened_by_a_budget_and_a_broken_link_is_named(served, tmp_path):
    import os

    nothing = deep_start("qqqq zzzz xxxx", "nothing.json", batch=3)
    assert nothing["done"] and nothing["stop_reason"] == "exhausted"
    before = (tmp_path / "nothing.json").read_bytes()
    with pytest.raises(ValueError, match="no candidate is left to judge, so a larger budget finds none"):
        deep_next("nothing.json", max_judged=500)  # it added an empty round each time
    assert (tmp_path / "nothing.json").read_bytes() == before
    os.symlink("gone/new.json", tmp_path / "dangling.json")
    with pytest.raises(ValueError, match="is a link to gone/new.json, which does not exist"):
        deep_start("coral reef bleaching", "dangling.json")  # it said "already exists; see --show"
