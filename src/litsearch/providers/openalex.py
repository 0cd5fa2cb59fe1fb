"""OpenAlex /works: relevance search with ``search=`` (or ``search.exact=`` for a deliberate
wildcard: openalex_query.py), one work with the works it cites, works by id in batches, the
works citing one, and author/source name resolution."""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.config import Settings
from ..core.errors import ProviderError
from ..core.filters import Filters
from ..core.identifiers import PaperRef, normalize_openalex_id
from ..core.records import Paper
from ..core.services import REFERENCE_IDS
from ..core.urls import id_in_path
from ..net.http import FetchedResponse, ProviderSession
from ._common import any_of, as_count, as_dict, as_int, skipped_notes
from .base import (MOST_CITED, PROBE_DOI, PROBE_STATUSES, CitingPage, Found, Provider, ProviderAnswer, References,
                   SearchRequest)
from .openalex_entity_filters import count_filter, works_filters
from .openalex_budget import SPENT, budget_notes, budgeted_get, doctor_budget, observe, observed  # noqa: F401
from .openalex_declaration import SERVICE
from .openalex_links import ReferenceLists, can_link, fetch_linked_many, fetch_semantic, fetch_works_with_text
from .openalex_query import name_search_text, works_search_text
from .openalex_parse import (  # noqa: F401 (the parsers are part of this provider's surface)
    NAME,
    load_json_object,
    parse_work,
    parse_work_with_references,
    parse_works,
    rebuild_abstract,
    referenced_work_ids,
)

WORKS_PATH = "/works"
# per_page runs 1-100 (help.openalex.org paging; per_page=200 is deprecated) and a list or
# search call costs the same whatever its size, so every list asks for up to 100 rows
# (../shared/reference/apis.md A2: "use per_page=100"; apis-more.md section 6).
MAX_PER_PAGE = 100

# Root-level fields only (select cannot reach inside objects). relevance_score is
# selectable: the API's own 400 answer for a bad select field lists it among the valid ones.
SELECT_FIELDS = ",".join((
    "id", "doi", "title", "display_name", "publication_year", "publication_date", "ids",
    "authorships", "primary_location", "best_oa_location", "open_access", "cited_by_count",
    "type", "biblio", "abstract_inverted_index", "relevance_score", "locations", "is_retracted",
))

_BOOLEAN_WORD = re.compile(r"\b(AND|OR|NOT)\b")


# ---------------------------------------------------------------- query building (pure)

def combine_queries(variants: list[str]) -> str:
    """One ``search=`` expression matching any variant: ``(v1) OR (v2)``.

    OpenAlex reads upper-case AND/OR/NOT as operators, so those words are
    lower-cased inside a variant; quotes and parentheses that do not pair up are
    dropped so one variant cannot swallow the next; and each variant is made searchable
    (no bare ``?``, ``*`` or ``~``: openalex_query.py).
    """
    return any_of(variants, _neutralise_variant, "OR")


def _neutralise_variant(text: str) -> str:
    text = _BOOLEAN_WORD.sub(lambda match: match.group(1).lower(), text)
    if text.count('"') % 2:
        text = text.replace('"', " ")  # which quote is the stray one is unknowable
    text = _drop_unpaired_parentheses(text)
    text = re.sub(r'\(\s*\)|""', " ", text)  # empty groups and phrases
    return works_search_text(" ".join(text.split())).text


def _drop_unpaired_parentheses(text: str) -> str:
    open_positions: list[int] = []
    unpaired: set[int] = set()
    for position, char in enumerate(text):
        if char == "(":
            open_positions.append(position)
        elif char == ")":
            if open_positions:
                open_positions.pop()
            else:
                unpaired.add(position)
    unpaired.update(open_positions)
    return "".join(" " if position in unpaired else char for position, char in enumerate(text))


# ---------------------------------------------------------------- HTTP flow

def _identity_params(settings: Settings) -> dict[str, str]:
    """mailto and the key, as the declaration says they are sent."""
    return settings.identity(NAME)[0]


# OpenAlex work types for the filter; conference papers are "article" here (their
# Crossref type says proceedings-article), so that type is left to the post-filter.
_OPENALEX_TYPES = {"article": "article", "review": "review", "preprint": "preprint"}


