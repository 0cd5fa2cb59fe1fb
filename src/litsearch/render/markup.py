"""Markup safety for Markdown output: untrusted text made plain, single-line and inert
(no live links, images, HTML or table breaks), and the few URL fields made safe as links."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from ..core.sanitize import markdown_safe
from ..core.text import plain_text, short_author

SNIPPET_WORDS = 100
SNIPPET_CHARS = 800  # a 100-word snippet is ~650 characters; one 1 MB "word" is not a snippet
MAX_CELL_CHARS = 2_000  # any other text: nothing unbounded reaches the Markdown
MAX_ABSTRACT_CHARS = 5_000  # a whole abstract shown with one paper
AUTHORS_SHOWN = 3

# Characters that can start Markdown syntax inside a line: emphasis, code, links and
# images, HTML, table cells, strikethrough, math. "(" needs no escape once "[" has one.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>!|~$])")
_URL_SCHEME = re.compile(r"\b(https?|ftp|file|javascript|data|mailto)(:)(//)?", re.I)
_BARE_WWW = re.compile(r"\bwww\.", re.I)
_EMAIL = re.compile(r"(?<=[\w.+-])@(?=[\w-]+\.[\w.-]*\w)")
# Line starts that open a block (heading, quote, list, setext underline): escaped, so a text
# that starts with "###" stays text inside a table cell or a quote.
_BLOCK_START = re.compile(r"^(?:[#>+=-]|(\d{1,9})([.)])(?=\s|$))")


def markdown_text(value: Any, max_chars: int | None = MAX_CELL_CHARS) -> str:
    """Plain, single-line, Markdown-inert text for a table cell or quoted snippet, at most
    ``max_chars`` characters (cut with an ellipsis)."""
    text = plain_text(str(value)) if value is not None else ""
    text = markdown_safe(text or "")
    if max_chars and len(text) > max_chars:
        text = text[: max_chars - 1].rstrip() + "…"
    # Defang URLs and e-mail addresses so renderers do not autolink text the source gave as prose.
    text = _URL_SCHEME.sub(lambda m: m.group(1) + "[:]" + ("//" if m.group(3) else ""), text)
    text = _BARE_WWW.sub("www[.]", text)
    text = _EMAIL.sub("[@]", text)
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    # "\#" stays "#"; in "12) x" the delimiter is escaped ("12\) x"): a backslash before a digit
    # is no escape in CommonMark.
    return _BLOCK_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1) else "\\" + m.group(0), text)


def safe_url(url: str | None) -> str | None:
    """An http(s) URL made safe inside a Markdown link target, or None."""
    if not url or not re.match(r"^https?://[^\s]+$", url.strip(), re.I):
        return None
    return quote(url.strip(), safe=":/?&=%#~+,;@!$*'-._")


def authors_cell(authors: list[str]) -> str:
    shown = [short_author(a) for a in authors[:AUTHORS_SHOWN]]
    text = ", ".join(a for a in shown if a)
    if len(authors) > AUTHORS_SHOWN:
        text += " et al."
    return markdown_text(text) if text else "–"


def snippet(text: str | None, words: int = SNIPPET_WORDS) -> str | None:
    clean = plain_text(text)
    if not clean:
        return None
    tokens = clean.split()
    cut = " ".join(tokens[:words]) + (" …" if len(tokens) > words else "")
    return markdown_text(cut, SNIPPET_CHARS)


