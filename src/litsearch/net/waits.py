"""Waits a server asks for: ``Retry-After`` (seconds or an HTTP date), Zotero's ``Backoff``
and any other. A server may ask for a day, a year or ``inf``; the HTTP layer waits only within
the time budget left (``ProviderSession.wait_as_asked``), and a longer wait fails at once, its
reason naming what was asked."""

from __future__ import annotations

import email.utils
import math
from datetime import datetime, timezone


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After (or Backoff) header: delta-seconds or an HTTP date.
    ``inf`` (or a number too large for a float) is infinity; what is no number or date
    (``nan`` included) is None, as if the header were absent."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return None if math.isnan(seconds) else max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


def shown_wait(seconds: float) -> str:
    """A wait for a message: "86400 s", or "without end" for infinity."""
    return f"{seconds:.0f} s" if math.isfinite(seconds) else "without end"
