"""What a door says to a person: progress and notes on stderr, one line each, bounded, with
every configured key removed; ``message_line`` for the lines a command writes there itself."""

from __future__ import annotations

import re
import sys

from ..core.config import Settings
from ..core.sanitize import safe_text

MAX_MESSAGE_LINE = 600  # characters: a message quotes an excerpt of a value, never all of it


class Console:
    """Progress and notes on stderr (silent with -q), keys removed."""

    def __init__(self, settings: Settings | None, quiet: bool = False, prefix: str = "lit-search"):
        self.settings = settings
        self.quiet = quiet
        self.prefix = prefix

    def say(self, message: str) -> None:
        if not self.quiet:
            self.warn(message)

    def warn(self, message: str) -> None:
        """Shown even with -q: something the user must know, as one line (``one_line``).
        Nothing from an API or from what the user typed reaches the terminal unescaped."""
        text = bounded(safe_text(one_line(f"{self.prefix}: {message}")))
        print(self.settings.redact(text) if self.settings else text, file=sys.stderr, flush=True)


def message_line(*lines: str) -> None:
    """Message lines on stderr, the way every line a command writes there goes (the error of
    a failed command, a hint): each argument is one line (``one_line``), with no control,
    hidden or reordering character and no key (the environment's secrets are removed even when
    the environment itself is the problem), each bounded."""
    from .settings import redactor

    text = "\n".join(one_line(line) for line in lines)
    print(bounded(redactor().redact(safe_text(text))), file=sys.stderr, flush=True)


def one_line(text: str) -> str:
    """``text`` as one line: a line break or carriage return inside it (from what the user typed,
    or an API's text) is shown as ``\\n``/``\\r``, other line separators as a space, so no message
    can forge a line of its own or overwrite one."""
    return _LINE_BREAKS.sub(lambda found: _SHOWN_BREAKS.get(found.group(0), " "), text)


_LINE_BREAKS = re.compile("[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
_SHOWN_BREAKS = {"\n": "\\n", "\r": "\\r"}


def bounded(message: str) -> str:
    """Each line of a message cut to MAX_MESSAGE_LINE characters (a 100,000-character id or
    title in a value must not become a 100 KB error)."""
    return "\n".join(line if len(line) <= MAX_MESSAGE_LINE else line[: MAX_MESSAGE_LINE - 1] + "…"
                     for line in message.split("\n"))
