"""The response cache as the HTTP layer sees it: a Store plus a mode.

Modes (CLI flags): "normal" reads fresh entries and writes new answers; "refresh"
(--refresh) skips reading but writes; "off" (--no-cache) neither reads nor writes;
"offline" (--offline) reads entries even when expired and never touches the network.
Only answers worth keeping are stored, for the provider's time-to-live: a 2xx status and
a well-formed body (JSON that parses, XML that parses safely). An HTML error page sent
with status 200, a truncated body or a plain-text "Rate exceeded." is never cached, so a
passing fault cannot poison a day of searches. What a provider still could not use (an
arXiv error feed is well-formed XML) is removed again by ``forget``.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator

import defusedxml.ElementTree as defused

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
             response: FetchedResponse) -> str | None:
        """Store a good answer; returns its key (None when not stored)."""
        if not self.writes or not 200 <= response.status < 300 or not well_formed(response):
            return None
        key = cache_key(method, url, request.get("params"), _body(request))
        self.store.cache_put(provider, key, response, CACHE_TTL_SECONDS.get(provider, 86400))
        return key

    def forget(self, provider: str, keys: list[str]) -> None:
        """Drop answers the provider turned out not to understand."""
        if self.store is not None and keys and self.mode != "offline":
            self.store.cache_delete(provider, keys)


def well_formed(response: FetchedResponse) -> bool:
    """JSON that parses or XML that parses safely; anything else is not kept."""
    kind = response.content_type
    try:
        if "json" in kind:
            json.loads(response.content)
            return True
        if "xml" in kind:
            defused.fromstring(response.content)
            return True
    except Exception:  # any parse failure means "do not keep"
        return False
    return False


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
