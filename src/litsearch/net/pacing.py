"""How fast each API may be called: a provider's ``PacePolicy`` (declared by the provider)
and the ``PaceBook`` that keeps it across every concurrent request in the process."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class PacePolicy:
    """How fast one API may be called, as data.

    ``min_interval``: seconds between the starts of two requests.
    ``max_in_flight``: requests open at the same time.
    """

    min_interval: float
    max_in_flight: int
    retries: int = 2


class PaceBook:
    """When each provider may next start a request, shared by every session in the process.

    Reservations are taken under a thread lock and slept off outside it, so
    concurrent callers queue in order and none starts early, whatever event loop
    or thread they run on.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._next_start: dict[str, float] = {}
        self._lock = threading.Lock()

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
            earliest = self.clock() + min_interval
            if earliest > self._next_start.get(provider, 0.0):
                self._next_start[provider] = earliest


PROCESS_PACE_BOOK = PaceBook()


def paced_interval(min_interval: float) -> float:
    """The spacing actually kept: a little slack over the declared interval, because the
    server times arrivals, which scheduling and network jitter shift by a few milliseconds."""
    return min_interval * 1.05 + 0.02 if min_interval > 0 else 0.0
