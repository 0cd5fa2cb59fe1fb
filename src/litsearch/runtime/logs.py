"""Log lines with every key removed, whatever a message or an exception's text holds. One filter
for every door; the MCP server asks for its one-line mode (a traceback can carry a URL with a
key, and its stderr is read line by line)."""

from __future__ import annotations

import logging

from ..core.config import Settings
from ..core.sanitize import safe_text

ONE_LINE_CHARS = 2000  # a log line in one-line mode, at most


class RedactingFilter(logging.Filter):
    def __init__(self, settings: Settings, one_line: bool = False):
        super().__init__()
        self.settings = settings
        self.one_line = one_line

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.one_line:
            message = " ".join(message.split())
            if len(message) > ONE_LINE_CHARS:
                message = message[: ONE_LINE_CHARS - 1] + "…"
            record.exc_info = record.exc_text = None  # tracebacks can carry URLs with keys: one line only
        # A log line may quote a library's message about what the user typed or a server sent:
        # no character that acts on a terminal, hides or reorders text, or returns the cursor
        # to overwrite the line reaches stderr.
        record.msg = self.settings.redact(safe_text(message).replace("\r", "\\r"))
        record.args = ()
        return True


def redact_logs(settings: Settings) -> None:
    """Keys never reach a log line: the filter on every handler the root logger has."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter(settings))
