"""Text laid out for a person at a terminal: plain values (no Markdown escapes), measured in
terminal cells and wrapped or cut to the terminal's width.

Hand-written rather than taken from a terminal UI library (rich): the views are short blocks
of wrapped lines, which need only a cell width per character (East Asian wide characters
take two cells, combining marks none) and word wrapping; a library would add four packages
to every install, the Claude Code skill's private one included, where output never goes to
a terminal.
"""

from __future__ import annotations

import shutil
import unicodedata
from typing import Any, Iterable

from ..core.sanitize import markdown_safe
from ..core.text import plain_text

DEFAULT_WIDTH = 100  # when stdout is no terminal (--format table into a pipe) and COLUMNS is unset
MIN_WIDTH = 20
SEPARATOR = " · "
ELLIPSIS = "…"


def terminal_width() -> int:
    """Columns of the terminal stdout is (COLUMNS when set), at least MIN_WIDTH."""
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def plain(value: Any) -> str:
    """Untrusted text as one plain line: markup taken out (HTML, JATS), no control, hidden or
    reordering characters, no line breaks; nothing escaped, since no renderer reads it."""
    if value is None:
        return ""
    return " ".join(markdown_safe(plain_text(str(value)) or "").split())


def char_width(char: str) -> int:
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):  # combining marks, joiners, selectors
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_width(text: str) -> int:
    """How many terminal cells ``text`` takes."""
    if text.isascii():
        return len(text)
    return sum(char_width(char) for char in text)


def fit(text: str, width: int) -> str:
    """``text`` cut with an ellipsis to at most ``width`` cells."""
    if text_width(text) <= width:
        return text
    kept, used = [], 0
    for char in text:
        cells = char_width(char)
        if used + cells > width - 1:
            break
        kept.append(char)
        used += cells
    return "".join(kept).rstrip() + ELLIPSIS


def wrap(text: str, width: int, indent: str = "", first: str | None = None) -> list[str]:
    """``text`` word-wrapped to ``width`` cells: the first line starts with ``first`` (default
    ``indent``), the others with ``indent``. A word longer than a line (a title in a script
    without spaces, a long URL) is cut across lines."""
    first = indent if first is None else first
    lines: list[str] = []
    line, used, empty = first, text_width(first), True
    for word in text.split():
        cells = text_width(word)
        if not empty and used + 1 + cells <= width:
            line, used = f"{line} {word}", used + 1 + cells
            continue
        if not empty:
            lines.append(line)
            line, used = indent, text_width(indent)
        while used + cells > width and width - used >= 2:
            head, word = _split_cells(word, width - used)
            lines.append(line + head)
            line, used = indent, text_width(indent)
            cells = text_width(word)
        line, used, empty = line + word, used + cells, False
    lines.append(line)
    return [item.rstrip() for item in lines]


def _split_cells(word: str, cells: int) -> tuple[str, str]:
    used = 0
    for position, char in enumerate(word):
        used += char_width(char)
        if used > cells:
            return word[:max(1, position)], word[max(1, position):]
    return word, ""


def pack(parts: Iterable[str], width: int, indent: str = "") -> list[str]:
    """Short parts joined with " · " on as few lines as fit ``width``; a part never breaks
    across lines (one too wide for a line is cut with an ellipsis)."""
    lines: list[str] = []
    line = ""
    room = width - text_width(indent)
    for part in (p for p in parts if p):
        part = fit(part, room)
        if line and text_width(line) + len(SEPARATOR) + text_width(part) <= room:
            line += SEPARATOR + part
        else:
            if line:
                lines.append(indent + line)
            line = part
    if line:
        lines.append(indent + line)
    return lines


def heading(text: str, width: int) -> list[str]:
    """A section heading: the text, then a rule as wide as it (at most the terminal)."""
    lines = wrap(text, width)
    return lines + ["─" * min(width, max(text_width(line) for line in lines))]
