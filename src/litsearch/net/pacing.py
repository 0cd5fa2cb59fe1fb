"""How fast each API may be called: a service's ``PacePolicy`` (declared with the service,
core/services.py) and the ``PaceBook`` that keeps it across every concurrent request in the
process."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ..core.services import PacePolicy

__all__ = ["PacePolicy", "PaceBook", "PROCESS_PACE_BOOK"]


# A slowed pace never goes past this (one request every 5 s still finishes a 100-row table).
MAX_SLOWED_INTERVAL = 5.0
SLOWDOWN_MEMORY_SECONDS = 3_600.0


def slowed_interval(current: float, declared: float, retry_after: float | None = None) -> float:
    """The interval after a 429: twice the one in force (at least the declared one), or what
    the server's Retry-After implies if that is slower, never past MAX_SLOWED_INTERVAL."""
    doubled = 2 * max(current, declared, 0.05)
    return min(MAX_SLOWED_INTERVAL, max(doubled, min(retry_after or 0.0, MAX_SLOWED_INTERVAL)))


class PaceBook:
    """When each provider may next start a request, shared by every session in the process.

    Reservations are taken under a thread lock and slept off outside it, so
    concurrent callers queue in order and none starts early, whatever event loop
    or thread they run on.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._next_start: dict[str, float] = {}
        self._last_start: dict[str, float] = {}  # when a request really last left
        self._turns: dict[str, threading.Lock] = {}  # net/start_turn.py: one start at a time
        self._slowed: dict[str, float] = {}  # interval after a 429 (PacePolicy.slows_after_429)
        self._slowed_since: dict[str, float] = {}
        self._held_until: dict[str, float] = {}  # a 429 said to come back then (the book's clock)
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every booking, start and slowdown (a test harness judging runs one by one)."""
        with self._lock:
            for record in (self._next_start, self._last_start, self._slowed, self._slowed_since, self._held_until):
                record.clear()

    def reserve(self, provider: str, min_interval: float) -> float:
        """Book the next start slot for ``provider``; returns the clock time it may start."""
        with self._lock:
            now = self.clock()
            start = max(now, self._next_start.get(provider, now))
            self._next_start[provider] = start + min_interval
            return start

    def started(self, provider: str, min_interval: float) -> None:
        """Record that a request really started now: a late start (an overslept wait, a
        busy loop) pushes the next slot back, so gaps never shrink below the interval."""
        with self._lock:
            now = self.clock()
            self._last_start[provider] = now
            earliest = now + min_interval
            if earliest > self._next_start.get(provider, 0.0):
                self._next_start[provider] = earliest

    def wait_after_last(self, provider: str, min_interval: float) -> float:
        """Seconds until ``min_interval`` has passed since a request of ``provider`` really left
        (reservations of queued requests do not count: only real starts do)."""
        with self._lock:
            last = self._last_start.get(provider)
            earliest = max(-float("inf") if last is None else last + min_interval,
                           self._held_until.get(provider, -float("inf")))
            return max(0.0, earliest - self.clock())

    def hold(self, provider: str, seconds: float) -> None:
        """A 429 said to wait: no request of ``provider`` starts before now + ``seconds``."""
        with self._lock:
            until = self.clock() + max(seconds, 0.0)
            if until > self._held_until.get(provider, -float("inf")):
                self._held_until[provider] = until

    def try_turn(self, provider: str) -> bool:
        """Take the process's turn to start a request of ``provider`` (net/start_turn.py)."""
        with self._lock:
            turn = self._turns.setdefault(provider, threading.Lock())
        return turn.acquire(blocking=False)

    def end_turn(self, provider: str) -> None:
        self._turns[provider].release()

    def slow_down(self, provider: str, interval: float) -> None:
        """Keep at least ``interval`` between starts of ``provider`` for the rest of the run."""
        with self._lock:
            if interval > self._slowed.get(provider, 0.0):
                self._slowed[provider] = interval
                self._slowed_since[provider] = self.clock()

    def slowed_since(self, provider: str) -> float:
        """When the pace last slowed (the book's clock; -inf when it never did)."""
        with self._lock:
            return self._slowed_since.get(provider, float("-inf"))

    def slowed(self, provider: str) -> float:
        with self._lock:
            return self._slowed.get(provider, 0.0)


PROCESS_PACE_BOOK = PaceBook()


def paced_interval(min_interval: float) -> float:
    """The spacing actually kept: a little slack over the declared interval, because the
    server times arrivals, which scheduling and network jitter shift by a few milliseconds."""
    return min_interval * 1.05 + 0.02 if min_interval > 0 else 0.0


def interval_in_force(policy: PacePolicy, provider: str, book: PaceBook, shared: Any = None) -> float:
    """The spacing kept between starts now: the declared interval, or for an API with no
    published rate the slower one a 429 set (in this process, or recently in another one
    through ``shared``, a net.shared_pace.SharedPace), with the usual slack."""
    interval = policy.min_interval
    if policy.slows_after_429:
        interval = max(interval, book.slowed(provider), shared.slowed_interval(provider) if shared else 0.0)
    return paced_interval(interval)


def slowed_after_429(policy: PacePolicy, provider: str, retry_after: float | None, book: PaceBook,
                     shared: Any = None, sent_at: float | None = None) -> float | None:
    """After a 429 from an API with no published rate, slow it down for the rest of the run
    (in ``book``); returns the slower interval, for the caller to share with every lit-search
    process on the machine (and the lab) for SLOWDOWN_MEMORY_SECONDS, or None when nothing
    changed. A 429 to a request sent (``sent_at``, the book's clock) before the last slowdown
    says nothing new: a burst sent at the old pace slows it once, not once per refused request."""
    if not policy.slows_after_429 or (sent_at is not None and sent_at < book.slowed_since(provider)):
        return None
    current = max(book.slowed(provider), shared.slowed_interval(provider) if shared else 0.0)
    slower = slowed_interval(current, policy.min_interval, retry_after)
    book.slow_down(provider, slower)
    return slower


def slow_down_after_429(policy: PacePolicy, provider: str, retry_after: float | None, book: PaceBook,
                        shared: Any = None, sent_at: float | None = None) -> None:
    """``slowed_after_429``, and the slower pace written to ``shared`` (a net.shared_pace.SharedPace)."""
    slower = slowed_after_429(policy, provider, retry_after, book, shared, sent_at)
    if slower is not None and shared is not None:
        shared.slow_down(provider, slower, SLOWDOWN_MEMORY_SECONDS)
