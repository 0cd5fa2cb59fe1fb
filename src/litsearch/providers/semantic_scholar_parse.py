"""Semantic Scholar's answers, parsed (pure functions, fed real recorded bodies in tests):
search and bulk pages, one paper, its references and citing papers."""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import ProviderError
from ..core.identifiers import arxiv_id_from_doi, normalize_arxiv_id, normalize_doi, normalize_pmid
from ..core.records import Paper
from ..core.text import plain_text
from ..core.urls import http_url
from ._common import (
    api_error,
    as_count,
    as_date,
    as_dict,
    as_list,
    as_year,
    clean,
    distinct_authors,
    json_object,
    parse_each,
)

NAME = "semantic_scholar"


# ---------------------------------------------------------------- parsing (pure)

def parse_search(body: bytes | str) -> list[Paper]:
    """Records of a /paper/search page, ranked by their position in ``data``.

    An empty result comes back without ``data`` (``{"total": 0, "offset": 0}``).
    """
    return _parse_data_list(load_json_object(body))


def parse_bulk(body: bytes | str) -> list[Paper]:
    """Records of a /paper/search/bulk page (``{"total", "token", "data"}``)."""
    return _parse_data_list(load_json_object(body))


def parse_paper(obj: Any, rank: int | None = None) -> Paper | None:
    """One S2 paper object as a ``Paper``; None for a null entry or a paper without a title."""
    if not isinstance(obj, dict):
        return None
    title = plain_text(obj.get("title"))
    if not title:
        return None
    raw_ids = as_dict(obj.get("externalIds"))
    doi = normalize_doi(clean(raw_ids.get("DOI")))
    journal = as_dict(obj.get("journal"))
    return Paper(
        provider=NAME,
        title=title,
        authors=_author_names(obj.get("authors")),
        year=as_year(obj.get("year")),
        publication_date=as_date(obj.get("publicationDate")),
        journal=clean(obj.get("venue")) or clean(journal.get("name")),
        doi=doi,
        pmid=normalize_pmid(clean(raw_ids.get("PubMed"))),
        semantic_scholar_id=clean(obj.get("paperId")),
        arxiv_id=normalize_arxiv_id(clean(raw_ids.get("ArXiv"))) or arxiv_id_from_doi(doi),
        abstract=plain_text(obj.get("abstract")),
        tldr=plain_text(as_dict(obj.get("tldr")).get("text")),
        citation_count=as_count(obj.get("citationCount")),
        influential_citation_count=as_count(obj.get("influentialCitationCount")),
        oa_url=http_url(as_dict(obj.get("openAccessPdf")).get("url")),  # S2 sends "" for "none"
        publication_types=[text for kind in as_list(obj.get("publicationTypes")) if (text := clean(kind))],
        external_ids={str(key): text for key, value in raw_ids.items() if (text := clean(value))},
        volume=_journal_volume(journal.get("volume")),
        pages=_pages(journal.get("pages")),
        url=http_url(obj.get("url")),
        rank=rank,
    )


def _parse_data_list(payload: dict[str, Any]) -> list[Paper]:
    entries = payload.get("data") or []
    if not isinstance(entries, list):
        raise ProviderError("unexpected response ('data' is not a list)")
    # rank is the position in the answer, so a skipped null entry leaves a gap.
    return parse_each(entries, lambda entry, position: parse_paper(entry, rank=position))


def load_json_object(body: bytes | str) -> dict[str, Any]:
    """The decoded JSON object, or ProviderError for non-JSON and error payloads
    (the API's own text on one line, e.g. "Too Many Requests. …")."""
    payload = json_object(body)
    if "data" not in payload and "title" not in payload and ("error" in payload or "message" in payload):
        raise api_error(str(payload.get("error") or payload.get("message") or ""))
    return payload


def _author_names(authors: Any) -> list[str]:
    return distinct_authors((as_dict(author).get("authorId"), clean(as_dict(author).get("name")))
                            for author in as_list(authors))


def _journal_volume(value: Any) -> str | None:
    volume = clean(value)
    # arXiv papers carry the pseudo-volume "abs/2503.23674", which is no volume at all.
    if volume and volume.lower().startswith("abs/"):
        return None
    return volume


def _pages(value: Any) -> str | None:
    pages = clean(value)
    return re.sub(r"\s*-\s*", "-", pages) if pages else None  # "117 - 97" -> "117-97"


def parse_references(body: bytes | str) -> list[Paper]:
    """The papers of a /paper/{id}/references page (``data[].citedPaper``), ranked by position."""
    return _parse_links(body, "citedPaper")


def parse_citations(body: bytes | str) -> list[Paper]:
    """The papers of a /paper/{id}/citations page (``data[].citingPaper``), ranked by position."""
    return _parse_links(body, "citingPaper")


def _parse_links(body: bytes | str, side: str) -> list[Paper]:
    payload = load_json_object(body)
    entries = payload.get("data")
    if entries is None:  # a paper with nothing listed may come back without "data"
        return []
    if not isinstance(entries, list):
        raise ProviderError("unexpected response ('data' is not a list)")
    return parse_each(entries, lambda entry, position: parse_paper(as_dict(entry).get(side), rank=position))


def parse_record(body: bytes | str) -> tuple[Paper, int | None]:
    """One /paper/{id} answer: the record and its ``referenceCount`` (None when absent)."""
    payload = load_json_object(body)
    paper = parse_paper(payload)
    if paper is None:
        raise ProviderError("unexpected response (a paper without a title)")
    return paper, as_count(payload.get("referenceCount"))


def parse_recommendations(body: bytes | str) -> list[Paper]:
    """The papers of a POST /recommendations/v1/papers answer (``recommendedPapers``), ranked by position."""
    payload = load_json_object(body)
    entries = payload.get("recommendedPapers")
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise ProviderError("unexpected response ('recommendedPapers' is not a list)")
    return parse_each(entries, lambda entry, position: parse_paper(entry, rank=position))
