"""uvicorn's HTTP/1.1 protocol with the deadlines it lacks (mcp_server/http_serving.py says why).

A request has ``HEADER_SECONDS`` from its first byte, or from the connection's opening, to
finish its headers, and ``REQUEST_SECONDS`` to finish its body; a connection that misses either
is closed. Past ``MAX_CONNECTIONS`` open connections, each new one closes the oldest connection
still waiting for its headers (or itself, when none is).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0  # from a request's first byte (or the connection's opening) to its last header
REQUEST_SECONDS = 30.0  # from the headers to the body's last byte
MAX_CONNECTIONS = 512  # past this, the oldest connection still waiting for its headers is closed


class BoundedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self.waiting_since: float | None = None  # loop time the current request began (headers pending)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._expect_request()
        if len(self.connections) > MAX_CONNECTIONS:
            self._shed_one()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._expect_request()  # the next request on a kept-alive connection
        super().data_received(data)
        self._check_progress()

    def connection_lost(self, exc: Exception | None) -> None:
        self._clear()
        super().connection_lost(exc)

    # ---------------------------------------------------------------- deadlines

    def _expect_request(self) -> None:
        self._clear()
        self.waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _check_progress(self) -> None:
        state = self.conn.their_state
        if state is h11.IDLE:
            return
        if state is h11.SEND_BODY:
            if self.waiting_since is not None:  # headers complete: now the body's deadline
                self._clear()
                self._deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)
            return
        self._clear()  # the whole request is in (or the connection is closing)

    def _clear(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.waiting_since = None

    def _too_slow(self) -> None:
        self._deadline = None
        self.waiting_since = None
        if not self.transport.is_closing():
            self.transport.close()

    def _shed_one(self) -> None:
        """Close the connection that has waited longest for its headers (this one, if none has)."""
        waiting = [other for other in self.connections
                   if isinstance(other, BoundedH11Protocol) and other.waiting_since is not None and other is not self]
        oldest = min(waiting, key=lambda other: other.waiting_since or 0.0, default=self)
        oldest._too_slow()
