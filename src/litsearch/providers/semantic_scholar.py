"""Semantic Scholar Academic Graph API: relevance search, bulk boolean search, one paper."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from ..filters import Filters
from ._common import any_of, json_object, clean, as_int
from ..http import ProviderError, ProviderSession
from ..identifiers import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
)
from ..records import Paper
from ..text import plain_text

NAME = "semantic_scholar"

SEARCH_PATH = "/graph/v1/paper/search"
BULK_PATH = "/graph/v1/paper/search/bulk"
PAPER_PATH = "/graph/v1/paper/"

_FIELDS = (
    "title", "authors", "year", "venue", "journal", "externalIds", "abstract", "tldr",
    "citationCount", "influentialCitationCount", "openAccessPdf", "publicationDate",
    "publicationTypes", "url",
)
SEARCH_FIELDS = ",".join(_FIELDS)
# The bulk endpoint does not serve tldr; asking for it is an error there.
BULK_FIELDS = ",".join(field for field in _FIELDS if field != "tldr")

SEARCH_MAX_LIMIT = 100  # /paper/search page size cap
BULK_MAX_RESULTS = 1000  # one /paper/search/bulk call returns at most this many

# Characters the bulk endpoint reads as operators: + | - " * ( ) ~
_BULK_OPERATORS = re.compile(r'[+|\-"*()~]')
# A hyphen inside a word ("COVID-19", "long-term"): /paper/search finds nothing for these.
_INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
_SHA = re.compile(r"^[0-9a-f]{40}$", re.I)
# The id prefixes /paper/{id} understands, keyed by lower case, valued in the API's spelling.
_ID_PREFIXES = {
    "doi": "DOI", "arxiv": "ARXIV", "pmid": "PMID", "pmcid": "PMCID", "corpusid": "CorpusId",
    "mag": "MAG", "acl": "ACL", "url": "URL",
}
_MESSAGE_LIMIT = 160


# ---------------------------------------------------------------- parsing (pure)

def parse_search(body: bytes | str) -> list[Paper]:
    """Records of a /paper/search page, ranked by their position in ``data``.

    An empty result comes back without ``data`` (``{"total": 0, "offset": 0}``).
    """
    return _parse_data_list(_load_json_object(body))


def parse_bulk(body: bytes | str) -> list[Paper]:
    """Records of a /paper/search/bulk page (``{"total", "token", "data"}``)."""
    return _parse_data_list(_load_json_object(body))


def parse_paper(obj: Any, rank: int | None = None) -> Paper | None:
    """One S2 paper object as a ``Paper``; None for a null entry or a paper without a title."""
    if not isinstance(obj, dict):
        return None
    title = plain_text(obj.get("title"))
    if not title:
        return None
    raw_ids = obj.get("externalIds") or {}
    doi = normalize_doi(raw_ids.get("DOI"))
    journal = obj.get("journal") or {}
    return Paper(
        provider=NAME,
        title=title,
        authors=_author_names(obj.get("authors")),
        year=as_int(obj.get("year")),
        publication_date=obj.get("publicationDate") or None,
        journal=clean(obj.get("venue")) or clean(journal.get("name")),
        doi=doi,
        pmid=normalize_pmid(raw_ids.get("PubMed")),
        paper_id=obj.get("paperId") or None,
        arxiv_id=normalize_arxiv_id(raw_ids.get("ArXiv")) or arxiv_id_from_doi(doi),
        abstract=plain_text(obj.get("abstract")),
        tldr=plain_text((obj.get("tldr") or {}).get("text")),
        citation_count=as_int(obj.get("citationCount")),
        influential_citation_count=as_int(obj.get("influentialCitationCount")),
        oa_url=(obj.get("openAccessPdf") or {}).get("url") or None,  # S2 sends "" for "none"
        publication_types=list(obj.get("publicationTypes") or []),
        external_ids={key: str(value) for key, value in raw_ids.items() if value is not None},
        volume=_journal_volume(journal.get("volume")),
        pages=_pages(journal.get("pages")),
        url=obj.get("url") or None,
        rank=rank,
        score=None,
    )


def _parse_data_list(payload: dict[str, Any]) -> list[Paper]:
    entries = payload.get("data") or []
    if not isinstance(entries, list):
        raise ProviderError("unexpected response ('data' is not a list)")
    # rank is the position in the answer, so a skipped null entry leaves a gap.
    papers = (parse_paper(entry, rank=position) for position, entry in enumerate(entries, start=1))
    return [paper for paper in papers if paper is not None]


def _load_json_object(body: bytes | str) -> dict[str, Any]:
    """The decoded JSON object, or ProviderError for non-JSON and error payloads."""
    payload = json_object(body)
    if "data" not in payload and ("error" in payload or "message" in payload):
        raise ProviderError(_api_message(payload))
    return payload


def _api_message(payload: dict[str, Any]) -> str:
    """The API's own error text on one line, shortened ("Too Many Requests. …")."""
    text = " ".join(str(payload.get("error") or payload.get("message") or "").split())
    if len(text) > _MESSAGE_LIMIT:
        text = text[: _MESSAGE_LIMIT - 1].rstrip() + "…"
    return f"API error: {text}" if text else "API error (no message)"


def _author_names(authors: Any) -> list[str]:
    names = (clean((author or {}).get("name")) for author in authors or [])
    return [name for name in names if name]


def _journal_volume(value: Any) -> str | None:
    volume = clean(value)
    # arXiv papers carry the pseudo-volume "abs/2503.23674", which is no volume at all.
    if volume and volume.lower().startswith("abs/"):
        return None
    return volume


def _pages(value: Any) -> str | None:
    pages = clean(value)
    return re.sub(r"\s*-\s*", "-", pages) if pages else None  # "117 - 97" -> "117-97"


