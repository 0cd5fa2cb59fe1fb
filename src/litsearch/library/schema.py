"""The SQLite file's schema: its tables, the migrations between versions, and the checks
made before anything is written.

A damaged file, or one written by a newer lit-search, is reported with a one-line
``StoreError`` and left exactly as it was.

Schema (version 1)::

    meta      (key TEXT PRIMARY KEY, value TEXT)               -- schema_version
    cache     (provider, key, status, headers JSON, content BLOB, url,
               stored_at, expires_at; PRIMARY KEY (provider, key))
    papers    (id INTEGER PRIMARY KEY AUTOINCREMENT, title, year, first_author, doi,
               record JSON, saved_at, updated_at)  -- record: library/record.py's schema
    paper_ids (kind, value, paper_id; PRIMARY KEY (kind, value))  -- doi, pmid, arxiv_id,
               openalex_id, paper_id (S2) and title_year, each owned by one paper
    citations (citing, cited; PRIMARY KEY (citing, cited), citing <> cited)
"""

from __future__ import annotations

import errno
import functools
import os
import sqlite3
import stat
import time
from pathlib import Path
from typing import Callable

from ..core.errors import StoreError

SCHEMA_VERSION = 1
BUSY_TIMEOUT_SECONDS = 15.0

# SQLite primary result codes: CORRUPT and NOTADB mean "this file is not a sound
# database"; BUSY means another process kept the lock past the busy timeout.
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_SQLITE_BUSY = 5


# ---------------------------------------------------------------- tables and migrations

_SCHEMA_V1 = (
    """CREATE TABLE cache (
        provider   TEXT NOT NULL,
        key        TEXT NOT NULL,     -- cache_key(): a sha256, never a secret
        status     INTEGER NOT NULL,
        headers    TEXT NOT NULL,     -- JSON object, lower-case names
        content    BLOB NOT NULL,     -- the body, configured secrets redacted
        url        TEXT NOT NULL,     -- the final URL without identity parameters
        stored_at  REAL NOT NULL,     -- Unix seconds
        expires_at REAL NOT NULL,
        PRIMARY KEY (provider, key))""",
    "CREATE INDEX cache_by_expiry ON cache (expires_at)",
    # AUTOINCREMENT: a removed paper's id is never handed to another paper.
    """CREATE TABLE papers (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        title        TEXT,
        year         INTEGER,
        first_author TEXT,
        doi          TEXT,
        record       TEXT NOT NULL,   -- the merged result dict, JSON
        saved_at     REAL NOT NULL,
        updated_at   REAL NOT NULL)""",
    """CREATE TABLE paper_ids (
        kind     TEXT NOT NULL,
        value    TEXT NOT NULL,
        paper_id INTEGER NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
        PRIMARY KEY (kind, value))""",
    "CREATE INDEX paper_ids_by_paper ON paper_ids (paper_id)",
    """CREATE TABLE citations (
        citing INTEGER NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
        cited  INTEGER NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
        PRIMARY KEY (citing, cited),
        CHECK (citing <> cited)) WITHOUT ROWID""",
    "CREATE INDEX citations_by_cited ON citations (cited)",
)


def _create_version_1(db: sqlite3.Connection) -> None:
    for statement in _SCHEMA_V1:
        db.execute(statement)


# MIGRATIONS[n] turns a version-n database into version n+1, inside the caller's write
# transaction. Version 0 is a database holding only the meta table, so a new file is
# built by the same steps that upgrade an old one.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _create_version_1}


# ---------------------------------------------------------------- opening, in steps

