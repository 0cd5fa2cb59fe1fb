"""Cursors: the next page of a tool's result, one call away.

A cursor holds the call's arguments and where the next page starts, so the server answers it
from the result it still holds or by running the same call again (the response cache makes
that cheap). It is opaque but not secret, and a model can be asked to "continue with this
cursor": so it is signed with a key this server drew at random when it started (HMAC-SHA256),
and a cursor it did not give, or one altered by a single character, is refused. Its arguments
then pass the tool's own schema again (the model the SDK validates every call with), as if
they had been given directly: a cursor can never carry what a call could not.

A cursor is good for the server that gave it: after a restart, the call is run again without
one."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any, Callable

from ..core.errors import UsageError
from .runtime import current, one_line

# The longest cursor a tool takes: paper_search's largest arguments (a 1,000-character topic,
# 8 variants of as much, every filter) encoded stay well under it.
MAX_CURSOR_CHARS = 32_000
# No result holds more rows than this (OpenAlex pages up to 10,000 deep; searches show 100).
MAX_OFFSET = 100_000
TAG_BYTES = 16
NOT_OURS = "the cursor is not one this server gave (altered, or from before a restart); pass next_cursor " \
           "exactly as returned, or run the call again without a cursor"


@dataclass(frozen=True)
class Resumed:
    """What a cursor carried, checked: the tool's arguments (validated by its schema), where the
    next page starts, and the tool's own bookmarks (e.g. OpenAlex's cursor)."""

    arguments: dict[str, Any]
    offset: int
    extra: dict[str, Any]


def encode_cursor(tool: str, arguments: dict[str, Any], offset: int, extra: dict[str, Any] | None = None) -> str:
    payload = json.dumps({"tool": tool, "args": arguments, "offset": offset, **(extra or {})}, sort_keys=True,
                         separators=(",", ":"), ensure_ascii=False)
    body = _b64(payload.encode())
    return f"{body}.{_b64(_tag(tool, body))}"


def resume(function: Callable[..., Any], cursor: str) -> Resumed:
    """The checked contents of a cursor given to ``function`` (a tool); UsageError for a cursor
    this server did not give this tool, or arguments its schema refuses."""
    tool = function.__name__
    body, dot, tag = cursor.strip().rpartition(".")
    if not dot or len(cursor) > MAX_CURSOR_CHARS or not hmac.compare_digest(_unb64(tag), _tag(tool, body)):
        raise UsageError(NOT_OURS)
    try:
        payload = json.loads(_unb64(body).decode())
    except (ValueError, UnicodeDecodeError):
        raise UsageError(NOT_OURS) from None
    if not isinstance(payload, dict):
        raise UsageError(NOT_OURS)
    offset = payload.get("offset")
    if payload.get("tool") != tool or not isinstance(payload.get("args"), dict) or type(offset) is not int \
            or not 0 <= offset <= MAX_OFFSET:
        raise UsageError(NOT_OURS)
    extra = {name: value for name, value in payload.items() if name not in ("tool", "args", "offset")}
    return Resumed(checked_arguments(function, payload["args"]), offset, extra)


def checked_arguments(function: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` validated by the tool's own argument model (the one the SDK builds from its
    signature and checks every call with); a cursor inside them, or a name the tool does not
    take, is refused too."""
    from pydantic import ValidationError

    model = _argument_model(function)
    names = set(model.model_fields)
    unknown = sorted(set(arguments) - names) + (["cursor"] if "cursor" in arguments else [])
    if unknown:
        raise UsageError(f"the cursor's arguments are not {function.__name__}'s ({', '.join(unknown)}); "
                         "run the call again without a cursor")
    try:
        validated = model.model_validate(arguments).model_dump_one_level()
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in item.get('loc', ())) or 'arguments'}: {item.get('msg')}"
                             for item in error.errors())
        raise UsageError(one_line(f"the cursor's arguments fail {function.__name__}'s checks: {problems}")) from None
    validated.pop("cursor", None)
    return validated


@functools.lru_cache(maxsize=None)
def _argument_model(function: Callable[..., Any]) -> Any:
    from mcp.server.mcpserver.utilities.func_metadata import func_metadata

    return func_metadata(function, structured_output=False).arg_model


def _tag(tool: str, body: str) -> bytes:
    return hmac.new(current().cursor_key, f"{tool}\n{body}".encode(), hashlib.sha256).digest()[:TAG_BYTES]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return b""
