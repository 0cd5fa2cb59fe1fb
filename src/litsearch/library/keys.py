"""How the library finds a paper: by any identifier it carries (strongest kind first), by
its title and year when it has none, or by what a user typed (``#12``, a DOI, a PMID …)."""

from __future__ import annotations

import re
import sqlite3
from typing import Any, Callable, Mapping

from ..core.errors import UnknownIdError, UsageError
from ..core.identifiers import normalize_pmid, normalize_s2_id, parse_paper_ref
from ..core.text import fold_title

TITLE_KIND = "title_year"  # fallback for records without any identifier
_LIBRARY_REF = re.compile(r"#(\d+)")


def title_key(record: Mapping[str, Any]) -> str | None:
    """``folded title|year``: matches records that carry no identifier at all."""
    folded = fold_title(record.get("title"))
    return f"{folded}|{record.get('year') or ''}" if folded else None


def reference_identities(ref: str) -> list[tuple[str, str]]:
    """What a user-typed reference names, as (kind, value): any id ``paper`` accepts, else
    the text taken as a Semantic Scholar id (opaque to everyone but S2)."""
    try:
        return [parse_paper_ref(ref).identity]
    except UnknownIdError:
        value = normalize_s2_id(ref)
        return [("paper_id", value)] if value else []


def match(db: sqlite3.Connection, identities: list[tuple[str, str]], title: str | None,
          accept: Callable[[int], bool] | None = None) -> int | None:
    """The library paper these identities name, strongest kind first.

    As in search merging, two papers with different (non-arXiv) DOIs are never the same,
    whatever else they share. A record with no identifier matches by folded title and
    year. ``accept`` (saving: is the paper found really the same work?) judges every paper
    found through an identifier; when it refuses them all, the title key is tried too, so
    a paper whose identifier belongs to another work (one DOI for a whole supplement) is
    found again by its title and year, and judged the same way.
    """
    dois = {value for kind, value in identities if kind == "doi"}
    by_title = [(TITLE_KIND, title)] if title and (accept is not None or not identities) else []
    lookups = identities + by_title
    for kind, value in lookups:
        row = db.execute("SELECT paper_id FROM paper_ids WHERE kind = ? AND value = ?", (kind, value)).fetchone()
        if row is None:
            continue
        theirs = {v for (v,) in db.execute("SELECT value FROM paper_ids WHERE paper_id = ? AND kind = 'doi'",
                                           (row[0],))}
        if dois and theirs and not (dois & theirs):
            continue
        if accept is not None and identities and not accept(row[0]):
            continue
        return row[0]
    return None


def claim(db: sqlite3.Connection, paper_id: int, identities: list[tuple[str, str]], title: str | None) -> None:
    """Attach identifiers to a paper; one already owned by another paper stays with it."""
    rows = identities + ([(TITLE_KIND, title)] if title else [])
    db.executemany("INSERT OR IGNORE INTO paper_ids (kind, value, paper_id) VALUES (?, ?, ?)",
                   [(kind, value, paper_id) for kind, value in rows])


def resolve(db: sqlite3.Connection, ref: int | str) -> int | None:
    """A library id from what a user typed: an int or ``#12`` is a library id; a bare
    number is a library id or a PMID (refused when it is both, for different papers)."""
    if isinstance(ref, bool):
        raise TypeError("a paper reference is a library id or an identifier, not a bool")
    if isinstance(ref, int):
        return ref if _exists(db, ref) else None
    text = str(ref).strip()
    if number := _LIBRARY_REF.fullmatch(text):
        return int(number.group(1)) if _exists(db, int(number.group(1))) else None
    if text.isdigit():
        return _resolve_number(db, text)
    return match(db, reference_identities(text), None)


def _resolve_number(db: sqlite3.Connection, text: str) -> int | None:
    by_id = int(text) if _exists(db, int(text)) else None
    by_pmid = match(db, [("pmid", normalize_pmid(text))], None)
    if by_id is not None and by_pmid is not None and by_id != by_pmid:
        raise UsageError(f"{text} is both library id {text} and the PMID of library paper {by_pmid}; "
                         f"write #{text} or PMID:{text}")
    return by_id if by_id is not None else by_pmid


def _exists(db: sqlite3.Connection, paper_id: int) -> bool:
    return db.execute("SELECT 1 FROM papers WHERE id = ?", (paper_id,)).fetchone() is not None


