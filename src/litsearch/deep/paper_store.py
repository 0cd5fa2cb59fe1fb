"""The papers file beside a deep-search session: what a candidate's record says (its paper with
the abstract, its kept terms) written once, as one JSON line, and found again by the byte offset
the session document names for it.

A session of thousands of candidates is mostly their records (3 KB each, 70 % of the bytes), and
most records do not change from one step to the next; the document keeps what does (verdicts,
scores, evidence, rounds). So a step appends only the records that are new or changed, and
replaces the small document. The document names how much of this file is committed (its length
and the SHA-256 of those bytes): the lines are appended and flushed to disk before the document is
replaced, so a step killed at any moment leaves the document naming a prefix that is whole, and
bytes past it (an append that was cut short) are never read; the next save keeps the whole lines
past it (another process's, at worst unused) and cuts a partial one. A record the document does
not point at (an older version, a candidate set aside) is never decoded, let alone trusted; once
such lines outweigh the live ones, the file is written again whole (deep/session_file.py).

Read back, the file is checked as any input is: a regular file, the committed prefix present and
unchanged (its hash), every record the document points at a whole line of at most
``MAX_RECORD_BYTES``, of the candidate that points at it, with every field's type and cap.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..core.errors import InputError
from ..core.files import MB, READ_FLAGS, read_up_to
from ..core.text import plural
from ..search.record_shape import Fields, MapOf, fits, shape_problem, unwritable_text
from .session import MAX_FILE_BYTES, PAPER_SHAPE, Candidate, paper_as_dict

try:
    import fcntl
except ImportError:  # Windows: saves are not serialised between processes
    fcntl = None  # type: ignore[assignment]

SUFFIX = ".papers.jsonl"  # review.json -> review.papers.jsonl
MAX_RECORD_BYTES = 16 * MB  # one line; a provider's answer is at most 10 MB (core/config.py max_response_bytes)
RECORD_SHAPE = Fields({"key": str, "paper": PAPER_SHAPE, "terms": MapOf(int)}, required=("key", "paper", "terms"))
HEADER_SHAPE = Fields({"bytes": int, "sha256": str}, required=("bytes", "sha256"))
REWRITE_OVER = 1 * MB  # unused lines tolerated before they may cost a rewrite


def papers_path(session_path: str | os.PathLike) -> Path:
    """The papers file of the session at ``session_path``: its name with ``.papers.jsonl`` for ``.json``."""
    text = str(session_path)
    return Path((text[:-5] if text.lower().endswith(".json") else text) + SUFFIX)


@dataclass
class PaperStore:
    """What this process knows of a papers file: its committed length and hash, which file it is
    (device, inode), and where each candidate's record is, with the objects it was read into or
    written from (a candidate still holding those same objects needs no new line)."""

    path: Path
    committed: int
    digest: Any  # hashlib's SHA-256 of the committed bytes, carried on as lines are appended
    identity: tuple[int, int]
    at: dict[str, tuple[int, int, Any, Any]] = field(default_factory=dict)  # key -> (offset, length, paper, terms)

    def header(self) -> dict[str, Any]:
        return {"bytes": self.committed, "sha256": self.digest.hexdigest()}

    def offset(self, key: str) -> int:
        return self.at[key][0]

    def unchanged(self, candidate: Candidate) -> bool:
        known = self.at.get(candidate.key)
        return known is not None and known[2] is candidate.paper and known[3] is candidate.terms


# ---------------------------------------------------------------- reading


def read_records(side: Path, header: dict[str, Any], wanted: list[tuple[str, Any]],
                 shown: str) -> tuple[PaperStore, list[dict]]:
    """The records at the offsets of ``wanted`` ((key, offset) pairs, the document's order),
    each checked, and the store that knows them; InputError (one line) for anything wrong.
    ``header`` is the document's ``papers`` (checked with it: HEADER_SHAPE)."""
    name = side.name
    committed, expected = header["bytes"], header["sha256"]
    if not 0 <= committed <= MAX_FILE_BYTES:
        raise InputError(f"{shown}: damaged session: it names {plural(committed, 'byte')} of {name}; at most "
                         f"{MAX_FILE_BYTES / MB:,.0f} MB are read")
    data, identity = _committed_bytes(side, committed, shown)
    digest = hashlib.sha256(data)
    if digest.hexdigest() != expected:
        raise InputError(f"{shown}: damaged session: {name} does not match the session (its first "
                         f"{plural(committed, 'byte')} changed, or it is another session's papers file)")
    store = PaperStore(side, committed, digest, identity)
    lines = []
    for key, at in wanted:
        if type(at) is not int or not 0 <= at < committed or (at and data[at - 1] != 0x0A):
            raise InputError(f"{shown}: damaged session: candidate {key!r} points at byte {at!r}, which starts "
                             f"no record of {name} ({plural(committed, 'byte')})")
        end = data.find(b"\n", at, at + MAX_RECORD_BYTES + 1)
        if end < 0:
            cut = committed - at <= MAX_RECORD_BYTES
            raise InputError(f"{shown}: damaged session: {name} line {_line(data, at)}: "
                             + ("the record is cut short" if cut else
                                f"longer than {MAX_RECORD_BYTES / MB:,.0f} MB, the most a record may be"))
        lines.append(data[at:end])
        store.at[key] = (at, end + 1 - at, None, None)
    if data and data[-1] != 0x0A:  # a line no candidate points at: every save commits whole lines, the next appends
        raise InputError(f"{shown}: damaged session: {name} line {_line(data, committed)}: cut short where the "
                         f"session's {plural(committed, 'byte')} end (a save would append to it)")
    records = _decoded(lines, data, [at for _, at in wanted], name, shown)
    for (key, at), record in zip(wanted, records):
        if not fits(record, RECORD_SHAPE):
            raise InputError(f"{shown}: damaged session: {name} line {_line(data, at)}: "
                             f"{shape_problem(record, RECORD_SHAPE, 'record') or 'not a record'}")
        if record["key"] != key:
            raise InputError(f"{shown}: damaged session: {name} line {_line(data, at)} is the record of "
                             f"{record['key'][:40]!r}, not of candidate {key!r}")
    return store, records


def _decoded(lines: list[bytes], data: bytes, starts: list[int], name: str, shown: str) -> list[Any]:
    """Every line's JSON value. Decoded as one array: the decoder then makes each name (every
    term) once, and the records share it, which is also what makes scoring's look-ups quick.
    When that fails, line by line, to name the line that is not JSON; a line holding more than
    one value is caught by the count. The bytes are strict UTF-8 (``json.loads`` of bytes lets
    a lone surrogate's bytes through), and a lone surrogate's escape is refused too: a record
    holding one could never be written again."""
    try:
        text = (b"[" + b",".join(lines) + b"]").decode("utf-8")
        records = json.loads(text)
    except (ValueError, RecursionError):
        records = None
    if records is not None and len(records) == len(lines):
        if "\\ud" in text or "\\uD" in text:  # no other way to half a character in strict UTF-8
            for record, at in zip(records, starts):
                problem = unwritable_text(record, "record")
                if problem:
                    raise InputError(f"{shown}: damaged session: {name} line {_line(data, at)}: {problem}")
        return records
    for line, at in zip(lines, starts):
        try:
            json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError) as error:
            raise InputError(f"{shown}: damaged session: {name} line {_line(data, at)}: not a JSON record "
                             f"({str(error)[:100]})") from None
    raise InputError(f"{shown}: damaged session: {name}: a line holds more than one JSON value")


