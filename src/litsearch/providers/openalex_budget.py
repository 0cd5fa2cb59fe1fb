"""OpenAlex's daily allowance: read from every answer, remembered until it resets, and every
OpenAlex request sent through ``budgeted_get`` so a spent allowance costs no request at all.

What the documentation says (../shared/reference/apis-more.md section 6, from OpenAlex's help
pages of 2026-08 and the production proxy; newer than apis.md's "OA-new" figures):
- the allowance is in USD and resets at midnight UTC: $0.10/day without a key, $1/day with a
  free key; a search costs 10 credits ($0.001), a list or filter call 1, one work by id 0;
- every answer carries ``X-RateLimit-Limit-USD``, ``-Remaining-USD``, ``-Prepaid-Remaining-USD``
  and ``X-RateLimit-Reset`` (seconds to midnight UTC); a 429 adds ``Retry-After`` and
  ``X-RateLimit-Credits-Required``;
- 429 means the per-second rate or the daily budget was exceeded; 403 means "forbidden"
  (a resource or plan this account may not use), not "slow down": the older errors page
  said 403 was a rate limit, the current one does not. A 403 is reported as refused and
  never retried.

Which 429 is which (``daily_429``): the proxy writes a JSON body with a ``message`` ("Rate
limit exceeded: 10 requests per second. Please slow down." or "Insufficient budget. …") and a
``retryAfter``, and a ``Retry-After`` header (1 s for the rate; the seconds to midnight for the
day). Its per-second 429 also says ``X-RateLimit-Remaining-USD: 0`` whatever is left, so the
amounts are read only when nothing plainer was said, and a 429 that says nothing at all is a
burst: retried with backoff within the provider's time budget, never remembered as a spent day.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime, timezone
from typing import Any, Mapping
from urllib.parse import urlsplit

from ..core.config import Settings
from ..net.daily_budget import (BudgetState, next_utc_midnight, read_budget, read_shared, remember_budget,
                                remember_shared, reset_words)
from ..net.http import FetchedResponse, ProviderSession, parse_retry_after
from ..net.reasons import status_reason
from ._common import as_float
from .openalex_costs import request_credits
from .openalex_declaration import SERVICE

NAME = SERVICE.name
KEY_VARIABLE = SERVICE.key.variable
LOW_BUDGET_SHARE = 0.1  # of the daily allowance: a note that little is left
# A 429 asking to wait this long (or until the reset at midnight) is the daily budget, not the rate.
DAILY_RETRY_AFTER = 3_600
RATE_WORDS = ("per second", "slow down")  # a 429 body's words for the rate (not the generic "too many requests")
DAY_WORDS = ("budget", "daily", "per day", "midnight")  # … and for the day's allowance
SPENT = "OpenAlex skipped: today's allowance"  # how every spent-budget message starts
RATE_LIMITED = frozenset({429})
NOT_THE_DAY = "a burst, not the daily allowance"
BURST = f"HTTP 429 rate limited ({NOT_THE_DAY})"


def account(settings: Settings) -> str:
    """Whose allowance: "no key", or the key's hash (never the key)."""
    key = settings.key(NAME)
    return f"key {hashlib.sha256(key.encode()).hexdigest()[:16]}" if key else "no key"


def remembered(settings: Settings, wall=None) -> BudgetState | None:
    """Today's remembered state for this account (None when nothing is known)."""
    return read_budget(NAME, account(settings), **({"wall": wall} if wall else {}))


def spent_message(state: BudgetState, settings: Settings, now: float | None = None) -> str:
    """One line: why OpenAlex is skipped, until when, and what to do about it."""
    allowance = f"${state.limit_usd:g}/day" if state.limit_usd else "daily allowance"
    head = f"{SPENT} ({allowance}) is spent until {reset_words(state, now)}"
    if settings.key(NAME):
        return f"{head}; this {KEY_VARIABLE}'s allowance renews then (or add prepaid usage in your OpenAlex account)"
    return (f"{head}; set {KEY_VARIABLE} (free from your OpenAlex account settings) for $1/day instead of the "
            f"keyless $0.10")


def read_state(settings: Settings, response: FetchedResponse, now: float) -> BudgetState | None:
    """What one answer says about the allowance: None when it carries no budget header, and
    for a 429 of the per-second rate (whose amounts say nothing true about the day)."""
    headers = response.headers
    remaining = as_float(headers.get("x-ratelimit-remaining-usd"))
    limit = as_float(headers.get("x-ratelimit-limit-usd"))
    credits_left = as_float(headers.get("x-ratelimit-remaining"))
    reset = as_float(headers.get("x-ratelimit-reset"))
    if response.status == 429:
        if not daily_429(response):
            return None
        exhausted = True
    elif remaining is None and credits_left is None:
        return None
    else:
        exhausted = _nothing_left(headers)
    resets_at = now + reset if reset is not None and 0 < reset <= 86_400 else next_utc_midnight(now)
    return BudgetState(NAME, account(settings), remaining, limit, exhausted, resets_at, now)


