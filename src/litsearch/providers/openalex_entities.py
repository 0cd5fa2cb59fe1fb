"""OpenAlex entities over HTTP: a list (search, filters, cursor paging), one entity by id, a
name resolved to an id, and the /works filters a search's entity and place filters become.

Costs in OpenAlex's pricing (see docs/mcp.md): a list with a search is 10 credits, a list
with filters only is 1, one entity by id and an autocomplete lookup are free. Name
resolution therefore uses autocomplete, so an alias costs nothing even without a key."""

from __future__ import annotations

import re
from typing import Any, Mapping
from urllib.parse import quote

from ..core.config import Settings
from ..core.errors import NotFound, UsageError
from ..core.filters import Filters, parse_count_range
from ..net.http import ProviderSession
from .openalex_declaration import SERVICE
from .openalex_query import name_search_notes, name_search_text
from .openalex_entities_parse import (
    KINDS,
    EntityKind,
    EntityPage,
    api_entity_id,
    parse_autocomplete,
    parse_entity,
    parse_entity_page,
    top_match,
)

NAME = "openalex"
MAX_LIST_LIMIT = 50  # entities per page (OpenAlex allows 100; 50 slim summaries fit a result)

# The /works filter each search filter becomes (the seed design's keys).
WORKS_FILTERS = {
    "source": "primary_location.source.id",
    "institution": "authorships.institutions.lineage",  # the institution or any part of it
    "topic": "primary_topic.id",
    "publisher": "primary_location.source.publisher_lineage",
    "funder": "funders.id",
}

# Filter aliases of the list commands and tools: alias -> (OpenAlex filter, value kind).
# "entity:<kind>" is resolved like a search's entity filter; "count" takes parse_count_range's
# forms; "country"/"continent" are checked; "flag" is true or false; "text" passes as given.
_PLACE = {"country": ("country_code", "country"), "continent": ("continent", "continent")}
_COUNTS = {"citations": ("cited_by_count", "count"), "works": ("works_count", "count")}
LIST_ALIASES: dict[str, dict[str, tuple[str, str]]] = {
    "author": {"institution": ("last_known_institutions.id", "entity:institution"),
               "country": ("last_known_institutions.country_code", "country"),
               "continent": ("last_known_institutions.continent", "continent"),
               **_COUNTS, "h_index": ("summary_stats.h_index", "count")},
    "source": {"publisher": ("host_organization_lineage", "entity:publisher"), **_PLACE,
               "type": ("type", "text"), "open": ("is_oa", "flag"), **_COUNTS},
    "institution": {**_PLACE, "type": ("type", "text"), **_COUNTS},
    "topic": dict(_COUNTS),
    "publisher": {"country": ("country_codes", "country"), "continent": ("continent", "continent"), **_COUNTS},
    "funder": {**_PLACE, **_COUNTS},
}


def identity_params(settings: Settings) -> dict[str, str]:
    """The key (and contact) OpenAlex takes as parameters, as its declaration says."""
    return settings.identity(SERVICE.name)[0]


def kind_named(name: str) -> EntityKind:
    if name not in KINDS:
        raise UsageError(f"unknown OpenAlex entity {name!r}; one of {', '.join(KINDS)}")
    return KINDS[name]


async def list_entities(session: ProviderSession, kind: EntityKind, query: str | None = None,
                        filter_expression: str | None = None, sort: str | None = None, limit: int = 10,
                        cursor: str | None = None) -> EntityPage:
    """One page of entities: searched by ``query`` (relevance order) and/or filtered."""
    params: dict[str, Any] = {"per_page": max(1, min(int(limit), MAX_LIST_LIMIT)), "cursor": cursor or "*",
                              **identity_params(session.settings)}
    if query and name_search_text(query):  # no ? * ~ in a name search (openalex_query.py)
        params["search"] = name_search_text(query)
    if filter_expression:
        params["filter"] = filter_expression
    if sort:
        params["sort"] = sort
    if kind.select:
        params["select"] = ",".join(kind.select)
    response = await session.get(session.url(kind.path), params=params)
    page = parse_entity_page(kind, response.content)
    page.items = page.items[: params["per_page"]]
    return page


