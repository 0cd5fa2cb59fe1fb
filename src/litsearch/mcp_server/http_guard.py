"""The door of ``lit-search mcp --http``: an ASGI layer in front of the SDK's streamable HTTP app
that every request passes first.

1. **A valid bearer token** (mcp_server/tokens.py), or 401 with ``WWW-Authenticate: Bearer``
   and nothing else done: no session, no tool, no body read. Refusals are logged (rate-limited,
   with the peer's address), never with what was presented.
2. **The token's request budget**: past it, 429 with ``Retry-After``.
3. **Sessions per token, bounded**: a token holds at most ``per_token`` sessions. One more
   ``initialize`` ends that token's least recently used idle session (as its client's DELETE
   would; the client sees 404 on it and starts afresh, as the protocol says), so a client
   that opens sessions without end only recycles its own, and the SDK's table (sized
   ``per_token`` x tokens) never fills for the others. The SDK binds each session to the
   token that made it (``scope["user"]``): another token's request for it is answered 404.
4. **Each call logged** by the token's name: ``alice tools/call paper_search -> 200 (1.42 s)``.

Host and Origin are checked after this by the SDK's own transport security (http_serving.py
sets what it allows).
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections import OrderedDict
from typing import Any, Awaitable, Callable

from .tokens import RequestBudget, TokenTable

log = logging.getLogger("litsearch.mcp.calls")
MAX_BODY_BYTES = 4 * 1024 * 1024  # the SDK's own cap on a request body
REFUSAL_LOG_SECONDS = 10.0  # at most one "refused" line per this many seconds (with a count)
SESSION_HEADER = "mcp-session-id"
_WORD = re.compile(r"[^A-Za-z0-9_./:-]")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class SessionBook:
    """The sessions each token opened, least recently used first, and which are busy."""

    def __init__(self, per_token: int):
        self.per_token = per_token
        self._by_token: dict[str, OrderedDict[str, None]] = {}
        self._owner: dict[str, str] = {}
        self._busy: dict[str, int] = {}
        # Places taken by an initialize still being answered: its session is known only once the
        # answer has gone out, and the client may send the next initialize before the server has
        # recorded it; without the place, both fitted under the cap (17 sessions of 16, under load).
        self._opening: dict[str, int] = {}

    def count(self, name: str) -> int:
        return len(self._by_token.get(name, ())) + self._opening.get(name, 0)

    def take_place(self, name: str) -> None:
        self._opening[name] = self._opening.get(name, 0) + 1

    def give_place_back(self, name: str) -> None:
        left = self._opening.get(name, 0) - 1
        if left > 0:
            self._opening[name] = left
        else:
            self._opening.pop(name, None)

    def opened(self, name: str, session: str) -> None:
        self._by_token.setdefault(name, OrderedDict())[session] = None
        self._owner[session] = name

    def closed(self, session: str) -> None:
        name = self._owner.pop(session, None)
        if name is not None:
            self._by_token[name].pop(session, None)

    def used(self, session: str) -> None:
        name = self._owner.get(session)
        if name is not None:
            self._by_token[name].move_to_end(session)

    def begin(self, session: str | None) -> None:
        if session:
            self._busy[session] = self._busy.get(session, 0) + 1
            self.used(session)

    def end(self, session: str | None) -> None:
        if session and session in self._busy:
            self._busy[session] -= 1
            if not self._busy[session]:
                del self._busy[session]

    def to_end(self, name: str) -> str | None:
        """The session of ``name`` to end for a new one: its least recently used idle one (None
        when every one is busy)."""
        for session in self._by_token.get(name, ()):
            if not self._busy.get(session):
                return session
        return None


class CallGate:
    """ASGI middleware: token, budget, sessions, log; then ``app``."""

    def __init__(self, app: Any, tokens: TokenTable, budget: RequestBudget, sessions: SessionBook,
                 clock: Callable[[], float] = time.monotonic):
        self.app = app
        self.tokens = tokens
        self.budget = budget
        self.sessions = sessions
        self.clock = clock
        self._refused = 0
        self._refusal_logged_at = -math.inf
        self._over_budget: dict[str, tuple[int, float]] = {}  # name -> (refused since logged, logged at)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = self.clock()
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        token = self.tokens.find(_bearer(headers.get("authorization")))
        if token is None:
            self._log_refusal(scope)
            await _answer(send, 401, "a valid bearer token is required: send 'Authorization: Bearer <token>'",
                          {"www-authenticate": 'Bearer realm="lit-search"'})
            return
        wait = self.budget.take(token.name)
        if wait is not None:
            self._log_over_budget(token.name)
            await _answer(send, 429, f"this token's request budget ({self.budget.per_hour} an hour) is spent",
                          {"retry-after": str(math.ceil(wait))})
            return
        method = scope["method"]
        body, receive = await _buffered(receive) if method == "POST" else (b"", receive)
        if body is None:
            await _answer(send, 413, "request body too large")
            return
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        # The token's name is who the SDK binds the session to; its value stays here.
        scope = {**scope, "user": AuthenticatedUser(AccessToken(token=f"name:{token.name}", client_id=token.name,
                                                                scopes=[]))}
        session = headers.get(SESSION_HEADER)
        opening = session is None and method == "POST"
        if opening and not await self._room_for(token.name, scope):
            await _answer(send, 503, f"this token already has {self.sessions.per_token} busy sessions")
            return
        answered: dict[str, Any] = {"status": 500, "session": None}

        async def watched(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
                for name, value in message.get("headers", []):
                    if name.decode("latin-1").lower() == SESSION_HEADER:
                        answered["session"] = value.decode("latin-1")
            await send(message)

        self.sessions.begin(session)
        try:
            await self.app(scope, receive, watched)
        finally:
            self.sessions.end(session)
            if opening:
                self.sessions.give_place_back(token.name)
            status = answered["status"]
            if session is None and answered["session"] and status < 400:
                self.sessions.opened(token.name, answered["session"])
            elif session and (status == 404 or (method == "DELETE" and status < 400)):
                self.sessions.closed(session)
            log.info("%s %s -> %d (%.2f s)", token.name, _call_words(method, body), status, self.clock() - started)

    async def _room_for(self, name: str, scope: Scope) -> bool:
        """Room for one more session of ``name``: end its least recently used idle one when full."""
        while self.sessions.count(name) >= self.sessions.per_token:
            oldest = self.sessions.to_end(name)
            if oldest is None:
                return False
            await self._end_session(oldest, scope)
            self.sessions.closed(oldest)
            log.info("%s: ended its least recently used session to open another (%d at most)", name,
                     self.sessions.per_token)
        self.sessions.take_place(name)  # no await since the count: the place is this request's
        return True

    async def _end_session(self, session: str, scope: Scope) -> None:
        """End ``session`` as its client would: a DELETE through the SDK, as the same token."""
        headers = [(name, value) for name, value in scope["headers"]
                   if name.lower() in (b"host", b"origin", b"mcp-protocol-version")]
        ending = {**scope, "method": "DELETE", "headers": headers + [(SESSION_HEADER.encode(), session.encode())],
                  "query_string": b""}

        async def nothing() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def dropped(message: dict[str, Any]) -> None:
            pass

        await self.app(ending, nothing, dropped)

    def _log_refusal(self, scope: Scope) -> None:
        self._refused += 1
        now = self.clock()
        if now - self._refusal_logged_at >= REFUSAL_LOG_SECONDS:
            peer = (scope.get("client") or ("unknown",))[0]
            log.warning("refused %d request(s) without a valid token (the latest from %s)", self._refused, peer)
            self._refused, self._refusal_logged_at = 0, now


    def _log_over_budget(self, name: str) -> None:
        refused, logged_at = self._over_budget.get(name, (0, -math.inf))
        refused += 1
        now = self.clock()
        if now - logged_at >= REFUSAL_LOG_SECONDS:
            log.warning("%s: request budget spent (%d an hour); refused %d request(s)", name, self.budget.per_hour,
                        refused)
            refused, logged_at = 0, now
        self._over_budget[name] = (refused, logged_at)


def _bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, credential = value.strip().partition(" ")
    return credential.strip() if scheme.lower() == "bearer" and credential.strip() else None


async def _buffered(receive: Receive) -> tuple[bytes | None, Receive]:
    """The whole request body (None past MAX_BODY_BYTES), and a ``receive`` that replays it."""
    parts: list[bytes] = []
    size = 0
    trailing: list[dict[str, Any]] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            trailing.append(message)
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None, receive
        parts.append(chunk)
        if not message.get("more_body", False):
            break
    body = b"".join(parts)
    queue = [{"type": "http.request", "body": body, "more_body": False}, *trailing]

    async def replay() -> dict[str, Any]:
        return queue.pop(0) if queue else await receive()

    return body, replay


def _call_words(method: str, body: bytes) -> str:
    """What a request asked, for the log: the JSON-RPC method and tool (client text, kept to
    safe characters), never the arguments."""
    if method != "POST":
        return method
    try:
        message = json.loads(body)
    except ValueError:
        return "POST (not JSON)"
    if isinstance(message, list):
        return f"POST batch of {len(message)}"
    if not isinstance(message, dict):
        return "POST"
    words = _WORD.sub("?", str(message.get("method", "?")))[:64]
    params = message.get("params")
    if words == "tools/call" and isinstance(params, dict):
        words += " " + _WORD.sub("?", str(params.get("name", "?")))[:64]
    return words


async def _answer(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": message}}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    head += [(name.encode(), value.encode()) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
