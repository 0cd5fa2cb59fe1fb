"""What every lit-search command shares: the strict argument parser, the shared options,
one table from errors to exit codes, the progress printer and one output writer.

Every command's ``main(argv)`` runs its work through ``run_command``, so a usage problem,
a provider failure, a damaged database or a missing paper each end the same way in every
command: one line on stderr and the exit code of the error's kind (``core/errors.py``).
Everything a command prints or writes goes through ``Console`` (runtime/console.py) and
``write_output``, which remove any configured key first. What the MCP server and the Python
API need as well (the console, going online, atomic files, result formats) is in runtime/.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

from ..core.config import Settings
from ..core.errors import EXIT_CODES_HELP, ExitCode, InputError, LitSearchError, UsageError
from ..core.identifiers import ID_HELP
from ..core.sanitize import safe_text
from ..net.cache import CacheMode
from ..runtime.console import Console, message_line
from ..runtime.files import write_file_atomically
from ..runtime.results import TERMINAL_VIEW
from ..runtime.targets import check_file_target, output_format  # noqa: F401 (the commands import them from here)

__all__ = ["EXIT_CODES_HELP", "StrictParser", "add_cache_options", "add_quiet_option", "cache_mode", "fetch",
           "run_command", "view_format", "whole_number", "write_output"]

T = TypeVar("T")


class StrictParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors raise UsageError instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def new_parser(prog: str, description: str, epilog: str) -> StrictParser:
    return StrictParser(prog=prog, description=description, epilog=epilog,
                        formatter_class=argparse.RawDescriptionHelpFormatter)


# ---------------------------------------------------------------- shared options

def whole_number(text: str) -> int:
    """The type of every whole-number option: plain ASCII decimal without leading zeros
    (core/lists.py), so ``--batch ١٠``, ``--batch 010`` or ``--batch 1_0`` is one clear error
    rather than a number Python's ``int`` happened to read."""
    from ..core.lists import decimal

    try:
        return decimal(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    """--refresh / --no-cache / --offline, for every command that fetches."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--refresh", action="store_true", help="ignore cached answers (and store the new ones)")
    group.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    group.add_argument("--offline", action="store_true",
                       help="answer from the local cache only, even if expired; no network")


def cache_mode(args: argparse.Namespace) -> CacheMode:
    if args.offline:
        return "offline"
    return "refresh" if args.refresh else "off" if args.no_cache else "normal"


# The ids `paper`, `network` and `snowball` take, and where their lists come from.
PAPER_ID_EPILOG = f"""\
ids: {ID_HELP}.
sources: Semantic Scholar first for references (one page of 100) and citing papers (all it
  lists when they fit in one page of 1,000; else OpenAlex's 100 most cited are added, sorted by
  citations on its server); OpenAlex when Semantic Scholar fails, lacks the paper or lists
  none; PubMed for a paper with a PMID (retraction and notices). What the citing list covers is
  said under it. A provider that fails is reported in the notes; the command still prints what
  the others gave.
{EXIT_CODES_HELP}
  Here: 3 the paper could not be fetched (every provider failed), 5 no provider has it."""


def view_format(option: str | None, path: str | None = None, default: str = "markdown") -> str:
    """The format of a command whose default output is read by a person or a program:
    ``--format`` when given; else the terminal view when stdout is a terminal (and no -o),
    else ``default`` (Markdown: a pipe, a file, Claude Code's Bash tool get it unchanged).
    The terminal view is for reading: with -o it is a usage error."""
    if option == TERMINAL_VIEW and path:
        raise UsageError(f"--format {TERMINAL_VIEW} is the view for reading in a terminal; -o {path} writes a file: "
                         f"leave out --format (the extension decides) or use --format markdown")
    if option is None and path is None and sys.stdout.isatty():
        return TERMINAL_VIEW
    return option or default


# ---------------------------------------------------------------- going online, what a command prints

def fetch(settings: Settings, mode: CacheMode, console: Console, work: Callable[[Any, Any], Awaitable[T]],
          store_needed: bool = False) -> T:
    """Run ``work(http, store)`` online (runtime/online.py) to the end: one paced HTTP client behind
    the response cache in ``mode`` (--refresh/--no-cache/--offline), and the store when the
    command needs it."""
    from ..runtime.online import online
    from .interrupt import run_async

    return run_async(online(settings, work, mode=mode, console=console, store_needed=store_needed))


def write_output(text: str, settings: Settings | None, path: str | os.PathLike | None = None) -> None:
    """The command's product, keys removed (a server may echo one inside a title or
    abstract): to ``path`` atomically, or to stdout."""
    text = safe_text(text)  # every format: no terminal escapes, hidden or reordering characters
    if settings is not None:
        text = settings.redact(text)
    if path is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_file_atomically(Path(path), text)


def run_command(prog: str, work: Callable[[], int], help_of: str | None = None) -> int:
    """Run a command's work and turn every way it can end into an exit code and at most
    one message on stderr (never a traceback):

    UsageError (and UnknownIdError) -> 2 with a pointer to --help; InputError -> 2; any other
    LitSearchError -> its own code; an OSError while writing -> 2; Ctrl-C -> 130 (ExitCode.INTERRUPTED), SIGTERM -> 143; anything
    else is a bug -> 1, reported in one line. ``help_of``: the command whose --help a usage error
    points at, when not ``prog`` (a step of it: ``lit-search deep next``)."""
    try:
        return work()
    except SystemExit as exc:  # --help and --version print and exit 0
        _flush_help()
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else ExitCode.USAGE
    except InputError as exc:  # a file the command cannot read: --help would not help
        _error_line(f"{prog}: error: {exc}")
        return ExitCode.USAGE
    except UsageError as exc:
        _error_line(f"{prog}: error: {exc}", f"Try '{help_of or prog} --help'.")
        return ExitCode.USAGE
    except LitSearchError as exc:  # the message says what failed ("HTTP 503 …", "… is damaged …")
        _error_line(f"{prog}: {exc}")
        return exc.exit_code
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) and exc.filename is None:
            _drop_stdout()
        _error_line(f"{prog}: error: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}")
        return ExitCode.USAGE
    except KeyboardInterrupt as exc:
        from .interrupt import interrupted, was_terminated

        return interrupted(prog, getattr(exc, "hint", ""), was_terminated(exc))
    except Exception as exc:  # last line of defence: one line, never a traceback
        _error_line(f"{prog}: internal error: {type(exc).__name__}: {exc}")
        return ExitCode.INTERNAL


def _flush_help() -> None:
    """--help or --version into a reader that has gone (``lit-search --help | head -3``): the
    reader took what it wanted, so the command still ends 0 with nothing on stderr. argparse
    ignores a failed write, but the unwritten rest stays buffered; it is dropped here, whatever
    the timing, rather than at Python's exit ("Exception ignored … BrokenPipeError", exit 120).
    A command's product into a closed pipe is different: one line and exit 2 (below)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _drop_stdout()


def _drop_stdout() -> None:
    """The reader of stdout has gone (``| head``, a command that failed): what is still
    buffered can never be written, and Python's last flush at exit would print "Exception
    ignored … BrokenPipeError" and exit 120. Point stdout at the null device instead."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a file (replaced, closed): nothing will flush it
        pass


_error_line = message_line
