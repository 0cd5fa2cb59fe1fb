"""One error model: every failure lit-search reports is a ``LitSearchError`` that carries
the exit code the command ends with, so no caller matches message strings.

Exit codes (documented in every command's ``--help`` and in the README), one meaning each:

    0  ok
    1  internal error (a bug), reported in one line
    2  usage or input error
    3  every provider failed, or nothing could be fetched
    4  the local database is damaged, too new or not writable
    5  not found (a paper, a library entry)
  130  interrupted (Ctrl-C), at any moment, with one line and no traceback
"""

from __future__ import annotations

import copy
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    INTERNAL = 1
    USAGE = 2
    ALL_FAILED = 3
    STORE = 4
    NOT_FOUND = 5
    INTERRUPTED = 130
    TERMINATED = 143  # 128 + SIGTERM, as shells report a command a signal ended


EXIT_CODES_HELP = """\
exit codes: 0 ok, 1 internal error, 2 usage or input error, 3 every provider failed
  (nothing could be fetched), 4 local database damaged, too new or not writable, 5 not found,
  130 interrupted (Ctrl-C), 143 stopped by SIGTERM (a timeout, a job cancelled)."""


class LitSearchError(Exception):
    """Base of every error lit-search reports; ``str(error)`` is one line for the user."""

    exit_code: ExitCode = ExitCode.INTERNAL


class UsageError(LitSearchError):
    """Bad command-line input (an unknown flag, a bad value); shown with a pointer to --help."""

    exit_code = ExitCode.USAGE


class InputError(UsageError):
    """An input file that cannot be read as what the command needs."""


class ConfigError(InputError):
    """An environment variable that cannot be used; the message names it (never its value
    when it is a secret)."""


class UnknownIdError(UsageError):
    """Text that is not a paper id this tool understands."""


class StoreError(LitSearchError):
    """The local database cannot be used (damaged, too new, busy, not writable)."""

    exit_code = ExitCode.STORE


class NotFound(LitSearchError):
    """What was asked for does not exist: a paper no provider knows, an id not in the library."""

    exit_code = ExitCode.NOT_FOUND


class ProviderError(LitSearchError):
    """A provider could not answer.

    ``provider`` names the API (None inside a pure parser, which the caller knows), ``status``
    is the HTTP status when there was one, ``retryable`` says whether trying again later may
    help (rate limits, 5xx, timeouts), ``message`` is the one-line reason.
    """

    exit_code = ExitCode.ALL_FAILED

    def __init__(self, message: str, *, provider: str | None = None, status: int | None = None,
                 retryable: bool = False):
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status
        self.retryable = retryable

    def with_message(self, message: str) -> "ProviderError":
        """The same failure (its kind, provider, status), told differently (more context, redacted)."""
        told = copy.copy(self)
        told.message, told.args = message, (message,)
        return told


class NotCached(ProviderError):
    """--offline: the answer to this request is not in the local cache (nothing was sent)."""


class FetchFailed(LitSearchError):
    """Nothing could be fetched: every provider asked failed (for `paper`, `network`)."""

    exit_code = ExitCode.ALL_FAILED
