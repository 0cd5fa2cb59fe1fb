"""--offline answers what the cache can answer.

A provider's request carries the number of records asked and the filters it applies
itself, so a search run online with ``--limit 20`` is stored under other keys than the same
search with ``--limit 10`` or with one more filter. When the exact request is not cached,
the same search is replayed (through the provider, so every request it makes is looked up
the way it would be sent) with the other sizes the pipeline asks for and with fewer of the
provider-applied filters: a cached answer with at least as many records is cut to size; a
filter the cached request did not carry is applied to the cached records like any filter a
provider cannot apply (see ``core/filters``); a smaller cached answer is used, and when it
was cut at its size the shortfall is named. A provider whose request depends on the sort
(Semantic Scholar: relevance search, or the bulk endpoint for the most cited or newest) is
also replayed as the other sorts would have asked it, so a search run online with one sort
answers offline with another.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from ..core.errors import NotCached
from ..providers.base import Provider, ProviderAnswer, SearchRequest
from .options import MAX_FETCH, MIN_FETCH, SORT_KEYS


async def answer_from_cache(provider: Provider, session, request: SearchRequest,
                            missed: NotCached) -> ProviderAnswer:
    """The best cached answer to ``request`` (see the module docstring); ``missed`` is raised
    again, naming the query, when none is cached."""
    wanted = request.limit
    first_hits = session.cache_hits
    for complete in (True, False):
        for candidate in (c for form in _sort_forms(provider, request)
                          for c in _candidates(form, complete, skip_exact=form is request)):
            before = session.cache_hits
            try:
                answer = await provider.search(session, candidate)
            except NotCached:
                continue
            session.cache_hits = first_hits + (session.cache_hits - before)
            # A cached answer that filled the size it asked may hold back more records; one
            # that came back short is all the API had for it.
            if candidate.limit < wanted and len(answer.records) >= candidate.limit:
                answer.notes.append(
                    f"offline: answered from a cached search for {candidate.limit} records; this one "
                    f"asks for {wanted}, and the others need a search online")
            answer.records = answer.records[:wanted]
            return answer
    shown = request.query if len(request.query) <= 80 else request.query[:79] + "…"
    raise NotCached(f"offline: no cached search for {shown!r} (the topic and variants must match "
                    "a search run online)", provider=missed.provider)


def _sort_forms(provider: Provider, request: SearchRequest):
    """``request`` itself, then as each other sort would have asked it (when that differs)."""
    yield request
    seen = {(request.query, request.combined)}
    for sort in SORT_KEYS:
        if sort == request.sort or not request.variants:
            continue
        query, mode = provider.plan_query(list(request.variants), sort)
        if (query, mode == "combined") not in seen:
            seen.add((query, mode == "combined"))
            yield replace(request, query=query, combined=mode == "combined", sort=sort)


def _candidates(request: SearchRequest, complete: bool, skip_exact: bool = True):
    """Other forms of ``request`` the cache may hold: with as many records or more
    (``complete``) or with fewer; with the filters, then with ever fewer of them."""
    filters = request.filters
    active = filters.active() if filters else []
    wanted = request.limit
    sizes = (range(max(wanted, MIN_FETCH), MAX_FETCH + 1) if complete
             else range(min(wanted - 1, MAX_FETCH), MIN_FETCH - 1, -1))
    for keep in range(len(active), -1, -1):
        for kept in combinations(active, keep):
            narrowed = filters.only(frozenset(kept)) if filters else None
            for size in sizes:
                if skip_exact and keep == len(active) and size == wanted:
                    continue  # the request that missed
                yield replace(request, limit=size, filters=narrowed)