async def resolve_entity(session: ProviderSession, kind: str, name: str) -> tuple[str, str] | None:
    """(id, display name) of the author or source best matching ``name``: among the search
    hits, the one with the most works. One extra call; None when nothing matches."""
    path = {"author": "/authors", "venue": "/sources"}[kind]
    searched = name_search_text(name)
    if not searched:
        return None
    # per_page 10 with select is priced as autocomplete: free (apis-more.md section 6).
    params = {"search": searched, "per_page": 10, "select": "id,display_name,works_count",
              **_identity_params(session.settings)}
    response = await budgeted_get(session, session.url(path), params=params)
    try:
        results = json.loads(response.content).get("results") or []
    except (ValueError, AttributeError):
        raise ProviderError(f"unexpected answer while resolving {kind} {name!r}") from None
    candidates = [r for r in results if isinstance(r, dict) and r.get("id")]
    if not candidates:
        return None
    best = max(candidates, key=lambda r: (as_int(r.get("works_count")) or 0))
    entity_id = str(best["id"]).rsplit("/", 1)[-1]
    return entity_id, str(best.get("display_name") or entity_id)


async def filter_expression(session: ProviderSession, filters: Filters | None) -> tuple[str, set[str], list[str]]:
    """The ``filter=`` value for the search filters, which filters it covers, and notes.
    Author and venue names are resolved to OpenAlex ids first (OpenAlex filters by id)."""
    parts: list[str] = []
    native: set[str] = set()
    notes: list[str] = []
    if not filters:
        return "", native, notes
    if filters.date_from:
        parts.append(f"from_publication_date:{filters.date_from.isoformat()}")
    if filters.date_to:
        parts.append(f"to_publication_date:{filters.date_to.isoformat()}")
    if filters.date_from or filters.date_to:
        native.add("date")
    for kind, field_name in (("author", "authorships.author.id"), ("venue", "primary_location.source.id")):
        name = getattr(filters, kind)
        if not name:
            continue
        if not session.settings.key(NAME):
            # Each lookup would spend the tiny keyless daily allowance; filter after fetching.
            notes.append(f"{kind} {name!r} applied after fetching (name lookups need {KEY_VARIABLE})")
            continue
        try:
            found = await resolve_entity(session, kind, name)
        except ProviderError as error:  # the search itself goes on
            notes.append(f"{kind} {name!r}: name lookup failed ({error}); applied after fetching")
            continue
        if found is None:
            notes.append(f"{kind} {name!r} not found in OpenAlex; applied after fetching")
            continue
        entity_id, display = found
        notes.append(f"{kind} {name!r} → {display}, {entity_id}")
        parts.append(f"{field_name}:{entity_id}")
        native.add(kind)
    if filters.open_access:
        parts.append("open_access.is_oa:true")
        native.add("open_access")
    if filters.types and all(t in _OPENALEX_TYPES for t in filters.types):
        parts.append("type:" + "|".join(_OPENALEX_TYPES[t] for t in filters.types))
        native.add("type")
    if filters.preprints is not None:  # --preprints / --no-preprints (a negated filter: type:!preprint)
        parts.append("type:preprint" if filters.preprints else "type:!preprint")
        native.add("preprints")
    if filters.min_citations is not None or filters.max_citations is not None:
        parts.append(count_filter("cited_by_count", filters.min_citations, filters.max_citations))
        native.update(name for name in ("min_citations", "max_citations") if getattr(filters, name) is not None)
    entity_parts, entity_native = works_filters(filters)  # resolved before the providers run
    return ",".join(parts + entity_parts), native | entity_native, notes


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> ProviderAnswer:
    """Relevance-ranked ``/works?search=``, first page only (at most 100 records). The query
    is made searchable first: a question mark or a stray wildcard would be an HTTP 400; a
    deliberate truncation goes as ``search.exact=``."""
    searchable = works_search_text(query)
    if not searchable.text:
        raise ProviderError("nothing left to search for once the ? * ~ OpenAlex refuses are removed")
    params: dict[str, Any] = {
        "search.exact" if searchable.exact else "search": searchable.text,
        "per_page": max(1, min(int(limit), MAX_PER_PAGE)),
        "select": SELECT_FIELDS,
        **_identity_params(session.settings),
    }
    expression, native, notes = await filter_expression(session, filters)
    if expression:
        params["filter"] = expression
    response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
    records = parse_works(response.content)
    notes += list(searchable.notes) + budget_notes(response.headers)
    # Never more than asked, whatever the server sends.
    return ProviderAnswer(records[: params["per_page"]], frozenset(native), notes + skipped_notes(records))