def daily_429(response: FetchedResponse) -> bool:
    """Whether a 429 is the day's allowance spent (True) or the per-second rate, a burst (False):
    the body's own words first, then how long it asks to wait, then the amounts left; a 429
    that says nothing is a burst until an answer says otherwise."""
    said_wait, message = _body_says(response)
    words = message.casefold()
    if any(word in words for word in RATE_WORDS):
        return False
    if any(word in words for word in DAY_WORDS):
        return True
    wait = parse_retry_after(response.headers.get("retry-after"))
    wait = said_wait if wait is None else wait
    if wait is not None:
        reset = as_float(response.headers.get("x-ratelimit-reset"))
        return wait >= DAILY_RETRY_AFTER or (reset is not None and 60 <= wait and wait >= reset - 60)
    if _says_amounts(response.headers):
        return _nothing_left(response.headers)
    return False


def _says_amounts(headers: Any) -> bool:
    return any(as_float(headers.get(name)) is not None for name in ("x-ratelimit-remaining-usd",
                                                                      "x-ratelimit-remaining"))


def _nothing_left(headers: Any) -> bool:
    """The amounts say this request cannot be paid for today (prepaid credit pays too)."""
    remaining = as_float(headers.get("x-ratelimit-remaining-usd"))
    cost = as_float(headers.get("x-ratelimit-cost-required-usd"))
    prepaid = as_float(headers.get("x-ratelimit-prepaid-remaining-usd")) or 0.0
    credits_left = as_float(headers.get("x-ratelimit-remaining"))
    credits_needed = as_float(headers.get("x-ratelimit-credits-required"))
    if prepaid > 0:
        return False
    return ((remaining is not None and (remaining <= 0 or (cost is not None and remaining < cost)))
            or (credits_left is not None and (credits_left <= 0 or (credits_needed is not None
                                                                    and credits_needed > credits_left))))


def _body_says(response: FetchedResponse) -> tuple[float | None, str]:
    """(``retryAfter``, ``message`` + ``error``) of a 429's JSON body, as OpenAlex's proxy
    writes them; (None, "") for any other body."""
    try:
        payload = json.loads(response.content[:20_000])
    except (ValueError, UnicodeDecodeError, TypeError):
        return None, ""
    if not isinstance(payload, dict):
        return None, ""
    wait = as_float(payload.get("retryAfter"))
    words = " ".join(str(payload.get(name)) for name in ("message", "error") if isinstance(payload.get(name), str))
    return (wait if wait is not None and wait >= 0 else None), words


async def budgeted_get(session: ProviderSession, url: str, *, params: Mapping[str, Any],
                       accept_status: frozenset[int] = frozenset(), retries: int | None = None) -> FetchedResponse:
    """GET through the HTTP layer, unless today's allowance is known to be spent and the
    request costs credits (then one ProviderError, status 429, and nothing is sent; a cached
    answer is still served, and a free request, one entity by id or an autocomplete, still goes:
    OpenAlex serves it on a spent day, openalex_costs.py). Every network answer's budget headers
    are remembered. A 429 that is the daily budget (``daily_429``) fails at once, remembered; a
    burst of the per-second rate is retried, after the wait it asks (Retry-After, else the body's
    retryAfter) or a backoff, within the provider's time budget, and never remembered."""
    settings = session.settings
    wall = _wall()
    state = await known_state(session)
    if state is not None and state.exhausted and _credits(session, url, params) > 0 \
            and not await _in_cache(session, url, params):
        raise session.error(spent_message(state, settings, wall), status=429)
    attempts = (session.policy.retries if retries is None else retries) + 1
    for attempt in range(attempts):
        cache_hits = session.cache_hits
        response = await session.get(url, params=params, accept_status=accept_status | RATE_LIMITED,
                                     retries=retries)
        if session.cache_hits > cache_hits:
            return response  # an old answer's headers say nothing about today
        state = await observed(session, response)
        if response.status != 429 or 429 in accept_status:
            return response
        if state is not None and state.exhausted:
            raise session.error(spent_message(state, settings, _wall()), status=429)
        # A burst: wait as asked (the header, else the body's retryAfter), else back off.
        header = parse_retry_after(response.headers.get("retry-after"))
        asked = _body_says(response)[0] if header is None else header
        await session.http.note_rate_limited(session.provider, asked, response.sent_at)
        if attempt == attempts - 1:
            break
        if asked is not None:
            await session.wait_as_asked(asked, "Retry-After" if header is not None else "retryAfter",
                                        reason=BURST, status=429)
            continue
        wait = settings.backoff_seconds * 2 ** attempt
        if wait >= session.remaining():
            raise session.error(f"{BURST}; the next try is {wait:.0f} s away, more than the "
                                f"{max(session.remaining(), 0):.0f} s left in this provider's budget", status=429,
                                retryable=True)
        await session.http.sleep(wait)
    raise session.error(f"{status_reason(response)} after {attempts} attempts ({NOT_THE_DAY})",
                        status=429, retryable=True)


