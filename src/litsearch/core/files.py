"""Reading a file the user names: a regular file, read with a bound, never blocking.

Every command that reads a file goes through ``read_input``. It opens without following
the file into a wait (``O_NONBLOCK``: a FIFO with no writer does not block), checks that
what it opened is a regular file (not a directory, a FIFO, a socket or a device such as
``/dev/zero``), refuses one larger than the command's documented limit before reading, and
reads at most that limit even if the file grows meanwhile. Every problem is an InputError
(exit 2) naming the file in one line.

``written_file`` and ``check_replaceable`` say which file a write to a path replaces (through
its symbolic links) and refuse a device, FIFO or socket: the writer (runtime/files.py) and the
deep-search session (whose papers file lies beside the document the link leads to) use them.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from .errors import InputError

MB = 1_000_000
# Open to read without blocking: a FIFO with no writer must not hang the command.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_up_to(descriptor: int, count: int) -> bytes:
    """At most ``count`` bytes from ``descriptor``, in chunks (fewer where the file ends)."""
    chunks, size = [], 0
    while size < count:
        chunk = os.read(descriptor, min(1 << 22, count - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def file_head(path: str | os.PathLike, count: int) -> bytes | None:
    """The first ``count`` bytes of ``path`` when it is a regular file that can be read, else None."""
    try:
        descriptor = os.open(path, READ_FLAGS)
    except OSError:
        return None
    try:
        return read_up_to(descriptor, count) if stat.S_ISREG(os.fstat(descriptor).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(descriptor)


def read_input(path: str | os.PathLike, limit: int, what: str = "the file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, else InputError."""
    shown = _shown(path)
    try:
        descriptor = os.open(path, READ_FLAGS)
    except OSError as error:
        raise InputError(f"{shown}: {_open_problem(error)}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: {_kind(info.st_mode)}, not a regular file; {what} must be a file")
        if info.st_size > limit:
            raise InputError(f"{shown}: {info.st_size / MB:,.1f} MB; {what} may be at most {limit / MB:,.0f} MB")
        data = read_up_to(descriptor, limit + 1)
        if len(data) > limit:  # it grew while being read
            raise InputError(f"{shown}: more than {limit / MB:,.0f} MB; {what} may be at most "
                             f"{limit / MB:,.0f} MB")
        return data
    except OSError as error:
        raise InputError(f"{shown}: cannot read: {error.strerror or error}") from None
    finally:
        os.close(descriptor)


def read_json_input(path: str | os.PathLike, limit: int, what: str) -> Any:
    """The JSON document in a file the user names (read by ``read_input``), or InputError saying
    what the file is instead, the same words for every reader: empty, cut short (its JSON stops
    before the document ends: a copy or a save that was stopped), not UTF-8 text, not JSON, or
    nested too deeply. ``what``: what it should be ("a deep-search session")."""
    import json

    shown = _shown(path)
    data = read_input(path, limit, what)
    if not data.strip():
        raise InputError(f"{shown}: an empty file ({len(data):,} bytes{' of blanks' if data else ''}), not {what}")
    try:
        text = data.decode("utf-8-sig")  # a byte order mark (Windows editors write one) is no part of the JSON
    except UnicodeDecodeError:
        raise InputError(f"{shown}: not {what} (not UTF-8 text)") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(f"{shown}: not {what} (JSON nested too deeply)") from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            raise InputError(f"{shown}: {what}, cut short: its JSON stops after {len(data):,} bytes, before the "
                             f"document ends (a copy or a save that was stopped?)") from None
        message = error.msg.removesuffix(" at")  # "Invalid control character at": the place follows here
        raise InputError(f"{shown}: not {what} (not JSON: {message} at line {error.lineno:,} column "
                         f"{error.colno:,})") from None
    except ValueError:  # a number of thousands of digits: Python refuses to convert it (no field holds one)
        raise InputError(f"{shown}: not {what} (a number of thousands of digits, too long to read)") from None


def _open_problem(error: OSError) -> str:
    if error.errno == errno.ENOENT:
        return "no such file"
    if error.errno == errno.ELOOP:
        return "a loop of symbolic links, not a file"
    if error.errno == errno.EACCES:
        return "permission denied"
    if error.errno == errno.EISDIR:
        return "is a directory, not a file"
    return f"cannot open: {error.strerror or error}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is a special file"


def _shown(path: str | os.PathLike) -> str:
    """The path for a message: at most 200 characters, one line."""
    text = " ".join(str(Path(path)).split())
    return text if len(text) <= 200 else text[:100] + "…" + text[-99:]


def written_file(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or, when it is a symbolic link, the
    file its links lead to. Renaming a new file over a link would put a plain file where the link
    was and leave its target as it was: a session or library kept in a synced folder through a
    link would stop being updated there, without a word. So the link stays and its target is
    replaced (as editors do). The target need not exist yet."""
    path = Path(path)
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def check_replaceable(path: str | os.PathLike) -> None:
    """OSError unless ``path`` (through its links) is a regular file or nothing yet: a device, a
    FIFO or a socket is never replaced by a file (as root, renaming over /dev/null would replace
    the system's /dev/null)."""
    target = written_file(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file; lit-search replaces the files it writes whole", str(path))