# ---------------------------------------------------------------- query building (pure)

def plain_search_query(query: str) -> str:
    """The query as /paper/search needs it: inner hyphens become spaces."""
    return " ".join(_INNER_HYPHEN.sub(" ", query).split())


def combine_queries(variants: list[str]) -> str:
    """One bulk boolean query that matches any variant: ``(a b) | (c d)``.

    Operator characters typed by the user are removed first, so a variant is
    always a plain group of words (implicitly ANDed by the bulk endpoint).
    """
    return any_of(variants, lambda variant: " ".join(_BULK_OPERATORS.sub(" ", variant).split()), "|")


def paper_id_for_api(paper_id: str) -> str:
    """The id as /paper/{id} accepts it: sha, ``DOI:…``, ``ARXIV:…``, ``PMID:…``, ``CorpusId:…`` …

    A bare DOI (or doi.org URL) gets ``DOI:``; a bare arXiv id (or arxiv.org URL) gets ``ARXIV:``.
    """
    text = (paper_id or "").strip()
    if _SHA.match(text):
        return text.lower()
    prefix, sep, rest = text.partition(":")
    if sep and prefix.lower() in _ID_PREFIXES and rest.strip():
        return f"{_ID_PREFIXES[prefix.lower()]}:{rest.strip()}"
    doi = normalize_doi(text)
    if doi:
        return f"DOI:{doi}"
    arxiv_id = normalize_arxiv_id(text)
    if arxiv_id:
        return f"ARXIV:{arxiv_id}"
    raise ProviderError(
        f"unrecognised paper id {text!r}: use a DOI, an arXiv id, a 40-hex paperId "
        f"or a prefixed id such as PMID:123 or CorpusId:123")


# ---------------------------------------------------------------- HTTP flow

# Search filters this API applies itself (the rest are applied after fetching).
_S2_TYPES = {"article": "JournalArticle", "review": "Review", "conference": "Conference"}


def filter_params(filters: Filters | None) -> tuple[dict[str, str], set[str]]:
    """Query parameters for the search filters, and which filters they cover."""
    params: dict[str, str] = {}
    native: set[str] = set()
    if not filters:
        return params, native
    if filters.date_from or filters.date_to:
        if filters.whole_years:
            low, high = filters.year_from, filters.year_to
            params["year"] = str(low) if low == high else f"{low or ''}-{high or ''}"
        else:
            low_day = filters.date_from.isoformat() if filters.date_from else ""
            high_day = filters.date_to.isoformat() if filters.date_to else ""
            params["publicationDateOrYear"] = f"{low_day}:{high_day}"
        native.add("date")
    if filters.venue:
        params["venue"] = filters.venue.replace(",", " ")  # the API splits venues on commas
        native.add("venue")
    if filters.open_access:
        params["openAccessPdf"] = ""
        native.add("open_access")
    if filters.types and all(t in _S2_TYPES for t in filters.types):
        params["publicationTypes"] = ",".join(_S2_TYPES[t] for t in filters.types)
        native.add("type")
    if filters.min_citations is not None:
        params["minCitationCount"] = str(filters.min_citations)
        native.add("min_citations")
    return params, native


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> list[Paper]:
    """Relevance-ranked /paper/search, first page only (at most 100 records)."""
    settings = session.http.settings
    extra, session.native_filters = filter_params(filters)
    params = {
        "query": plain_search_query(query),
        "fields": SEARCH_FIELDS,
        "limit": _clamp(limit, SEARCH_MAX_LIMIT),
        "offset": 0,
        **extra,
    }
    response = await session.get(settings.url(NAME, SEARCH_PATH), params=params, headers=_auth_headers(session))
    return parse_search(response.content)[: params["limit"]]  # never more than asked, whatever the server sends


async def search_bulk(session: ProviderSession, boolean_query: str, limit: int,
                      filters: Filters | None = None) -> list[Paper]:
    """/paper/search/bulk with boolean syntax, most cited first; one call, at most ``limit`` records.

    The bulk endpoint has no page-size parameter (it always answers up to 1,000), so the
    answer is cut here.
    """
    settings = session.http.settings
    extra, session.native_filters = filter_params(filters)
    params = {"query": boolean_query, "fields": BULK_FIELDS, "sort": "citationCount:desc", **extra}
    response = await session.get(settings.url(NAME, BULK_PATH), params=params, headers=_auth_headers(session))
    return parse_bulk(response.content)[: _clamp(limit, BULK_MAX_RESULTS)]


async def get_paper_details(session: ProviderSession, paper_id: str) -> Paper:
    """One paper by any id form /paper/{id} accepts; ProviderError when S2 does not know it."""
    settings = session.http.settings
    api_id = paper_id_for_api(paper_id)
    # "/" and ":" stay as they are (S2 expects DOI:10.1/x); anything else that would end
    # the path early ("?", "#", spaces) is percent-encoded.
    url = settings.url(NAME, PAPER_PATH + quote(api_id, safe="/:"))
    response = await session.get(url, params={"fields": SEARCH_FIELDS}, headers=_auth_headers(session),
                                 accept_status=frozenset({404}))
    if response.status == 404:
        raise ProviderError(f"paper not found: {paper_id}")
    paper = parse_paper(_load_json_object(response.content))
    if paper is None:
        raise ProviderError(f"unexpected response for {paper_id} (no title)")
    return paper


def _auth_headers(session: ProviderSession) -> dict[str, str]:
    key = session.http.settings.semantic_scholar_api_key
    return {"x-api-key": key} if key else {}


def _clamp(limit: int, maximum: int) -> int:
    return max(1, min(int(limit), maximum))
