"""Cursors carry nothing a call could not (issue 31, item 4). Every tool that pages by cursor is
checked the same way, through the SDK's client: its own cursor works; a hand-made one, one
altered by a character, one another tool or another server gave, and one the server signed
but whose arguments its schema refuses, are all refused in one line before any request."""

from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("mcp")
from mcp_inprocess import in_process, run, text_of, use_fakes  # noqa: E402

from fake_server import FakeServer  # noqa: E402

SEED = "10.1038/nbt.2647"
# Each paging tool, a first call that leaves rows for a next page, and arguments its schema
# refuses (what a forged cursor tried to smuggle in).
PAGING = {
    "paper_search": ({"topic": "CRISPR off-target effects", "limit": 8, "verify": False},
                     {"topic": "x" * 20_000, "limit": 100_000}),
    "paper_citations": ({"seeds": [SEED], "limit": 8, "verify": False},
                        {"seeds": [f"10.1000/{n}" for n in range(60)], "limit": 100_000, "topic": "t" * 20_000}),
    "paper_network": ({"ids": [SEED], "limit": 2}, {"ids": [f"10.1000/{n}" for n in range(60)], "depth": 3}),
    "author_list": ({"query": "lovelace", "limit": 5}, {"query": "q" * 5_000, "limit": 100_000}),
    # One funder per OpenAlex page: its next cursor is OpenAlex's own, carried inside ours.
    "funder_list": ({"country": ["US"], "limit": 1}, {"limit": 0, "sort": "anything"}),
}
SMALL = 4000  # a result budget small enough that every first call above leaves a next page


def old_style_cursor(tool: str, arguments: dict, offset: int = 0) -> str:
    """A cursor as the server used to make them: base64 of the JSON, unsigned."""
    payload = {"tool": tool, "args": arguments, "offset": offset}
    return base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode().rstrip("=")


def altered(cursor: str) -> str:
    """The cursor with one character of its body changed."""
    position = len(cursor) // 3
    return cursor[:position] + ("A" if cursor[position] != "A" else "B") + cursor[position + 1:]


@pytest.fixture
def fakes(monkeypatch, tmp_path):
    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)
        yield server


def test_the_issue_example_a_hand_made_cursor_makes_no_request(fakes):
    """60 seeds, limit 100,000 and a 20,000-character topic in an unsigned cursor made 126
    requests in one call; now it is refused before any."""
    forged = old_style_cursor("paper_citations", {"seeds": [f"10.1000/{n}" for n in range(60)], "direction": "both",
                                                  "topic": "t" * 20_000, "limit": 100_000, "include_abstracts": True,
                                                  "verify": True})

    async def go():
        async with in_process() as client:
            return await client.call_tool("paper_citations", {"seeds": [SEED], "cursor": forged})

    answer = run(go())
    assert answer.is_error and "the cursor is not one this server gave" in text_of(answer)
    assert "\n" not in text_of(answer) and fakes.requests == []


