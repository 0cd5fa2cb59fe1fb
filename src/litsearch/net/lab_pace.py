"""The pace kept by every machine of a lab together, in its Redis (net/shared_state.py).

The same turn as on one machine (net/start_turn.py says why a turn and not a claim), with Redis
in place of the lock files. For one service used with one key (the name: net/shared_state.py
``SharedState.name``) there are three small values, all under ``lit-search:pace:<name>:``:

- ``turn``: who may start the next request: a random token, set only when free (or already the
  caller's), expiring by itself ``wait + TURN_GRACE_MS`` after it was taken or renewed, so a
  machine that dies (or loses its network) holding it stops the lab for seconds, not for ever;
- ``next``: Redis's time (ms) from which the next request may start: set when a request's
  headers have left (that moment + the interval), pushed later by a 429 (``hold``);
- ``slow``: a slowed interval after a 429 from an API with no published rate, until it expires.

Each step is one Lua script, so it is atomic across every client; the times are Redis's own
(``TIME``), so machines whose clocks disagree agree on the pace. Nothing here names a key.
"""

from __future__ import annotations

import secrets
from typing import Any

from .shared_state import PREFIX, SharedState

TURN_GRACE_MS = 8_000  # a turn's holder must have sent its headers by then (connect + send), by default
NEXT_KEEP_MS = 15 * 60 * 1000  # a booking is kept this long, then Redis forgets it
STALE_AFTER_MS = 600_000  # a booking further ahead came from nonsense: ignored (as on one machine)
BUSY = -1

# Every script reads Redis's clock first. Redis 5+ replicates a script's effects, so TIME is
# allowed before a write; the pcall keeps 3.2-4 working too.
_NOW = """
if redis.replicate_commands then pcall(redis.replicate_commands) end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function booked(key)
  local value = tonumber(redis.call('GET', key) or '0') or 0
  if value > now + %d then return 0 end
  return value
end
""" % STALE_AFTER_MS

# KEYS: turn, next, slow. ARGV: token, grace ms. -> {wait ms or -1 when another holds it, slow interval}
TAKE = _NOW + """
local slow = redis.call('GET', KEYS[3]) or '0'
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {-1, slow} end
local wait = math.max(0, booked(KEYS[2]) - now)
redis.call('SET', KEYS[1], ARGV[1], 'PX', string.format('%d', wait + tonumber(ARGV[2])))
return {wait, slow}
"""

# KEYS: turn, next. ARGV: token, interval ms, keep ms. The request left now: none before now + interval.
STARTED = _NOW + """
local earliest = now + tonumber(ARGV[2])
if earliest > booked(KEYS[2]) then redis.call('SET', KEYS[2], string.format('%d', earliest), 'PX', tonumber(ARGV[3])) end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return earliest
"""

# KEYS: turn. ARGV: token. Hand the turn on without a start (the request never left).
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: next. ARGV: ms, keep ms. A 429 (or its Retry-After): nobody starts before now + ms.
HOLD = _NOW + """
local until_ = now + tonumber(ARGV[1])
if until_ > booked(KEYS[1]) then redis.call('SET', KEYS[1], string.format('%d', until_), 'PX', tonumber(ARGV[2])) end
return until_
"""

# KEYS: slow. ARGV: interval (seconds, as text), memory ms. A slower pace is never replaced by a faster one.
SLOW = """
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tonumber(ARGV[1]) >= current then redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2])) end
return 0
"""


def _keys(name: str, *parts: str) -> list[str]:
    return [f"{PREFIX}pace:{name}:{part}" for part in parts]


class LabPace:
    """The lab's turn and bookings for services named through ``state``. Every method may
    raise SharedStateLost; the caller (net/pace_keeper.py) then goes on with this machine's."""

    def __init__(self, state: SharedState, grace_seconds: float = TURN_GRACE_MS / 1000):
        """``grace_seconds``: how long past its wait a turn may be held (the connect timeout and
        a margin: a request not sent by then has failed, and the lab must not wait on it)."""
        self.state = state
        self.grace_ms = max(1000, round(grace_seconds * 1000))
        self.slowed: dict[str, float] = {}  # name -> the slowed interval last read from the lab

    @staticmethod
    def new_token() -> str:
        return secrets.token_hex(16)

    async def take(self, name: str, token: str) -> float:
        """Take (or renew) the turn with ``token``: seconds until a request may start, or BUSY
        while another holder has it."""
        wait, slow = await self.state.script(TAKE, _keys(name, "turn", "next", "slow"), [token, self.grace_ms])
        self.slowed[name] = _number(slow)
        return float(BUSY) if int(wait) < 0 else int(wait) / 1000

    async def started(self, name: str, token: str, interval: float) -> None:
        await self.state.script(STARTED, _keys(name, "turn", "next"),
                                [token, max(0, round(interval * 1000)), NEXT_KEEP_MS])

    async def release(self, name: str, token: str) -> None:
        await self.state.script(RELEASE, _keys(name, "turn"), [token])

    async def hold(self, name: str, seconds: float) -> None:
        await self.state.script(HOLD, _keys(name, "next"), [max(0, round(seconds * 1000)), NEXT_KEEP_MS])

    async def slow_down(self, name: str, interval: float, memory: float) -> None:
        await self.state.script(SLOW, _keys(name, "slow"), [repr(float(interval)), max(1, round(memory * 1000))])
        self.slowed[name] = max(self.slowed.get(name, 0.0), interval)


def _number(value: Any) -> float:
    try:
        return float(value.decode() if isinstance(value, bytes) else value)
    except (TypeError, ValueError, AttributeError):
        return 0.0
