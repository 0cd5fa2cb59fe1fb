"""Read bibliographic exports into Paper records (the input of `lit-search dedupe`).

Only the benchmark CSV layout is read for now (one row per record; the columns
bib-dedupe and ASySD use). RIS and BibTeX readers belong here too and will
share `split_bibtex_authors` and `paper_from_fields`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from .identifiers import normalize_arxiv_id, normalize_doi, normalize_pmid
from .records import Paper

PROVIDER = "import"

_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_AUTHOR_SEPARATOR = re.compile(r"\s+and\s+", re.I)


def split_bibtex_authors(value: str | None) -> list[str]:
    """``"Last, F. and Last2, G."`` -> ``["Last, F.", "Last2, G."]`` (BibTeX/CSV convention)."""
    if not value or not value.strip():
        return []
    parts = _AUTHOR_SEPARATOR.split(value.strip())
    return [part.strip().strip(";").strip() for part in parts if part.strip().strip(";").strip()]


def parse_year(value: str | None) -> int | None:
    """First plausible four-digit year in the field ("2019", "2019-05", "Epub 2019")."""
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def _clean(value: str | None) -> str | None:
    text = (value or "").strip()
    return text or None


def paper_from_fields(fields: Mapping[str, str | None], *, provider: str = PROVIDER) -> Paper:
    """One Paper from a flat mapping of BibTeX-style field names (missing fields allowed)."""
    get = lambda name: _clean(fields.get(name))  # noqa: E731 - a short local accessor reads best here
    doi = normalize_doi(get("doi"))
    external_ids: dict[str, str] = {}
    record_id = get("ID")
    if record_id:
        external_ids["ID"] = record_id
    entry_type = get("ENTRYTYPE")
    return Paper(
        provider=provider,
        title=get("title") or "",
        authors=split_bibtex_authors(get("author")),
        year=parse_year(get("year")),
        journal=get("journal") or get("booktitle") or get("container_title"),
        doi=doi,
        pmid=normalize_pmid(get("pmid")) if get("pmid") else None,
        arxiv_id=normalize_arxiv_id(get("eprint")) if get("eprint") else None,
        abstract=get("abstract"),
        publication_types=[entry_type.lower()] if entry_type else [],
        external_ids=external_ids,
        volume=get("volume"),
        issue=get("number") or get("issue"),
        pages=get("pages"),
        url=get("url"),
    )


def read_benchmark_csv(path: str | Path) -> list[Paper]:
    """Records of a benchmark ``records_pre_merged.csv`` (ID,title,author,year,journal,...)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return papers_from_rows(csv.DictReader(handle))


def papers_from_rows(rows: Iterable[Mapping[str, str | None]]) -> list[Paper]:
    return [paper_from_fields(row) for row in rows]
