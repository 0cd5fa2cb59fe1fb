"""One sanitizer for everything lit-search passes on: text from the APIs (and from users'
files) never carries characters that hide text, reorder it, or act on a terminal, and JSON
is strict.

Removed from every output (and from API text as it is parsed): C0 and C1 control characters
but tab, newline and carriage return (ESC, CSI and OSC start terminal escapes), DEL, Unicode
tag characters U+E0000–E007F (they can carry hidden instructions), bidirectional embeddings,
overrides and isolates (U+202A–202E, U+2066–2069, U+061C, U+200E, U+200F), the word joiner
and invisible operators (U+2060–2064), the byte-order mark U+FEFF and the soft hyphen. A lone
surrogate (no character at all; it cannot even be encoded) becomes U+FFFD. Markdown, which a
model reads, also loses zero-width spaces and joiners and line/paragraph separators.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
    "\ufeff\U000e0000-\U000e007f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Zero-width space, non-joiner and joiner are real text in some scripts and in emoji, so
# JSON and exports keep them; Markdown for the model does not.
_MARKDOWN_INVISIBLE = re.compile("[\u200b-\u200d]")
_LINE_SEPARATORS = re.compile("[\u2028\u2029\u0085]")


def safe_text(text: str) -> str:
    """``text`` without the characters above (surrogates as U+FFFD)."""
    if text.isascii() and text.isprintable():  # the common case: nothing to look for
        return text
    text = _SURROGATE.sub("\ufffd", text)
    return _UNSAFE.sub("", text)


def markdown_safe(text: str) -> str:
    """``safe_text`` for Markdown: also no zero-width characters, line separators as spaces."""
    text = safe_text(text)
    if text.isascii():
        return text
    return _LINE_SEPARATORS.sub(" ", _MARKDOWN_INVISIBLE.sub("", text))


def safe_value(value: Any) -> Any:
    """A JSON-able value with every string made safe and every non-finite float as None."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {safe_text(str(key)): safe_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_value(item) for item in value]
    return value


def json_text(value: Any, indent: int | None = 2) -> str:
    """Strict JSON (no NaN or Infinity), UTF-8 text with a final newline, every string safe."""
    return json.dumps(safe_value(value), ensure_ascii=False, indent=indent, allow_nan=False) + "\n"


# A spreadsheet reads a cell starting with one of these as a formula (or, for tab and CR,
# may strip them to reach one): "=HYPERLINK(…)", "+cmd|' /C calc'!A0", "@SUM(…)", "-2+3".
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: str) -> str:
    """Third-party text as a CSV cell that a spreadsheet shows and never runs: text starting
    with ``= + - @``, tab or CR gets a leading apostrophe, which spreadsheets take as "this
    cell is text" (OWASP's advice for CSV injection). Other text is unchanged."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value
