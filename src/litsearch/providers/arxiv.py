"""arXiv through its Atom API (``/query``): the search, its query syntax and filters. The
feeds are parsed in arxiv_parse.py."""

from __future__ import annotations

import re
from typing import Iterable

from ..core.errors import ProviderError
from ..core.filters import Filters
from ..core.records import Paper
from ..net.http import FetchedResponse, ProviderSession
from ._common import skipped_notes
from .arxiv_declaration import SERVICE
from .arxiv_parse import ABS_URL, ARXIV_NS, ATOM_NS, NAME, parse_feed  # noqa: F401 (the parser is this provider's surface)
from .base import PROBE_STATUSES, Provider, ProviderAnswer

MAX_RESULTS = 100

# Words of a query as arXiv's search can take them: letters/digits, inner "-" or "." kept
# ("off-target", "3.5"); quotes, parentheses, colons, slashes and the like dropped.
_WORD = re.compile(r"\w+(?:[-.]\w+)*")
# A field prefix at a word start ("all:", "au:"): the query is written in arXiv's syntax.
_FIELD_PREFIX = re.compile(r"(?<![\w:])(?:all|ti|au|abs|co|jr|cat|rn|id):(?=\S)")
# Boolean words typed by the user are not search terms; arXiv's own operators are added here.
_OPERATOR_WORDS = {"and", "or", "not", "andnot"}
# HTTP 400 from arXiv still carries the error feed, whose summary is the useful reason.
_ERROR_FEED_STATUS = frozenset({400})


# ---------------------------------------------------------------- query syntax

def to_search_query(query: str) -> str:
    """arXiv ``search_query`` for one query: ``(all:w1 AND all:w2 …)``; "" when nothing is left."""
    words = [word for word in _WORD.findall(str(query or "")) if word.lower() not in _OPERATOR_WORDS]
    if not words:
        return ""
    return "(" + " AND ".join(f"all:{word}" for word in words) + ")"


def _is_arxiv_syntax(query: str) -> bool:
    return bool(_FIELD_PREFIX.search(str(query or "")))


def combine_queries(variants: Iterable[str]) -> str:
    """One ``search_query`` matching any variant: ``(all:a AND all:b) OR (all:c …)``."""
    parts: dict[str, str] = {}  # arXiv search ignores case, so "CRISPR" and "crispr" are one variant
    for variant in variants:
        part = to_search_query(variant)
        if part:
            parts.setdefault(part.lower(), part)
    return " OR ".join(parts.values())


# ---------------------------------------------------------------- HTTP flow

def filter_clauses(filters: Filters | None, dates: bool = True) -> tuple[str, set[str]]:
    """Extra ``search_query`` clauses and which filters they cover (``dates=False`` leaves
    the date to be checked after fetching). Every arXiv paper is an open-access preprint,
    so those two filters hold by construction."""
    clauses: list[str] = []
    native: set[str] = set()
    if not filters:
        return "", native
    if dates and (filters.date_from or filters.date_to):
        low = filters.date_from.strftime("%Y%m%d") if filters.date_from else "19910101"
        high = filters.date_to.strftime("%Y%m%d") if filters.date_to else "30001231"
        clauses.append(f"submittedDate:[{low}0000 TO {high}2359]")
        native.add("date")
    if filters.author:
        words = [w for w in re.split(r"[^\w'-]+", filters.author) if w]
        if words:
            clauses.append(f"au:{words[-1]}")  # surname; arXiv matches author names word by word
            native.add("author")
    if filters.open_access:
        native.add("open_access")
    if filters.types == ("preprint",):
        native.add("type")
    if filters.preprints:
        native.add("preprints")
    return "".join(f" AND {clause}" for clause in clauses), native


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> ProviderAnswer:
    """Up to ``limit`` (at most 100) arXiv records for ``query`` by relevance.

    Plain words become ``(all:w1 AND all:w2 …)``. A query already in arXiv syntax (it
    uses a field prefix such as ``all:`` or ``au:``, e.g. the output of
    ``combine_queries``) is sent as it is: rebuilding it would AND its operators away.
    """
    search_query = query.strip() if _is_arxiv_syntax(query) else to_search_query(query)
    max_results = min(int(limit), MAX_RESULTS)
    extra, native = filter_clauses(filters)
    if filters is not None and filters.preprints is False:  # --no-preprints: nothing here could pass
        return ProviderAnswer([], frozenset(native | {"preprints"}),
                              ["not searched: every arXiv paper is a preprint (--no-preprints)"])
    if not search_query or max_results < 1:
        return ProviderAnswer([], frozenset(native))
    notes: list[str] = []
    try:
        # A date-filtered query is sent once: on a 5xx the fallback below beats retrying it
        # (each try costs 3 s at arXiv's pace).
        records = await search_raw(session, f"({search_query}){extra}" if extra else search_query, max_results,
                                   retries=0 if "date" in native else None)
    except ProviderError as error:
        if "date" not in native or not error.retryable or not 500 <= (error.status or 0) <= 599:
            raise
        # arXiv's search sometimes fails on submittedDate ranges alone: once more without
        # the date clause; the date is then checked after fetching.
        extra, native = filter_clauses(filters, dates=False)
        records = await search_raw(session, f"({search_query}){extra}" if extra else search_query, max_results)
        notes.append(f"the date filter failed at arXiv (HTTP {error.status}); searched without it and "
                     "filtered after fetching")
    return ProviderAnswer(records, frozenset(native), notes + skipped_notes(records))


async def search_raw(session: ProviderSession, search_query: str, max_results: int,
                     retries: int | None = None) -> list[Paper]:
    """Run an already-built ``search_query`` (e.g. from ``combine_queries``)."""
    params = {
        "search_query": search_query,
        "start": "0",
        "max_results": str(min(max_results, MAX_RESULTS)),
        "sortBy": "relevance",
        "sortOrder": "descending",
    }
    response = await session.get(session.url("/query"), params=params, accept_status=_ERROR_FEED_STATUS,
                                 retries=retries)
    papers = parse_feed(response.content)
    if response.status != 200:
        # A 400 whose body was not an error feed: still a failure.
        raise ProviderError(f"HTTP {response.status} from arXiv", provider=NAME, status=response.status)
    return papers[:max_results]


# ---------------------------------------------------------------- the provider

class ArXiv(Provider):
    service = SERVICE
    combine = staticmethod(combine_queries)
    search_function = staticmethod(search)

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        return await session.get(session.url("/query"), params={"id_list": "1706.03762", "max_results": "1"},
                                 accept_status=PROBE_STATUSES, retries=0)


PROVIDER = ArXiv()
