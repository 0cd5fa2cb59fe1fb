"""Semantic Scholar Academic Graph API: relevance search, bulk boolean search, one paper,
its references and citing papers, and reference lists in batches."""

from __future__ import annotations

import re
from typing import Any

from ..core.config import Settings
from ..core.errors import ProviderError
from ..core.filters import Filters
from ..core.identifiers import PaperRef, is_arxiv_doi, normalize_arxiv_id, normalize_doi
from ..core.records import OpenCopy, Paper
from ..core.urls import id_in_path
from ..net.http import FetchedResponse, ProviderSession
from ._common import any_of, as_count, skipped_notes
from .base import PROBE_DOI, PROBE_STATUSES, CitingPage, Found, Provider, ProviderAnswer, References, SearchRequest
from .semantic_scholar_batch import fetch_reference_ids  # noqa: F401 (reference lists of many papers)
from .semantic_scholar_declaration import SERVICE
from .semantic_scholar_parse import (  # noqa: F401 (the parsers are part of this provider's surface)
    NAME,
    load_json_object,
    parse_bulk,
    parse_citations,
    parse_paper,
    parse_record,
    parse_recommendations,
    parse_references,
    parse_search,
)

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
_BULK_WORDS = {"AND": "+", "OR": "|", "NOT": "-"}
# A hyphen inside a word ("COVID-19", "long-term"): /paper/search finds nothing for these.
_INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
_SHA = re.compile(r"^[0-9a-f]{40}$", re.I)
# The id prefixes /paper/{id} understands, keyed by lower case, valued in the API's spelling.
_ID_PREFIXES = {
    "doi": "DOI", "arxiv": "ARXIV", "pmid": "PMID", "pmcid": "PMCID", "corpusid": "CorpusId",
    "mag": "MAG", "acl": "ACL", "url": "URL",
}


# ---------------------------------------------------------------- query building (pure)

def plain_search_query(query: str) -> str:
    """The query as /paper/search needs it: inner hyphens become spaces."""
    return " ".join(_INNER_HYPHEN.sub(" ", query).split())


def combine_queries(variants: list[str]) -> str:
    """One bulk boolean query that matches any variant: ``(a b) | (c d)``.

    Operator characters typed by the user are removed first, and upper-case AND/OR/NOT
    become the bulk syntax (``+``, ``|``, ``-``), which the endpoint would otherwise search
    as words; each variant is one group of words (implicitly ANDed by the bulk endpoint).
    """
    return any_of(variants, bulk_group, "|")


def bulk_group(variant: str) -> str:
    """One variant in the bulk syntax: ``a AND b OR c NOT d`` -> ``a + b | c -d``."""
    words: list[str] = []
    pending: str | None = None
    for word in _BULK_OPERATORS.sub(" ", variant).split():
        if word in _BULK_WORDS:
            pending = word if (words or word == "NOT") else None  # a leading AND/OR joins nothing
            continue
        if pending == "NOT":
            word = "-" + word
        elif pending and words:
            words.append(_BULK_WORDS[pending])
        words.append(word)
        pending = None
    return " ".join(words)


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


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> ProviderAnswer:
    """Relevance-ranked /paper/search, first page only (at most 100 records)."""
    extra, native = filter_params(filters)
    params = {
        "query": plain_search_query(query),
        "fields": SEARCH_FIELDS,
        "limit": _clamp(limit, SEARCH_MAX_LIMIT),
        "offset": 0,
        **extra,
    }
    response = await session.get(session.url(SEARCH_PATH), params=params, headers=_auth_headers(session.settings))
    records = parse_search(response.content)
    # Never more than asked, whatever the server sends.
    return ProviderAnswer(records[: params["limit"]], frozenset(native), skipped_notes(records))


# The bulk endpoint's order for the sorts that want a pool chosen by that order (the API's
# sort values, S2-spec "/paper/search/bulk"); every other sort uses the relevance search.
BULK_SORTS = {"citations": "citationCount:desc", "year": "publicationDate:desc"}


