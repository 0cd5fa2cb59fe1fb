"""Turn API text (HTML, JATS, MathML, hard-wrapped lines) into plain text."""

from __future__ import annotations

import html
import re
import unicodedata

from .sanitize import safe_text

# Only real tags: "<name attr='v'>" or "</name>". A bare "<" in prose ("p<0.05 and n>30")
# is text, not markup, and must survive.
_TAG = re.compile(r"""</?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*\s*/?>""")
_INLINE_TAG = re.compile(
    r"""</?(?:i|b|em|strong|sup|sub|u|sc|span|scp|mml:\w+|math|mi|mo|mn|msub|msup|mrow)\b[^<>]*>""", re.I)
_SPACE = re.compile(r"\s+")
# Zero-width characters and direction marks say nothing in a title or abstract; control and
# other unsafe characters go through the one sanitizer (core/sanitize.py).
_ZERO_WIDTH = re.compile("[\u200b-\u200f]")


def plain_text(value: str | None) -> str | None:
    """Strip markup and entities, drop control characters, collapse whitespace.

    Returns None for empty results so "no abstract" stays distinguishable.
    """
    if value is None or isinstance(value, (dict, list, tuple, set, bool)):
        return None  # a field of the wrong kind is no text
    text = str(value)
    # Entity-escaped markup ("&lt;i&gt;") is still markup: unescape tags first.
    if "&lt;" in text:
        text = re.sub(r"&lt;(/?[A-Za-z][^&<>]{0,200}?)&gt;", r"<\1>", text)
    # A tag boundary separates words ("<jats:p>A</jats:p><jats:p>B") so it becomes a space,
    # except inline formatting tags, which sit inside words ("H<sub>2</sub>O").
    text = _INLINE_TAG.sub("", text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = safe_text(_ZERO_WIDTH.sub("", text))
    text = _SPACE.sub(" ", text).strip()
    return text or None


def one_line(value: object) -> str | None:
    """A field as one line of safe text (no markup handling), or None when empty."""
    if value is None:
        return None
    text = " ".join(safe_text(str(value)).split())
    return text or None


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 request``, ``2 requests``, ``2,000 requests``: a count and its noun, the one way every
    count is written (thousands separated). ``word`` takes an -s unless ``many`` gives its plural
    (``plural(n, "query", "queries")``, ``plural(n, "paper judged", "papers judged")``)."""
    return f"{count:,} {word if count == 1 else many if many is not None else word + 's'}"


def sentence(text: str) -> str:
    """``text`` as a sentence's start: its first letter upper-case (a reason that follows a full
    stop: "… exhausted. No unjudged candidate …")."""
    return text[:1].upper() + text[1:] if text[:1].islower() else text


PHRASES = "; "


def phrases(text: str) -> list[str]:
    """The "; "-separated phrases of ``text``, never split inside “quoted” words (a title or a
    query quoted in a phrase may hold "; " itself)."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        depth += (char == "“") - (char == "”" and depth > 0)
        if depth == 0 and text.startswith(PHRASES, at):
            parts.append(text[start:at])
            start = at + len(PHRASES)
    parts.append(text[start:])
    return [part for part in parts if part]


def cut_phrases(parts: list[str] | str, limit: int) -> str:
    """Whole phrases joined by "; " within about ``limit`` characters, then how many were left
    out ("; and 3 more"): a list is never cut inside a phrase (the first is kept whole,
    whatever its length), so what is shown always reads as written."""
    parts = phrases(parts) if isinstance(parts, str) else [part for part in parts if part]
    whole = PHRASES.join(parts)
    if len(whole) <= limit:
        return whole
    kept = parts[:1]
    for part in parts[1:]:
        left = len(parts) - len(kept) - 1
        tail = f"{PHRASES}and {left:,} more" if left else ""
        if len(PHRASES.join([*kept, part])) + len(tail) > limit:
            break
        kept.append(part)
    left = len(parts) - len(kept)
    return PHRASES.join(kept) + (f"{PHRASES}and {left:,} more" if left else "")


_NON_WORD = re.compile(r"[^\w\s]|_")


def fold_plain(text: str) -> str:
    """`fold_title` for text that is already plain (no markup): accents off, lower-case, no
    punctuation. Parsed records hold plain text, so the ranking folds them with this."""
    if not text.isascii():
        text = _without_accents(text)
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def _without_accents(text: str) -> str:
    """NFKD, then every combining mark removed: the few distinct characters are tested once
    each, not every character of a long abstract."""
    text = unicodedata.normalize("NFKD", text)
    marks = {ord(ch): None for ch in set(text) if unicodedata.combining(ch)}
    return text.translate(marks) if marks else text


def fold_title(value: str | None) -> str:
    """Comparison key for titles: plain text, accents removed, lower-case, punctuation as spaces."""
    if type(value) is str and value.isascii() and value.isprintable() and "<" not in value and "&" not in value:
        # Most titles: no markup, entity, accent or control character, so plain_text would only
        # collapse spaces (the deep-search pool keys thousands of titles a round).
        return fold_plain(value)
    return _fold_any_title(value)


def _fold_any_title(value: str | None) -> str:
    text = _without_accents(plain_text(value) or "")
    text = text.lower()
    text = re.sub(r"[^\w\s]|_", " ", text)
    return _SPACE.sub(" ", text).strip()


def short_author(name: str) -> str:
    """'Ashish Vaswani' -> 'Vaswani A'; 'Smith, John R.' -> 'Smith JR'; 'Smith J' stays."""
    name = " ".join((plain_text(name) or "").split())
    if not name:
        return ""
    if "," in name:
        surname, given = [part.strip() for part in name.split(",", 1)]
    else:
        parts = name.split(" ")
        if len(parts) == 1:
            return name
        if len(parts) == 2 and parts[1].isupper() and len(parts[1]) <= 3:
            return name  # already "Smith JR" (PubMed style)
        surname, given = parts[-1], " ".join(parts[:-1])
    initials = "".join(chunk[0] for chunk in re.split(r"[\s.\-]+", given) if chunk)
    return f"{surname} {initials.upper()}".strip()
