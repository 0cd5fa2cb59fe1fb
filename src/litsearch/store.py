"""One SQLite file for the response cache, the saved-paper library and the citation links
among saved papers.

Several lit-search processes may use the file at once (two terminals, or Claude Code
running searches side by side). The file is in WAL mode, so readers never wait for the
writer; every write is one short ``BEGIN IMMEDIATE`` transaction, which takes the write
lock before reading anything, so two writers queue (for up to ``BUSY_TIMEOUT_SECONDS``)
instead of failing half-way with "database is locked" or acting on data the other one is
about to change.

The file is never deleted or replaced: a damaged file, or one written by a newer
lit-search, is reported with a one-line ``StoreError`` and left exactly as it was.

Schema (version 1)::

    meta      (key TEXT PRIMARY KEY, value TEXT)               -- schema_version
    cache     (provider, key, status, headers JSON, content BLOB, url,
               stored_at, expires_at; PRIMARY KEY (provider, key))
    papers    (id INTEGER PRIMARY KEY AUTOINCREMENT, title, year, first_author, doi,
               record JSON, saved_at, updated_at)
    paper_ids (kind, value, paper_id; PRIMARY KEY (kind, value))  -- doi, pmid, arxiv_id,
               openalex_id, paper_id (S2) and title_year, each owned by one paper
    citations (citing, cited; PRIMARY KEY (citing, cited), citing <> cited)
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping
from urllib.parse import parse_qsl, unquote_plus, urlsplit, urlunsplit

from .http import FetchedResponse
from .identifiers import (
    arxiv_id_from_doi,
    is_arxiv_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmid,
)
from .text import fold_title

SCHEMA_VERSION = 1
DB_FILENAME = "lit-search.sqlite3"
APP_FOLDER = "lit-search"
BUSY_TIMEOUT_SECONDS = 15.0

# Parameters that say who is asking (and may carry a key), never what is asked. They are
# left out of cache keys, so a replay matches with or without a key, and out of stored URLs.
IDENTITY_PARAMS = frozenset({"api_key", "email", "mailto", "tool"})

DAY = 86_400
CACHE_TTL_SECONDS = {
    "semantic_scholar": DAY,
    "openalex": DAY,
    "pubmed": DAY,
    "arxiv": DAY,  # arXiv publishes new submissions once a day
    "crossref": 7 * DAY,  # DOI metadata and open-access locations change slowly
    "unpaywall": 7 * DAY,
    "web": DAY,
}
# Expired entries stay usable by --offline (allow_stale) for this long, then are pruned.
STALE_KEEP_SECONDS = 30 * DAY

# Identifier kinds, named like the result-dict keys, strongest first: when a new record
# matches several library papers, the first kind decides which one it updates.
ID_KINDS = ("doi", "pmid", "arxiv_id", "openalex_id", "paper_id")
TITLE_KIND = "title_year"  # fallback for records without any identifier

# Every spelling of an identifier name seen in result dicts and external_ids, folded
# (lower case, no underscores), mapped to its kind.
_ID_NAMES = {
    "doi": "doi", "pmid": "pmid", "pubmed": "pmid", "arxiv": "arxiv_id", "arxivid": "arxiv_id",
    "openalex": "openalex_id", "openalexid": "openalex_id", "s2": "paper_id", "paperid": "paper_id",
}
_S2_ID = re.compile(r"(?:https?://(?:www\.)?semanticscholar\.org/paper/(?:[^/]+/)?)?([0-9a-f]{40})/?", re.I)
_PMID_REF = re.compile(
    r"(?:pmid:?\s*|https?://(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov/pubmed)/)(\d{1,9})/?", re.I)
_OPENALEX_REF = re.compile(r"(?:https?://(?:api\.)?openalex\.org/(?:works/)?)?(W\d+)", re.I)
_LIBRARY_REF = re.compile(r"#(\d+)")

# SQLite primary result codes: CORRUPT and NOTADB mean "this file is not a sound
# database"; BUSY means another process kept the lock past the busy timeout.
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_SQLITE_BUSY = 5


class StoreError(Exception):
    """The database cannot be used; ``str(error)`` is one line for the user."""


@dataclass
class CachedResponse(FetchedResponse):
    """A stored response; usable wherever a ``FetchedResponse`` is."""

    stored_at: float
    expires_at: float
    stale: bool


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


# ---------------------------------------------------------------- location

def default_store_path(env: Mapping[str, str] = os.environ, platform: str | None = None) -> Path:
    """``LITSEARCH_CACHE_DIR/lit-search.sqlite3``, else the platform's user data folder."""
    return _data_folder(env, platform or sys.platform) / DB_FILENAME


