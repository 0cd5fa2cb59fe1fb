"""OpenAlex's entities over HTTP: a list (search, filters, cursor paging), one entity by id,
the autocomplete short list, a name resolved to an id, and works found by meaning (semantic
search). Every request goes through the daily-budget gate (openalex_budget.budgeted_get)
and the declaration's pace; semantic search also through its own lane (one a second), which
the HTTP layer picks from the request's ``search.semantic``.

Costs in OpenAlex's pricing (openalex_costs.py, docs/openalex-explorer.md): a list with a
search is 10 credits, a list with filters only 1, a semantic search 10; one entity by id and
an autocomplete are free, except in the topic hierarchy (domains, fields, subfields: 1 each).
Name resolution therefore uses autocomplete (or, for domains and fields, which have none, a
search of at most 10 rows asked as OpenAlex's own search box asks)."""

from __future__ import annotations

from typing import Any, Mapping

from ..core.config import Settings
from ..core.errors import NotFound, UsageError
from ..core.urls import id_in_path
from ..net.http import ProviderSession
from .openalex_budget import budgeted_get, refuse_when_spent
from .openalex_costs import FREE_SEARCH_SELECT, request_credits
from .openalex_declaration import SEMANTIC_MAX_RESULTS, SERVICE
from .openalex_entities_parse import (
    EntityPage,
    parse_autocomplete,
    parse_entity,
    parse_entity_page,
    top_match,
)
from .openalex_entity_filters import FIND_ALIASES, LIST_ALIASES, filter_expression, semantic_refusals
from .openalex_entity_kinds import KINDS, WORK_SELECT, EntityKind, api_entity_id
from .openalex_query import name_search_notes, name_search_text, works_search_text

NAME = SERVICE.name
MAX_LIST_LIMIT = 50  # entities per page (OpenAlex allows 100; 50 slim summaries fit a result)
MAX_SEMANTIC_CHARS = 2_000  # OpenAlex matches on the first 2,000 characters of a semantic query
# A name becomes an id through autocomplete, or a search asked the way OpenAlex prices as one.


def identity_params(settings: Settings) -> dict[str, str]:
    """The key (and contact) OpenAlex takes as parameters, as its declaration says."""
    return settings.identity(SERVICE.name)[0]


async def list_entities(session: ProviderSession, kind: EntityKind, query: str | None = None,
                        filter_expression: str | None = None, sort: str | None = None, limit: int = 10,
                        cursor: str | None = None) -> EntityPage:
    """One page of entities: searched by ``query`` (relevance order) and/or filtered. The query
    carries no bare ? * ~ (openalex_query.py): a works search keeps a truncation star and goes
    as ``search.exact``; names are searched without wildcards."""
    params: dict[str, Any] = {"per_page": max(1, min(int(limit), MAX_LIST_LIMIT)), "cursor": cursor or "*",
                              **identity_params(session.settings)}
    searched = search_params(kind, query)
    params.update(searched)
    if filter_expression:
        params["filter"] = filter_expression
    if sort:
        params["sort"] = sort
    if kind.select:
        params["select"] = ",".join(kind.select)
    response = await budgeted_get(session, session.url(kind.path), params=params)
    page = parse_entity_page(kind, response.content)
    page.items = page.items[: params["per_page"]]
    return page


def search_params(kind: EntityKind, query: str | None) -> dict[str, str]:
    """``search`` (or a works search's ``search.exact``) for ``query`` as OpenAlex takes it;
    nothing when no words are left."""
    if not query:
        return {}
    if kind.name == "work":
        text = works_search_text(query)
        return {"search.exact" if text.exact else "search": text.text} if text.text else {}
    text = name_search_text(query)
    return {"search": text} if text else {}


def search_notes(kind: EntityKind, query: str | None) -> list[str]:
    """One line per thing taken out of ``query`` that the user may have meant."""
    if not query:
        return []
    return list(works_search_text(query).notes) if kind.name == "work" else name_search_notes(query)


async def get_entity(session: ProviderSession, kind: EntityKind, text: str) -> dict[str, Any]:
    """The complete record of one entity (free in OpenAlex's pricing). UsageError for text that
    is no id of this kind; NotFound when OpenAlex has no such entity."""
    api_id = api_entity_id(kind, text)
    if api_id is None:
        raise UsageError(f"{text!r} is not an OpenAlex {kind.name} id ({kind.id_hint})")
    url = session.url(f"{kind.path}/{id_in_path(api_id, keep='/:')}")
    response = await budgeted_get(session, url, params=identity_params(session.settings),
                                  accept_status=frozenset({404}))
    if response.status == 404:
        raise NotFound(f"OpenAlex has no {kind.name} {text!r}")
    return parse_entity(kind, response.content)