@pytest.mark.parametrize("tool", sorted(PAGING))
def test_every_paging_tool_takes_its_own_cursor_and_refuses_every_other(fakes, tool):
    from litsearch.mcp_server.cursors import encode_cursor

    first_call, smuggled = PAGING[tool]
    other_tool = "funder_list" if tool != "funder_list" else "author_list"

    async def go():
        async with in_process(max_chars=SMALL) as client:
            first = await client.call_tool(tool, first_call)
            assert not first.is_error, text_of(first)
            cursor = first.structured_content["next_cursor"]
            assert cursor, f"{tool}: the first page should leave more rows"
            honest = await client.call_tool(tool, {**_required(tool), "cursor": cursor})
            other = await client.call_tool(other_tool, {**_required(other_tool), "cursor": cursor})
            before = len(fakes.requests)
            # Signed by this server, but with arguments the tool's schema refuses: e.g. a cursor
            # from a version with other limits, or a bug. The schema is checked again.
            resigned = encode_cursor(tool, {**_payload_arguments(cursor), **smuggled}, 0)
            refused = {
                "hand-made": await client.call_tool(tool, {**_required(tool), "cursor": old_style_cursor(
                    tool, {**_payload_arguments(cursor), **smuggled})}),
                "altered": await client.call_tool(tool, {**_required(tool), "cursor": altered(cursor)}),
                "truncated": await client.call_tool(tool, {**_required(tool), "cursor": cursor[:-3]}),
                "signed, outside the schema": await client.call_tool(tool, {**_required(tool), "cursor": resigned}),
                "signed, with a cursor inside": await client.call_tool(tool, {**_required(tool), "cursor": encode_cursor(
                    tool, {**_payload_arguments(cursor), "cursor": cursor}, 0)}),
                "signed, past any page": await client.call_tool(tool, {**_required(tool), "cursor": encode_cursor(
                    tool, _payload_arguments(cursor), 10**9)}),
            }
            spent = len(fakes.requests) - before
        async with in_process(max_chars=SMALL) as restarted:  # a new server: a new key
            refused["another server's"] = await restarted.call_tool(tool, {**_required(tool), "cursor": cursor})
        return first, honest, other, refused, spent

    first, honest, other, refused, spent = run(go())
    assert not honest.is_error, text_of(honest)
    assert _rows(tool, honest) and _rows(tool, honest)[0] != _rows(tool, first)[0]  # the next rows, not the first
    assert other.is_error and "not one this server gave" in text_of(other)
    for how, answer in refused.items():
        assert answer.is_error, (tool, how)
        message = text_of(answer)
        assert "\n" not in message and "Traceback" not in message and "internal error" not in message, (how, message)
        if how == "signed, outside the schema":
            assert f"the cursor's arguments fail {tool}'s checks" in message, message
        elif how == "signed, with a cursor inside":
            assert "(cursor)" in message, message
        else:
            assert "not one this server gave" in message, (how, message)
    assert spent == 0  # nothing refused reached an API


def test_a_cursor_is_checked_by_the_tools_own_schema_with_its_limits(fakes):
    """The re-check is the tool's argument model itself: each limit it declares holds."""
    from litsearch.mcp_server.cursors import checked_arguments
    from litsearch.mcp_server.tools_papers import paper_citations, paper_search
    from litsearch.core.errors import UsageError

    base = {"seeds": [SEED]}
    for bad, where in (({"limit": 101}, "limit"), ({"limit": 0}, "limit"), ({"topic": "t" * 1001}, "topic"),
                       ({"seeds": [f"10.1/{n}" for n in range(60)]}, "seeds"), ({"direction": "sideways"}, "direction"),
                       ({"seeds": []}, "seeds"), ({"verify": "perhaps"}, "verify")):
        with pytest.raises(UsageError, match=f"paper_citations's checks: {where}"):
            checked_arguments(paper_citations, {**base, **bad})
    with pytest.raises(UsageError, match="not paper_citations's \\(colour\\)"):
        checked_arguments(paper_citations, {**base, "colour": "red"})
    with pytest.raises(UsageError, match="filters.colour"):
        checked_arguments(paper_search, {"topic": "x", "filters": {"colour": "red"}})
    assert checked_arguments(paper_citations, base)["limit"] == 20  # defaults filled as for a direct call


def _required(tool: str) -> dict:
    """The arguments a call must carry whatever the cursor says (the schema's required ones)."""
    return {"paper_search": {"topic": "ignored"}, "paper_citations": {"seeds": ["ignored"]},
            "paper_network": {"ids": ["ignored"]}}.get(tool, {})


def _payload_arguments(cursor: str) -> dict:
    body = cursor.rpartition(".")[0]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["args"]


def _rows(tool: str, answer) -> list:
    data = answer.structured_content
    items = data.get("papers") or data.get("nodes") or data.get("results") or []
    return [item.get("rank") or item.get("id") for item in items]
