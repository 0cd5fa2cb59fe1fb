"""The response cache's size cap: its bytes counted, and the oldest answers evicted when a
new one would pass the cap (``LITSEARCH_CACHE_MAX_MB``, default 200 MB; doctor shows the
size). Functions over the ``cache`` table alone, so they move with the cache wherever it
lives. Eviction goes down to 90 % of the cap, so a full cache is not trimmed at every write.
The SQLite file reuses the freed pages: it stops growing at about the cap plus the library.
"""

from __future__ import annotations

import sqlite3

EVICT_TO = 0.9  # of the cap
# Bytes a row costs beyond its body, headers and URL (keys, times, SQLite's own bookkeeping).
ROW_OVERHEAD = 200


def cache_bytes(db: sqlite3.Connection) -> int:
    """The bytes the cached answers take (bodies, headers and URLs, plus a per-row overhead)."""
    (total,) = db.execute("SELECT COALESCE(SUM(length(content) + length(headers) + length(url) + ?), 0) "
                          "FROM cache", (ROW_OVERHEAD,)).fetchone()
    return int(total)


def evict_over_cap(db: sqlite3.Connection, max_bytes: int) -> int:
    """Inside the caller's write transaction: delete the oldest answers while the cache holds
    more than ``max_bytes``, down to ``EVICT_TO`` of it. Returns how many were deleted."""
    total = cache_bytes(db)
    if total <= max_bytes:
        return 0
    target = int(max_bytes * EVICT_TO)
    doomed: list[tuple[str, str]] = []
    rows = db.execute("SELECT provider, key, length(content) + length(headers) + length(url) + ? FROM cache "
                      "ORDER BY stored_at, rowid", (ROW_OVERHEAD,))
    for provider, key, size in rows:
        if total <= target:
            break
        doomed.append((provider, key))
        total -= size
    db.executemany("DELETE FROM cache WHERE provider = ? AND key = ?", doomed)
    return len(doomed)