async def autocomplete(session: ProviderSession, kind: EntityKind, text: str) -> tuple[int | None, list[dict]]:
    """OpenAlex's short list (up to 10) of ``kind`` matching typed ``text``, and its count of
    matches (free in OpenAlex's pricing). The text carries no ? * ~ (openalex_query.py)."""
    typed = name_search_text(text)
    if not typed:
        raise UsageError(f"{text!r}: nothing to complete once OpenAlex's ? * ~ are left out; type a name")
    response = await budgeted_get(session, session.url(f"/autocomplete{kind.path}"),
                                  params={"q": typed, **identity_params(session.settings)})
    return parse_autocomplete(response.content, kind)


async def resolve_entity(session: ProviderSession, kind: EntityKind, text: str) -> tuple[str, str]:
    """(id, display name) for an id or a name: an id is looked up (for its name), a name is
    the match with the most citations. UsageError when nothing matches."""
    if api_entity_id(kind, text) is not None:
        record = await get_entity(session, kind, text)
        return record["id"], str(record.get("display_name") or record["id"])
    searched = name_search_text(text)  # no ? * ~ (openalex_query.py)
    if not searched:
        candidates: list[dict[str, Any]] = []
    elif kind.resolved_by_search:  # no autocomplete for domains and fields: a small search
        response = await budgeted_get(session, session.url(kind.path), params={
            "search": searched, "per_page": 10, "select": FREE_SEARCH_SELECT, **identity_params(session.settings)})
        candidates = parse_entity_page(kind, response.content).items
    else:
        candidates = (await autocomplete(session, kind, searched))[1]
    best = top_match(candidates, kind)
    if best is None:
        raise UsageError(f"{kind.name} {text!r}: no OpenAlex {kind.name} matches; give its OpenAlex id "
                         f"({kind.id_hint}) or another name (try `lit-search {kind.name} list {text}`)")
    return best["id"], str(best["display_name"])


def resolver(session: ProviderSession):
    """``resolve_entity`` on ``session``, as filter_expression takes it."""
    return lambda kind, text: resolve_entity(session, kind, text)


async def entity_page(session: ProviderSession, kind: EntityKind, *, query: str | None = None,
                      aliases: Mapping[str, Any] | None = None, raw: str | None = None, sort: str | None = None,
                      limit: int = 10, cursor: str | None = None) -> tuple[EntityPage, list[str]]:
    """One page of a list command or tool: the aliases resolved and checked against the raw
    filter, then the list; (the page, one line per resolved alias)."""
    await refuse_when_spent(session, request_credits(kind.path, search_params(kind, query)))
    expression, notes = await filter_expression(LIST_ALIASES[kind.name], f"{kind.name} lists", aliases or {}, raw,
                                                resolver(session))
    notes += search_notes(kind, query)
    query = query if search_params(kind, query) else None
    if not query and sort is None:
        sort = "cited_by_count:desc"  # no search to order by: the most cited first
    page = await list_entities(session, kind, query=query, filter_expression=expression or None, sort=sort,
                               limit=limit, cursor=cursor)
    return page, notes


async def find_works(session: ProviderSession, query: str, *, aliases: Mapping[str, Any] | None = None,
                     raw: str | None = None, limit: int = 10) -> tuple[EntityPage, list[str]]:
    """Works closest in meaning to ``query`` (OpenAlex's ``search.semantic``): one page of at
    most 50, each with its ``relevance_score``; paced by OpenAlex's semantic lane as well."""
    text = " ".join((query or "").split())
    if not text:
        raise UsageError("work_find needs the text to match: a question, an abstract or a paragraph")
    if len(text) > MAX_SEMANTIC_CHARS:
        raise UsageError(f"the text is {len(text):,} characters; OpenAlex's semantic search reads at most "
                         f"{MAX_SEMANTIC_CHARS:,}: give the most telling part")
    refused = semantic_refusals(raw)
    if refused:
        raise UsageError(f"OpenAlex's semantic search does not take the {', '.join(refused)} filter")
    await refuse_when_spent(session, request_credits(KINDS["work"].path, {"search.semantic": text}))
    expression, notes = await filter_expression(FIND_ALIASES, "work_find", aliases or {}, raw, resolver(session))
    per_page = max(1, min(int(limit), SEMANTIC_MAX_RESULTS))
    params: dict[str, Any] = {"search.semantic": text, "per_page": per_page,
                              "select": ",".join((*WORK_SELECT, "relevance_score")),
                              **identity_params(session.settings)}
    if expression:
        params["filter"] = expression
    response = await budgeted_get(session, session.url(KINDS["work"].path), params=params)
    page = parse_entity_page(KINDS["work"], response.content, with_score=True)
    page.items, page.next_cursor = page.items[:per_page], None  # one page: 50 is the most it gives
    return page, notes
