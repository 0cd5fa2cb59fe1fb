"""What a door says to a person: progress and notes on stderr, one line each, bounded, with
every configured key removed."""

from __future__ import annotations

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
        """Shown even with -q: something the user must know. Nothing from an API reaches the
        terminal unescaped: control characters (escape sequences) are removed."""
        text = bounded(safe_text(f"{self.prefix}: {message}"))
        print(self.settings.redact(text) if self.settings else text, file=sys.stderr, flush=True)


def bounded(message: str) -> str:
    """Each line of a message cut to MAX_MESSAGE_LINE characters (a 100,000-character id or
    title in a value must not become a 100 KB error)."""
    return "\n".join(line if len(line) <= MAX_MESSAGE_LINE else line[: MAX_MESSAGE_LINE - 1] + "…"
                     for line in message.split("\n"))
