"""The saved-paper library and the citation links among saved papers, in lit-search's one
SQLite file (which also holds the response cache's table: net/response_store.py, given this
store as its database).

Several lit-search processes may use the file at once (two terminals, or Claude Code
running searches side by side). The file is in WAL mode, so readers never wait for the
writer; every write is one short ``BEGIN IMMEDIATE`` transaction, which takes the write
lock before reading anything, so two writers queue (for up to ``BUSY_TIMEOUT_SECONDS``)
instead of failing half-way with "database is locked" or acting on data the other one is
about to change. The file is never deleted or replaced (schema and checks: schema.py).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..core.config import default_store_path
from ..core.errors import StoreError
from ..core.identifiers import normalize_doi, record_identities
from ..core.sanitize import json_text
from .keys import TITLE_KIND, claim, match, resolve, title_key
from .record import merge_records, paper_from_record, same_work
from .schema import BUSY_TIMEOUT_SECONDS, check_file_kind, check_integrity, prepare, prepare_read_only, translate

@dataclass(frozen=True)
class LibraryPaper:
    """One line of the library listing. ``cites``: library papers this one cites;
    ``cited_by``: library papers citing it. ``saved_at`` is ISO 8601 UTC."""

    id: int
    title: str | None
    year: int | None
    first_author: str | None
    doi: str | None
    saved_at: str
    cites: int
    cited_by: int
    # What the saved record says about retractions and notices (core/updates.py), as of its saving.
    retracted: bool | None = None
    updates: list[dict[str, Any]] = field(default_factory=list)


def _notices(record_text: str) -> dict[str, Any]:
    """A saved record's retraction flag and notices, read as the record reader reads them (a
    record of another shape costs only its notices, never the listing)."""
    try:
        record = json.loads(record_text)
    except (TypeError, ValueError):
        return {}
    paper = paper_from_record(record) if isinstance(record, dict) else None
    return {"retracted": paper.retracted, "updates": paper.updates} if paper else {}


def _operation(method: Callable) -> Callable:
    """One public Store call: one thread at a time, sqlite3 errors as StoreError."""
    @functools.wraps(method)
    def wrapper(self: "Store", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            if self._db is None:
                raise StoreError(f"the lit-search database at {self.path} is closed")
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as error:
                raise translate(error, self.path) from None
    return wrapper


# ---------------------------------------------------------------- the store

class Store:
    """The library and its citation links in one SQLite file (the file the response cache
    shares: ``guarded``, ``writing`` and ``scrub`` are what it uses).

    Open with ``Store.open(path, redact=settings.redact)`` and use as a context manager.
    """

    def __init__(self, db: sqlite3.Connection, path: Path, redact: Callable[[str], str] | None,
                 read_only: bool = False):
        self._db: sqlite3.Connection | None = db
        self.path = path
        self._redact = redact
        self.read_only = read_only
        # One connection may be shared by threads (asyncio.to_thread); calls take turns.
        self._lock = threading.RLock()
        self._checked = False  # the file's integrity, checked once before the first write

    # ----- opening and closing

    @classmethod
    def open(cls, path: str | os.PathLike | None = None, redact: Callable[[str], str] | None = None, *,
             read_only: bool = False) -> "Store":
        """Open (creating folder, file and schema as needed) and migrate an older schema.

        ``read_only``: for commands that only read (library list/show/export, --offline): the
        file is opened without write access and nothing is created, so a read-only or full
        disk does not stop them; a missing file reads as an empty library. Either way the
        schema is verified first (schema.verify_schema): a file another program altered is
        refused, untouched."""
        path = Path(path) if path is not None else default_store_path()
        exists = check_file_kind(path)  # a folder, a named pipe or a device there: one line, nothing opened
        if read_only:
            return cls(_open_read_only(path, exists), path, redact, read_only=True)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the lit-search data folder {path.parent} "
                             f"({error.strerror or error})") from None
        try:
            db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                                 check_same_thread=False)
        except sqlite3.Error as error:
            raise translate(error, path) from None
        try:
            prepare(db, path)
        except sqlite3.Error as error:
            db.close()
            raise translate(error, path) from None
        except BaseException:
            db.close()
            raise
        return cls(db, path, redact)

    @_operation
    def verify(self) -> None:
        """The file's integrity checked now (once), rather than before the first write: a
        process that keeps the store (the MCP server) opens it in a worker thread and checks it
        there, so no call waits on the check later."""
        if not self.read_only and not self._checked:
            check_integrity(self._db, self.path)
            self._checked = True

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A short write transaction: the write lock is taken first, so reads inside it
        see what no other process can change before the commit."""
        db = self._db
        if self.read_only:
            raise StoreError(f"the lit-search database at {self.path} was opened read-only")
        if not self._checked:
            check_integrity(db, self.path)  # never write into a damaged file
            self._checked = True
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:  # SQLite may already have rolled back (disk full, I/O error)
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """Several reads from one snapshot."""
        db = self._db
        db.execute("BEGIN")
        try:
            yield db
        finally:
            if db.in_transaction:
                db.execute("COMMIT")

    # ----- for the response cache's table (net/response_store.py)

    @contextlib.contextmanager
    def guarded(self) -> Iterator[sqlite3.Connection]:
        """The connection for one read: one thread at a time, sqlite3 errors as StoreError."""
        with self._lock:
            if self._db is None:
                raise StoreError(f"the lit-search database at {self.path} is closed")
            try:
                yield self._db
            except sqlite3.Error as error:
                raise translate(error, self.path) from None

    @contextlib.contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction, guarded as ``guarded`` is."""
        with self.guarded(), self._write() as db:
            yield db

    def scrub(self, text: str) -> str:
        """``text`` without any configured secret (a server may echo a key back)."""
        return self._redact(text) if self._redact else text

    def scrub_bytes(self, content: bytes) -> bytes:
        """Redact secrets echoed in a body. surrogateescape keeps bytes that are not UTF-8
        exactly as they were, so binary and mis-encoded bodies survive unchanged."""
        if not self._redact:
            return bytes(content)
        text = bytes(content).decode("utf-8", "surrogateescape")
        return self._redact(text).encode("utf-8", "surrogateescape")

    # ----- library

    @_operation
    def save_papers(self, papers: list[Mapping[str, Any]]) -> list[int]:
        """Insert or update each paper (matched by identifier); returns their library ids."""
        now = time.time()
        # A key a server echoed into a title or abstract is removed before anything is stored.
        records = [json.loads(self.scrub(_dump(paper))) for paper in papers]
        with self._write() as db:
            return [_save_one(db, record, now) for record in records]

    @_operation
    def list_papers(self) -> list[LibraryPaper]:
        rows = self._db.execute(
            "SELECT id, title, year, first_author, doi, saved_at, "
            "(SELECT count(*) FROM citations WHERE citing = papers.id), "
            "(SELECT count(*) FROM citations WHERE cited = papers.id), record "
            "FROM papers ORDER BY id").fetchall()
        return [LibraryPaper(id=r[0], title=r[1], year=r[2], first_author=r[3], doi=r[4],
                             saved_at=_iso(r[5]), cites=r[6], cited_by=r[7], **_notices(r[8])) for r in rows]

    @_operation
    def get_paper(self, ref: int | str) -> dict[str, Any] | None:
        """The saved record (plus ``library_id`` and ``saved_at``) by library id or any identifier."""
        with self._read() as db:
            paper_id = resolve(db, ref)
            if paper_id is None:
                return None
            record, saved_at = db.execute("SELECT record, saved_at FROM papers WHERE id = ?",
                                          (paper_id,)).fetchone()
        return {**json.loads(record), "library_id": paper_id, "saved_at": _iso(saved_at)}

    @_operation
    def remove_paper(self, ref: int | str) -> bool:
        """Remove a paper, its identifiers and every citation link to or from it."""
        with self._write() as db:
            paper_id = resolve(db, ref)
            if paper_id is None:
                return False
            db.execute("DELETE FROM citations WHERE citing = ? OR cited = ?", (paper_id, paper_id))
            db.execute("DELETE FROM paper_ids WHERE paper_id = ?", (paper_id,))
            db.execute("DELETE FROM papers WHERE id = ?", (paper_id,))
            return True

    @_operation
    def find_by_identifiers(self, ids: Mapping[str, Any]) -> int | None:
        """The library id of the paper these identifiers name (result-dict or external_ids keys)."""
        with self._read() as db:
            return match(db, record_identities(ids), title_key(ids) if "title" in ids else None)

    @_operation
    def add_citations(self, edges: Iterable[tuple[int, int]]) -> int:
        """Record that library paper ``citing`` cites ``cited``. Duplicates, self-citations and
        ids no longer in the library (removed meanwhile) are skipped; returns how many were new."""
        added = 0
        with self._write() as db:
            for citing, cited in edges:
                if int(citing) == int(cited):
                    continue
                added += db.execute(
                    "INSERT OR IGNORE INTO citations (citing, cited) SELECT ?1, ?2 "
                    "WHERE EXISTS (SELECT 1 FROM papers WHERE id = ?1) "
                    "AND EXISTS (SELECT 1 FROM papers WHERE id = ?2)", (int(citing), int(cited))).rowcount
        return added

    @_operation
    def citations_among(self, ids: Iterable[int] | None = None) -> list[tuple[int, int]]:
        """Citation links whose both ends are in ``ids`` (all links when None), sorted."""
        edges = [(a, b) for a, b in self._db.execute("SELECT citing, cited FROM citations ORDER BY citing, cited")]
        if ids is None:
            return edges
        wanted = {int(i) for i in ids}
        return [(a, b) for a, b in edges if a in wanted and b in wanted]

    @_operation
    def library_identifiers(self) -> dict[int, dict[str, list[str]]]:
        """Every identifier of every saved paper: ``{id: {"doi": [...], "pmid": [...], ...}}``."""
        result: dict[int, dict[str, list[str]]] = {}
        for (paper_id,) in self._db.execute("SELECT id FROM papers ORDER BY id"):
            result[paper_id] = {}
        rows = self._db.execute("SELECT paper_id, kind, value FROM paper_ids WHERE kind != ? "
                                "ORDER BY paper_id, kind, value", (TITLE_KIND,))
        for paper_id, kind, value in rows:
            result.setdefault(paper_id, {}).setdefault(kind, []).append(value)
        return result


# ---------------------------------------------------------------- saving, in steps

def _save_one(db: sqlite3.Connection, paper: dict[str, Any], now: float) -> int:
    """Update the library paper this record names, or add it. A paper found by a shared
    identifier is updated only when it is the same work (see same_work); otherwise the
    record becomes a paper of its own, and the identifier stays with the paper saved first."""
    def saved(paper_id: int) -> dict[str, Any]:
        (text,) = db.execute("SELECT record FROM papers WHERE id = ?", (paper_id,)).fetchone()
        return json.loads(text)

    paper_id = match(db, record_identities(paper), title_key(paper),
                     accept=lambda candidate: same_work(saved(candidate), paper))
    if paper_id is None:
        record = paper
        paper_id = db.execute(
            "INSERT INTO papers (title, year, first_author, doi, record, saved_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", (*_columns(record), _dump(record), now, now)).lastrowid
    else:
        record = merge_records(saved(paper_id), paper)
        db.execute("UPDATE papers SET title = ?, year = ?, first_author = ?, doi = ?, record = ?, "
                   "updated_at = ? WHERE id = ?", (*_columns(record), _dump(record), now, paper_id))
    claim(db, paper_id, record_identities(record), title_key(record))
    return paper_id


def _open_read_only(path: Path, exists: bool) -> sqlite3.Connection:
    """The file without write access (``mode=ro``), or, where SQLite cannot open a WAL file
    that way (a read-only disk without its -shm file), as immutable: nothing can write there
    meanwhile. A missing file is an empty library held in memory."""
    import urllib.parse

    if not exists:
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        prepare(db, path)
        return db
    location = urllib.parse.quote(os.path.realpath(path))
    last: sqlite3.Error | None = None
    for options in ("mode=ro", "mode=ro&immutable=1"):
        db = sqlite3.connect(f"file:{location}?{options}", uri=True, timeout=BUSY_TIMEOUT_SECONDS,
                             isolation_level=None, check_same_thread=False)
        try:
            prepare_read_only(db, path)
            return db
        except StoreError:
            db.close()
            raise
        except sqlite3.Error as error:
            db.close()
            last = error
    raise translate(last, path)


def _columns(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """The listing columns copied out of the record, so list_papers needs no JSON."""
    paper = paper_from_record(record)  # each field as its type, or none
    return (paper.title or None, paper.year, paper.authors[0] if paper.authors else None,
            normalize_doi(paper.doi) or paper.doi)


def _dump(record: Mapping[str, Any]) -> str:
    return json_text(record, indent=None).rstrip("\n")


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
