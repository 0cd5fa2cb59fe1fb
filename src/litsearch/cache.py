"""The response cache as the HTTP layer sees it: a Store plus a mode.

Modes (CLI flags): "normal" reads fresh entries and writes new answers; "refresh"
(--refresh) skips reading but writes; "off" (--no-cache) neither reads nor writes;
"offline" (--offline) reads entries even when expired and never touches the network.
Only successful (2xx) answers are stored, for the provider's time-to-live.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from .config import Settings
from .http import FetchedResponse
from .store import CACHE_TTL_SECONDS, Store, StoreError, cache_key, default_store_path

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


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    """--refresh / --no-cache / --offline, for every command that fetches."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--refresh", action="store_true", help="ignore cached answers (and store the new ones)")
    group.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    group.add_argument("--offline", action="store_true",
                       help="answer from the local cache only, even if expired; no network")


def cache_mode(args: argparse.Namespace) -> str:
    if args.offline:
        return "offline"
    return "refresh" if args.refresh else "off" if args.no_cache else "normal"


@contextmanager
def opened_cache(settings: Settings, mode: str, store_needed: bool = False) -> Iterator[tuple[ResponseCache, Store | None]]:
    """The cache for ``mode`` and its store (None when not opened).

    A store the command cannot do without (--offline, --save) must open, else StoreError;
    otherwise a damaged or too-new file only switches the cache off, with a warning, and
    is left exactly as it was."""
    store = None
    needed = store_needed or mode == "offline"
    if needed or mode != "off":
        try:
            store = Store.open(default_store_path(), redact=settings.redact)
        except StoreError as exc:
            if needed:
                raise
            print(f"lit-search: cache disabled: {exc}", file=sys.stderr)
    try:
        yield ResponseCache(store, mode), store
    finally:
        if store is not None:
            store.close()
