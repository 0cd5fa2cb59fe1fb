"""Helpers every provider shares: decoding an answer, an API's error message on one line,
coercing fields (a field of the wrong kind becomes None, never an exception), and parsing
record by record (a bad record costs only itself)."""

from __future__ import annotations

import json
import math
import re
from datetime import date
from typing import Any, Callable, Iterable, TypeVar

from ..core.errors import ProviderError
from ..core.text import one_line

MESSAGE_LIMIT = 160  # characters of an API's own error text shown to the user
# Numbers outside these ranges are errors in the data, not facts: they become None.
# (The most cited paper has about 400,000 citations.)
MAX_COUNT = 10_000_000
YEARS = range(1000, 2101)
_ISO_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")

T = TypeVar("T")


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
    except RecursionError:
        # One absurdly nested value must not cost the whole answer: read it as null.
        try:
            payload = json.loads(without_deep_values(text))
        except (ValueError, RecursionError):
            raise ProviderError("unexpected response (JSON nested too deeply to read)") from None
    if not isinstance(payload, dict):
        raise ProviderError("unexpected response (JSON is not an object)")
    return payload


MAX_JSON_DEPTH = 100  # no API nests records this deep; deeper values are read as null


def without_deep_values(text: str, limit: int = MAX_JSON_DEPTH) -> str:
    """JSON ``text`` with every array or object nested deeper than ``limit`` replaced by null
    (strings, with their escapes, are passed over as they are)."""
    pieces: list[str] = []
    depth = kept_from = 0
    deep_from: int | None = None
    in_string = False
    index, end = 0, len(text)
    while index < end:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth == limit + 1:
                deep_from = index
        elif char in "]}":
            if depth == limit + 1 and deep_from is not None:
                pieces += [text[kept_from:deep_from], "null"]
                kept_from, deep_from = index + 1, None
            depth -= 1
        index += 1
    pieces.append(text[kept_from:] if deep_from is None else text[kept_from:deep_from] + "null")
    return "".join(pieces)


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
    """A text field as one line of safe text, or None when empty or not text (a number is
    taken as its digits; an object or a list is no text)."""
    if isinstance(value, (dict, list, tuple, set, bool)):
        return None
    return one_line(value)


def distinct_authors(authors: Iterable[tuple[Any, str | None]]) -> list[str]:
    """Author names from (the source's author id, name) pairs, each person once: Semantic
    Scholar and OpenAlex sometimes list one author twice under the same id ("David K. Karig,
    David K. Karig"). Names without an id are all kept: two people may share a name."""
    seen: set[str] = set()
    names = []
    for author_id, name in authors:
        if not name:
            continue
        key = str(author_id).strip() if isinstance(author_id, (str, int)) and str(author_id).strip() else None
        if key is not None and key in seen:
            continue
        if key is not None:
            seen.add(key)
        names.append(name)
    return names


def as_dict(value: Any) -> dict[str, Any]:
    """An object field, or {} when it is missing or of another kind."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """A list field, or [] when it is missing or of another kind."""
    return value if isinstance(value, list) else []


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
    """A count within 0..MAX_COUNT, or None (a negative or absurd count is no count)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    number = as_int(value)
    return number if number is not None and 0 <= number <= MAX_COUNT else None


def as_year(value: Any) -> int | None:
    """A publication year within 1000..2100, or None."""
    number = as_int(value)
    return number if number in YEARS else None


def as_date(value: Any) -> str | None:
    """``YYYY-MM-DD`` (or ``YYYY-MM``, ``YYYY``) when ``value`` is such a real date, else None."""
    if not isinstance(value, str):
        return None
    match = _ISO_DATE.match(value.strip())
    if not match or as_year(match.group(1)) is None:
        return None
    year, month, day = (int(part) if part else None for part in match.groups())
    try:
        date(year, month or 1, day or 1)
    except ValueError:
        return None
    return "-".join(part for part in match.groups() if part)


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


class Parsed(list):
    """The records parsed from one answer; ``skipped`` counts the entries that could not be
    read (each costs only itself). A slice keeps the count."""

    skipped: int = 0

    def __getitem__(self, index):
        item = super().__getitem__(index)
        if isinstance(index, slice):
            item = Parsed(item)
            item.skipped = self.skipped
        return item


class ParsedById(dict):
    """Records parsed from one answer, keyed by id; ``skipped`` as for ``Parsed``."""

    skipped: int = 0


def parse_each(entries: Iterable[Any], parse_one: Callable[[Any, int], T | None]) -> Parsed:
    """``parse_one(entry, position)`` for each entry (positions from 1); None (a null entry,
    a record without a title) is left out, and an entry whose parsing fails is left out and
    counted."""
    parsed = Parsed()
    for position, entry in enumerate(entries, start=1):
        try:
            record = parse_one(entry, position)
        except (ProviderError, ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError,
                RecursionError):
            parsed.skipped += 1
            continue
        if record is not None:
            parsed.append(record)
    return parsed


def skipped_notes(*parsed: Any) -> list[str]:
    """A note for records left out because they could not be read, if any were."""
    count = sum(getattr(records, "skipped", 0) for records in parsed)
    if not count:
        return []
    return [f"{count} record{'s' if count != 1 else ''} left out: unreadable in the answer"]
