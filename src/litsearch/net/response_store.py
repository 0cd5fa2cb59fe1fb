"""The response cache's table: answers stored, found, expired, capped and removed.

The table lives in lit-search's one SQLite file beside the library (the file, its schema and
its transactions: library/store.py and library/schema.py), so one ``BEGIN IMMEDIATE`` write
discipline covers both. This module owns only the ``cache`` table: what a stored answer is, how
long it keeps (each service declares its lifetime), and the size cap.

The cap (``LITSEARCH_CACHE_MAX_MB``, default 200 MB; doctor shows the size): when a new answer
would pass it, the oldest answers go, down to 90 % of the cap, so a full cache is not trimmed at
every write. The SQLite file reuses the freed pages: it stops growing at about the cap plus
the library.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, ContextManager, Iterable, Protocol

from ..core.config import DEFAULT_CACHE_MB
from .cache_keys import strip_identity_params
from .responses import FetchedResponse

DAY = 86_400
# Expired entries stay usable by --offline (allow_stale) for this long, then are pruned.
STALE_KEEP_SECONDS = 30 * DAY
DEFAULT_MAX_BYTES = int(DEFAULT_CACHE_MB * 1_000_000)
EVICT_TO = 0.9  # of the cap
# Bytes a row costs beyond its body, headers and URL (keys, times, SQLite's own bookkeeping).
ROW_OVERHEAD = 200


@dataclass
class CachedResponse(FetchedResponse):
    """A stored response; usable wherever a ``FetchedResponse`` is."""

    stored_at: float
    expires_at: float
    stale: bool


class Database(Protocol):
    """What the cache needs of the file it lives in (library.store.Store provides it)."""

    def guarded(self) -> ContextManager[sqlite3.Connection]: ...
    def writing(self) -> ContextManager[sqlite3.Connection]: ...
    def scrub(self, text: str) -> str: ...
    def scrub_bytes(self, content: bytes) -> bytes: ...


class ResponseStore:
    """The cached answers in ``database``, capped at ``max_bytes``."""

    def __init__(self, database: Database, max_bytes: int = DEFAULT_MAX_BYTES):
        self.database = database
        self.max_bytes = max_bytes

    def get(self, provider: str, key: str, now: float | None = None,
            allow_stale: bool = False) -> CachedResponse | None:
        """The stored response, or None. Expired entries count only with ``allow_stale``."""
        now = time.time() if now is None else now
        with self.database.guarded() as db:
            row = db.execute("SELECT status, headers, content, url, stored_at, expires_at FROM cache "
                             "WHERE provider = ? AND key = ?", (provider, key)).fetchone()
        if row is None:
            return None
        status, headers, content, url, stored_at, expires_at = row
        stale = expires_at <= now
        if stale and not allow_stale:
            return None
        return CachedResponse(status=status, headers=json.loads(headers), content=bytes(content), url=url,
                              stored_at=stored_at, expires_at=expires_at, stale=stale)

    def put(self, provider: str, key: str, response: FetchedResponse, ttl_seconds: float,
            now: float | None = None) -> None:
        """Store a response for ``ttl_seconds``, secrets redacted, and prune long-expired entries."""
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, not {ttl_seconds!r}")
        now = time.time() if now is None else now
        scrub = self.database.scrub
        headers = {str(name).lower(): scrub(str(value)) for name, value in response.headers.items()}
        url = scrub(strip_identity_params(response.url))
        with self.database.writing() as db:
            db.execute(
                "INSERT OR REPLACE INTO cache (provider, key, status, headers, content, url, stored_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (provider, key, int(response.status), json.dumps(headers), self.database.scrub_bytes(response.content),
                 url, now, now + ttl_seconds))
            # Opportunistic pruning: cheap through the expiry index, and it keeps the file
            # from growing for ever without a separate clean-up command; then the size cap.
            db.execute("DELETE FROM cache WHERE expires_at < ?", (now - STALE_KEEP_SECONDS,))
            evict_over_cap(db, self.max_bytes)

    def size(self) -> int:
        """Bytes the cached answers take (what LITSEARCH_CACHE_MAX_MB caps)."""
        with self.database.guarded() as db:
            return cache_bytes(db)

    def delete(self, provider: str, keys: Iterable[str]) -> int:
        """Remove the given entries of one provider; returns how many were removed."""
        keys = list(keys)
        if not keys:
            return 0
        with self.database.writing() as db:
            return sum(db.execute("DELETE FROM cache WHERE provider = ? AND key = ?", (provider, key)).rowcount
                       for key in keys)

    def clear(self, provider: str | None = None) -> int:
        """Remove every cached response (of one provider); returns how many."""
        with self.database.writing() as db:
            if provider is None:
                return db.execute("DELETE FROM cache").rowcount
            return db.execute("DELETE FROM cache WHERE provider = ?", (provider,)).rowcount


def responses_of(database: Any, max_bytes: int = DEFAULT_MAX_BYTES) -> ResponseStore | None:
    """The response store of an open database (None stays None: no cache)."""
    if database is None or isinstance(database, ResponseStore):
        return database
    return ResponseStore(database, max_bytes)


# ---------------------------------------------------------------- the size cap

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
