"""A bibliographic record as the readers see it: flat BibTeX-style fields, turned into a Paper."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.identifiers import normalize_arxiv_id, normalize_doi, normalize_pmid
from ..core.records import Paper
from .source import SourceRecord

PROVIDER = "import"

_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_AUTHOR_SEPARATOR = re.compile(r"\s+and\s+", re.I)
_SEMICOLON_SEPARATOR = re.compile(r"\s*;\s*")


@dataclass
class RawRecord:
    """One record as a flat BibTeX-style field mapping, before it becomes a Paper, and the
    record as its file wrote it (``source``: every field, for ``dedupe --merged``)."""

    fields: dict[str, str]
    authors: list[str] | None = None  # already split (RIS, BibTeX); None: split fields["author"]
    source: SourceRecord | None = None


# --------------------------------------------------------------------------- shared helpers


def split_bibtex_authors(value: str | None) -> list[str]:
    """``"Last, F. and Last2, G."`` -> ``["Last, F.", "Last2, G."]`` (BibTeX/CSV convention).

    An ``and`` inside braces belongs to a name (``{Barnes and Noble}``); a list without any
    ``and`` but with semicolons (``"Smith, J.; Jones, K."``) is split at the semicolons.
    """
    if not value or not value.strip():
        return []
    names = _split_outside_braces(value.strip(), _AUTHOR_SEPARATOR)
    if len(names) == 1 and ";" in value:
        names = _split_outside_braces(value.strip(), _SEMICOLON_SEPARATOR)
    cleaned = (_strip_outer_braces(name.strip().strip(";").strip()) for name in names)
    return [name for name in cleaned if name]


def _split_outside_braces(text: str, separator: re.Pattern) -> list[str]:
    if "{" not in text:
        return separator.split(text)
    parts, start = [], 0
    for match in separator.finditer(text):
        if _brace_depth(text, match.start()) == 0:
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return parts


def _brace_depth(text: str, end: int) -> int:
    return text.count("{", 0, end) - text.count("}", 0, end)


def _strip_outer_braces(name: str) -> str:
    """``{World Health Organization}`` -> ``World Health Organization`` (one enclosing pair only)."""
    if len(name) >= 2 and name[0] == "{" and name[-1] == "}" and all(
        _brace_depth(name, end) > 0 for end in range(1, len(name) - 1)
    ):
        return name[1:-1].strip()
    return name


def parse_year(value: str | None) -> int | None:
    """First plausible four-digit year in the field ("2019", "2019-05", "Epub 2019")."""
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def _clean(value: str | None) -> str | None:
    text = (value or "").strip()
    return text or None


def paper_from_fields(
    fields: Mapping[str, str | None], *, provider: str = PROVIDER, authors: Sequence[str] | None = None
) -> Paper:
    """One Paper from a flat mapping of BibTeX-style field names (missing fields allowed).

    `authors`, when given, replaces splitting ``fields["author"]`` (readers that get one name
    per line or split at brace level pass their list).
    """
    get = lambda name: _clean(fields.get(name))  # noqa: E731 - a short local accessor reads best here
    doi = normalize_doi(get("doi")) or normalize_doi(get("url"))  # a doi.org link is a DOI
    external_ids: dict[str, str] = {}
    record_id = get("ID")
    if record_id:
        external_ids["ID"] = record_id
    entry_type = get("ENTRYTYPE")
    return Paper(
        provider=provider,
        title=get("title") or "",
        authors=list(authors) if authors is not None else split_bibtex_authors(get("author")),
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
