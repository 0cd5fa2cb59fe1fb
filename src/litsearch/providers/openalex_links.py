"""OpenAlex for deep search: a work's references and the works citing it, with their abstracts
and each one's own reference list (deep search scores co-citation and coupling from them), works
by id with the same, and the semantic search (``search.semantic``)."""

from __future__ import annotations

import asyncio
import re

from ..core.records import Paper
from ..net.http import ProviderSession
from .openalex_budget import budgeted_get
from .openalex_parse import Work, parse_works_with_references

WORKS_PATH = "/works"
MAX_PER_PAGE = 100
ID_BATCH = 100
# The list fields (root-level select) with the abstract and the reference list.
TEXT_SELECT = ",".join((
    "id", "doi", "title", "display_name", "publication_year", "publication_date", "ids", "authorships",
    "primary_location", "best_oa_location", "open_access", "cited_by_count", "type", "biblio",
    "abstract_inverted_index", "locations", "is_retracted", "referenced_works",
))
SEMANTIC_MAX = 50  # search.semantic answers at most 50 works per call
SEMANTIC_MAX_CHARS = 1000  # the text sent: a URL stays well under OpenAlex's ~4 KB
# search= reads these as wildcards or proximity, and since June 2026 refuses ? and * (HTTP 400).
_SEARCH_WILDCARDS = re.compile(r"[?*~]")
ReferenceLists = dict[str, list[str]]  # W-id -> the W-ids it cites


def can_link(paper: Paper) -> bool:
    return bool(paper.openalex_id)


async def fetch_linked_many(session: ProviderSession, papers: list[Paper], direction: str, limit: int,
                            cited: ReferenceLists | None = None,
                            referenced: ReferenceLists | None = None) -> list[list[Paper] | None]:
    """For each paper (same order): up to ``limit`` works it references (from its
    ``referenced_works``, fetched 100 papers a call, their records 100 a call) or the ``limit``
    most cited works citing it (one call each); None for a paper without an OpenAlex id (or, for
    references, one missing from ``referenced``).
    ``cited``, when given, gains the reference list of every work an answer carried."""
    ids = [paper.openalex_id for paper in papers]
    cited = {} if cited is None else cited
    if direction == "references":
        referenced = referenced or {}  # the seeds' reference lists (openalex.fetch_reference_ids)
        cited.update(referenced)
        wanted = {i: referenced.get(i, [])[:limit] for i in ids if i}
        records = {paper.openalex_id: paper for paper in
                   await fetch_works_with_text(session, list(dict.fromkeys(w for ws in wanted.values() for w in ws)),
                                               cited)}
        return [[records[w] for w in wanted[i] if w in records] if i and i in referenced else None for i in ids]

    async def citing(paper: Paper) -> list[Paper] | None:
        if not paper.openalex_id:
            return None
        if paper.citation_count == 0:
            return []
        params = {"filter": f"cites:{paper.openalex_id}", "sort": "cited_by_count:desc",
                  "per_page": max(1, min(limit, MAX_PER_PAGE)), "select": TEXT_SELECT,
                  **session.identity_params()}
        response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
        return _kept(parse_works_with_references(response.content)[:limit], cited)

    return list(await asyncio.gather(*(citing(paper) for paper in papers)))


def _kept(works: list[Work], cited: ReferenceLists) -> list[Paper]:
    for work in works:
        if work.paper.openalex_id and work.referenced_ids:
            cited[work.paper.openalex_id] = work.referenced_ids
    return [work.paper for work in works]


async def fetch_works_with_text(session: ProviderSession, work_ids: list[str],
                                cited: ReferenceLists | None = None) -> list[Paper]:
    """The records of the given W-ids with their abstracts, 100 a call; ``cited`` gains their
    reference lists."""
    papers: list[Paper] = []
    for start in range(0, len(work_ids), ID_BATCH):
        batch = work_ids[start:start + ID_BATCH]
        params = {"filter": "openalex_id:" + "|".join(batch), "per_page": len(batch), "select": TEXT_SELECT,
                  **session.identity_params()}
        response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
        papers.extend(_kept(parse_works_with_references(response.content), {} if cited is None else cited))
    return papers


def semantic_text(text: str) -> str:
    """The text as search.semantic is sent it: one line, no wildcard characters, at most
    ``SEMANTIC_MAX_CHARS`` (cut at a word)."""
    plain = " ".join(_SEARCH_WILDCARDS.sub(" ", text).split())
    if len(plain) <= SEMANTIC_MAX_CHARS:
        return plain
    return plain[:SEMANTIC_MAX_CHARS].rsplit(" ", 1)[0]


async def fetch_semantic(session: ProviderSession, text: str, limit: int,
                         cited: ReferenceLists | None = None) -> list[Paper]:
    """Up to ``limit`` (≤ 50) works nearest ``text`` by OpenAlex's semantic search (10 credits
    of the daily budget, as a search)."""
    query = semantic_text(text)
    if not query:
        return []
    params = {"search.semantic": query, "per_page": max(1, min(limit, SEMANTIC_MAX)), "select": TEXT_SELECT,
              **session.identity_params()}
    response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
    return _kept(parse_works_with_references(response.content)[:limit], {} if cited is None else cited)