# ---------------------------------------------------------------- one work, works by id, citing works

NOT_FOUND = frozenset({404})
# A long review lists hundreds of works; 200 ids (2 list calls) cover nearly every paper
# while keeping one lookup cheap. The true total is still reported.
MAX_REFERENCES = 200
# An OR-filter takes at most 100 values (help.openalex.org; older pages said 50): 100 ids
# per list call, one page of 100 rows.
ID_BATCH = 100
# The citing works come sorted by cited_by_count:desc on the server: the first page of 100
# is the 100 most cited.
CITING_PER_PAGE = MAX_PER_PAGE
# relevance_score exists only with a search; referenced_works is what the fallback needs.
WORK_SELECT = ",".join(
    [name for name in SELECT_FIELDS.split(",") if name != "relevance_score"]
    + ["referenced_works", "referenced_works_count"])
# List entries skip the abstract: the tables never show it and it is most of the bytes.
LIST_SELECT = ",".join(
    name for name in SELECT_FIELDS.split(",") if name not in ("relevance_score", "abstract_inverted_index"))


def api_id(ref: PaperRef) -> str | None:
    """A typed id in /works/{id} form, or None for S2-only ids. OpenAlex has no arXiv id
    field, but it files every arXiv paper under arXiv's DataCite DOI."""
    return {"doi": f"doi:{ref.value}", "pmid": f"pmid:{ref.value}",
            "arxiv": f"doi:10.48550/arxiv.{ref.value}", "openalex": ref.value}.get(ref.kind)


def api_ids(paper: Paper) -> list[str]:
    """The ids /works/{id} accepts for a known paper, most specific first."""
    ids = [paper.openalex_id,
           f"doi:{paper.doi}" if paper.doi else None,
           f"pmid:{paper.pmid}" if paper.pmid else None,
           f"doi:10.48550/arxiv.{paper.arxiv_id}" if paper.arxiv_id else None]
    return list(dict.fromkeys(i for i in ids if i))


def id_batches(ids: list[str], size: int = ID_BATCH) -> list[list[str]]:
    """The ids in consecutive groups of at most ``size`` (one OR-filter call each)."""
    return [ids[start:start + size] for start in range(0, len(ids), size)]


