"""Which papers a Zotero library already holds: the same DOI, else the same PMID or arXiv id,
else the same title and year (when no DOIs contradict it).

The ids of a Zotero item are read wherever Zotero users and translators put them: the ``DOI``,
``PMID`` and ``PMCID`` fields, ``archiveID`` ("arXiv:…"), an arxiv.org URL, and "Key: value"
lines in ``extra`` ("DOI: …", "PMID: …", "arXiv: …"). Pure: item data in, matches out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..core.identifiers import identity, normalize_arxiv_id, normalize_doi, normalize_pmid
from ..core.records import Paper
from ..core.text import fold_title

_EXTRA_LINE = re.compile(r"^\s*(doi|pmid|pmcid|arxiv(?: id)?)\s*:\s*(\S+)\s*$", re.I | re.M)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+)", re.I)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|2[01]\d\d)(?!\d)")


@dataclass
class Existing:
    """One item already in the library: its key, version and collections (to add it to one);
    the index keeps this and the item's identities, never the whole item."""

    key: str
    version: int
    collections: list[str]


@dataclass
class LibraryIndex:
    """Items of a library by identity: ("doi", x), ("pmid", x), ("arxiv_id", x), ("title", "folded|year")."""

    by_identity: dict[tuple[str, str], Existing] = field(default_factory=dict)
    dois: dict[str, set[str]] = field(default_factory=dict)  # item key -> its DOIs (title matches check them)

    def add(self, data: Mapping[str, Any]) -> None:
        key = data.get("key")
        if not isinstance(key, str) or data.get("itemType") in ("attachment", "note", "annotation"):
            return
        version = data.get("version") if isinstance(data.get("version"), int) else 0
        collections = [c for c in data.get("collections") or [] if isinstance(c, str)]
        existing = Existing(key, version, collections)
        identities = item_identities(data)
        self.dois[key] = {value for kind, value in identities if kind == "doi"}
        for found in identities:
            self.by_identity.setdefault(found, existing)

    def add_paper(self, paper: Paper, key: str, collection: str | None) -> None:
        """A paper just created (so that a later duplicate in the same push is caught)."""
        self.add({"key": key, "version": 0, "collections": [collection] if collection else [], "title": paper.title,
                  "itemType": "journalArticle", "DOI": paper.doi or "", "PMID": paper.pmid or "",
                  "extra": f"arXiv: {paper.arxiv_id}" if paper.arxiv_id else "", "date": str(paper.year or "")})

    def match(self, paper: Paper) -> tuple[Existing, str] | None:
        """(the item, what matched: "DOI", "PMID", "arXiv id" or "title and year"), or None."""
        ids = paper_identities(paper)
        for kind, label in (("doi", "DOI"), ("pmid", "PMID"), ("arxiv_id", "arXiv id")):
            for found in (value for k, value in ids if k == kind):
                if (kind, found) in self.by_identity:
                    return self.by_identity[(kind, found)], label
        title = next((value for kind, value in ids if kind == "title"), None)
        if title and ("title", title) in self.by_identity:
            existing = self.by_identity[("title", title)]
            paper_dois = {value for kind, value in ids if kind == "doi"}
            if not (paper_dois and self.dois.get(existing.key) and not paper_dois & self.dois[existing.key]):
                return existing, "title and year"
        return None


def item_identities(data: Mapping[str, Any]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()

    def text(name: str) -> str:
        value = data.get(name)
        return value if isinstance(value, str) else ""

    candidates: list[tuple[str, str]] = [("doi", text("DOI")), ("pmid", text("PMID"))]
    for kind, value in _EXTRA_LINE.findall(text("extra")):
        kind = kind.lower().split()[0]
        candidates.append(({"arxiv": "arxiv_id"}.get(kind, kind), value))
    archive_id = text("archiveID")
    if archive_id.lower().startswith("arxiv:"):
        candidates.append(("arxiv_id", archive_id[6:]))
    if match := _ARXIV_URL.search(text("url")):
        candidates.append(("arxiv_id", match.group(1)))
    for kind, value in candidates:
        if kind == "pmcid" or not value:
            continue
        normalized = identity(kind, value)
        if normalized:
            found.add(normalized)
    title = fold_title(text("title"))
    year = _YEAR.search(text("date"))
    if title and year:
        found.add(("title", f"{title}|{year.group(1)}"))
    return found


def paper_identities(paper: Paper) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for kind, value in (("doi", normalize_doi(paper.doi)), ("pmid", normalize_pmid(paper.pmid)),
                        ("arxiv_id", normalize_arxiv_id(paper.arxiv_id))):
        normalized = identity(kind, value) if value else None
        if normalized:
            found.add(normalized)
    title = fold_title(paper.title)
    if title and paper.year:
        found.add(("title", f"{title}|{paper.year}"))
    return found
