"""Where a provider's pace is kept beyond this process: with the lab's Redis (``LITSEARCH_SHARED_STATE``,
net/lab_pace.py) across every machine of the lab, else across the processes of this machine
(the lock files of net/shared_pace.py).

The turn (net/start_turn.py) asks this keeper for the machine's or lab's part: take the turn,
how long until a start is allowed, the start itself, handing the turn on. A lost lab link
moves the turn in hand to this machine's files at once; the request goes on, paced as the key
would be on this machine alone (never faster than shared). Every start is also written to the
machine's files, so a process that loses the lab keeps the pace of the ones before it.

A 429 (``hold``) holds every start of the service back, here and in the lab: the one told and
every other machine wait as asked (Retry-After, or the first backoff when the server gave none).
In-flight places and the slowed pace of an API with no published rate stay per machine and
are read from the lab too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .lab_pace import BUSY as LAB_BUSY
from .lab_pace import LabPace
from .shared_pace import BUSY, STALE_AFTER_SECONDS, SharedPace
from .shared_state import SharedState, SharedStateLost

__all__ = ["BUSY", "Hold", "PaceKeeper"]

LAB_POLL_SECONDS = 0.05  # while another machine holds the lab's turn, ask again this often
MACHINE_POLL_SECONDS = 0.02  # the same for another process's lock file (no network)
MACHINE = "machine"
LAB = "lab"


@dataclass
class Hold:
    """A held turn: in the lab (``value`` is the token) or on this machine (``value`` is the
    lock's descriptor; None when the machine shares nothing: go ahead)."""

    place: str
    value: Any
    name: str = ""  # the lab's name of the service and key
    claimed: bool = True  # False: the machine's turn must still be taken (the lab was lost mid-turn)


class PaceKeeper:
    """The pace beyond this process for every provider of one HTTP client."""

    def __init__(self, machine: SharedPace | None, lab: SharedState | None = None,
                 key_of: Callable[[str], str | None] = lambda provider: None,
                 lab_paced: Callable[[str], bool] = lambda provider: True, turn_grace: float = 8.0):
        """``key_of(provider)``: the key it is used with (None without one); ``lab_paced(provider)``:
        whether the lab keeps its pace (an API at a fixed address; not the open copies that
        publishers host, whose pace is this machine's politeness to each of them);
        ``turn_grace``: seconds a lab turn may be held past its wait (net/lab_pace.py)."""
        self.machine = machine
        self.lab = LabPace(lab, turn_grace) if lab is not None else None
        self.key_of = key_of
        self.lab_paced = lab_paced
        self._names: dict[str, str] = {}
        self.poll_seconds = LAB_POLL_SECONDS if lab is not None else MACHINE_POLL_SECONDS

    @property
    def shares(self) -> bool:
        return self.machine is not None or self.lab is not None

    async def _lab_name(self, provider: str) -> str | None:
        """The lab's name for ``provider`` and its key, or None when the lab is not there."""
        if self.lab is None or not self.lab.state.usable or not self.lab_paced(provider):
            return None
        if provider not in self._names:
            try:
                self._names[provider] = await self.lab.state.name(provider, self.key_of(provider))
            except SharedStateLost:
                return None
        return self._names[provider]

    # ---------------------------------------------------------------- the turn

    async def try_turn(self, provider: str) -> Hold | int:
        """Take the turn without waiting: a Hold, or BUSY while another process or machine has it."""
        name = await self._lab_name(provider)
        if name is not None and self.lab is not None:
            token = LabPace.new_token()
            try:
                wait = await self.lab.take(name, token)
                return BUSY if wait == LAB_BUSY else Hold(LAB, token, name)
            except SharedStateLost:
                pass
        held = self.machine.try_turn(provider) if self.machine is not None else None
        return BUSY if held == BUSY else Hold(MACHINE, held)

    async def wait_before_start(self, provider: str, hold: Hold) -> float:
        """Seconds until the held turn's request may start (renewing a lab turn as it waits)."""
        if hold.place == LAB and self.lab is not None:
            try:
                wait = await self.lab.take(hold.name, hold.value)
                return LAB_POLL_SECONDS if wait == LAB_BUSY else wait  # our turn lapsed: take it again
            except SharedStateLost:
                hold.place, hold.value, hold.claimed = MACHINE, None, False
        if not hold.claimed:
            held = self.machine.try_turn(provider) if self.machine is not None else None
            if held == BUSY:
                return LAB_POLL_SECONDS
            hold.value, hold.claimed = held, True
        return self.machine.wait_before_start(provider) if self.machine is not None else 0.0

    async def started(self, provider: str, interval: float, hold: Hold) -> None:
        """The held turn's request left now: no start before now + interval, and the turn passes on."""
        if hold.place == LAB and self.lab is not None:
            try:
                await self.lab.started(hold.name, hold.value, interval)
            except SharedStateLost:
                pass
        if self.machine is not None:
            self.machine.started(provider, interval)
        await self.release(hold)

    async def release(self, hold: Hold) -> None:
        """Hand the turn on (idempotent)."""
        place, value = hold.place, hold.value
        hold.place, hold.value = "", None
        if place == LAB and self.lab is not None:
            try:
                await self.lab.release(hold.name, value)
            except SharedStateLost:
                pass  # the turn expires by itself
        elif place == MACHINE:
            SharedPace.release(value)

    # ---------------------------------------------------------------- after a 429

    async def hold_off(self, provider: str, seconds: float) -> None:
        """Nobody here or in the lab starts ``provider`` before now + ``seconds`` (a 429)."""
        seconds = min(max(seconds, 0.0), STALE_AFTER_SECONDS)
        if self.machine is not None:
            self.machine.hold(provider, seconds)
        name = await self._lab_name(provider)
        if name is not None and self.lab is not None:
            try:
                await self.lab.hold(name, seconds)
            except SharedStateLost:
                pass

    def slowed_interval(self, provider: str) -> float:
        """The slowest interval another process or machine slowed ``provider`` to (else 0.0)."""
        here = self.machine.slowed_interval(provider) if self.machine is not None else 0.0
        name = self._names.get(provider)
        lab = self.lab.slowed.get(name, 0.0) if self.lab is not None and name is not None else 0.0
        return max(here, lab)

    async def slow_down(self, provider: str, interval: float, memory: float) -> None:
        if self.machine is not None:
            self.machine.slow_down(provider, interval, memory)
        name = await self._lab_name(provider)
        if name is not None and self.lab is not None:
            try:
                await self.lab.slow_down(name, interval, memory)
            except SharedStateLost:
                pass

    # ---------------------------------------------------------------- in-flight places (per machine)

    def try_flight(self, provider: str, limit: int) -> int | None:
        return self.machine.try_flight(provider, limit) if self.machine is not None else None
