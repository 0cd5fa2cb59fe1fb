"""The normalized record every provider returns and every later step uses."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Paper:
    """One paper as one provider reported it, in a provider-neutral shape.

    Identifiers are normalized by the provider's parser: ``doi`` bare and
    lower-case, ``arxiv_id`` without version, ``openalex_id`` as ``W…``.
    ``rank`` is the 1-based position in the provider's answer and ``score`` the
    provider's own relevance score when it gives one (OpenAlex
    ``relevance_score``), else None.
    """

    provider: str
    title: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    publication_date: str | None = None
    journal: str | None = None
    doi: str | None = None
    pmid: str | None = None
    semantic_scholar_id: str | None = None  # Semantic Scholar's paperId (40-hex sha); "paper_id" in JSON
    arxiv_id: str | None = None
    openalex_id: str | None = None
    abstract: str | None = None
    tldr: str | None = None
    citation_count: int | None = None
    influential_citation_count: int | None = None
    oa_url: str | None = None
    publication_types: list[str] = field(default_factory=list)
    external_ids: dict[str, str] = field(default_factory=dict)
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    url: str | None = None
    rank: int | None = None
    score: float | None = None
    # Retractions and corrections (core/updates.py): True/False when the source could tell.
    retracted: bool | None = None
    updates: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The record with its JSON field names (``paper_id`` for Semantic Scholar's id)."""
        return {JSON_NAMES.get(name, name): value for name, value in asdict(self).items()}


# A field's name in JSON where it is not the attribute's: the search output, search records, the
# library's saved records and the Python API's dicts have always called Semantic Scholar's id
# "paper_id", and keep doing so.
JSON_NAMES = {"semantic_scholar_id": "paper_id"}
ATTRIBUTES = {name: attribute for attribute, name in JSON_NAMES.items()}


def field_value(paper: Paper, name: str) -> Any:
    """The field of ``paper`` that JSON calls ``name`` ("paper_id", "doi" …)."""
    return getattr(paper, ATTRIBUTES.get(name, name))


@dataclass(frozen=True)
class OpenCopy:
    """An open-access copy a source names for a paper (Semantic Scholar's openAccessPdf, one of
    OpenAlex's locations, Unpaywall's): its landing page and/or PDF, with what the source says
    of it. ``host``: "publisher" or "repository" when known."""

    landing_url: str | None
    pdf_url: str | None
    license: str | None = None
    version: str | None = None
    host: str | None = None


@dataclass(frozen=True)
class Marks:
    """What a listing says of one paper beyond its record (a deep search's verdict), for an export
    to carry the way its format keeps such things (biblio/writers.py, "Marks")."""

    keywords: tuple[str, ...] = ()  # tags: "lit-search verdict: relevant"
    columns: tuple[tuple[str, str], ...] = ()  # CSV (column, value): ("verdict", "relevant")
