"""Small helpers every JSON provider shares: decoding an answer and coercing fields."""

from __future__ import annotations

import json
from typing import Any

from ..http import ProviderError


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


def clean(value: Any) -> str | None:
    """A field as one line of text, or None when empty."""
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def as_int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def as_float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