def prepare(db: sqlite3.Connection, path: Path, clock: Callable[[], float] = time.monotonic,
            sleep: Callable[[float], None] = time.sleep) -> None:
    """Check the file before writing anything, then switch to WAL and bring the schema up to date.

    SQLite answers some lock conflicts while a file is being opened with SQLITE_BUSY at
    once, without waiting in its busy handler: switching a new file to WAL while another
    process opens it is one (seen with 8 processes starting together on a loaded
    machine). Every step here can be repeated, so a busy answer is retried until the
    same busy timeout has passed that SQLite would have waited.
    """
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    deadline = clock() + BUSY_TIMEOUT_SECONDS
    pause = 0.005
    while True:
        try:
            _prepare_once(db, path)
            return
        except sqlite3.Error as error:
            if not _is_busy(error) or clock() + pause > deadline:
                raise
        sleep(pause)
        pause = min(pause * 2, 0.1)


def prepare_read_only(db: sqlite3.Connection, path: Path) -> None:
    """For a connection without write access: the same checks as ``prepare``, nothing
    written; a file of an older schema cannot be read this way (StoreError)."""
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    version = _read_version(db, path)
    if version is None:
        raise StoreError(f"the lit-search database at {path} is empty; nothing saved yet")
    if version > SCHEMA_VERSION:
        raise newer(path, version)
    if version < SCHEMA_VERSION:
        raise StoreError(f"the lit-search database at {path} has an older schema ({version}); "
                         "run a command that writes (such as a search) once to upgrade it")
    verify_schema(db, path)
    db.execute("PRAGMA query_only = ON")


