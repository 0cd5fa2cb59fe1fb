"""Bounded results: every tool result stays within a character budget (20,000 by default),
and what does not fit is one call away through a cursor (mcp_server/cursors.py)."""

from __future__ import annotations

import json
from typing import Any, Callable

DEFAULT_MAX_CHARS = 20_000
KEPT_WHOLE = ("id", "display_name", "title")  # fit_record never leaves these out
MIN_MAX_CHARS, MAX_MAX_CHARS = 2_000, 200_000


def size_of(value: Any) -> int:
    """Characters of ``value`` as the model receives it (compact JSON)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def largest_fit(count: int, size: Callable[[int], int], budget: int) -> int:
    """The most items (1..count) whose result of ``size(n)`` characters stays within
    ``budget``; at least 1, so a page always moves on (an oversized item is cut by its own
    renderer). Each ``size(n)`` renders a page, so it is asked only for n in 1..count, each at
    most once, about log2(count) times, and not at all when count is 0 or 1."""
    if count <= 1 or size(count) <= budget:
        return max(count, 0)
    low, high = 1, count - 1  # size(high + 1) is known to be too big
    while low < high:
        middle = (low + high + 1) // 2
        if size(middle) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def fit_record(record: dict[str, Any], budget: int) -> tuple[dict[str, Any], dict[str, str]]:
    """A complete record within ``budget``: while it is too long, its biggest field is made
    smaller: a list halved, a text halved, anything else (a huge object) left out. Returns
    the record and what was shortened ({field: "10 of 25 kept"})."""
    record = dict(record)
    cut: dict[str, str] = {}
    totals: dict[str, int] = {}
    while size_of(record) > budget:
        fields = [(size_of(value), name) for name, value in record.items()
                  if name not in KEPT_WHOLE and value not in (None, [], {}, "")]
        if not fields:
            break
        size, name = max(fields)
        value = record[name]
        if isinstance(value, list) and len(value) > 1:
            totals.setdefault(name, len(value))
            record[name] = value[: len(value) // 2]
            cut[name] = f"{len(record[name])} of {totals[name]} kept"
        elif isinstance(value, str) and len(value) > 200:
            totals.setdefault(name, len(value))
            record[name] = value[: len(value) // 2] + "…"
            cut[name] = f"{len(record[name]) - 1:,} of {totals[name]:,} characters kept"
        else:
            record[name] = None
            cut[name] = f"left out ({size:,} characters)"
    return record, cut