async def get_entity(session: ProviderSession, kind: EntityKind, text: str) -> dict[str, Any]:
    """The complete record of one entity (free in OpenAlex's pricing). UsageError for text that
    is no id of this kind; NotFound when OpenAlex has no such entity."""
    api_id = api_entity_id(kind, text)
    if api_id is None:
        extra = "".join(f", {name.upper()}" for name in kind.external_ids)
        raise UsageError(f"{text!r} is not an OpenAlex {kind.name} id ({kind.letter} and digits{extra})")
    url = session.url(f"{kind.path}/{quote(api_id, safe=':')}")
    response = await session.get(url, params=identity_params(session.settings), accept_status=frozenset({404}))
    if response.status == 404:
        raise NotFound(f"OpenAlex has no {kind.name} {text!r}")
    return parse_entity(kind, response.content)


async def resolve_entity(session: ProviderSession, kind: EntityKind, text: str) -> tuple[str, str]:
    """(id, display name) for an id or a name: an id is looked up (for its name), a name is
    the autocomplete match with the most citations. UsageError when nothing matches."""
    if api_entity_id(kind, text) is not None:
        record = await get_entity(session, kind, text)
        return record["id"], str(record.get("display_name") or record["id"])
    searched = name_search_text(text)
    best = None
    if searched:
        response = await session.get(session.url(f"/autocomplete{kind.path}"),
                                     params={"q": searched, **identity_params(session.settings)})
        best = top_match(parse_autocomplete(response.content), kind.letter)
    if best is None:
        raise UsageError(f"{kind.name} {text!r}: no OpenAlex {kind.name} matches; give its OpenAlex id "
                         f"({kind.letter}…) or another name (try `lit-search {kind.name} list {text}`)")
    return best["id"], best["display_name"]


def works_filters(filters: Filters | None) -> tuple[list[str], set[str]]:
    """The /works filter parts for a search's resolved entity filters and place filters, and
    the names they cover."""
    parts: list[str] = []
    native: set[str] = set()
    if not filters:
        return parts, native
    for name, key in WORKS_FILTERS.items():
        entity_id = filters.entity_id(name)
        if entity_id:
            parts.append(f"{key}:{entity_id}")
            native.add(name)
    if filters.countries:
        parts.append("authorships.countries:" + "|".join(code.lower() for code in filters.countries))
        native.add("country")
    if filters.continents:
        parts.append("authorships.institutions.continent:" + "|".join(filters.continents))
        native.add("continent")
    return parts, native


def count_filter(key: str, low: int | None, high: int | None) -> str:
    """``key:>99``, ``key:<51`` or ``key:100-500`` for an inclusive range."""
    if low is not None and high is not None:
        return f"{key}:{low}-{high}"
    if low is not None:
        return f"{key}:>{low - 1}" if low > 0 else f"{key}:>-1"
    return f"{key}:<{(high or 0) + 1}"


def _searchable_filter(raw: str | None, notes: list[str]) -> str | None:
    """A raw ``filter=`` whose ``*.search`` values carry no ``?``, ``*`` or ``~`` (OpenAlex
    refuses them, or reads them as operators: openalex_query.py); a note for each change."""
    if not raw or not re.search(r"[?*~]", raw):
        return raw
    parts = []
    for part in re.split(r",(?![^()]*\))", raw):
        key, colon, value = part.partition(":")
        if colon and key.strip().lower().endswith(".search"):
            searched = name_search_text(value)
            if not searched:
                notes.append(f"{key.strip()}: left out, nothing but ? * ~ to search for")
                continue
            if searched != value.strip():
                notes.append(f"{key.strip()}: searched for {searched!r} (OpenAlex takes no ? * ~ there)")
            part = f"{key}:{searched}"
        parts.append(part)
    return ",".join(parts)


