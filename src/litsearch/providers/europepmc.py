"""Europe PMC through its REST API: one ``GET /search`` per page of results (``format=json``,
``resultType=core``), paged by ``cursorMark``, in the API's relevance order. Europe PMC holds
PubMed's records plus PubMed Central, preprints (bioRxiv, medRxiv, Research Square and more:
source ``PPR``), Agricola and patents. Answers are parsed in europepmc_parse.py.

Facts about the API cite ../shared/reference/apis-more.md §1 (and, through it, the Europe PMC
Web Service Reference Guide 6.9, "EPMC-RG", and the 6.6 announcement, "EPMC-66").
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterable

from ..core.filters import Filters
from ..net.http import FetchedResponse, ProviderSession
from ._boolean import balanced, join_tokens, without_dangling
from ._common import Parsed, any_of, skipped_notes
from .base import PROBE_DOI, PROBE_STATUSES, Provider, ProviderAnswer, SearchRequest
from .europepmc_declaration import SERVICE
from .europepmc_links import fetch_linked, link_id
from .europepmc_parse import (  # noqa: F401 (the parsers are part of this provider's surface)
    EUROPEPMC_ID,
    NAME,
    PREPRINT_SOURCE,
    SearchPage,
    mesh_terms,
    parse_result,
    parse_search,
    version_links,
)

SEARCH_PATH = "/search"
MAX_RESULTS = 1000  # what one search may gather over its pages (lit-search asks at most 100)
# pageSize may be 0-1000 (EPMC-RG). A core record weighs 6 KB on average and up to 10 KB (the
# recorded 25-record core page, compact: 155 KB, its largest record 9.9 KB), so a 1000-record
# core page could pass the HTTP layer's 10 MB cap: pages of 250 (1.5-2.5 MB) keep well under it.
PAGE_SIZE = 250
FIRST_CURSOR = "*"  # cursorMark of page 1; later pages send the returned nextCursorMark (EPMC-RG)

_OPERATORS = {"AND", "OR", "NOT"}
# Europe PMC's field names are upper-case (TITLE:, AUTH:, PUB_YEAR: …); any other "word:" is
# prose ("COVID-19: outcomes") and its colon would make the word a field name.
_FIELD = re.compile(r"^[A-Z][A-Z_]+:")
# Lucene syntax a query variant may carry by accident: "?" and "~" would make "cancer?" a
# wildcard or a fuzzy term, a leading "+"/"-"/"!" an operator ("-aardvark"), braces a range.
_STRAY = re.compile(r"[{}^\\~?!]|&&|\|\|")
_LEADING_SIGN = re.compile(r"(^|[\s(])[-+]+(?=\w)")
# PubMed's field tags ("[tiab]", "[Title/Abstract]", "[mh]") mean nothing here; a bracketed
# "[a TO b]" is Europe PMC's own range and stays.
_PUBMED_TAG = re.compile(r"\[(?![^\]]*\bTO\b)[^\]]*\]")


# ---------------------------------------------------------------- query syntax (pure)

def combine_queries(variants: Iterable[str]) -> str:
    """One query matching any variant: ``(v1) OR (v2)`` (Europe PMC's AND/OR/NOT and
    parentheses, EPMC-RG Appendix 1). ValueError when no search words are left."""
    return any_of(variants, clean_variant, "OR")


def clean_variant(variant: str) -> str:
    """A variant as Europe PMC reads it: its own syntax kept where it is well formed (fields
    such as ``TITLE:``, quotes, parentheses, ``[a TO b]`` ranges, upper-case operators), the
    rest made plain words (unbalanced quotes or brackets, stray Lucene operators, PubMed tags,
    colons in prose, operators with nothing on one side)."""
    text = _PUBMED_TAG.sub(" ", " ".join(str(variant or "").split()))
    text = _LEADING_SIGN.sub(r"\1", _STRAY.sub(" ", text))
    for opening, closing in (("(", ")"), ("[", "]")):
        if not balanced(text, opening, closing):
            text = text.replace(opening, " ").replace(closing, " ")
    if text.count('"') % 2:
        text = text.replace('"', " ")
    tokens = [_without_prose_colons(token) for token in text.replace("(", " ( ").replace(")", " ) ").split()]
    return join_tokens(_drop_dangling_operators([token for token in tokens if token]))


def _without_prose_colons(token: str) -> str:
    if _FIELD.match(token):
        field, rest = token.split(":", 1)
        return f"{field}:{rest.replace(':', ' ')}".strip()
    return token.replace(":", " ").strip()


def _drop_dangling_operators(tokens: list[str]) -> list[str]:
    """Remove operators with no term on one side (``AND x``, ``x OR OR y``, ``(NOT)``) and ``()``;
    NOT may open a query or a group (``NOT x``: Lucene's unary NOT)."""
    return without_dangling(tokens, _OPERATORS, _dangling)


def _dangling(token: str, before: str | None, after: str | None) -> bool:
    return (after is None or after == ")" or after in _OPERATORS - {"NOT"}
            or (token != "NOT" and (before is None or before == "(" or before in _OPERATORS)))


def _quoted(text: str) -> str:
    """A user's value as one quoted Europe PMC term (quotes, brackets and parentheses would break it)."""
    return '"' + " ".join(re.sub(r'["\[\](){}\\]', " ", text).split()) + '"'


def author_term(name: str) -> str:
    """``AUTH:"Family I"``, Europe PMC's author form ("surname + optional initials", EPMC-RG
    Appendix 1): "Jennifer Doudna" and "Doudna, Jennifer" become ``AUTH:"Doudna J"``, "JA Doudna"
    ``AUTH:"Doudna JA"``, a bare surname ``AUTH:"Doudna"``; a longer name (particles, compound
    surnames) is sent whole, quoted."""
    cleaned = " ".join(re.sub(r'["\[\](){}\\]', " ", name).split())
    if "," in cleaned:  # "Family, Given": the family name may be several words
        family, given = (" ".join(part.split()) for part in cleaned.split(",", 1))
    else:
        words = cleaned.split()
        if len(words) > 2:
            return "AUTH:" + _quoted(cleaned)
        family, given = (words[-1] if words else ""), " ".join(words[:-1])
    if not family:
        return ""
    if not given:
        return f'AUTH:"{family}"'
    first = given.split()[0].replace(".", "")
    initials = first if first.isupper() and len(first) <= 3 else first[:1].upper()
    return f'AUTH:"{family} {initials}"'


# The four paper types (core/filters.py) as Europe PMC selects them: preprints are a source
# of their own (SRC:PPR), the rest are publication types (MEDLINE's, searched with PUB_TYPE:).
_TYPE_CLAUSES = {"article": 'PUB_TYPE:"journal article"', "review": "PUB_TYPE:review",
                 "preprint": f"SRC:{PREPRINT_SOURCE}", "conference": "PUB_TYPE:congress"}


def filter_clauses(filters: Filters | None) -> tuple[list[str], set[str]]:
    """Clauses ANDed to the query, and which filters they apply. Citation counts are the one
    filter Europe PMC cannot apply (they are checked after fetching)."""
    clauses: list[str] = []
    native: set[str] = set()
    if not filters:
        return clauses, native
    if filters.date_from or filters.date_to:
        if filters.whole_years:
            clauses.append(f"PUB_YEAR:[{filters.year_from or 1800} TO {filters.year_to or 3000}]")
        else:  # a range within years: the first publication date (online or print), day by day
            low = filters.date_from.isoformat() if filters.date_from else "1800-01-01"
            high = filters.date_to.isoformat() if filters.date_to else "3000-12-31"
            clauses.append(f"FIRST_PDATE:[{low} TO {high}]")
        native.add("date")
    if filters.author and (term := author_term(filters.author)):
        clauses.append(term)
        native.add("author")
    if filters.venue and _quoted(filters.venue) != '""':
        clauses.append("JOURNAL:" + _quoted(filters.venue))
        native.add("venue")
    if filters.open_access:
        clauses.append("OPEN_ACCESS:y")
        native.add("open_access")
    if filters.types:
        chosen = [_TYPE_CLAUSES[kind] for kind in filters.types if kind in _TYPE_CLAUSES]
        clauses.append(chosen[0] if len(chosen) == 1 else "(" + " OR ".join(chosen) + ")")
        native.add("type")
    if filters.preprints is not None:  # --preprints / --no-preprints: by source
        clauses.append(preprint_clause(filters.preprints))
        native.add("preprints")
    return clauses, native


def preprint_clause(preprints: bool | None) -> str | None:
    """``--preprints`` (True: preprints only) / ``--no-preprints`` (False: none) as Europe PMC
    applies it: by source, ``SRC:PPR`` or ``NOT SRC:PPR``."""
    if preprints is None:
        return None
    return f"SRC:{PREPRINT_SOURCE}" if preprints else f"NOT SRC:{PREPRINT_SOURCE}"


def build_query(query: str, filters: Filters | None = None, preprints: bool | None = None) -> tuple[str, set[str]]:
    """The ``query`` parameter (the search, its filters ANDed) and the filters it applies."""
    text = " ".join(str(query or "").split())
    clauses, native = filter_clauses(filters)
    extra = preprint_clause(preprints)
    if extra:
        clauses.append(extra)
    if not text:
        return "", native
    if not clauses:
        return text, native
    return f"({text}) " + " ".join(("" if clause.startswith("NOT ") else "AND ") + clause
                                   for clause in clauses), native


# ---------------------------------------------------------------- HTTP flow

def search_params(query: str, page_size: int, cursor: str, identity: dict[str, str]) -> dict[str, str]:
    """One page's parameters. No ``sort``: relevance is the default order (EPMC-RG §6);
    ``format=json`` because the default is XML (EPMC-66). The cursor goes as returned, not
    encoded twice ("Europe PMC only accepts decoded cursor", ROPEPMC); ``identity`` is the contact
    email as the declaration sends it (``email``: news of the service, REST documentation)."""
    return {"query": query, "format": "json", "resultType": "core", "pageSize": str(page_size),
            "cursorMark": cursor, **identity}


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None, *,
                 preprints: bool | None = None, page_size: int = PAGE_SIZE) -> ProviderAnswer:
    """Up to ``limit`` (at most 1,000) records for ``query`` in relevance order, following
    ``nextCursorMark`` page after page until enough are gathered or the answer ends."""
    text, native = build_query(query, filters, preprints)
    wanted = max(0, min(int(limit), MAX_RESULTS))
    if not text or wanted < 1:
        return ProviderAnswer([], frozenset(native))
    size = max(1, min(wanted, int(page_size), 1000))
    records = Parsed()
    seen: set[str] = set()
    cursor: str | None = FIRST_CURSOR
    cursors_asked: set[str] = set()
    listed = 0  # results the pages held, parsed or not
    while cursor is not None and len(records) < wanted and cursor not in cursors_asked:
        cursors_asked.add(cursor)
        response = await session.get(session.url(SEARCH_PATH),
                                     params=search_params(text, size, cursor, session.identity_params()))
        page = parse_search(response.content, first_rank=len(records) + 1)
        records.skipped += page.records.skipped
        for paper in page.records:
            key = paper.external_ids.get(EUROPEPMC_ID) or paper.title
            if key not in seen and len(records) < wanted:
                seen.add(key)
                records.append(replace(paper, rank=len(records) + 1))  # the parsed record is left as it was
        listed += page.size
        cursor = page.next_cursor if more_pages(page, listed, size) else None
    return ProviderAnswer(records, frozenset(native), skipped_notes(records))