def _committed_bytes(side: Path, committed: int, shown: str) -> tuple[bytes, tuple[int, int]]:
    try:
        descriptor = os.open(side, READ_FLAGS)
    except FileNotFoundError:
        raise InputError(f"{shown}: its papers file {side.name} is missing (a session is two files, the .json "
                         f"and its {SUFFIX} beside it: move or copy them together)") from None
    except OSError as error:
        raise InputError(f"{shown}: cannot open its papers file {side.name}: {error.strerror or error}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: its papers file {side.name} is not a regular file")
        data = read_up_to(descriptor, committed)
        if len(data) < committed:
            raise InputError(f"{shown}: damaged session: {side.name} holds {plural(len(data), 'byte')}; the session names "
                             f"{committed:,} (was it cut short, or replaced?)")
        return data, (info.st_dev, info.st_ino)
    except OSError as error:
        raise InputError(f"{shown}: cannot read its papers file {side.name}: {error.strerror or error}") from None
    finally:
        os.close(descriptor)


def _line(data: bytes, at: int) -> int:
    return data.count(b"\n", 0, at) + 1


# ---------------------------------------------------------------- writing


def record_line(candidate: Candidate) -> bytes:
    line = json.dumps({"key": candidate.key, "paper": paper_as_dict(candidate.paper), "terms": candidate.terms},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    if len(line) - 1 > MAX_RECORD_BYTES:  # never write what would not be read back
        raise ValueError(f"the record of {candidate.key} is {len(line) / MB:,.1f} MB; at most "
                         f"{MAX_RECORD_BYTES / MB:,.0f} MB")
    return line


def append(store: PaperStore, candidates: list[Candidate]) -> bool:
    """Append the records of ``candidates`` that are new or changed, flushed to disk, and commit
    them in ``store``. False (nothing written) when the file is no longer the one ``store``
    knows (replaced, cut below its committed length) or would be mostly unused lines: the
    caller then writes it whole. The caller holds the folder's lock (``locked``)."""
    changed = [c for c in candidates if not store.unchanged(c)]
    lines = [record_line(c) for c in changed]
    live = sum(store.at[c.key][1] for c in candidates if store.unchanged(c)) + sum(map(len, lines))
    flags = os.O_RDWR | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(store.path, flags)
    except FileNotFoundError:
        return False
    try:
        info = os.fstat(descriptor)
        if (not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != store.identity
                or info.st_size < store.committed):
            return False
        kept = _whole_lines_past(descriptor, store.committed, info.st_size)
        total = store.committed + len(kept) + sum(map(len, lines))
        if total - live > max(live, REWRITE_OVER):
            return False
        if info.st_size > store.committed + len(kept):
            os.ftruncate(descriptor, store.committed + len(kept))  # an append cut short by a kill
        at = store.committed + len(kept)
        blob = b"".join(lines)
        if blob:
            _write_all(descriptor, at, blob)
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
    store.digest.update(kept)
    store.digest.update(blob)
    for candidate, line in zip(changed, lines):
        store.at[candidate.key] = (at, len(line), None, None)
        at += len(line)
    store.committed = at
    _remember(store, candidates)
    return True


def _whole_lines_past(descriptor: int, committed: int, size: int) -> bytes:
    """The whole lines past the committed length (another process's append, committed by a
    document this process did not read); a partial last line is left out. A tail too large to
    be anyone's append is left out whole."""
    if size <= committed or size - committed > MAX_FILE_BYTES:
        return b""
    tail = os.pread(descriptor, size - committed, committed)
    return tail[: tail.rfind(b"\n") + 1]


def _write_all(descriptor: int, at: int, blob: bytes) -> None:
    view = memoryview(blob)
    while view:
        written = os.pwrite(descriptor, view, at)
        view, at = view[written:], at + written


def rewrite(side: Path, candidates: list[Candidate], write_file_atomically: Any) -> PaperStore:
    """The papers file written whole (every candidate's record, in order) and committed: a new
    file renamed over the old one (the doors' writer, runtime/files.py), so a reader sees one or
    the other."""
    lines = [record_line(c) for c in candidates]
    blob = b"".join(lines)
    write_file_atomically(side, blob)
    info = os.stat(side)
    store = PaperStore(side, len(blob), hashlib.sha256(blob), (info.st_dev, info.st_ino))
    at = 0
    for candidate, line in zip(candidates, lines):
        store.at[candidate.key] = (at, len(line), None, None)
        at += len(line)
    _remember(store, candidates)
    return store


def _remember(store: PaperStore, candidates: list[Candidate]) -> None:
    """Tie each record to the objects it holds now; forget candidates no longer in the session."""
    store.at = {c.key: (*store.at[c.key][:2], c.paper, c.terms) for c in candidates}


def remember_read(store: PaperStore, candidates: list[Candidate]) -> None:
    _remember(store, candidates)


@contextlib.contextmanager
def locked(folder: Path, exclusive: bool) -> Iterator[None]:
    """The folder's lock while a session's two files are read (shared) or written (exclusive):
    two steps on one session at once (two MCP calls) then never interleave their writes, nor
    read a document with the other's papers file. Without ``fcntl``, or where the folder cannot
    be locked, nothing is held."""
    descriptor = None
    if fcntl is not None:
        try:
            descriptor = os.open(folder, os.O_RDONLY)
            fcntl.flock(descriptor, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        except OSError:
            if descriptor is not None:
                os.close(descriptor)
            descriptor = None
    try:
        yield
    finally:
        if descriptor is not None:
            os.close(descriptor)
