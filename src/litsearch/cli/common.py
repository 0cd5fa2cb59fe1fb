"""What every lit-search command shares: the strict argument parser, the shared options,
one table from errors to exit codes, the progress printer and one output writer.

Every command's ``main(argv)`` runs its work through ``run_command``, so a usage problem,
a provider failure, a damaged database or a missing paper each end the same way in every
command: one line on stderr and the exit code of the error's kind (``core/errors.py``).
Everything a command prints or writes goes through ``Console`` and ``write_output``,
which remove any configured key first.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, Sequence, TypeVar

from ..core.config import Settings, redactor
from ..core.errors import (
    EXIT_CODES_HELP,
    ConfigError,
    ExitCode,
    InputError,
    LitSearchError,
    StoreError,
    UsageError,
)
from ..core.identifiers import ID_HELP
from ..core.sanitize import safe_text

__all__ = ["EXIT_CODES_HELP", "MAX_LIMIT", "TERMINAL_VIEW", "Console", "StrictParser", "add_cache_options",
           "add_quiet_option", "cache_mode", "check_limit", "fetch", "load_settings", "opened_cache", "run_command",
           "view_format", "write_file_atomically", "write_output"]

T = TypeVar("T")


class StrictParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors raise UsageError instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def new_parser(prog: str, description: str, epilog: str) -> StrictParser:
    return StrictParser(prog=prog, description=description, epilog=epilog,
                        formatter_class=argparse.RawDescriptionHelpFormatter)


# ---------------------------------------------------------------- shared options

def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    """--refresh / --no-cache / --offline, for every command that fetches."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--refresh", action="store_true", help="ignore cached answers (and store the new ones)")
    group.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    group.add_argument("--offline", action="store_true",
                       help="answer from the local cache only, even if expired; no network")


def cache_mode(args: argparse.Namespace) -> str:
    if args.offline:
        return "offline"
    return "refresh" if args.refresh else "off" if args.no_cache else "normal"


def load_settings() -> Settings:
    """Settings from the environment; a variable that cannot be used is a ConfigError (exit 2,
    one line naming it)."""
    try:
        return Settings.from_env()
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


MAX_LIMIT = 100  # rows a command shows at most (--limit)

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


def check_limit(limit: int, maximum: int = MAX_LIMIT, flag: str = "--limit") -> int:
    """``limit`` when it is 1..``maximum``, else a UsageError naming ``flag`` and the range."""
    if not 1 <= limit <= maximum:
        raise UsageError(f"{flag} must be between 1 and {maximum}, not {limit}")
    return limit


def check_file_target(path: str | None, flag: str, example: str) -> None:
    """A file the command will write (``-o``, ``--record``), checked before any work: a file
    name, in an existing, writable folder. Any problem is a UsageError naming ``flag``."""
    if path is None:
        return
    target = Path(path)
    if str(path).endswith(("/", os.sep)) or target.is_dir():
        raise UsageError(f"{flag} {path}: a folder, not a file; name the file, e.g. {target / example}")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{flag} {path}: the folder {folder} is not writable")


def output_format(path: str | None, option: str | None, allowed: Sequence[str], default: str) -> str:
    """The format to write, checked before any work: ``-o`` must name a file in an existing,
    writable folder, with an extension of one of the ``allowed`` formats that agrees with
    ``--format`` when both are given. Any problem is a UsageError naming the formats."""
    from ..biblio.formats import FORMAT_LABELS, extensions_for, format_from_path

    if path is None:
        return option or default
    check_file_target(path, "-o", example="refs.bib")
    named = format_from_path(str(path))
    if named is None or named not in allowed:
        raise UsageError(f"-o {path}: unknown extension; use {extensions_for(allowed)}")
    if option is not None and option != named:
        raise UsageError(f"-o {path} names {FORMAT_LABELS[named]} but --format asks for {FORMAT_LABELS[option]}; "
                         f"use one, or make them agree")
    return named


TERMINAL_VIEW = "table"  # --format table: the view for a person at a terminal (render/terminal*.py)


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


# ---------------------------------------------------------------- the response cache and its store