async def known_state(session: ProviderSession) -> BudgetState | None:
    """Today's state as this machine remembers it, or as the lab's Redis knows it (then kept
    here too): a machine learns that the key's allowance is spent from the one that was told."""
    settings = session.settings
    state = remembered(settings)
    lab = session.http.shared_state
    if lab is None or (state is not None and state.exhausted):
        return state
    shared = await read_shared(lab, NAME, settings.key(NAME), account(settings))
    if shared is not None and (state is None or shared.seen_at > state.seen_at):
        remember_budget(shared)
        return shared
    return state


async def observed(session: ProviderSession, response: FetchedResponse) -> BudgetState | None:
    """``observe``, and the state written to the lab's Redis too."""
    state = observe(session.settings, response)
    if state is not None and session.http.shared_state is not None:
        await remember_shared(session.http.shared_state, state, session.settings.key(NAME))
    return state


async def refuse_when_spent(session: ProviderSession, credits: int) -> None:
    """ProviderError (status 429, naming the key) when today's allowance is known to be spent
    and the work about to start costs ``credits``: a caller checks before a first, free step
    (a name resolved by autocomplete) would be sent for nothing."""
    state = await known_state(session) if credits > 0 else None
    if state is not None and state.exhausted:
        raise session.error(spent_message(state, session.settings, _wall()), status=429)


def observe(settings: Settings, response: FetchedResponse) -> BudgetState | None:
    """Remember what ``response`` says about the allowance; returns that state."""
    state = read_state(settings, response, _wall())
    if state is not None:
        remember_budget(state)
    return state


def budget_notes(headers: Any) -> list[str]:
    """One line when OpenAlex says little of today's allowance is left (its X-RateLimit-*-USD
    headers), so the user knows before searches start failing."""
    remaining = as_float(headers.get("x-ratelimit-remaining-usd"))
    limit = as_float(headers.get("x-ratelimit-limit-usd"))
    if remaining is None or (limit and remaining >= LOW_BUDGET_SHARE * limit) or (not limit and remaining >= 0.01):
        return []
    of_limit = f" of ${limit:g}" if limit else ""
    return [f"only ${remaining:.4f}{of_limit} of today's OpenAlex allowance is left; it resets at midnight UTC"
            + ("" if limit and limit > 0.1 else f" (a free {KEY_VARIABLE} raises it to $1/day)")]


def doctor_budget(settings: Settings) -> dict[str, Any] | None:
    """Today's allowance as last seen by any run, for ``doctor`` (None when no answer said it
    yet today): the figures, and the same in words."""
    state = remembered(settings)
    if state is None:
        return None
    seen = datetime.fromtimestamp(state.seen_at, timezone.utc)
    if state.exhausted:
        words = spent_message(state, settings).removeprefix("OpenAlex skipped: ")
    else:
        of_limit = f" of ${state.limit_usd:g}" if state.limit_usd is not None else ""
        left = f"${state.remaining_usd:.4f}{of_limit}" if state.remaining_usd is not None else "an unknown amount"
        words = f"{left} left today (as of {seen:%H:%M} UTC); it renews at {reset_words(state)}"
    return {"remaining_usd": state.remaining_usd, "limit_usd": state.limit_usd, "exhausted": state.exhausted,
            "resets_at": datetime.fromtimestamp(state.resets_at, timezone.utc).isoformat().replace("+00:00", "Z"),
            "seen_at": seen.isoformat().replace("+00:00", "Z"), "words": words}


def _credits(session: ProviderSession, url: str, params: Mapping[str, Any]) -> int:
    """What the request costs, from its path below the configured base URL."""
    base = session.url("")
    return request_credits(url[len(base):] if url.startswith(base) else urlsplit(url).path, params)


async def _in_cache(session: ProviderSession, url: str, params: Mapping[str, Any]) -> bool:
    cache = session.http.cache
    return cache is not None and await cache.find(NAME, "GET", url, {"params": params},
                                                  session.http.lab_cache) is not None


def _wall() -> float:
    return time.time()