def _data_folder(env: Mapping[str, str], platform: str) -> Path:
    override = env.get("LITSEARCH_CACHE_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform.startswith("win"):
        local = env.get("LOCALAPPDATA", "").strip()
        return (Path(local) if local else home / "AppData" / "Local") / APP_FOLDER
    if platform == "darwin":
        return home / "Library" / "Application Support" / APP_FOLDER
    xdg = env.get("XDG_DATA_HOME", "").strip()
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    return base / APP_FOLDER


# ---------------------------------------------------------------- cache keys

def cache_key(method: str, url: str, params: Any = None, body: Any = None) -> str:
    """sha256 over the method, the URL without its query, the sorted query parameters
    (from the URL and ``params``) and the body, all without ``IDENTITY_PARAMS``."""
    base, url_pairs = _split_url(url)
    pairs = sorted(url_pairs + _param_pairs(params))
    material = json.dumps([method.upper(), base, pairs, _canonical_body(body)],
                          ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def strip_identity_params(url: str) -> str:
    """The URL without ``api_key``/``email``/``mailto``/``tool``; the rest keeps its encoding."""
    parts = urlsplit(url)
    kept = [segment for segment in parts.query.split("&")
            if segment and not _is_identity(unquote_plus(segment.split("=", 1)[0]))]
    return urlunsplit(parts._replace(query="&".join(kept)))


def _is_identity(name: str) -> bool:
    return name.strip().lower() in IDENTITY_PARAMS


def _split_url(url: str) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(url.strip())
    base = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))
    return base, _without_identity(parse_qsl(parts.query, keep_blank_values=True))


def _param_pairs(params: Any) -> list[tuple[str, str]]:
    """Query parameters in any form httpx accepts: mapping (values may be lists), pairs or a string."""
    if params is None:
        return []
    if isinstance(params, (str, bytes)):
        text = params.decode("utf-8", "surrogateescape") if isinstance(params, bytes) else params
        return _without_identity(parse_qsl(text, keep_blank_values=True))
    items = params.items() if isinstance(params, Mapping) else params
    pairs = []
    for name, value in items:
        values = value if isinstance(value, (list, tuple)) else [value]
        pairs.extend((str(name), _param_text(v)) for v in values)
    return _without_identity(pairs)


def _param_text(value: Any) -> str:
    # The same spelling httpx sends, so a dict and its encoded string give one key.
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _without_identity(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, value) for name, value in pairs if not _is_identity(name)]


def _canonical_body(body: Any) -> Any:
    """A request body reduced to what identifies the request: a JSON object or form data
    becomes a dict without identity fields (so order and encoding do not matter); other
    text or bytes are taken as they are."""
    if body is None:
        return None
    if isinstance(body, Mapping):
        return {str(k): v for k, v in body.items() if not _is_identity(str(k))}
    if isinstance(body, (list, tuple)):
        return _form_dict(_param_pairs(body))
    text = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else str(body)
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return _canonical_body(parsed)
    try:
        return _form_dict(_without_identity(parse_qsl(text, keep_blank_values=True, strict_parsing=True)))
    except ValueError:
        return text