def more_pages(page: SearchPage, listed: int, page_size: int) -> bool:
    """Whether a next page can hold anything: not when the pages so far listed every hit
    (``hitCount``), nor after a page shorter than the size asked, its last. Europe PMC returns
    a ``nextCursorMark`` on its last page too, so following it alone cost a request that
    answered nothing on every search with fewer hits than a page."""
    return page.next_cursor is not None and listed < page.hit_count and page.size >= page_size


# ---------------------------------------------------------------- the provider

class EuropePMC(Provider):
    service = SERVICE
    combine = staticmethod(combine_queries)

    async def search(self, session: ProviderSession, request: SearchRequest) -> ProviderAnswer:
        return await search(session, request.query, request.limit, request.filters)

    # ----- deep search: its citation lists for MED, PMC and PPR records

    def can_link(self, paper: Any) -> bool:
        return link_id(paper) is not None

    async def linked_many(self, session: ProviderSession, papers: list[Any], direction: str, limit: int,
                          cited: dict[str, list[str]] | None = None) -> list[list[Any] | None]:
        return [await fetch_linked(session, paper, direction, limit) for paper in papers]

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        params: dict[str, Any] = search_params(f'DOI:"{PROBE_DOI}"', 1, FIRST_CURSOR, session.identity_params())
        params["resultType"] = "idlist"
        return await session.get(session.url(SEARCH_PATH), params=params, accept_status=PROBE_STATUSES, retries=0)


PROVIDER = EuropePMC()
