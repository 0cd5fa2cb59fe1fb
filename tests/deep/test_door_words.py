"""A deep step's refusal speaks the words of the door it came through: the MCP tools name their
arguments (max_judged, not) and steps (deep_search_next with show=true), the Python API its own
(max_judged, not_, deep_next('review.json', show=True)); neither suggests a command to run nor a
--flag. The command line keeps its words (tests/deep/test_deep_cli.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from small_world import served  # noqa: E402,F401 (the fixture)

from litsearch.deep.door_words import MCP_TOOLS, PYTHON_API, in_door_words  # noqa: E402

FLAG = re.compile(r"(?<![\w-])--[a-z]")


def command_words(message: str) -> list[str]:
    """What in ``message`` belongs to the command line alone."""
    # a command ("lit-search deep next"), not the kind of file ("a lit-search deep-search session")
    return FLAG.findall(message) + re.findall(r"lit-search \w+(?![\w-])", message)


@pytest.mark.parametrize("message,tool,python", [
    ("--session r.json already exists; see where it stands with `lit-search deep next r.json --show`, or name a "
     "new file", "session r.json already exists; see where it stands with deep_search_next with show=true",
     "session r.json already exists; see where it stands with deep_next('r.json', show=True)"),
    ("run `lit-search deep next 'my review.json'` (no verdicts) to run it", "run deep_search_next with no verdicts to",
     "run deep_next('my review.json') with no verdicts to"),
    ("see its results with `lit-search deep results r.json`, or go on with a larger --max-requests",
     "see its results with deep_search_results, or go on with a larger max_requests",
     "see its results with deep_results('r.json'), or go on with a larger max_requests"),
    ("x is named in both --relevant and --not", "both relevant and not", "both relevant and not_"),
    ("--stop-window 5 is below 10", "stop_window 5", "stop_window 5"),
    # the start step named alone: how a session is started (it said deep_start('FILE'), a call
    # that puts the file name in the topic and leaves out the session)
    ("x.json: not a lit-search deep-search session (start one with `lit-search deep start`)",
     "(start one with deep_search_start)", "(start one with deep_start(topic, session))"),
])
def test_the_command_lines_words_become_each_doors(message, tool, python):
    assert tool in in_door_words(message, MCP_TOOLS)
    assert python in in_door_words(message, PYTHON_API)
    for door in (MCP_TOOLS, PYTHON_API):
        assert not command_words(in_door_words(message, door))


def test_words_that_only_look_like_flags_are_kept():
    for message in ("a--b stays", "--unknown-flag stays", "the range 3--5"):
        assert in_door_words(message, MCP_TOOLS) == message


def test_the_api_refuses_in_its_own_words(served):
    from litsearch.api import deep_next, deep_start

    deep_start("coral reef bleaching", "review.json", batch=3)
    refusals = {}
    for name, call in {
        "exists": lambda: deep_start("coral reef bleaching", "review.json"),
        "row": lambda: deep_next("review.json", not_="0"),
        "both": lambda: deep_next("review.json", relevant="1", not_="1"),
        "budget": lambda: deep_next("review.json", max_judged=5_000_000),
    }.items():
        with pytest.raises(ValueError) as refused:
            call()
        refusals[name] = str(refused.value)
    assert "deep_next('review.json', show=True)" in refusals["exists"]
    assert refusals["row"].startswith("not_: row 0 is not in the batch")
    assert "relevant and not_" in refusals["both"]
    assert refusals["budget"].startswith("max_judged")
    assert not [command_words(text) for text in refusals.values() if command_words(text)], refusals


def test_the_tools_refuse_in_their_own_words(served):
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run, text_of

    async def go():
        async with in_process() as client:
            await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "review.json",
                                                         "batch": 3, "max_judged": 3})
            calls = {"exists": ("deep_search_start", {"topic": "x", "session": "review.json"}),
                     "row": ("deep_search_next", {"session": "review.json", "not": "0"}),
                     "both": ("deep_search_next", {"session": "review.json", "relevant": "1", "not": "1"})}
            answers = {name: await client.call_tool(tool, arguments) for name, (tool, arguments) in calls.items()}
            await client.call_tool("deep_search_next", {"session": "review.json", "relevant": [1]})  # budget: done
            answers["complete"] = await client.call_tool("deep_search_next", {"session": "review.json",
                                                                               "relevant": [1]})
            return answers

    answers = run(go())
    assert all(answer.is_error for answer in answers.values())
    refusals = {name: text_of(answer) for name, answer in answers.items()}
    assert "deep_search_next with show=true" in refusals["exists"]
    assert refusals["row"].endswith("not: row 0 is not in the batch (rows 1–3)")
    assert "relevant and not" in refusals["both"]
    assert "see its results with deep_search_results, or go on with a larger max_judged" in refusals["complete"]
    assert not [command_words(text) for text in refusals.values() if command_words(text)], refusals


def test_the_tools_steps_say_what_to_call_in_their_words(served):
    """The step's Markdown through the tools names the tool calls (its JSON's `next` stays the
    command-line equivalent, as documented); the command's own Markdown keeps the commands."""
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run, text_of

    from litsearch.deep.session_file import load
    from litsearch.render.deep import step_markdown

    async def go():
        async with in_process() as client:
            first = await client.call_tool("deep_search_start", {"topic": "coral reef bleaching",
                                                                 "session": "review.json", "batch": 3,
                                                                 "max_judged": 3})
            done = await client.call_tool("deep_search_next", {"session": "review.json", "relevant": [1]})
            return first, done

    first, done = run(go())
    assert "Next: deep_search_next with relevant=ROWS, maybe=ROWS" in text_of(first)
    assert '`rest="maybe"` to change that; `variants=["…"]` adds a query' in text_of(first)
    assert first.structured_content["next"].startswith("lit-search deep next review.json")
    assert done.structured_content["done"] and done.structured_content["stop_reason"] == "budget"
    assert "deep_search_next with max_judged=N" in text_of(done)
    assert "the methods text: search_report with record=review.json" in text_of(done)
    assert r"limit set by max\_judged (3)" in text_of(done)  # Markdown-escaped
    assert "limit set by max_judged (3)" in done.structured_content["stop_check"]  # the JSON's too
    for answer in (first, done):
        assert not command_words(text_of(answer)), text_of(answer)
    command = step_markdown(load("review.json"), "review.json")
    assert "`lit-search deep next review.json --max-judged N`" in command and "--max-judged (3)" in command


def test_the_sessions_own_notes_name_no_doors_words(served):
    """What a session keeps in its file (a round's notes: a query of the judge's not searched
    again, a budget raised to go on) is read at every door, whichever wrote it: no --flag there."""
    from litsearch.api import deep_next, deep_start
    from litsearch.deep.session_file import load

    deep_start("coral reef bleaching", "review.json", batch=3, max_judged=3)
    step = deep_next("review.json", relevant="1", variants=["coral reef bleaching"])
    assert step["done"] and step["stop_reason"] == "budget"
    going = deep_next("review.json", max_judged=6, variants=["Coral reef bleaching"])
    assert going["notes"] == ["reopened after the stop (budget): papers to judge at most 3 → 6",
                              "the judge's query “Coral reef bleaching” not searched again: searched already"]
    reopened = deep_next("review.json", variants=["symbiont loss"])  # no row named: the batch's rest
    assert reopened["notes"] == [f"no row was named: {len(going['batch'])} rows of round 2's batch were judged not "
                                 "relevant, as rows not named are"]
    notes = [note for entry in load("review.json").rounds for note in entry.notes]
    assert any("not searched again" in note for note in notes) and any("3 → 6" in note for note in notes)
    assert not [command_words(note) for note in notes if command_words(note)], notes
