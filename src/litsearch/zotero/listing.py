"""Reading a Zotero listing (the Web API's collections and items, the desktop's local API) page
by page, within bounds, keeping only what the caller needs.

A listing is read until a short page or ``Total-Results``; each entry is handed to ``keep``
(which keeps its matching keys, not the item) and dropped. A server that pages without end is
stopped by the bytes read (``MAX_LISTING_BYTES``), and one that repeats itself (a page with no
entry not seen before) at that page: either fails the listing with the reason, since papers
already in the library could not all be known.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from ..core.errors import ProviderError
from ..net.http import FetchedResponse

PAGE_SIZE = 100  # Zotero's largest page
MAX_PAGES = 2_000  # 200,000 entries: a library larger than this is not read to its end
# About 100,000 items in format=json (a library's listing runs 1-3 KB an item): more is read no
# further, so a server that pages without end costs this much, not the machine's memory.
MAX_LISTING_BYTES = 256 * 1024 * 1024


def items_of_page(body: bytes | str) -> list[dict[str, Any]]:
    """The ``data`` of each item in a ``format=json`` page."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise ProviderError("Zotero's answer to a listing is not JSON") from None
    if not isinstance(payload, list):
        raise ProviderError("Zotero's answer to a listing is not a list")
    return [entry["data"] for entry in payload if isinstance(entry, dict) and isinstance(entry.get("data"), dict)]


async def read_listing(page_at: Callable[[int], Awaitable[FetchedResponse | None]],
                       keep: Callable[[dict[str, Any]], None], what: str, provider: str) -> bool:
    """Hand every entry of a listing to ``keep``, each once (an entry is a Zotero object with a
    key). ``page_at(start)`` fetches the page starting at entry ``start``; None means the
    listing is not available (then False). ProviderError past a bound, or for a listing that
    repeats itself, since papers already in the library could then not all be known."""
    read_bytes = 0
    seen: set[str] = set()
    for page in range(MAX_PAGES):
        response = await page_at(page * PAGE_SIZE)
        if response is None:
            return False
        read_bytes += len(response.content)
        if read_bytes > MAX_LISTING_BYTES:
            raise ProviderError(f"{what} passed {MAX_LISTING_BYTES // (1024 * 1024)} MB after {len(seen):,} entries "
                                "and was read no further", provider=provider)
        entries = items_of_page(response.content)
        fresh = [data for data in entries if isinstance(data.get("key"), str) and data["key"] not in seen]
        for data in fresh:
            seen.add(data["key"])
            keep(data)
        total = response.headers.get("total-results", "").strip()
        if len(entries) < PAGE_SIZE or (total.isdigit() and len(seen) >= int(total)):
            return True
        if not fresh:
            raise ProviderError(f"{what} repeats itself (page {page + 1} holds no entry not seen before); "
                                "stopped reading it", provider=provider)
    raise ProviderError(f"{what} has more than {MAX_PAGES * PAGE_SIZE:,} entries and was read no further",
                        provider=provider)