async def search_bulk(session: ProviderSession, boolean_query: str, limit: int,
                      filters: Filters | None = None, sort: str = "citations") -> ProviderAnswer:
    """/paper/search/bulk with boolean syntax, sorted as ``BULK_SORTS[sort]``; one call, at
    most ``limit`` records.

    The bulk endpoint has no relevance order (the answer is marked unranked) and no
    page-size parameter (it always answers up to 1,000), so the answer is cut here.
    """
    extra, native = filter_params(filters)
    params = {"query": boolean_query, "fields": BULK_FIELDS, "sort": BULK_SORTS[sort], **extra}
    response = await session.get(session.url(BULK_PATH), params=params, headers=_auth_headers(session.settings))
    records = parse_bulk(response.content)
    return ProviderAnswer(records[: _clamp(limit, BULK_MAX_RESULTS)], frozenset(native), skipped_notes(records),
                          ranked=False)


async def get_paper_details(session: ProviderSession, paper_id: str) -> Paper:
    """One paper by any id form /paper/{id} accepts; ProviderError when S2 does not know it."""
    api_id = paper_id_for_api(paper_id)
    response = await session.get(_paper_url(session, api_id), params={"fields": SEARCH_FIELDS},
                                 headers=_auth_headers(session.settings), accept_status=NOT_FOUND)
    if response.status == 404:
        raise ProviderError(f"paper not found: {paper_id}", provider=NAME, status=404)
    paper = parse_paper(load_json_object(response.content))
    if paper is None:
        raise ProviderError(f"unexpected response for {paper_id} (no title)", provider=NAME)
    return paper


def _auth_headers(settings: Settings) -> dict[str, str]:
    """The key's header, as the declaration says it is sent."""
    return settings.identity(NAME)[1]


def _paper_url(session: ProviderSession, api_id: str, suffix: str = "") -> str:
    # "/" and ":" stay as they are (S2 expects DOI:10.1/x); anything else that would end
    # the path early ("?", "#", spaces) is percent-encoded.
    return session.url(PAPER_PATH + id_in_path(api_id, keep="/:") + suffix)


def _reference_identity(reference: dict[str, Any]) -> dict[str, Any]:
    """A /paper/batch reference's ids, by the library's kinds (best first)."""
    ids = reference.get("externalIds")
    ids = ids if isinstance(ids, dict) else {}
    return {"paper_id": reference.get("paperId"), "doi": ids.get("DOI"), "pmid": ids.get("PubMed"),
            "arxiv_id": ids.get("ArXiv")}


def _clamp(limit: int, maximum: int) -> int:
    return max(1, min(int(limit), maximum))


# ---------------------------------------------------------------- one paper, its references and citing papers

NOT_FOUND = frozenset({404})
# Fields of each paper in a /references or /citations page (paperId always comes along).
LIST_FIELDS = "title,year,authors,externalIds,citationCount,venue"
# One page per list: enough to pick the most cited few, and every S2 request costs a
# second at its pace whatever the page size (the API allows up to 1,000).
LIST_LIMIT = 100
# Citing papers come in S2's own order, not by citations: pages of the most the API allows
# (limit up to 1,000, ../shared/reference/apis.md A1), each a second at the keyed pace.
CITATIONS_PAGE = 1000
# referenceCount gives the true total when the list is longer than one page.
RECORD_FIELDS = SEARCH_FIELDS + ",referenceCount"


def api_id(ref: PaperRef) -> str | None:
    """A typed id in /paper/{id} form, or None when S2 cannot look this kind up (OpenAlex W…)."""
    return {"doi": f"DOI:{ref.value}", "pmid": f"PMID:{ref.value}", "arxiv": f"ARXIV:{ref.value}",
            "s2": ref.value, "corpusid": f"CorpusId:{ref.value}"}.get(ref.kind)