def _filter_keys(expression: str) -> set[str]:
    """The filter names in a raw ``filter=`` value (``a:1,b:!2`` -> {a, b})."""
    return {part.split(":", 1)[0].strip().lower() for part in re.split(r",(?![^()]*\))", expression) if ":" in part}


async def list_filter_expression(session: ProviderSession | None, kind: EntityKind, aliases: Mapping[str, Any],
                                 raw: str | None = None) -> tuple[str, list[str]]:
    """The ``filter=`` of a list from its aliases and a raw OpenAlex filter, and one line per
    resolved entity. An alias whose filter the raw value also sets is a UsageError (never a
    silent overwrite); so is an alias the kind does not take or a malformed value."""
    known = LIST_ALIASES[kind.name]
    notes: list[str] = []
    raw = _searchable_filter(raw, notes)
    parts = [raw.strip()] if raw and raw.strip() else []
    taken = _filter_keys(raw or "")
    for alias, value in aliases.items():
        if value is None or value == "" or value == []:
            continue
        if alias not in known:
            raise UsageError(f"{kind.name} lists take no {alias!r} filter; they take {', '.join(known)}")
        key, value_kind = known[alias]
        if key.lower() in taken:
            raise UsageError(f"the {alias} filter and the raw filter both set {key}; give one of them")
        parts.append(await _alias_part(session, alias, key, value_kind, value, notes))
    return ",".join(parts), notes


async def _alias_part(session: ProviderSession | None, alias: str, key: str, value_kind: str, value: Any,
                      notes: list[str]) -> str:
    from ..core.filters import build_filters

    if value_kind.startswith("entity:"):
        if session is None:
            raise UsageError(f"the {alias} filter needs an OpenAlex lookup")
        entity_id, display = await resolve_entity(session, KINDS[value_kind.split(":", 1)[1]], str(value))
        notes.append(f"{alias} {str(value)!r} → {display} ({entity_id})")
        return f"{key}:{entity_id}"
    if value_kind == "count":
        low, high = parse_count_range(str(value), f"--{alias.replace('_', '-')}")
        return count_filter(key, low, high)
    if value_kind == "flag":
        if not isinstance(value, bool):
            raise UsageError(f"the {alias} filter is true or false, not {value!r}")
        return f"{key}:{str(value).lower()}"
    if value_kind in ("country", "continent"):
        values = value if isinstance(value, list) else [value]
        try:
            filters = build_filters(countries=values) if value_kind == "country" else build_filters(continents=values)
        except ValueError as error:
            raise UsageError(str(error)) from None
        chosen = filters.countries if value_kind == "country" else filters.continents
        return f"{key}:" + "|".join(item.lower() for item in chosen)
    text = str(value).strip()
    if not re.fullmatch(r"[\w.-]+(?:\|[\w.-]+)*", text):
        raise UsageError(f"the {alias} filter takes a word such as journal or repository, not {value!r}")
    return f"{key}:{text}"


async def entity_page(session: ProviderSession, kind: EntityKind, *, query: str | None = None,
                      aliases: Mapping[str, Any] | None = None, raw: str | None = None, sort: str | None = None,
                      limit: int = 10, cursor: str | None = None) -> tuple[EntityPage, list[str]]:
    """One page of a list command or tool: the aliases resolved and checked against the raw
    filter, then the list; (the page, one line per resolved alias)."""
    expression, notes = await list_filter_expression(session, kind, aliases or {}, raw)
    notes += name_search_notes(query) if query else []
    query = query if query and name_search_text(query) else None
    if not query and sort is None:
        sort = "cited_by_count:desc"  # no search to order by: the most cited first
    page = await list_entities(session, kind, query=query, filter_expression=expression or None, sort=sort,
                               limit=limit, cursor=cursor)
    return page, notes
