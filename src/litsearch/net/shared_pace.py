"""The pace kept across every lit-search process on this machine.

Two searches started back to back (or four at once from a script) must together keep each
API's declared pace, which one process alone cannot see. Each provider gets two kinds of small
files in ``<data folder>/pace/``:

- ``<provider>.next`` holds the wall-clock time from which the next request may start. Right
  before sending, a process claims the start by reading and advancing it under an exclusive
  ``flock`` (held for microseconds, never across a request), or learns how long to wait; when
  the request's headers have really left, the time is pushed to that moment + the interval.
- ``<provider>.flight-<i>`` (i < the provider's in-flight limit): a request holds one of them,
  locked, while it is open. The kernel drops the lock when the process ends, however it ends.

Without ``fcntl`` (Windows), or when the folder cannot be written, the pace is kept per process
only, as before; nothing fails because of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

# A booking further ahead than this was written under another clock (the wall clock was set
# back, or a file was copied in): it is ignored rather than waited for.
STALE_AFTER_SECONDS = 600.0
BUSY = -1  # try_flight: every in-flight place is held by other processes


class SharedPace:
    """Slots and in-flight places shared through lock files in ``folder``."""

    def __init__(self, folder: Path, wall: Callable[[], float] = time.time):
        self.folder = folder
        self.wall = wall
        self.usable = fcntl is not None

    def _open(self, name: str) -> int | None:
        if not self.usable:
            return None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            return os.open(self.folder / name, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            self.usable = False  # read-only or missing data folder: pace per process only
            return None

    def _update(self, provider: str, decide: Callable[[float, float], float | None]) -> float | None:
        """Under the provider's lock: ``decide(booked, now)`` returns the new booking (or None
        to leave it); returns the booking read, or None when nothing is shared."""
        descriptor = self._open(f"{provider}.next")
        if descriptor is None:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                booked = float(os.pread(descriptor, 64, 0).decode("ascii") or 0.0)
            except ValueError:
                booked = 0.0
            now = self.wall()
            if booked > now + STALE_AFTER_SECONDS:
                booked = 0.0
            new = decide(booked, now)
            if new is not None:
                os.ftruncate(descriptor, 0)
                os.pwrite(descriptor, repr(new).encode("ascii"), 0)
            return booked
        except OSError:
            self.usable = False
            return None
        finally:
            os.close(descriptor)  # also releases the lock

    def claim(self, provider: str, interval: float) -> float:
        """Take the right to start a request now: 0.0 when taken (no other process may start
        one for ``interval`` seconds), else the seconds to wait before asking again."""
        wait = 0.0

        def decide(booked: float, now: float) -> float | None:
            nonlocal wait
            if booked > now:
                wait = booked - now
                return None
            return now + interval

        self._update(provider, decide)
        return wait

    def started(self, provider: str, interval: float) -> None:
        """A request of ``provider`` really left now (its headers were sent): no other may
        start before now + interval, however late this one left after its claim."""
        self._update(provider, lambda booked, now: now + interval if now + interval > booked else None)

    def try_flight(self, provider: str, limit: int) -> int | None:
        """Take one of ``limit`` in-flight places without waiting: its descriptor (hand it to
        ``release``), ``BUSY`` when other processes hold them all, or ``None`` when places
        are not shared (no fcntl, unwritable folder): go ahead."""
        for index in range(max(limit, 1)):
            descriptor = self._open(f"{provider}.flight-{index}")
            if descriptor is None:
                return None
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return descriptor
            except OSError:
                os.close(descriptor)
        return BUSY

    @staticmethod
    def release(descriptor: int | None) -> None:
        if descriptor is not None and descriptor >= 0:
            os.close(descriptor)