def api_ids(paper: Paper) -> list[str]:
    """The ids /paper/{id} accepts for a known paper, most specific first."""
    ids = [paper.semantic_scholar_id if paper.semantic_scholar_id and _SHA.match(paper.semantic_scholar_id) else None,
           # arXiv's own DOIs are better asked as ARXIV: (S2 files preprints under the arXiv id)
           f"DOI:{paper.doi}" if paper.doi and not is_arxiv_doi(paper.doi) else None,
           f"ARXIV:{paper.arxiv_id}" if paper.arxiv_id else None,
           f"PMID:{paper.pmid}" if paper.pmid else None]
    return [i for i in ids if i]


async def fetch_record(session: ProviderSession, paper_api_id: str) -> tuple[Paper, int | None] | None:
    """The record and its reference count; None when S2 does not know the paper."""
    response = await session.get(_paper_url(session, paper_api_id), params={"fields": RECORD_FIELDS},
                                 headers=_auth_headers(session.settings), accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    return parse_record(response.content)


async def fetch_references(session: ProviderSession, paper_api_id: str) -> list[Paper] | None:
    """The first page of the paper's references; None when S2 does not know the paper."""
    body = await _list_page(session, paper_api_id, "references")
    return parse_references(body) if body is not None else None


async def fetch_citations_page(session: ProviderSession, paper_api_id: str, offset: int = 0,
                               limit: int = CITATIONS_PAGE) -> tuple[list[Paper], int | None] | None:
    """One page of the papers citing it, in S2's order (not by citations), and the offset of
    the next page (None at the end: the API's ``next``); None when S2 does not know the paper."""
    body = await _list_page(session, paper_api_id, "citations", offset, limit)
    if body is None:
        return None
    following = as_count(load_json_object(body).get("next"))
    return parse_citations(body), following if following and following > offset else None


async def _list_page(session: ProviderSession, paper_api_id: str, direction: str, offset: int = 0,
                     limit: int = LIST_LIMIT) -> bytes | None:
    params = {"fields": LIST_FIELDS, "limit": limit, "offset": offset}
    response = await session.get(_paper_url(session, paper_api_id, "/" + direction), params=params,
                                 headers=_auth_headers(session.settings), accept_status=NOT_FOUND)
    return None if response.status == 404 else response.content


# ---------------------------------------------------------------- deep search: lists with texts, recommendations

# The list fields for deep search, with the abstract (the judge reads it) and what the merge uses.
LINK_FIELDS = "title,abstract,year,authors,externalIds,citationCount,venue,journal,publicationDate"
LINK_LIST_MAX = 1000
RECOMMENDATIONS_PATH = "/recommendations/v1/papers"
MAX_EXAMPLES = 100  # positive (and negative) ids sent to one recommendation request


async def fetch_linked(session: ProviderSession, paper: Paper, direction: str, limit: int) -> list[Paper] | None:
    """Up to ``limit`` references (``direction`` "references") or citing papers ("citing");
    None when S2 does not know the paper."""
    ids = api_ids(paper)
    if not ids:
        return None
    listing = "references" if direction == "references" else "citations"
    params = {"fields": LINK_FIELDS, "limit": max(1, min(limit, LINK_LIST_MAX)), "offset": 0}
    response = await session.get(_paper_url(session, ids[0], "/" + listing), params=params,
                                 headers=_auth_headers(session.settings), accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    parse = parse_references if listing == "references" else parse_citations
    return parse(response.content)[:limit]


async def fetch_recommendations(session: ProviderSession, positives: list[Paper], negatives: list[Paper],
                                limit: int) -> list[Paper]:
    """Up to ``limit`` papers like ``positives`` and unlike ``negatives`` (S2's Recommendations
    API, which answers from its own embeddings of the papers)."""
    wanted = [ids[0] for paper in positives[:MAX_EXAMPLES] if (ids := api_ids(paper))]
    unwanted = [ids[0] for paper in negatives[:MAX_EXAMPLES] if (ids := api_ids(paper))]
    if not wanted:
        return []
    response = await session.post(session.url(RECOMMENDATIONS_PATH),
                                  params={"fields": LINK_FIELDS, "limit": max(1, min(limit, 500))},
                                  json={"positivePaperIds": wanted, "negativePaperIds": unwanted},
                                  headers=_auth_headers(session.settings), accept_status=NOT_FOUND)
    if response.status == 404:  # none of the positive ids is known to it
        return []
    return parse_recommendations(response.content)[:limit]


# ---------------------------------------------------------------- the provider

class SemanticScholar(Provider):
    service = SERVICE
    combine = staticmethod(combine_queries)

    def plan_query(self, queries: list[str], sort: str = "relevance") -> tuple[str, str]:
        # The pool follows the order asked for, in one call either way: for relevance (and
        # impact) the relevance-ranked /paper/search for the topic, which alone gives TLDRs;
        # for the most cited or the newest, the bulk endpoint sorted that way, every variant
        # OR'ed. A pool cut by citation count is never used to rank by relevance.
        if sort in BULK_SORTS:
            return combine_queries(queries), "combined"
        return queries[0], "search"

    async def search(self, session: ProviderSession, request: SearchRequest) -> ProviderAnswer:
        if request.combined:
            # Up to 1,000 records in the asked order: the local ranking scores all of them.
            return await search_bulk(session, request.query, BULK_MAX_RESULTS, request.filters,
                                     sort=request.sort if request.sort in BULK_SORTS else "citations")
        return await search(session, request.query, request.limit, request.filters)

    # ----- citations: its own lists (the fuller ones), in its own order

    citing_page_size = CITATIONS_PAGE
    references_page_size = LIST_LIMIT

    def api_id(self, ref: PaperRef) -> str | None:
        return api_id(ref)

    def api_ids(self, paper: Paper) -> list[str]:
        return api_ids(paper)

    async def look_up(self, session: ProviderSession, paper_api_id: str) -> Found | None:
        found = await fetch_record(session, paper_api_id)
        if found is None:
            return None
        paper, reference_count = found
        ids = api_ids(paper)  # its lists go by its own id, the most specific
        copies = [OpenCopy(None, paper.oa_url)] if paper.oa_url else []  # openAccessPdf
        return Found(paper, ids[0] if ids else "", reference_count=reference_count, open_copies=copies)

    def found_without_lookup(self, paper: Paper) -> Found | None:
        ids = api_ids(paper)
        return Found(paper, ids[0]) if ids else None

    async def references(self, session: ProviderSession, found: Found) -> References | None:
        papers = await fetch_references(session, found.list_id) if found.list_id else None
        return References(papers) if papers is not None else None

    async def citing(self, session: ProviderSession, found: Found, offset: int = 0) -> CitingPage | None:
        page = await fetch_citations_page(session, found.list_id, offset) if found.list_id else None
        return CitingPage(page[0], page[1]) if page is not None else None

    def library_ids(self, ids: dict[str, list[str]]) -> str | None:
        for kind, prefix in (("paper_id", ""), ("doi", "DOI:"), ("arxiv_id", "ARXIV:"), ("pmid", "PMID:")):
            if ids.get(kind):
                return prefix + ids[kind][0]
        return None

    async def reference_lists(self, session: ProviderSession,
                              paper_api_ids: list[str]) -> tuple[list[list[dict[str, Any]] | None], list[str]]:
        answers = await fetch_reference_ids(session, paper_api_ids)
        return [[_reference_identity(reference) for reference in references] for references in answers], \
            list(answers.notes)

    # ----- deep search

    def can_link(self, paper: Paper) -> bool:
        return bool(api_ids(paper))

    async def linked_many(self, session: ProviderSession, papers: list[Paper], direction: str, limit: int,
                          cited: dict[str, list[str]] | None = None) -> list[list[Paper] | None]:
        return [await fetch_linked(session, paper, direction, limit) for paper in papers]

    async def recommend(self, session: ProviderSession, positives: list[Paper], negatives: list[Paper],
                        limit: int) -> list[Paper]:
        return await fetch_recommendations(session, positives, negatives, limit)

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        return await session.get(_paper_url(session, f"DOI:{PROBE_DOI}"), params={"fields": "title"},
                                 headers=_auth_headers(session.settings), accept_status=PROBE_STATUSES, retries=0)


PROVIDER = SemanticScholar()
