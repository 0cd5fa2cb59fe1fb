"""One step at a time on a session: ``deep start`` and ``deep next`` hold the session's lock from
reading it to their last save.

Two steps at once on one session (two MCP calls in parallel, a second terminal) would each read
the same batch, and the later save would win: the other step's verdicts would be gone, and the
batch it printed would not be the session's, so the next verdicts, given by row, would land on
other papers. The second step is refused at once instead, in one line (exit 2), before it
changes anything.

The lock is ``flock`` on a hidden file beside the session's document (``.review.json.lock``),
removed when the step ends; a step killed meanwhile leaves it, and the next step takes it over
(the kernel releases the lock of a dead process). Where ``fcntl`` is missing (Windows), nothing
is held, as for the folder lock of deep/paper_store.py.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from ..core.errors import UsageError
from ..core.files import written_file

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(session_path: str | os.PathLike) -> Path:
    """The lock file of the session at ``session_path`` (beside the document a link leads to)."""
    document = written_file(session_path)
    return document.with_name(f".{document.name}.lock")


@contextlib.contextmanager
def held(session_path: str | os.PathLike) -> Iterator[None]:
    """The session's step lock, or UsageError when another step holds it."""
    from .session_file import check_suffix

    check_suffix(str(session_path))  # before a lock file is named beside it (".", "/" have no name)
    if fcntl is None:
        yield
        return
    path = lock_path(session_path)
    descriptor = _acquire(path, str(session_path))
    if descriptor is None:
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # while still held: a step that opened it meanwhile sees another file
        os.close(descriptor)


def _acquire(path: Path, shown: str) -> int | None:
    """A descriptor of ``path`` locked exclusively; it must still be the file at ``path`` (a step
    ending meanwhile removes its lock file: a lock on the removed file would hold nothing). None
    where no lock file can be made (a missing or read-only folder: the step then fails, or only
    reads, on its own)."""
    while True:
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise UsageError(f"{shown}: another step on this session is running (a start or a next step); "
                             f"wait for it to end, then run this again") from None
        except OSError:
            os.close(descriptor)
            return None  # a file system without locks: nothing can be held
        try:
            same = os.path.samestat(os.fstat(descriptor), os.stat(path))
        except OSError:
            same = False
        if same:
            return descriptor
        os.close(descriptor)
