"""Helpers every JSON provider shares: decoding an answer, an API's error message on one
line, and coercing fields."""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Iterable

from ..core.errors import ProviderError

MESSAGE_LIMIT = 160  # characters of an API's own error text shown to the user


def json_object(body: bytes | str) -> dict[str, Any]:
    """The answer decoded as a JSON object, or ProviderError for an HTML page (an error
    page sent with status 200), text that is not JSON (truncated, "Rate exceeded."), or
    JSON that is not an object. Provider-specific error payloads are checked by the caller."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else str(body)
    if text.lstrip().startswith("<"):
        raise ProviderError("unexpected response (an HTML page, not JSON)")
    try:
        payload = json.loads(text)
    except ValueError:
        excerpt = " ".join(text.split())[:80]
        raise ProviderError(f"unexpected response (not JSON): {excerpt!r}") from None
    if not isinstance(payload, dict):
        raise ProviderError("unexpected response (JSON is not an object)")
    return payload


def shorten(text: Any, limit: int = MESSAGE_LIMIT) -> str:
    """One line of at most ``limit`` characters, an ellipsis marking a cut (a list of
    messages is joined with "; ")."""
    if isinstance(text, (list, tuple)):
        text = "; ".join(str(item) for item in text)
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def api_error(text: str) -> ProviderError:
    """``API error: <the API's own words>`` on one line, shortened."""
    text = shorten(text)
    return ProviderError(f"API error: {text}" if text else "API error (no message)")


def clean(value: Any) -> str | None:
    """A field as one line of text, or None when empty."""
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def as_int(value: Any) -> int | None:
    """A whole number from an int, a numeric string or a float; None for anything else
    (a bool is no count, and 1e999 is no number)."""
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def as_count(value: Any) -> int | None:
    """A count (never negative), or None."""
    number = as_int(value)
    return max(0, number) if number is not None else None


def as_float(value: Any) -> float | None:
    """A finite number, or None (a bool, NaN and infinity are no scores)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def any_of(variants: Iterable[str], clean: Callable[[str], str], operator: str) -> str:
    """One boolean query matching any variant: ``(v1) OP (v2)``, each variant cleaned of
    the API's own syntax by ``clean``, case-insensitive repeats dropped. ValueError when no
    search words are left."""
    groups: list[str] = []
    seen: set[str] = set()
    for variant in variants:
        text = clean(variant or "")
        if text and text.lower() not in seen:
            seen.add(text.lower())
            groups.append(f"({text})")
    if not groups:
        raise ValueError("no search terms left in the query variants")
    return f" {operator} ".join(groups)