async def fetch_work(session: ProviderSession, work_api_id: str) -> Work | None:
    """The work with its referenced W-ids; None when OpenAlex does not know it."""
    url = session.url(f"{WORKS_PATH}/{id_in_path(work_api_id, keep='/:')}")
    params = {"select": WORK_SELECT, **_identity_params(session.settings)}
    response = await budgeted_get(session, url, params=params, accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    return parse_work_with_references(response.content)


async def fetch_works(session: ProviderSession, work_ids: list[str]) -> list[Paper]:
    """The records of the given W-ids: one ``openalex_id:W1|W2|…`` call per 100 ids."""
    papers: list[Paper] = []
    for batch in id_batches(work_ids):
        params = {"filter": "openalex_id:" + "|".join(batch), "per_page": len(batch),
                  "select": LIST_SELECT, **_identity_params(session.settings)}
        response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
        papers.extend(parse_works(response.content))
    return papers


DOI_BATCH = 50  # DOIs per doi:a|b|… filter (OpenAlex's OR takes 50 values; the URL stays near 2 KB)


async def fetch_works_of(session: ProviderSession, papers: list[Paper]) -> list[Paper]:
    """OpenAlex's records of known papers, by whichever id each has: one ``openalex_id:`` call
    per 100 W-ids, one ``doi:`` call per 50 DOIs (an arXiv id by its DataCite DOI) for the
    papers without a W-id, and a free single-work call for a paper with only a PMID (OR
    filters of PMIDs are reported unreliable). A DOI with ``|`` or ``,`` would split the
    filter: it is asked alone."""
    work_ids, dois, alone = [], [], []
    for paper in papers:
        doi = paper.doi or (f"10.48550/arxiv.{paper.arxiv_id}" if paper.arxiv_id else None)
        if paper.openalex_id:
            work_ids.append(paper.openalex_id)
        elif doi and not any(mark in doi for mark in "|,"):
            dois.append(doi)
        elif doi or paper.pmid:
            alone.append(f"doi:{doi}" if doi else f"pmid:{paper.pmid}")
    found = await fetch_works(session, list(dict.fromkeys(work_ids)))
    for batch in id_batches(list(dict.fromkeys(dois)), DOI_BATCH):
        params = {"filter": "doi:" + "|".join(batch), "per_page": len(batch), "select": LIST_SELECT,
                  **_identity_params(session.settings)}
        response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
        found.extend(parse_works(response.content))
    for work_api_id in dict.fromkeys(alone):
        work = await fetch_work(session, work_api_id)
        if work is not None:
            found.append(work.paper)
    return found


async def fetch_citing(session: ProviderSession, work_id: str) -> tuple[list[Paper], int | None]:
    """(the 100 most cited works citing ``work_id``, most cited first, as OpenAlex sorts them
    on the server; how many cite it in all, ``meta.count``). One list call."""
    params = {"filter": f"cites:{work_id}", "sort": "cited_by_count:desc",
              "per_page": CITING_PER_PAGE, "select": LIST_SELECT, **_identity_params(session.settings)}
    response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
    total = as_count(as_dict(load_json_object(response.content).get("meta")).get("count"))
    return parse_works(response.content)[:CITING_PER_PAGE], total


async def fetch_reference_ids(session: ProviderSession, work_ids: list[str]) -> dict[str, list[str]]:
    """W-id -> the W-ids it references, one call per 100 works (works OpenAlex lacks are absent)."""
    found: dict[str, list[str]] = {}
    for batch in id_batches(work_ids):
        params = {"filter": "openalex_id:" + "|".join(batch), "select": "id,referenced_works",
                  "per_page": len(batch), **_identity_params(session.settings)}
        response = await budgeted_get(session, session.url(WORKS_PATH), params=params)
        results = load_json_object(response.content).get("results")
        for work in results if isinstance(results, list) else []:
            work_id = normalize_openalex_id(work.get("id")) if isinstance(work, dict) else None
            if work_id:
                found[work_id] = referenced_work_ids(work)
    return found


# ---------------------------------------------------------------- the provider

KEY_VARIABLE = SERVICE.key.variable


class OpenAlex(Provider):
    service = SERVICE
    combine = staticmethod(combine_queries)
    search_function = staticmethod(search)

    # ----- citations: its lists of ids, and its citing works sorted by citations on the server

    citing_order = MOST_CITED
    citing_page_size = CITING_PER_PAGE
    references_page_size = MAX_REFERENCES
    rank_for = {REFERENCE_IDS: 0}  # asked first for library links: 100 papers' lists in one call

    def plan_query(self, queries: list[str], sort: str = "relevance") -> tuple[str, str]:
        """The query as sent: no bare ``?``, ``*`` or ``~`` (openalex_query.py)."""
        try:
            query, mode = super().plan_query(queries, sort)
        except ValueError:  # no variant has a word left
            return "", "combined"
        return works_search_text(query).text, mode

    async def search(self, session: ProviderSession, request: SearchRequest) -> ProviderAnswer:
        """The search, with a note for each wildcard or operator the user wrote that was not sent."""
        answer = await search(session, request.query, request.limit, request.filters)
        asked = request.variants if request.combined else request.variants[:1]
        dropped = [note for text in asked for note in works_search_text(text).notes]
        answer.notes = list(dict.fromkeys(dropped + answer.notes))
        return answer

    def api_id(self, ref: PaperRef) -> str | None:
        return api_id(ref)

    def api_ids(self, paper: Paper) -> list[str]:
        return api_ids(paper)

    async def look_up(self, session: ProviderSession, work_api_id: str) -> Found | None:
        work = await fetch_work(session, work_api_id)
        if work is None:
            return None
        return Found(work.paper, work.paper.openalex_id or "", reference_count=work.referenced_count,
                     referenced_ids=work.referenced_ids, open_copies=work.open_copies)

    async def references(self, session: ProviderSession, found: Found) -> References | None:
        if not found.referenced_ids:
            return None
        wanted = found.referenced_ids[:MAX_REFERENCES]
        papers = await fetch_works(session, wanted)
        notes = []
        if len(found.referenced_ids) > len(wanted):
            notes.append(f"OpenAlex lists {len(found.referenced_ids)} references; the first {len(wanted)} were fetched")
        if len(papers) < len(wanted):
            notes.append(f"OpenAlex has usable records for {len(papers)} of the {len(wanted)} works it lists as "
                         f"references")
        return References(papers, notes)

    async def citing(self, session: ProviderSession, found: Found, offset: int = 0) -> CitingPage | None:
        if not found.list_id or found.paper.citation_count == 0:
            return None  # nothing to ask: a work OpenAlex counts no citations for
        papers, total = await fetch_citing(session, found.list_id)
        return CitingPage(papers, None, total)

    def library_ids(self, ids: dict[str, list[str]]) -> str | None:
        return ids["openalex_id"][0] if ids.get("openalex_id") else None

    async def reference_lists(self, session: ProviderSession,
                              work_ids: list[str]) -> tuple[list[list[dict[str, Any]] | None], list[str]]:
        found = await fetch_reference_ids(session, work_ids)
        return [[{"openalex_id": cited} for cited in found[work]] if work in found else None
                for work in work_ids], []

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        # One work by DOI: free in OpenAlex's pricing, and it answers with the allowance headers
        # (remembered, so doctor shows what is left today).
        response = await session.get(session.url(f"{WORKS_PATH}/doi:{PROBE_DOI}"),
                                     params={"select": "id", **_identity_params(session.settings)},
                                     accept_status=PROBE_STATUSES, retries=0)
        await observed(session, response)
        return response

    # ----- deep search

    fetches_listed_ids = True
    references_list_first = True

    def can_link(self, paper: Paper) -> bool:
        return can_link(paper)

    async def linked_many(self, session: ProviderSession, papers: list[Paper], direction: str, limit: int,
                          cited: ReferenceLists | None = None) -> list[list[Paper] | None]:
        referenced = None
        if direction == "references":  # the seeds' own lists first: 100 seeds a call
            referenced = await fetch_reference_ids(session, [paper.openalex_id for paper in papers
                                                             if paper.openalex_id])
        return await fetch_linked_many(session, papers, direction, limit, cited, referenced)

    async def similar_to_text(self, session: ProviderSession, text: str, limit: int,
                              cited: ReferenceLists | None = None) -> list[Paper]:
        return await fetch_semantic(session, text, limit, cited)

    async def records_by_id(self, session: ProviderSession, ids: list[str],
                            cited: ReferenceLists | None = None) -> list[Paper]:
        return await fetch_works_with_text(session, ids, cited)

    def budget_today(self, settings: Settings) -> dict[str, Any] | None:
        return doctor_budget(settings)

    def explain(self, error: ProviderError, settings: Settings) -> str:
        """A spent allowance already says what to do. A 403 is "forbidden" in OpenAlex's current
        errors page (a resource or plan this account may not use), not a rate limit as an older
        page had it: it is named as such, and was not retried. A 401 is a key OpenAlex refuses."""
        text = str(error)
        if text.startswith(SPENT):
            return text
        if error.status == 403:
            detail = text.removeprefix("HTTP 403").lstrip(" :;")
            words = ("HTTP 403 not allowed: OpenAlex refuses this request to this account or plan"
                     + (f" (the API said: {detail})" if detail else "") + "; not a rate limit, so it was not retried")
            if not settings.key(NAME) and "key" in detail.lower():
                words += f"; set {KEY_VARIABLE} (free from your OpenAlex account settings)"
            return words
        if error.status == 401:
            return (f"HTTP 401: OpenAlex does not accept this {KEY_VARIABLE} (invalid or revoked); "
                    "check it in your OpenAlex account settings")
        return super().explain(error, settings)


PROVIDER = OpenAlex()
