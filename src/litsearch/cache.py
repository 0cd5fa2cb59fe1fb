"""The response cache as the HTTP layer sees it: a Store plus a mode.

Modes (CLI flags): "normal" reads fresh entries and writes new answers; "refresh"
(--refresh) skips reading but writes; "off" (--no-cache) neither reads nor writes;
"offline" (--offline) reads entries even when expired and never touches the network.
Only successful (2xx) answers are stored, for the provider's time-to-live.
"""

from __future__ import annotations

from typing import Any

from .http import FetchedResponse
from .store import CACHE_TTL_SECONDS, Store, cache_key

MODES = ("normal", "refresh", "off", "offline")


class ResponseCache:
    def __init__(self, store: Store | None, mode: str = "normal"):
        if mode not in MODES:
            raise ValueError(f"unknown cache mode {mode!r}")
        self.store = store
        self.mode = mode
        self.hits: dict[str, int] = {}
        self.stale_hits: dict[str, int] = {}

    @property
    def offline(self) -> bool:
        return self.mode == "offline"

    @property
    def reads(self) -> bool:
        return self.store is not None and self.mode in ("normal", "offline")

    @property
    def writes(self) -> bool:
        return self.store is not None and self.mode in ("normal", "refresh")

    def lookup(self, provider: str, method: str, url: str, request: dict[str, Any]) -> FetchedResponse | None:
        if not self.reads:
            return None
        key = cache_key(method, url, request.get("params"), _body(request))
        found = self.store.cache_get(provider, key, allow_stale=self.offline)
        if found is not None:
            self.hits[provider] = self.hits.get(provider, 0) + 1
            if found.stale:
                self.stale_hits[provider] = self.stale_hits.get(provider, 0) + 1
        return found

    def save(self, provider: str, method: str, url: str, request: dict[str, Any],
             response: FetchedResponse) -> None:
        if not self.writes or not 200 <= response.status < 300:
            return
        key = cache_key(method, url, request.get("params"), _body(request))
        self.store.cache_put(provider, key, response, CACHE_TTL_SECONDS.get(provider, 86400))


def _body(request: dict[str, Any]) -> Any:
    return request.get("json") if request.get("json") is not None else request.get("data")
