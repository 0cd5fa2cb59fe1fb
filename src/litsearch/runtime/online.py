"""Going online, written once for every door: open the response cache (and the library store
when the work needs it), start the paced HTTP client behind it, run the work, close both."""

from __future__ import annotations

import asyncio
import weakref
from contextlib import contextmanager
from typing import Any, Awaitable, Callable, Iterator, TypeVar

from ..core.config import Settings
from ..core.errors import StoreError
from ..net.cache import CacheMode
from .console import Console

T = TypeVar("T")


@contextmanager
def opened_cache(settings: Settings, mode: CacheMode, console: Console | None, store_needed: bool = False
                 ) -> Iterator[tuple[Any, Any]]:
    """(ResponseCache for ``mode``, the Store or None when not opened).

    A store the work cannot do without (--offline, --save) must open, else StoreError;
    otherwise a damaged or too-new file only switches the cache off, with a warning on
    ``console`` (none without one), and is left exactly as it was."""
    from ..library.store import Store
    from ..net.cache import ResponseCache

    store = None
    needed = store_needed or mode == "offline"
    warn = console.warn if console is not None else None
    if needed or mode != "off":
        try:
            # --offline only reads: a read-only or full disk must not stop it.
            store = Store.open(redact=settings.redact, read_only=mode == "offline" and not store_needed)
        except StoreError as exc:
            if needed:
                raise
            if warn is not None:
                warn(f"cache disabled: {exc}")
    try:
        yield ResponseCache(store, mode, warn=warn, max_bytes=settings.cache_max_bytes), store
    finally:
        if store is not None:
            store.close()


async def online(settings: Settings, work: Callable[[Any, Any], Awaitable[T]], *, mode: CacheMode = "normal",
                 console: Console | None = None, store_needed: bool = False, kept: "Kept | None" = None) -> T:
    """``work(http, store)``: one paced HTTP client behind the response cache in ``mode``
    (normal, or --refresh/--no-cache/--offline), and the store, None when it cannot be opened
    and is not needed. ``kept``: the store and connections a long-lived process keeps (the
    normal mode only), instead of opening both for this work."""
    from ..net.cache import ResponseCache
    from ..net.http import HttpClient

    if kept is not None:
        store = await kept.store(store_needed)
        cache = ResponseCache(store, "normal", warn=kept.console.warn, max_bytes=settings.cache_max_bytes)
        async with HttpClient(settings, cache=cache, connections=kept.connections()) as http:
            return await work(http, store)
    with opened_cache(settings, mode, console, store_needed=store_needed) as (cache, store):
        async with HttpClient(settings, cache=cache) as http:
            return await work(http, store)


class Kept:
    """What a long-lived process (the MCP server) opens once and keeps, so that no call opens
    a file or builds a client on the event loop: the store, opened (and its integrity checked)
    in a worker thread at the first call that wants it, and one httpx client per event loop
    (its connection pool and TLS set-up shared by every call)."""

    def __init__(self, settings: Settings, console: Console):
        self.settings = settings
        self.console = console
        self._store: Any = None
        # Per event loop (a lock or a client cannot move between loops; tests run several).
        self._opening: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()
        self._connections: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    async def store(self, needed: bool = False) -> Any:
        """The store; None when it cannot be opened and is not ``needed`` (a warning says why;
        the next call tries again), else StoreError."""
        if self._store is not None:
            return self._store
        lock = self._opening.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with lock:
            if self._store is None:
                try:
                    self._store = await asyncio.to_thread(_opened_and_verified, self.settings)
                except StoreError as exc:
                    if needed:
                        raise
                    self.console.warn(f"cache disabled: {exc}")
        return self._store

    def connections(self) -> Any:
        """The httpx client of the running event loop (a client cannot move between loops)."""
        from ..net.http import connections

        loop = asyncio.get_running_loop()
        if loop not in self._connections:
            self._connections[loop] = connections(self.settings)
        return self._connections[loop]

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def _opened_and_verified(settings: Settings) -> Any:
    from ..library.store import Store

    store = Store.open(redact=settings.redact)
    try:
        store.verify()
    except BaseException:
        store.close()
        raise
    return store
