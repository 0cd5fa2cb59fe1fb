"""What every tool declares beside its arguments, read through the SDK's client: its annotations
(all four hints, as its conduct truly is) and the output schema of its structured result. A new
tool without them fails here (and the server refuses to start with it); a result that strays
from its schema is a one-line internal error, never a silent drift."""

from __future__ import annotations

import json

import jsonschema
import pytest

pytest.importorskip("mcp")
from mcp_inprocess import in_process, run, text_of, use_fakes  # noqa: E402

from fake_server import FakeServer  # noqa: E402

HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
# The tools whose conduct is not "asks the APIs, changes nothing here": a new tool is held to
# that unless it is listed here with what it does.
WRITES = {"library_save": (False, False, True, True),  # adds to the library; looks ids up first
          # a deep-search step adds verdicts to its session file and asks the APIs; again = another round
          "deep_search_start": (False, False, False, True), "deep_search_next": (False, False, False, True),
          # reads the session; with output, replaces that file
          "deep_search_results": (False, True, True, False)}
LOCAL = {"library_list", "search_report"}  # read this machine only


def listed_tools():
    async def go():
        async with in_process() as client:
            return (await client.list_tools()).tools
    return run(go())


def test_every_tool_declares_all_four_hints_as_its_conduct_is(monkeypatch, tmp_path):
    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)
        tools = listed_tools()
    assert len(tools) >= 18
    for tool in tools:
        hints = tool.annotations
        assert hints is not None, f"{tool.name} declares no annotations"
        values = tuple(getattr(hints, name) for name in HINTS)
        assert None not in values, (tool.name, values)  # every hint said, none left to a client's default
        if tool.name in WRITES:
            assert values == WRITES[tool.name], tool.name
        elif tool.name in LOCAL:
            assert values == (True, False, True, False), tool.name
        else:
            assert values == (True, False, True, True), tool.name
        wire = hints.model_dump(by_alias=True, exclude_none=True)
        assert set(wire) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


def test_every_tool_publishes_the_schema_of_its_structured_result(monkeypatch, tmp_path):
    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)
        tools = listed_tools()
    for tool in tools:
        schema = tool.output_schema
        assert schema and schema["type"] == "object", tool.name
        jsonschema.Draft202012Validator.check_schema(schema)
        assert {"text", "quoted_data"} <= set(schema["required"]), tool.name
        assert schema.get("additionalProperties") is False, tool.name  # a new field needs its line
    by_name = {tool.name: tool.output_schema for tool in tools}
    assert "next_cursor" in by_name["paper_search"]["properties"]
    assert "papers" in by_name["paper_citations"]["properties"]
    assert "results" in by_name["author_list"]["properties"] and "record" in by_name["author_get"]["properties"]


def test_results_match_their_published_schema(monkeypatch, tmp_path):
    """Checked independently of the SDK (jsonschema) on a few shapes; the SDK checks every result
    on the server and its client again (test_mcp_stdio.py calls every tool)."""
    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)

        async def go():
            async with in_process() as client:
                schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
                calls = {"paper_search": {"topic": "CRISPR off-target effects", "limit": 3, "verify": False},
                         "author_list": {"query": "hinton"}, "topic_get": {"id": "T10211"},
                         "library_list": {}}
                answers = {name: await client.call_tool(name, arguments) for name, arguments in calls.items()}
                return schemas, answers

        schemas, answers = run(go())
    for name, answer in answers.items():
        assert not answer.is_error, (name, text_of(answer))
        jsonschema.validate(answer.structured_content, schemas[name])
        assert json.loads(answer.content[1].text) == {k: v for k, v in answer.structured_content.items()
                                                      if k != "text"}, name


def test_a_tool_without_declarations_stops_the_server_from_starting(monkeypatch):
    from litsearch.runtime.settings import settings_from_env
    from litsearch.mcp_server import server as server_module

    async def undeclared_tool(word: str):
        """A tool someone forgot to declare."""
        return word

    monkeypatch.setattr(server_module, "TOOLS", [*server_module.TOOLS, undeclared_tool])
    with pytest.raises(RuntimeError, match="undeclared_tool declares no conduct and output"):
        server_module.build_server(settings_from_env({}))


def test_a_result_outside_its_schema_is_a_one_line_internal_error(monkeypatch, tmp_path):
    from litsearch.mcp_server import server as server_module
    from litsearch.mcp_server.conduct import READS_THIS_MACHINE, declare
    from litsearch.mcp_server.outputs import SaveResult
    from litsearch.mcp_server.runtime import tool_result

    @declare(READS_THIS_MACHINE, SaveResult)
    async def drifting_tool(word: str):
        """A tool whose result grew a field its model does not have."""
        return tool_result(word, {"saved": word, "unlisted": 1})

    monkeypatch.setattr(server_module, "TOOLS", [*server_module.TOOLS, drifting_tool])
    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)

        async def go():
            async with in_process() as client:
                return await client.call_tool("drifting_tool", {"word": "x"})

        answer = run(go())
    assert answer.is_error
    message = text_of(answer)
    assert message.startswith("internal error: drifting_tool's result does not match its output schema")
    assert "unlisted" in message and "invalid arguments" not in message and "\n" not in message
