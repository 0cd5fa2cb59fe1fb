"""The response cache as the HTTP layer sees it: the stored answers (net/response_store.py)
plus a mode.

Modes (CLI flags): "normal" reads fresh entries and writes new answers; "refresh"
(--refresh) skips reading but writes; "off" (--no-cache) neither reads nor writes;
"offline" (--offline) reads entries even when expired and never touches the network.
Only answers worth keeping are stored, for the provider's time-to-live: a 2xx status and
a well-formed body (JSON that parses, XML that parses safely). An HTML error page sent
with status 200, a truncated body or a plain-text "Rate exceeded." is never cached, so a
passing fault cannot poison a day of searches. What a provider still could not use (an
arXiv error feed is well-formed XML) is removed again by ``forget``.

With a lab's Redis (``LITSEARCH_SHARED_STATE``), ``find``/``keep``/``drop`` add the lab's cache
(net/lab_cache.py) behind this machine's: an answer missing here is looked up there (and kept
here too, so ``--offline`` away from the lab still has it), a new answer goes to both. --offline
reads this machine's cache only: it touches no network, the lab's included.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Literal, get_args

from ..core.errors import StoreError
from .cache_keys import cache_key
from .responses import FetchedResponse
from .response_store import DEFAULT_MAX_BYTES, responses_of
from .shared_state import SharedStateLost

CacheMode = Literal["normal", "refresh", "off", "offline"]
MODES: tuple[CacheMode, ...] = get_args(CacheMode)


class ResponseCache:
    """The cache is an optimisation: when its file cannot be read or written (a full or
    read-only disk, a damaged file), it warns once and steps aside; the answers still count."""

    def __init__(self, store: Any, mode: CacheMode = "normal", warn: Callable[[str], None] | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES):
        """``store``: the open database the answers live in (a ``library.store.Store``), a
        ``ResponseStore``, or None (no cache); ``max_bytes``: the cache's size cap
        (``Settings.cache_max_bytes``); ``warn`` shows one line to the user."""
        if mode not in MODES:
            raise ValueError(f"unknown cache mode {mode!r}")
        self.store = responses_of(store, max_bytes)
        self.mode = mode
        self.warn = warn or (lambda message: None)
        self.failed = False  # the store failed once: no more cache reads or writes this run
        self.hits: dict[str, int] = {}
        self.stale_hits: dict[str, int] = {}
        self.lab_hits: dict[str, int] = {}  # of the hits, those found in the lab's cache

    @property
    def offline(self) -> bool:
        return self.mode == "offline"

    @property
    def reads(self) -> bool:
        return self.store is not None and not self.failed and self.mode in ("normal", "offline")

    @property
    def writes(self) -> bool:
        return self.store is not None and not self.failed and self.mode in ("normal", "refresh")

    def _step_aside(self, error: StoreError) -> None:
        if not self.failed:
            self.failed = True
            self.warn(f"cache disabled: {error}")

    def lookup(self, provider: str, method: str, url: str, request: dict[str, Any]) -> FetchedResponse | None:
        if not self.reads:
            return None
        key = cache_key(method, url, request.get("params"), _body(request))
        try:
            found = self.store.get(provider, key, allow_stale=self.offline)
        except StoreError as error:
            self._step_aside(error)
            return None
        if found is not None:
            self.hits[provider] = self.hits.get(provider, 0) + 1
            if found.stale:
                self.stale_hits[provider] = self.stale_hits.get(provider, 0) + 1
        return found

    def save(self, provider: str, method: str, url: str, request: dict[str, Any],
             response: FetchedResponse, ttl: float) -> str | None:
        """Store a good answer for ``ttl`` seconds (what the service declares); returns its key
        (None when not stored)."""
        if not self.writes or not 200 <= response.status < 300 or not well_formed(response):
            return None
        key = cache_key(method, url, request.get("params"), _body(request))
        try:
            self.store.put(provider, key, response, ttl)
        except StoreError as error:
            self._step_aside(error)
            return None
        return key

    # ------------------------------------------------------------ with the lab's cache behind

    async def find(self, provider: str, method: str, url: str, request: dict[str, Any],
                   lab: Any = None) -> FetchedResponse | None:
        """``lookup`` here, then in ``lab`` (a net.lab_cache.LabCache, or None)."""
        found = self.lookup(provider, method, url, request)
        if found is not None or lab is None or self.mode != "normal":
            return found
        key = cache_key(method, url, request.get("params"), _body(request))
        try:
            found = await lab.get(provider, key)
        except SharedStateLost:
            return None
        if found is not None:
            self.hits[provider] = self.hits.get(provider, 0) + 1
            self.lab_hits[provider] = self.lab_hits.get(provider, 0) + 1
            if self.writes and found.expires_at > found.stored_at:
                self._store_here(provider, key, found)
        return found

    def _store_here(self, provider: str, key: str, found: Any) -> None:
        import time

        try:
            self.store.put(provider, key, found, max(found.expires_at - time.time(), 1.0))
        except StoreError as error:
            self._step_aside(error)
        except ValueError:
            pass

    async def keep(self, provider: str, method: str, url: str, request: dict[str, Any],
                   response: FetchedResponse, ttl: float, lab: Any = None) -> str | None:
        """``save`` here and in ``lab``; the key when stored (here or there)."""
        key = self.save(provider, method, url, request, response, ttl)
        if lab is None or self.mode not in ("normal", "refresh") or not 200 <= response.status < 300:
            return key
        if key is None and not well_formed(response):
            return None
        key = key or cache_key(method, url, request.get("params"), _body(request))
        try:
            await lab.put(provider, key, response, ttl)
        except SharedStateLost:
            pass
        return key

    async def drop(self, provider: str, keys: list[str], lab: Any = None) -> None:
        """``forget`` here and in ``lab``."""
        self.forget(provider, keys)
        if lab is not None and keys and self.mode != "offline":
            try:
                await lab.delete(provider, keys)
            except SharedStateLost:
                pass

    def forget(self, provider: str, keys: list[str]) -> None:
        """Drop answers the provider turned out not to understand."""
        if self.store is not None and not self.failed and keys and self.mode != "offline":
            try:
                self.store.delete(provider, keys)
            except StoreError as error:
                self._step_aside(error)


def well_formed(response: FetchedResponse) -> bool:
    """JSON that parses or XML that parses safely; anything else is not kept."""
    kind = response.content_type
    try:
        if "json" in kind:
            json.loads(response.content)
            return True
        if "xml" in kind:
            import defusedxml.ElementTree as defused  # only when an XML answer is stored

            defused.fromstring(response.content)
            return True
    except Exception:  # any parse failure means "do not keep"
        return False
    return False


def _body(request: dict[str, Any]) -> Any:
    return request.get("json") if request.get("json") is not None else request.get("data")
