"""A provider's daily allowance as last seen, remembered across runs until it resets.

OpenAlex prices requests against a daily allowance in USD that resets at midnight UTC
(../shared/reference/apis-more.md section 6). Once an answer says it is spent, every later
run on this machine should know without spending a request to find out: the state is a small
JSON file per provider in ``<data folder>/budget/``, replaced atomically, read by searches
and by ``doctor``. It belongs to one account (no key, or one key, told apart by a hash that
cannot be turned back into the key), so setting or changing the key starts afresh.

With a lab's Redis (``LITSEARCH_SHARED_STATE``), the state is also kept there, under
``lit-search:budget:<service>:<salted hash of the key>`` until the allowance resets, so every
machine on the key knows the moment one of them is told it is spent (``read_shared``,
``remember_shared``). A newer report is never replaced by an older one; the state written there
names no account (the Redis name does, salted).

These few functions are all there is to it; the response cache is a separate thing.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from ..core.config import data_folder
from .shared_state import PREFIX, SharedState, SharedStateLost

DAY_SECONDS = 86_400


@dataclass(frozen=True)
class BudgetState:
    """What the provider last said about today's allowance (``None``: it did not say)."""

    provider: str
    account: str  # "no key" or "key <hash>"
    remaining_usd: float | None
    limit_usd: float | None
    exhausted: bool
    resets_at: float  # wall-clock seconds (UTC epoch) when the allowance comes back
    seen_at: float

    def seconds_to_reset(self, now: float | None = None) -> float:
        return max(0.0, self.resets_at - (time.time() if now is None else now))


def next_utc_midnight(now: float) -> float:
    """The epoch seconds of the next midnight UTC after ``now``."""
    day = datetime.fromtimestamp(now, tz=timezone.utc).date() + timedelta(days=1)
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp()


def budget_path(provider: str, folder: Path | None = None) -> Path:
    return (folder or data_folder()) / "budget" / f"{provider}.json"


def read_budget(provider: str, account: str, *, folder: Path | None = None,
                wall: Callable[[], float] = time.time) -> BudgetState | None:
    """The remembered state for this account, or None when there is none, it belongs to
    another account, it has reset (its midnight passed), or the file cannot be read."""
    try:
        raw = json.loads(budget_path(provider, folder).read_text(encoding="utf-8"))
        state = BudgetState(**{name: raw[name] for name in BudgetState.__dataclass_fields__})
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if state.account != account or wall() >= state.resets_at or state.resets_at - wall() > DAY_SECONDS + 60:
        return None  # another account, an allowance already renewed, or a time from another clock
    return state


def remember_budget(state: BudgetState, *, folder: Path | None = None) -> None:
    """Write the state for later runs (replace the file whole, never half); a read-only or
    missing data folder only means the next run asks again."""
    path = budget_path(state.provider, folder)
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(asdict(state), handle)
        os.replace(temporary, path)
        temporary = None
    except OSError:
        pass
    finally:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)


def reset_words(state: BudgetState, now: float | None = None) -> str:
    """"midnight UTC, in 5 h 12 min"."""
    seconds = int(state.seconds_to_reset(now))
    hours, minutes = divmod((seconds + 59) // 60, 60)
    return f"midnight UTC, in {hours} h {minutes:02d} min" if hours else f"midnight UTC, in {minutes} min"


# ---------------------------------------------------------------- the lab's copy

LAB_ACCOUNT = "lab"  # the account field as written to Redis: the key's name is the Redis name

# KEYS: the budget. ARGV: state JSON, seen_at, resets_at (ms since the epoch). The newer report wins.
REMEMBER = """
local current = redis.call('GET', KEYS[1])
if current then
  local ok, old = pcall(cjson.decode, current)
  if ok and type(old) == 'table' and tonumber(old['seen_at'] or 0) > tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1
"""


async def read_shared(lab: SharedState, provider: str, key: str | None, account: str, *,
                      wall: Callable[[], float] = time.time) -> BudgetState | None:
    """The lab's state for ``provider`` used with ``key`` (None when there is none, it has
    reset, or the lab cannot be reached), told as this machine's ``account``."""
    try:
        name = await lab.name(provider, key)
        raw = await lab.run(lambda client: client.get(f"{PREFIX}budget:{name}"))
    except SharedStateLost:
        return None
    try:
        found = json.loads(raw) if raw else None
        state = BudgetState(**{**{name: found[name] for name in BudgetState.__dataclass_fields__},
                               "provider": provider, "account": account})
    except (ValueError, TypeError, KeyError):
        return None
    if wall() >= state.resets_at or state.resets_at - wall() > DAY_SECONDS + 60:
        return None
    return state


async def remember_shared(lab: SharedState, state: BudgetState, key: str | None) -> None:
    """Write ``state`` to the lab until its allowance resets, unless a newer report is there."""
    if state.resets_at <= state.seen_at:
        return
    payload = json.dumps({**asdict(state), "account": LAB_ACCOUNT})
    try:
        name = await lab.name(state.provider, key)
        await lab.script(REMEMBER, [f"{PREFIX}budget:{name}"],
                         [payload, repr(state.seen_at), int(state.resets_at * 1000)])
    except SharedStateLost:
        pass
