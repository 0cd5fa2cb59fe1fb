"""The pace kept across every lit-search process on this machine.

Two searches started back to back (or four at once from a script) must together keep each
API's declared pace, which one process alone cannot see. Each provider gets a few small files
in ``<data folder>/pace/``:

- ``<provider>.turn``: the right to start the provider's next request (net/start_turn.py). A
  process holds it, locked, from the moment it decides to send until the request's headers
  have left, so no other process can start one in between, however late this one's request
  leaves (a new connection, a loaded machine). An earlier design claimed a start by writing
  "now + interval" and let go at once: when the request then left later than that, another
  process could claim and send right beside it (issue 20, item 8; bench/pace_under_load.py).
- ``<provider>.next`` holds the wall-clock time from which the next request may start: when a
  request's headers have left, it is set to that moment + the interval, under an exclusive
  ``flock`` held for microseconds; a 429 pushes it to when the server said to come back.
- ``<provider>.flight-<i>`` (i < the provider's in-flight limit): a request holds one of them,
  locked, while it is open. The kernel drops every lock when the process ends, however it ends.
- ``<provider>.slow``: a slowed interval and until when it holds, for an API with no published
  rate that answered 429 (PacePolicy.slows_after_429).

Without ``fcntl`` (Windows), or when the folder cannot be written, the pace is kept per process
only, as before; nothing fails because of it. With a lab's Redis (``LITSEARCH_SHARED_STATE``),
net/lab_pace.py keeps the turn across machines and these files stay the fallback
(net/pace_keeper.py chooses).
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

    def wait_before_start(self, provider: str) -> float:
        """Seconds until the provider's next request may start (0.0 when it may now)."""
        booked = self._update(provider, lambda booked, now: None)
        return 0.0 if booked is None else max(0.0, booked - self.wall())

    def try_turn(self, provider: str) -> int | None:
        """Take the machine's turn to start a request of ``provider`` without waiting: its
        descriptor (hand it to ``release``), ``BUSY`` when another process holds it, or
        ``None`` when nothing is shared: go ahead."""
        return self._try_lock(f"{provider}.turn")

    def started(self, provider: str, interval: float) -> None:
        """A request of ``provider`` really left now (its headers were sent): no other may
        start before now + interval, however late this one left after its claim."""
        self._update(provider, lambda booked, now: now + interval if now + interval > booked else None)

    def hold(self, provider: str, seconds: float) -> None:
        """A 429 said to wait: no process starts ``provider`` before now + ``seconds``."""
        self._update(provider, lambda booked, now: now + seconds if now + seconds > booked else None)

    def try_flight(self, provider: str, limit: int) -> int | None:
        """Take one of ``limit`` in-flight places without waiting: its descriptor (hand it to
        ``release``), ``BUSY`` when other processes hold them all, or ``None`` when places
        are not shared (no fcntl, unwritable folder): go ahead."""
        for index in range(max(limit, 1)):
            held = self._try_lock(f"{provider}.flight-{index}")
            if held != BUSY:
                return held
        return BUSY

    def _try_lock(self, name: str) -> int | None:
        descriptor = self._open(name)
        if descriptor is None:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except OSError:
            os.close(descriptor)
            return BUSY

    def slow_down(self, provider: str, interval: float, memory: float) -> None:
        """Every process keeps at least ``interval`` between this provider's starts for the
        next ``memory`` seconds (a slower pace already recorded is kept)."""
        descriptor = self._open(f"{provider}.slow")
        if descriptor is None:
            return
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            current = self._read_slow(descriptor)
            if interval >= current:
                os.ftruncate(descriptor, 0)
                os.pwrite(descriptor, f"{interval!r} {self.wall() + memory!r}".encode("ascii"), 0)
        except OSError:
            pass
        finally:
            os.close(descriptor)

    def slowed_interval(self, provider: str) -> float:
        """The interval another process slowed this provider to, while it holds (else 0.0)."""
        path = self.folder / f"{provider}.slow"
        if not self.usable or not path.exists():
            return 0.0
        descriptor = self._open(f"{provider}.slow")
        if descriptor is None:
            return 0.0
        try:
            return self._read_slow(descriptor)
        finally:
            os.close(descriptor)

    def _read_slow(self, descriptor: int) -> float:
        try:
            interval, until = (float(part) for part in os.pread(descriptor, 64, 0).decode("ascii").split())
        except (ValueError, OSError):
            return 0.0
        now = self.wall()
        return interval if now < until <= now + STALE_AFTER_SECONDS * 10 else 0.0

    @staticmethod
    def release(descriptor: int | None) -> None:
        if descriptor is not None and descriptor >= 0:
            os.close(descriptor)
