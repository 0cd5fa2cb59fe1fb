"""mcp_server/cursors.py in process: what a cursor holds, how it is signed, and every way one is
refused (test_cursors.py checks the same through the SDK's client, tool by tool). The signature
is checked against an independent HMAC-SHA256 here, so the format the module's docstring
promises is the one it makes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from types import SimpleNamespace

import pytest

pytest.importorskip("mcp")

from litsearch.core.errors import UsageError  # noqa: E402
from litsearch.mcp_server import runtime  # noqa: E402
from litsearch.mcp_server.cursors import MAX_CURSOR_CHARS, MAX_OFFSET, NOT_OURS, encode_cursor, resume  # noqa: E402
from litsearch.mcp_server.tools_papers import paper_citations, paper_search  # noqa: E402

KEY = bytes(range(32))
# paper_search's arguments as its schema fills them in: what a resumed call runs with.
DEFAULTS = {"variants": None, "providers": None, "filters": None, "sort": "relevance", "limit": 20,
            "exclude_retracted": False, "include_abstracts": True, "verify": True, "rerank": None}


@pytest.fixture(autouse=True)
def server(monkeypatch):
    """A server whose cursor key is KEY; ``server.restart(key)`` gives it another."""
    installed = SimpleNamespace(cursor_key=KEY)
    monkeypatch.setattr(runtime, "_RUNTIME", [installed])

    def restart(key: bytes):
        installed.cursor_key = key
    return SimpleNamespace(restart=restart)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def signed(payload, tool: str = "paper_search", key: bytes = KEY) -> str:
    """A cursor made here, from the docstring's recipe: base64url (no padding) of the JSON, a dot,
    and the first 128 bits of HMAC-SHA256(key, tool + newline + body)."""
    body = b64(payload if isinstance(payload, bytes) else json.dumps(payload).encode())
    tag = hmac.new(key, (tool + "\n" + body).encode(), hashlib.sha256).digest()[:16]
    return f"{body}.{b64(tag)}"


def refused(cursor: str, tool=paper_search) -> str:
    with pytest.raises(UsageError) as error:
        resume(tool, cursor)
    return str(error.value)


# ---------------------------------------------------------------- what a cursor carries

@pytest.mark.parametrize("topic", ["CRISPR", "CRISPR off-target", "CRISPR off-targets", "Ünïcødé 基因编辑 🧬"])
def test_a_cursor_gives_back_the_call_its_offset_and_the_tools_bookmarks(topic):
    # Topics of each length modulo 3 give bodies of each length modulo 4 (base64 without padding).
    cursor = encode_cursor("paper_search", {"topic": topic, "limit": 40}, 20, {"openalex_cursor": "IlsxXSI="})
    resumed = resume(paper_search, cursor)
    assert resumed.arguments == {"topic": topic, **DEFAULTS, "limit": 40}  # "cursor" itself is not handed back
    assert (resumed.offset, resumed.extra) == (20, {"openalex_cursor": "IlsxXSI="})
    assert resume(paper_search, f"  {cursor}\n").offset == 20  # as a model may paste it
    assert resume(paper_search, encode_cursor("paper_search", {"topic": topic}, 0)).extra == {}


def test_a_cursor_is_the_signed_compact_json_of_the_call():
    cursor = encode_cursor("paper_search", {"topic": "基因", "limit": 5}, 7, {"page": "b"})
    body, tag = cursor.split(".")
    text = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    # Compact and sorted, and not escaped to \\uXXXX (six characters for one, where UTF-8 takes
    # two to four bytes): a non-Latin topic makes a cursor no longer than it must be.
    assert text == '{"args":{"limit":5,"topic":"基因"},"offset":7,"page":"b","tool":"paper_search"}'
    assert cursor == signed(text.encode())
    assert "=" not in cursor and len(tag) == 22  # 128 bits, base64url without padding


def test_every_cursor_is_the_recipe_and_comes_back():
    # Bodies of every length modulo 4 (the offset's digits), each with its own tag.
    for offset in (*range(64), 99_999, 100_000):
        cursor = encode_cursor("paper_search", {"topic": "t"}, offset)
        assert cursor == signed(f'{{"args":{{"topic":"t"}},"offset":{offset},"tool":"paper_search"}}'.encode())
        assert resume(paper_search, cursor).offset == offset


def test_the_same_call_gives_the_same_cursor_whatever_the_order_of_its_arguments():
    assert encode_cursor("paper_search", {"topic": "t", "limit": 5}, 0) == \
        encode_cursor("paper_search", {"limit": 5, "topic": "t"}, 0)


# ---------------------------------------------------------------- refused: not this server's, or not this tool's

def test_a_cursor_from_another_tool_or_another_server_or_altered_is_refused(server):
    cursor = encode_cursor("paper_search", {"topic": "t"}, 0)
    assert refused(cursor, paper_citations) == NOT_OURS
    body, tag = cursor.split(".")
    for changed in (f"{body[:-1]}{'A' if body[-1] != 'A' else 'B'}.{tag}",
                    f"{body}.{tag[:-1]}{'A' if tag[-1] != 'A' else 'B'}",
                    f"{body}.{tag[:-2]}", f"{body}.{tag[:-1]}", f"{body}.{tag}A", f"{body}{tag}", body, f"{body}.",
                    f".{tag}", "", "...", f"{body}.{tag}.{tag}"):
        assert refused(changed) == NOT_OURS, changed
    server.restart(bytes(32))
    assert refused(cursor) == NOT_OURS  # after a restart, a new key
    server.restart(KEY)
    assert resume(paper_search, cursor).offset == 0


def test_the_message_says_what_to_do():
    assert NOT_OURS == ("the cursor is not one this server gave (altered, or from before a restart); pass "
                        "next_cursor exactly as returned, or run the call again without a cursor")


@pytest.mark.parametrize("payload", [
    b"not json", b"\xff\xfe", b'["paper_search"]', b'"paper_search"', b"null",
    {"args": {"topic": "t"}, "offset": 0},  # no tool
    {"tool": "paper_citations", "args": {"topic": "t"}, "offset": 0},  # signed for one tool, naming another
    {"tool": "paper_search", "offset": 0},
    {"tool": "paper_search", "args": [["topic", "t"]], "offset": 0},
    {"tool": "paper_search", "args": {"topic": "t"}},
    {"tool": "paper_search", "args": {"topic": "t"}, "offset": None},
    {"tool": "paper_search", "args": {"topic": "t"}, "offset": "3"},
    {"tool": "paper_search", "args": {"topic": "t"}, "offset": 3.0},
    {"tool": "paper_search", "args": {"topic": "t"}, "offset": True},
    {"tool": "paper_search", "args": {"topic": "t"}, "offset": -1},
    {"tool": "paper_search", "args": {"topic": "t"}, "offset": MAX_OFFSET + 1},
])
def test_a_signed_payload_that_is_no_call_is_refused(payload):
    assert refused(signed(payload)) == NOT_OURS


def test_the_offset_runs_from_0_to_100_000():
    for offset in (0, 1, 99_999, 100_000):
        assert resume(paper_search, signed({"tool": "paper_search", "args": {"topic": "t"}, "offset": offset})) \
            .offset == offset
    assert MAX_OFFSET == 100_000


def _cursor_of_length(length: int) -> str:
    """A genuine cursor of exactly ``length`` characters (whitespace around it counts: it is
    what the tool was given)."""
    def made(size: int) -> str:
        return encode_cursor("paper_search", {"topic": "t", "variants": ["v" * size]}, 0)

    start = (length - len(made(0))) * 3 // 4 - 4  # four characters of base64 per three bytes
    for size in range(max(0, start), start + 8):
        cursor = made(size)
        if len(cursor) >= length - 2:
            return cursor + " " * (length - len(cursor))
    raise AssertionError(length)


def test_a_cursor_of_32_000_characters_is_taken_and_a_longer_one_refused():
    assert MAX_CURSOR_CHARS == 32_000  # the schema's max_length for every cursor argument
    for length in (31_999, 32_000):
        cursor = _cursor_of_length(length)
        assert len(cursor) == length and resume(paper_search, cursor).arguments["variants"]
    assert refused(_cursor_of_length(32_001)) == NOT_OURS


# ---------------------------------------------------------------- the arguments pass the tool's schema again

@pytest.mark.parametrize("arguments,names", [
    ({"topic": "t", "bogus": 1}, "bogus"),
    ({"topic": "t", "zeta": 1, "alpha": 2}, "alpha, zeta"),
    ({"topic": "t", "cursor": "abc.def"}, "cursor"),
    ({"topic": "t", "cursor": None}, "cursor"),
    ({"topic": "t", "cursor": "x", "more": 1}, "more, cursor"),
])
def test_names_the_tool_does_not_take_or_a_cursor_inside_are_refused(arguments, names):
    message = refused(encode_cursor("paper_search", arguments, 0))
    assert message == f"the cursor's arguments are not paper_search's ({names}); run the call again without a cursor"


@pytest.mark.parametrize("arguments,problems", [
    ({"topic": "t", "limit": 101}, "limit: Input should be less than or equal to 100"),
    ({"topic": "", "limit": 0}, "topic: String should have at least 1 character; "
                                "limit: Input should be greater than or equal to 1"),
    ({"topic": "t", "variants": ["a", 3]}, "variants.str: Input should be a valid string; "
                                           "variants.list[str].1: Input should be a valid string"),
    ({"limit": 5}, "topic: Field required"),
])
def test_arguments_the_schema_refuses_are_refused_naming_each_problem(arguments, problems):
    message = refused(encode_cursor("paper_search", arguments, 0))
    assert message == f"the cursor's arguments fail paper_search's checks: {problems}"
