"""The turn to start a provider's next request: one holder on the whole machine at a time,
from the moment it decides to send until the request's headers have really left.

Why a turn and not a claim: a claim ("I start now; nobody before now + interval") protects only
the interval after it was made. When the request then leaves late (a new TLS connection, a
process descheduled on a loaded machine), another process can claim right when that interval
ends and send within milliseconds of the late one: the pace is lost (bench/pace_under_load.py
measured 0.017 s between two PubMed requests of different processes, for a 0.333 s pace). With
a turn, the next request can only begin after the previous one has left, and then waits the
interval from that moment: two starts are never closer than the interval, however late either
leaves.

The turn is two non-blocking locks polled in order (this process's, in the PaceBook, then the
machine's, a ``flock`` in net/shared_pace.py that the kernel frees if the holder dies, or with
a lab's Redis the lab's, net/lab_pace.py, which expires if its holder dies); while holding both,
the holder waits until the interval since the last real start (this process's and the
machine's or lab's) has passed. ``Turn.started`` (called when the headers have left) records the
start everywhere and hands the turn on.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator, Awaitable, Callable

from .pace_keeper import BUSY, Hold, PaceKeeper
from .pacing import PaceBook

POLL_SECONDS = 0.02  # how often a request waiting for the turn looks again


class TurnTimeout(TimeoutError):
    """The turn (or the pace after it) would pass the request's time budget; ``reason`` says which."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Turn:
    """A held turn. ``started()`` records the real start and releases it (once)."""

    def __init__(self, book: PaceBook, keeper: PaceKeeper | None, provider: str, interval: Callable[[], float]):
        self.book, self.keeper, self.provider, self.interval = book, keeper, provider, interval
        self.process_held = False
        self.held: Hold | None = None  # the machine's or the lab's part (net/pace_keeper.py)
        self.ready = False  # every turn held and the pace waited out: a request may leave
        self.released = False

    async def started(self) -> None:
        """The request's headers have left: no start before now + interval, anywhere."""
        if self.released:
            return
        self.released = True
        try:
            if self.ready:
                interval = self.interval()
                self.book.started(self.provider, interval)
                if self.keeper is not None and self.held is not None:
                    await self.keeper.started(self.provider, interval, self.held)
            elif self.keeper is not None and self.held is not None:
                await self.keeper.release(self.held)
        finally:
            if self.process_held:
                self.book.end_turn(self.provider)


@contextlib.asynccontextmanager
async def start_turn(book: PaceBook, keeper: PaceKeeper | None, provider: str, interval: Callable[[], float],
                     clock: Callable[[], float], sleep: Callable[[float], Awaitable[Any]],
                     give_up_at: float) -> AsyncIterator[Turn]:
    """Hold the provider's turn and wait out its pace (``interval()``, asked again while waiting:
    a 429 meanwhile may have slowed it); ``TurnTimeout`` when that would pass ``give_up_at``
    (``clock`` time). On leaving, a turn never handed on by ``started()`` is handed on as if
    the request had started then: a request that may have left counts."""
    turn = Turn(book, keeper, provider, interval)
    try:
        while not book.try_turn(provider):
            await _poll(clock, sleep, give_up_at, "busy")
        turn.process_held = True
        if keeper is not None:
            held = await keeper.try_turn(provider)
            while held == BUSY:
                await _poll(clock, sleep, give_up_at, "machine", keeper.poll_seconds)
                held = await keeper.try_turn(provider)
            turn.held = held  # type: ignore[assignment]
        while (wait := max(book.wait_after_last(provider, interval()),
                           await keeper.wait_before_start(provider, turn.held)
                           if keeper is not None and turn.held is not None else 0.0)) > 0:
            if clock() + wait >= give_up_at:
                raise TurnTimeout("pace")
            await sleep(wait)
        turn.ready = True
        yield turn
    finally:
        await turn.started()


async def _poll(clock: Callable[[], float], sleep: Callable[[float], Awaitable[Any]], give_up_at: float,
                reason: str, seconds: float = POLL_SECONDS) -> None:
    if clock() >= give_up_at:
        raise TurnTimeout(reason)
    await sleep(seconds)
