"""Going online, written once for every door: open the response cache (and the library store
when the work needs it), start the paced HTTP client behind it, run the work, close both."""

from __future__ import annotations

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
                 console: Console | None = None, store_needed: bool = False) -> T:
    """``work(http, store)``: one paced HTTP client behind the response cache in ``mode``
    (normal, or --refresh/--no-cache/--offline), and the store, None when it cannot be opened
    and is not needed."""
    from ..net.http import HttpClient

    with opened_cache(settings, mode, console, store_needed=store_needed) as (cache, store):
        async with HttpClient(settings, cache=cache) as http:
            return await work(http, store)