def _form_dict(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Form pairs as the dict httpx would have encoded them from (repeated names as lists)."""
    form: dict[str, Any] = {}
    for name, value in pairs:
        if name in form:
            form[name] = (form[name] if isinstance(form[name], list) else [form[name]]) + [value]
        else:
            form[name] = value
    return form


# ---------------------------------------------------------------- identifiers

def record_identities(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every (kind, normalized value) a result dict or an id dict carries, strongest first.

    Reads the top-level keys (``doi``, ``pmid``, ``arxiv_id``, ``openalex_id``,
    ``paper_id``) and ``external_ids`` in any spelling (``DOI``, ``PubMed``, ``ArXiv``,
    ``S2`` …). An arXiv DOI (10.48550/arXiv.*) counts as the arXiv id, not as a DOI,
    because the published version of the same paper has a different DOI.
    """
    found: set[tuple[str, str]] = set()
    sources = [record, record.get("external_ids") or {}]
    for source in sources:
        if not isinstance(source, Mapping):
            continue
        for name, raw in source.items():
            kind = _ID_NAMES.get(str(name).lower().replace("_", ""))
            if kind is None:
                continue
            for value in raw if isinstance(raw, (list, tuple, set)) else [raw]:
                identity = _normalize_identity(kind, value)
                if identity:
                    found.add(identity)
    return sorted(found, key=lambda item: (ID_KINDS.index(item[0]), item[1]))


def _normalize_identity(kind: str, value: Any) -> tuple[str, str] | None:
    if value in (None, ""):
        return None
    text = str(value).strip()
    if kind == "doi":
        doi = normalize_doi(text)
        if doi and is_arxiv_doi(doi):
            arxiv = arxiv_id_from_doi(doi)
            return ("arxiv_id", arxiv) if arxiv else None
        return ("doi", doi) if doi else None
    if kind == "pmid":
        pmid = normalize_pmid(text)
        return ("pmid", pmid) if pmid else None
    if kind == "arxiv_id":
        arxiv = normalize_arxiv_id(text)
        return ("arxiv_id", arxiv) if arxiv else None
    if kind == "openalex_id":
        work = normalize_openalex_id(text)
        return ("openalex_id", work) if work else None
    return ("paper_id", _normalize_s2(text)) if text else None


def _normalize_s2(text: str) -> str:
    match = _S2_ID.fullmatch(text)
    return match.group(1).lower() if match else text


def reference_identities(ref: str) -> list[tuple[str, str]]:
    """What a user-typed reference names: a DOI in any form, ``PMID:…`` or a PubMed URL,
    an OpenAlex W-id or URL, an arXiv id or URL, else a Semantic Scholar id."""
    text = ref.strip()
    if normalize_doi(text):
        identity = _normalize_identity("doi", text)  # an arXiv DOI names the arXiv id
        return [identity] if identity else []
    if match := _PMID_REF.fullmatch(text):
        return [("pmid", normalize_pmid(match.group(1)))]
    if match := _OPENALEX_REF.fullmatch(text):
        return [("openalex_id", match.group(1).upper())]
    if arxiv := normalize_arxiv_id(text):
        return [("arxiv_id", arxiv)]
    return [("paper_id", _normalize_s2(text))] if text else []


def title_key(record: Mapping[str, Any]) -> str | None:
    """``folded title|year``: matches records that carry no identifier at all."""
    folded = fold_title(record.get("title"))
    return f"{folded}|{record.get('year') or ''}" if folded else None


# ---------------------------------------------------------------- merging saved records

_LONGER_TEXT = ("abstract", "tldr")
_HIGHER_COUNT = ("citation_count", "influential_citation_count")


def merge_records(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The saved record updated with a new record of the same paper, keeping richer values:
    the longer abstract and author list, the higher citation counts, a publisher DOI over
    an arXiv DOI, every external id; otherwise the saved value unless it is empty."""
    merged = dict(old)
    for key, value in new.items():
        merged[key] = _richer(key, old.get(key), value)
    return merged


def _richer(key: str, old: Any, new: Any) -> Any:
    if _empty(new):
        return old
    if _empty(old):
        return new
    if key == "external_ids" and isinstance(old, Mapping) and isinstance(new, Mapping):
        return {**new, **old}
    if key == "doi":
        return new if is_arxiv_doi(str(old)) and not is_arxiv_doi(str(new)) else old
    if key in _HIGHER_COUNT:
        return max(old, new, key=lambda v: v if isinstance(v, (int, float)) else -1)
    if key in _LONGER_TEXT or key == "authors":
        return new if len(new) > len(old) else old
    return old


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


# ---------------------------------------------------------------- schema and migrations

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


# ---------------------------------------------------------------- errors

def _damaged(path: Path, reason: str) -> StoreError:
    return StoreError(f"the lit-search database at {path} is damaged ({reason}); "
                      "move it away to start fresh — it was not modified")


def _newer(path: Path, version: int) -> StoreError:
    return StoreError(f"the lit-search database at {path} was written by a newer lit-search "
                      f"(schema {version}); upgrade lit-search or point LITSEARCH_CACHE_DIR elsewhere")


def _translate(error: sqlite3.Error, path: Path) -> StoreError:
    """One line for the user from an sqlite3 error."""
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    primary = code & 0xFF if isinstance(code, int) else None
    message = " ".join(str(error).split()) or type(error).__name__
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or message in (
            "file is not a database", "database disk image is malformed"):
        return _damaged(path, message)
    if primary == _SQLITE_BUSY or message.startswith("database is locked"):
        return StoreError(f"the lit-search database at {path} is busy: another lit-search held it "
                          f"for more than {BUSY_TIMEOUT_SECONDS:g} s; try again")
    return StoreError(f"the lit-search database at {path} could not be used ({message})")


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
                raise _translate(error, self.path) from None
    return wrapper


# ---------------------------------------------------------------- the store

class Store:
    """The cache, the library and its citation links in one SQLite file.

    Open with ``Store.open(path, redact=settings.redact)`` and use as a context manager.
    """

    def __init__(self, db: sqlite3.Connection, path: Path, redact: Callable[[str], str] | None):
        self._db: sqlite3.Connection | None = db
        self.path = path
        self._redact = redact
        # One connection may be shared by threads (asyncio.to_thread); calls take turns.
        self._lock = threading.RLock()

    # ----- opening and closing

    @classmethod
    def open(cls, path: str | os.PathLike | None = None,
             redact: Callable[[str], str] | None = None) -> "Store":
        """Open (creating folder, file and schema as needed) and migrate an older schema."""
        path = Path(path) if path is not None else default_store_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the lit-search data folder {path.parent} "
                             f"({error.strerror or error})") from None
        try:
            db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                                 check_same_thread=False)
        except sqlite3.Error as error:
            raise _translate(error, path) from None
        try:
            _prepare(db, path)
        except sqlite3.Error as error:
            db.close()
            raise _translate(error, path) from None
        except BaseException:
            db.close()
            raise
        return cls(db, path, redact)

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

    # ----- response cache

    @_operation
    def cache_get(self, provider: str, key: str, now: float | None = None,
                  allow_stale: bool = False) -> CachedResponse | None:
        """The stored response, or None. Expired entries count only with ``allow_stale``."""
        now = time.time() if now is None else now
        row = self._db.execute(
            "SELECT status, headers, content, url, stored_at, expires_at FROM cache "
            "WHERE provider = ? AND key = ?", (provider, key)).fetchone()
        if row is None:
            return None
        status, headers, content, url, stored_at, expires_at = row
        stale = expires_at <= now
        if stale and not allow_stale:
            return None
        return CachedResponse(status=status, headers=json.loads(headers), content=bytes(content), url=url,
                              stored_at=stored_at, expires_at=expires_at, stale=stale)

    @_operation
    def cache_put(self, provider: str, key: str, response: FetchedResponse, ttl_seconds: float,
                  now: float | None = None) -> None:
        """Store a response for ``ttl_seconds``, secrets redacted, and prune long-expired entries."""
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, not {ttl_seconds!r}")
        now = time.time() if now is None else now
        headers = {str(name).lower(): self._scrub(str(value)) for name, value in response.headers.items()}
        url = self._scrub(strip_identity_params(response.url))
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO cache (provider, key, status, headers, content, url, stored_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (provider, key, int(response.status), json.dumps(headers), self._scrub_bytes(response.content),
                 url, now, now + ttl_seconds))
            # Opportunistic pruning: cheap through the expiry index, and it keeps the file
            # from growing for ever without a separate clean-up command.
            db.execute("DELETE FROM cache WHERE expires_at < ?", (now - STALE_KEEP_SECONDS,))

    @_operation
    def cache_delete(self, provider: str, keys: Iterable[str]) -> int:
        """Remove the given entries of one provider; returns how many were removed."""
        keys = list(keys)
        if not keys:
            return 0
        with self._write() as db:
            return sum(db.execute("DELETE FROM cache WHERE provider = ? AND key = ?", (provider, key)).rowcount
                       for key in keys)

    def cache_clear(self, provider: str | None = None) -> int:
        """Remove every cached response (of one provider); returns how many."""
        with self._write() as db:
            if provider is None:
                return db.execute("DELETE FROM cache").rowcount
            return db.execute("DELETE FROM cache WHERE provider = ?", (provider,)).rowcount

    def _scrub(self, text: str) -> str:
        return self._redact(text) if self._redact else text

    def _scrub_bytes(self, content: bytes) -> bytes:
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
        with self._write() as db:
            return [_save_one(db, dict(paper), now) for paper in papers]

    @_operation
    def list_papers(self) -> list[LibraryPaper]:
        rows = self._db.execute(
            "SELECT id, title, year, first_author, doi, saved_at, "
            "(SELECT count(*) FROM citations WHERE citing = papers.id), "
            "(SELECT count(*) FROM citations WHERE cited = papers.id) "
            "FROM papers ORDER BY id").fetchall()
        return [LibraryPaper(id=r[0], title=r[1], year=r[2], first_author=r[3], doi=r[4],
                             saved_at=_iso(r[5]), cites=r[6], cited_by=r[7]) for r in rows]

    @_operation
    def get_paper(self, ref: int | str) -> dict[str, Any] | None:
        """The saved record (plus ``library_id`` and ``saved_at``) by library id or any identifier."""
        with self._read() as db:
            paper_id = _resolve(db, ref)
            if paper_id is None:
                return None
            record, saved_at = db.execute("SELECT record, saved_at FROM papers WHERE id = ?",
                                          (paper_id,)).fetchone()
        return {**json.loads(record), "library_id": paper_id, "saved_at": _iso(saved_at)}

    @_operation
    def remove_paper(self, ref: int | str) -> bool:
        """Remove a paper, its identifiers and every citation link to or from it."""
        with self._write() as db:
            paper_id = _resolve(db, ref)
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
            return _match(db, record_identities(ids), title_key(ids) if "title" in ids else None)

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


# ---------------------------------------------------------------- opening, in steps

def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """Check the file before writing anything, then switch to WAL and bring the schema up to date."""
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    # Reading first means a damaged or newer file is reported untouched: even switching
    # the journal mode would rewrite its header.
    version = _read_version(db, path)
    if version is not None and version > SCHEMA_VERSION:
        raise _newer(path, version)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA foreign_keys = ON")
    # In WAL mode NORMAL cannot corrupt the file (a power cut may lose the last commits,
    # never damage it) and skips an fsync per commit, which keeps each write lock short:
    # with 8 processes writing, the slowest call fell from 630-740 ms to 110-380 ms here.
    db.execute("PRAGMA synchronous = NORMAL")
    if version != SCHEMA_VERSION:
        _migrate(db, path)


def _read_version(db: sqlite3.Connection, path: Path) -> int | None:
    """The schema version, or None for a new, empty file."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return None
    if "meta" not in tables:
        raise _damaged(path, "it holds tables but no lit-search schema version")
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or not str(row[0]).strip().isdigit():
        raise _damaged(path, "its schema version is missing or unreadable")
    return int(row[0])


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Run the steps from the file's version to ours in one write transaction, so a
    crash leaves the old version intact and two processes never migrate twice."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _read_version(db, path)  # again: another process may have migrated meanwhile
        if version is not None and version > SCHEMA_VERSION:
            raise _newer(path, version)
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


# ---------------------------------------------------------------- library, in steps

def _save_one(db: sqlite3.Connection, paper: dict[str, Any], now: float) -> int:
    identities = record_identities(paper)
    paper_id = _match(db, identities, title_key(paper))
    if paper_id is None:
        record = paper
        paper_id = db.execute(
            "INSERT INTO papers (title, year, first_author, doi, record, saved_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", (*_columns(record), _dump(record), now, now)).lastrowid
    else:
        (old,) = db.execute("SELECT record FROM papers WHERE id = ?", (paper_id,)).fetchone()
        record = merge_records(json.loads(old), paper)
        db.execute("UPDATE papers SET title = ?, year = ?, first_author = ?, doi = ?, record = ?, "
                   "updated_at = ? WHERE id = ?", (*_columns(record), _dump(record), now, paper_id))
    _claim(db, paper_id, record_identities(record), title_key(record))
    return paper_id


def _match(db: sqlite3.Connection, identities: list[tuple[str, str]], title: str | None) -> int | None:
    """The library paper these identities name, strongest kind first.

    As in search merging, two papers with different (non-arXiv) DOIs are never the same,
    whatever else they share. The title key is used only for records with no identifier.
    """
    dois = {value for kind, value in identities if kind == "doi"}
    lookups = identities or ([(TITLE_KIND, title)] if title else [])
    for kind, value in lookups:
        row = db.execute("SELECT paper_id FROM paper_ids WHERE kind = ? AND value = ?", (kind, value)).fetchone()
        if row is None:
            continue
        theirs = {v for (v,) in db.execute("SELECT value FROM paper_ids WHERE paper_id = ? AND kind = 'doi'",
                                           (row[0],))}
        if dois and theirs and not (dois & theirs):
            continue
        return row[0]
    return None


def _claim(db: sqlite3.Connection, paper_id: int, identities: list[tuple[str, str]], title: str | None) -> None:
    """Attach identifiers to a paper; one already owned by another paper stays with it."""
    rows = identities + ([(TITLE_KIND, title)] if title else [])
    db.executemany("INSERT OR IGNORE INTO paper_ids (kind, value, paper_id) VALUES (?, ?, ?)",
                   [(kind, value, paper_id) for kind, value in rows])


def _resolve(db: sqlite3.Connection, ref: int | str) -> int | None:
    """A library id from what a user typed: an int or ``#12`` is a library id; a bare
    number is a library id or a PMID (refused when it is both, for different papers)."""
    if isinstance(ref, bool):
        raise TypeError("a paper reference is a library id or an identifier, not a bool")
    if isinstance(ref, int):
        return ref if _exists(db, ref) else None
    text = str(ref).strip()
    if match := _LIBRARY_REF.fullmatch(text):
        return int(match.group(1)) if _exists(db, int(match.group(1))) else None
    if text.isdigit():
        return _resolve_number(db, text)
    return _match(db, reference_identities(text), None)


def _resolve_number(db: sqlite3.Connection, text: str) -> int | None:
    by_id = int(text) if _exists(db, int(text)) else None
    by_pmid = _match(db, [("pmid", normalize_pmid(text))], None)
    if by_id is not None and by_pmid is not None and by_id != by_pmid:
        raise StoreError(f"{text} is both library id {text} and the PMID of library paper {by_pmid}; "
                         f"write #{text} or PMID:{text}")
    return by_id if by_id is not None else by_pmid


def _exists(db: sqlite3.Connection, paper_id: int) -> bool:
    return db.execute("SELECT 1 FROM papers WHERE id = ?", (paper_id,)).fetchone() is not None


def _columns(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """The listing columns copied out of the record, so list_papers needs no JSON."""
    authors = record.get("authors") or []
    year = record.get("year")
    doi = record.get("doi")
    return (record.get("title"), year if isinstance(year, int) else None,
            str(authors[0]) if authors else None, normalize_doi(doi) or doi)


def _dump(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, default=str)


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
