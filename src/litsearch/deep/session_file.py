"""A deep-search session on disk: two files, ``review.json`` and ``review.papers.jsonl`` beside it.

The document (version 2) holds what changes from step to step: what was asked, the rounds,
the batch, and per candidate its verdict, score, evidence and ``why``, with the byte offset of
its record in the papers file (deep/paper_store.py), which holds what a record says (the paper
with its abstract, its terms) and is appended to, not rewritten. A save appends the new and
changed records, flushed to disk, then replaces the document atomically: a step killed at any
moment leaves the last complete step. When the papers file must be written whole (the first
save, a session of version 1, a file replaced by someone else, or one mostly of unused lines),
the whole session is first written as one document of version 1, which needs no papers file,
so that no moment leaves a document pointing into a papers file it does not match.

A session of version 1 (every record in the document: lit-search 0.4.10 and earlier) is read as it
is and written as version 2 at its next save.
"""

from __future__ import annotations

import contextlib
import gc
import glob
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from ..core.errors import InputError, UsageError
from ..core.files import file_head, read_json_input, written_file
from ..search.record_shape import Fields, ListOf, shape_problem, unwritable_text
from . import paper_store
from .paper_store import HEADER_SHAPE, papers_path
from .session import (CANDIDATE_SHAPE, KIND, MAX_CANDIDATES, MAX_FILE_BYTES, SESSION_SHAPE, VERSION, WHOLE_VERSION,
                      Session, as_text, candidate_state, check_kind, document_fields, from_document, session_of)

SUFFIX = ".json"  # a session file's name ends so (its papers file beside it: paper_store.py)


def check_suffix(path: str) -> None:
    """UsageError unless ``path`` names a session file: not empty, ending in SUFFIX. Every step
    checks the name before anything is made beside it (its lock file: deep/step_lock.py)."""
    if not str(path).strip():
        raise UsageError(f"the session file's name is empty: name its {SUFFIX} file")
    if not str(path).lower().endswith(SUFFIX):
        raise UsageError(f"{path}: a session file's name ends in {SUFFIX}")


STATE_SHAPE = Fields({**{name: spec for name, spec in CANDIDATE_SHAPE.fields.items() if name not in ("paper", "terms")},
                      "record_at": int}, required=("key", "record_at"))
DOCUMENT_SHAPE = Fields({**SESSION_SHAPE.fields, "candidates": ListOf(STATE_SHAPE, MAX_CANDIDATES),
                         "papers": HEADER_SHAPE}, required=(*SESSION_SHAPE.required, "papers"))


def load(path: str | os.PathLike) -> Session:
    """The session at ``path`` (either version), or InputError naming what is wrong (one line)."""
    shown = str(path)
    path = written_file(path)  # through a link: its papers file lies beside the document itself
    with paper_store.locked(path.parent, exclusive=False), _collector_paused():
        document = read_json_input(shown, MAX_FILE_BYTES, f"a {KIND}")  # says what the file is when it is none
        return session_from(document, path)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a session is decoded and built: its millions of
    objects hold no cycles, and the collections their allocation set off walked them all again
    and again (a fifth of the reading time at 5,000 candidates)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def session_from(document: Any, path: str | os.PathLike) -> Session:
    """The session a parsed session document holds, reading its papers file when it has one."""
    shown = str(path)
    check_kind(document, shown, (WHOLE_VERSION, VERSION))
    if document["version"] == WHOLE_VERSION:
        return from_document(document, shown)
    problem = shape_problem(document, DOCUMENT_SHAPE) or unwritable_text(document)
    if problem:
        raise InputError(f"{shown}: damaged session: {problem}")
    states = document["candidates"]
    store, records = paper_store.read_records(papers_path(path), document["papers"],
                                              [(state["key"], state["record_at"]) for state in states], shown)
    entries = [{**state, "paper": record["paper"], "terms": record["terms"]} for state, record in zip(states, records)]
    session = session_of(document, entries, shown)
    paper_store.remember_read(store, list(session.candidates.values()))
    session.store = store
    return session


Write = Callable[[Path, "str | bytes"], None]  # the doors' atomic writer (runtime/files.py)


def save(path: str | os.PathLike, session: Session, write_file_atomically: Write) -> None:
    """Write ``session`` to ``path`` and its papers file: the new and changed records appended,
    then the document replaced; or, when the papers file must be written whole, the whole
    session as one document first, then the papers file, then the document. Every whole file
    is written by ``write_file_atomically`` (a temporary file, flushed, renamed)."""
    path = written_file(path)  # a link stays; the document it leads to, and the papers beside it, change
    side = papers_path(path)
    candidates = list(session.candidates.values())
    with paper_store.locked(path.parent, exclusive=True):
        _remove_temporaries(path, side)
        store = session.store if session.store is not None and session.store.path == side else None
        if store is None or not paper_store.append(store, candidates):
            if os.path.lexists(path):
                write_file_atomically(path, as_text(session))  # needs no papers file while that one is replaced
            store = paper_store.rewrite(side, candidates, write_file_atomically)
        write_file_atomically(path, document_text(session, store))
    session.store = store


def _remove_temporaries(*paths: Path) -> None:
    """The temporary files a save killed before its rename left (runtime/files.py names them
    ``.NAME.*.tmp``): under the lock no other save of this session is writing one."""
    for path in paths:
        for left in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
            with contextlib.suppress(OSError):
                left.unlink()


def document_text(session: Session, store: paper_store.PaperStore) -> str:
    """The document of version 2: everything but the records, which ``store`` holds."""
    document = {
        **document_fields(session, VERSION),
        "papers": store.header(),
        "candidates": [{"key": c.key, "record_at": store.offset(c.key), **candidate_state(c)}
                       for c in session.candidates.values()],
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


SNIFFED_BYTES = 64
SESSION, PAPERS_FILE = "a deep-search session", "a deep-search session's papers file"  # session_file_kind's answers


def session_file_kind(path: str | os.PathLike) -> str | None:
    """"a deep-search session" or "a deep-search session's papers file" when ``path`` (through its
    links) is one, by its first bytes; else None. An output must never be written over one: an
    export named like its session (``deep results review.json -o review.json``) replaced every
    verdict with the list of papers."""
    target = written_file(path)
    head = file_head(target, SNIFFED_BYTES)
    if head is None:
        return None
    if re.match(rb'(?:\xef\xbb\xbf)?\s*\{\s*"kind"\s*:\s*"deep-search session"', head):  # BOM: as read_json_input
        return SESSION
    if re.match(rb'\s*\{\s*"key"\s*:\s*"c\d', head) and str(target).endswith(paper_store.SUFFIX):
        return PAPERS_FILE
    return None


def read_report_input(path: str):
    """(session, None) or (None, record): what ``report`` reads (the command, and the MCP tool
    search_report). A deep-search session (told by its first bytes, or by its kind once read) is
    read by the reader every deep command uses, so a damaged or cut-short session is named as
    ``deep results`` names it; anything else is read as a search record, and a file that is
    neither (empty, cut short, not JSON) is named for what it is by the same JSON reader
    (core/files.py read_json_input)."""
    from ..core.files import read_json_input
    from ..search.record import MAX_RECORD_BYTES, checked_record
    from .session import KIND

    if session_file_kind(path) == SESSION:
        return load(path), None
    document = read_json_input(path, MAX_RECORD_BYTES, f"a lit-search search record or {KIND}")
    if isinstance(document, dict) and document.get("kind") == KIND:
        return load(path), None  # read again with its papers file, as every door reads a session
    return None, checked_record(document, path)