def _prepare_once(db: sqlite3.Connection, path: Path) -> None:
    # Reading first means a damaged or newer file is reported untouched: even switching
    # the journal mode would rewrite its header.
    version = _read_version(db, path)
    if version is not None and version > SCHEMA_VERSION:
        raise newer(path, version)
    if version == SCHEMA_VERSION:
        verify_schema(db, path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA foreign_keys = ON")
    # In WAL mode NORMAL cannot corrupt the file (a power cut may lose the last commits,
    # never damage it) and skips an fsync per commit, which keeps each write lock short:
    # with 8 processes writing, the slowest call fell from 630-740 ms to 110-380 ms here.
    db.execute("PRAGMA synchronous = NORMAL")
    if version != SCHEMA_VERSION:
        _migrate(db, path)


def check_integrity(db: sqlite3.Connection, path: Path) -> None:
    """StoreError (damaged, not modified) unless SQLite's quick check finds the file sound.

    Opening only reads the header and the schema; corruption in the middle of the file (a
    damaged page of papers) shows only here, so every store runs this before its first write.
    """
    rows = db.execute("PRAGMA quick_check(1)").fetchall()
    if rows != [("ok",)]:
        problem = " ".join(str(rows[0][0]).split())[:120] if rows else "no answer"
        raise damaged(path, f"integrity check: {problem}")


def _read_version(db: sqlite3.Connection, path: Path) -> int | None:
    """The schema version, or None for a new, empty file."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return None
    if "meta" not in tables:
        raise damaged(path, "it holds tables but no lit-search schema version")
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or not str(row[0]).strip().isdigit():
        raise damaged(path, "its schema version is missing or unreadable")
    return int(row[0])


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Run the steps from the file's version to ours in one write transaction, so a
    crash leaves the old version intact and two processes never migrate twice."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _read_version(db, path)  # again: another process may have migrated meanwhile
        if version is not None and version > SCHEMA_VERSION:
            raise newer(path, version)
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        version = version or 0
        while version < SCHEMA_VERSION:
            step = MIGRATIONS.get(version)
            if step is None:
                raise StoreError(f"the lit-search database at {path} has schema {version}, "
                                 "which this lit-search cannot upgrade")
            step(db)
            version += 1
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(version),))
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# ---------------------------------------------------------------- the schema as built

def _objects(db: sqlite3.Connection) -> dict[tuple[str, str], str]:
    """{(type, name): normalised SQL} of every table, index, trigger and view in the file."""
    rows = db.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex_%'")
    return {(kind, name): " ".join(str(sql or "").split()) for kind, name, sql in rows}


@functools.lru_cache(maxsize=1)
def expected_objects() -> dict[tuple[str, str], str]:
    """What lit-search's own steps build: a fresh file made in memory by the migrations."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        _migrate(db, Path(":memory:"))
        return _objects(db)
    finally:
        db.close()


def verify_schema(db: sqlite3.Connection, path: Path) -> None:
    """StoreError (nothing modified) when the file holds anything lit-search did not make: a
    trigger or view, another table or index, a table whose definition was changed. Another
    program's trigger would otherwise run inside every save (5 saved papers became 1)."""
    found, expected = _objects(db), expected_objects()
    for (kind, name), sql in sorted(found.items()):
        if (kind, name) not in expected:
            what = f"a {kind} {name[:60]!r} was added"
        elif sql != expected[(kind, name)]:
            what = f"the {kind} {name[:60]!r} was changed"
        else:
            continue
        raise StoreError(f"the lit-search database at {path} was altered by another program ({what}); "
                         "lit-search will not use it: move it away to start fresh — it was not modified")
    missing = sorted(name for kind, name in expected if (kind, name) not in found)
    if missing:
        raise damaged(path, f"the {missing[0]!r} part of the schema is missing")


# ---------------------------------------------------------------- errors

def _is_busy(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    return (isinstance(code, int) and code & 0xFF == _SQLITE_BUSY) or \
        " ".join(str(error).split()).startswith("database is locked")


# SQLite keeps these beside the database; each is opened as the file itself is.
COMPANIONS = ("-wal", "-shm", "-journal")
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def check_file_kind(path: Path) -> bool:
    """Whether the database file exists (False: it does not, nor anything else in its place);
    StoreError when something that is no regular file stands there or beside it (a folder, a
    named pipe, a device, a socket, a symbolic link loop), or its folder is no folder. Checked
    before SQLite opens anything: opening a named pipe waits for a writer for ever, a folder
    fails deep inside SQLite, a device reads without end."""
    exists = _check_one(path, path)
    for suffix in COMPANIONS:
        _check_one(Path(f"{path}{suffix}"), path)
    return exists


def _check_one(candidate: Path, database: Path) -> bool:
    try:
        found = os.stat(candidate)  # follows links: what SQLite would open
    except FileNotFoundError:
        return False  # nothing there (a link to nothing: SQLite creates its target, as for a new file)
    except OSError as error:
        if error.errno == errno.ENOTDIR:
            raise StoreError(f"the lit-search data folder {database.parent} is not a folder") from None
        what = "a symbolic link loop" if error.errno == errno.ELOOP else error.strerror or str(error)
        raise StoreError(f"the lit-search database at {candidate} cannot be used ({what})") from None
    if stat.S_ISREG(found.st_mode):
        return True
    kind = next((name for test, name in _KINDS if test(found.st_mode)), "no regular file")
    role = "the lit-search database at" if candidate == database else "SQLite's companion file"
    raise StoreError(f"{role} {candidate} is {kind}, not a file: move it away, or set LITSEARCH_CACHE_DIR to "
                     "another folder")


def damaged(path: Path, reason: str) -> StoreError:
    return StoreError(f"the lit-search database at {path} is damaged ({reason}); "
                      "move it away to start fresh — it was not modified")


def newer(path: Path, version: int) -> StoreError:
    return StoreError(f"the lit-search database at {path} was written by a newer lit-search "
                      f"(schema {version}); upgrade lit-search or point LITSEARCH_CACHE_DIR elsewhere")


def translate(error: sqlite3.Error, path: Path) -> StoreError:
    """One line for the user from an sqlite3 error."""
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    primary = code & 0xFF if isinstance(code, int) else None
    message = " ".join(str(error).split()) or type(error).__name__
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or message in (
            "file is not a database", "database disk image is malformed"):
        return damaged(path, message)
    if _is_busy(error):
        return StoreError(f"the lit-search database at {path} is busy: another lit-search held it "
                          f"for more than {BUSY_TIMEOUT_SECONDS:g} s; try again")
    return StoreError(f"the lit-search database at {path} could not be used ({message})")