@contextmanager
def opened_cache(settings: Settings, mode: str, console: "Console", store_needed: bool = False
                 ) -> Iterator[tuple[Any, Any]]:
    """(ResponseCache for ``mode``, the Store or None when not opened).

    A store the command cannot do without (--offline, --save) must open, else StoreError;
    otherwise a damaged or too-new file only switches the cache off, with a warning, and
    is left exactly as it was."""
    from ..library.store import Store
    from ..net.cache import ResponseCache

    store = None
    needed = store_needed or mode == "offline"
    if needed or mode != "off":
        try:
            # --offline only reads: a read-only or full disk must not stop it.
            store = Store.open(redact=settings.redact, read_only=mode == "offline" and not store_needed)
        except StoreError as exc:
            if needed:
                raise
            console.warn(f"cache disabled: {exc}")
    try:
        yield ResponseCache(store, mode, warn=console.warn, max_bytes=settings.cache_max_bytes), store
    finally:
        if store is not None:
            store.close()


def fetch(settings: Settings, mode: str, console: "Console", work: Callable[[Any, Any], Awaitable[T]],
          store_needed: bool = False) -> T:
    """Run ``work(http, store)`` online: one paced HTTP client behind the response cache in
    ``mode`` (--refresh/--no-cache/--offline), and the store when the command needs it."""
    import asyncio

    from ..net.http import HttpClient

    async def go() -> T:
        async with HttpClient(settings, cache=cache) as http:
            return await work(http, store)

    with opened_cache(settings, mode, console, store_needed=store_needed) as (cache, store):
        return asyncio.run(go())


# ---------------------------------------------------------------- what a command prints

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


def write_file_atomically(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (or bytes) or leave it as it was: the text goes to a temporary
    file in the same folder, is flushed to disk, then renamed over the target. A failure
    (a full disk, a kill, an encoding error) never leaves a partial file. OSError names
    the file the user asked for."""
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = None, None
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        handle = (os.fdopen(descriptor, "wb") if isinstance(text, bytes)
                  else os.fdopen(descriptor, "w", encoding="utf-8", newline=""))
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        handle = None
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        else:
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
        temporary = None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        if handle is not None:
            with contextlib.suppress(OSError):  # closing flushes again; the first error is the one to report
                handle.close()
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------- one exit-code table

class _RedactingFilter(logging.Filter):
    def __init__(self, settings: Settings):
        super().__init__()
        self.settings = settings

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.settings.redact(record.getMessage())
        record.args = ()
        return True


def redact_logs(settings: Settings) -> None:
    """Keys never reach a log line, whatever a message or exception text contains."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(_RedactingFilter(settings))


def run_command(prog: str, work: Callable[[], int]) -> int:
    """Run a command's work and turn every way it can end into an exit code and at most
    one message on stderr (never a traceback):

    UsageError (and UnknownIdError) -> 2 with a pointer to --help; InputError -> 2; any other
    LitSearchError -> its own code; an OSError while writing -> 2; Ctrl-C -> 130 (ExitCode.INTERRUPTED); anything
    else is a bug -> 1, reported in one line."""
    try:
        return work()
    except SystemExit as exc:  # --help and --version print and exit 0
        _flush_help()
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else ExitCode.USAGE
    except InputError as exc:  # a file the command cannot read: --help would not help
        _error_line(f"{prog}: error: {exc}")
        return ExitCode.USAGE
    except UsageError as exc:
        _error_line(f"{prog}: error: {exc}\nTry '{prog} --help'.")
        return ExitCode.USAGE
    except LitSearchError as exc:  # the message says what failed ("HTTP 503 …", "… is damaged …")
        _error_line(f"{prog}: {exc}")
        return exc.exit_code
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) and exc.filename is None:
            _drop_stdout()
        _error_line(f"{prog}: error: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}")
        return ExitCode.USAGE
    except KeyboardInterrupt:
        from . import interrupted

        return interrupted(prog)
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


def _error_line(message: str) -> None:
    # The environment's secrets are removed even when the environment itself is the problem.
    print(bounded(redactor().redact(safe_text(message))), file=sys.stderr)


MAX_MESSAGE_LINE = 600  # characters: a message quotes an excerpt of a value, never all of it


def bounded(message: str) -> str:
    """Each line of a message cut to MAX_MESSAGE_LINE characters (a 100,000-character id or
    title in a value must not become a 100 KB error)."""
    return "\n".join(line if len(line) <= MAX_MESSAGE_LINE else line[: MAX_MESSAGE_LINE - 1] + "…"
                     for line in message.split("\n"))
