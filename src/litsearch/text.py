"""Turn API text (HTML, JATS, MathML, hard-wrapped lines) into plain text."""

from __future__ import annotations

import html
import re
import unicodedata

_TAG = re.compile(r"<[^>]{0,2000}>")
_SPACE = re.compile(r"\s+")
# Control characters other than ordinary whitespace never belong in a title or abstract.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def plain_text(value: str | None) -> str | None:
    """Strip markup and entities, drop control characters, collapse whitespace.

    Returns None for empty results so "no abstract" stays distinguishable.
    """
    if value is None:
        return None
    text = str(value)
    # A tag boundary separates words ("<jats:p>A</jats:p><jats:p>B") so it becomes a space,
    # except inline formatting tags, which sit inside words ("H<sub>2</sub>O").
    text = re.sub(r"</?(?:i|b|em|strong|sup|sub|u|sc|span|scp|mml:\w+|math)\b[^>]*>", "", text, flags=re.I)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = _CONTROL.sub("", text)
    text = _SPACE.sub(" ", text).strip()
    return text or None


def fold_title(value: str | None) -> str:
    """Comparison key for titles: plain text, accents removed, lower-case, punctuation as spaces."""
    text = plain_text(value) or ""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower()
    text = re.sub(r"[^\w\s]|_", " ", text)
    return _SPACE.sub(" ", text).strip()
