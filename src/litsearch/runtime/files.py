"""Files replaced whole or not at all: every file a door writes (an export, a search record,
a network drawing, a deep-search session) goes through ``write_file_atomically``."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..core.files import check_replaceable, written_file


def write_file_atomically(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (or bytes) or leave it as it was: the text goes to a temporary
    file in the same folder, is flushed to disk, then renamed over the target. A failure
    (a full disk, a kill, an encoding error) never leaves a partial file. A symbolic link is
    kept and the file it leads to replaced (``written_file``); a device, FIFO or socket is
    never replaced. OSError names the file the user asked for."""
    shown, path = path, written_file(path)
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = None, None
    try:
        check_replaceable(path)
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
        raise OSError(exc.errno, exc.strerror, str(shown)) from None
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
