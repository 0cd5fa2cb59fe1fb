"""The OpenAlex entity tools: ``{entity}_list`` (search and filter, slim summaries, cursor
paging) and ``{entity}_get`` (one entity complete), made from one table so that every entity
has the same shape. Each tool's schema is built from its entity's filter aliases."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

from pydantic import Field

from ..core.errors import UsageError
from ..providers.openalex_entities import LIST_ALIASES, MAX_LIST_LIMIT, entity_page, get_entity
from ..providers.openalex_entities_parse import KINDS, EntityKind
from .conduct import ASKS_THE_APIS, declare
from .cursors import MAX_CURSOR_CHARS, encode_cursor, resume
from .outputs import EntityPage, EntityRecord
from .paging import fit_record, largest_fit
from .runtime import current, result_size, tool_result

# A list cursor's bookmarks: the rank of the page's first row, and OpenAlex's own cursor.
MAX_START = 1_000_000
MAX_API_CURSOR = 2_000
LIST_TOOLS = ("author", "source", "institution", "topic", "publisher", "funder")
GET_TOOLS = ("author", "source", "institution", "topic")

KEPT = {
    "author": "id, name, ORCID, works and citation counts, h-index, last known institutions, top 3 topics",
    "source": "id, name, ISSN-L, type, open-access and DOAJ flags, works and citation counts, h-index, publisher",
    "institution": "id, name, ROR id, country, type, city, works and citation counts, h-index",
    "topic": "id, name, description, subfield, field and domain, works and citation counts",
    "publisher": "id, name, hierarchy level, countries, works and citation counts",
    "funder": "id, name, country, description, award, works and citation counts",
}
USE = {
    "author": "to find a researcher's OpenAlex id (for paper_search's filters) or compare researchers",
    "source": "to find a journal, conference or repository and its OpenAlex id (paper_search's source filter)",
    "institution": "to find a university or lab and its OpenAlex id (paper_search's institution filter)",
    "topic": "to find OpenAlex research topics and their ids (paper_search's topic filter)",
    "publisher": "to find a publisher and its OpenAlex id (paper_search's publisher filter)",
    "funder": "to find a funding body and its OpenAlex id (paper_search's funder filter)",
}
ALIAS_SCHEMA = {
    "count": (str | None, "{what}: 100 (at least), >100, <50, 100-500 or -50"),
    "country": (list[str] | None, "ISO country codes (DE, US): {what}"),
    "continent": (list[str] | None, "continents (europe, asia, north_america, …): {what}"),
    "flag": (bool | None, "{what}"),
    "text": (str | None, "OpenAlex {what}, e.g. journal, repository, conference, education, company"),
}
ALIAS_WORDS = {"citations": "cited-by count", "works": "works count", "h_index": "h-index", "open": "fully open "
               "access only", "type": "type", "country": "where", "continent": "where"}


def _parameter(name: str, annotation: Any, default: Any = None) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def _alias_parameter(kind: EntityKind, alias: str, value_kind: str) -> inspect.Parameter:
    if value_kind.startswith("entity:"):
        target = KINDS[value_kind.split(":", 1)[1]]
        return _parameter(alias, Annotated[str | None, Field(description=f"an OpenAlex {target.name} id "
                                                                          f"({target.letter}…) or a name, resolved "
                                                                          "to the best match")])
    annotation, text = ALIAS_SCHEMA[value_kind]
    return _parameter(alias, Annotated[annotation, Field(description=text.format(what=ALIAS_WORDS.get(alias, alias)))])


def make_list_tool(kind: EntityKind):
    aliases = LIST_ALIASES[kind.name]

    async def tool(**arguments: Any):
        return await entity_list(kind, tool, arguments)

    tool.__name__ = f"{kind.name}_list"
    tool.__doc__ = (f"List OpenAlex {kind.plural}: search them by name and filter them ({', '.join(aliases)}, or a "
                    f"raw OpenAlex filter). Use it {USE[kind.name]}. Returns slim summaries ({KEPT[kind.name]}), "
                    f"most relevant first with a query, else most cited; next_cursor pages on."
                    + (f" Use {kind.name}_get for a complete record." if kind.name in GET_TOOLS else "")
                    + " A query costs 10 of OpenAlex's daily credits, filters alone 1.")
    parameters = [
        _parameter("query", Annotated[str | None, Field(max_length=300, description="words of the name")]),
        *[_alias_parameter(kind, alias, value_kind) for alias, (_, value_kind) in aliases.items()],
        _parameter("filter", Annotated[str | None, Field(max_length=1000, description="a raw OpenAlex filter, e.g. "
                                                                                     "has_orcid:true")]),
        _parameter("sort", Annotated[Literal["relevance", *kind.sorts] | None,  # type: ignore[valid-type]
                                     Field(description="default: relevance with a query, else cited_by_count")]),
        _parameter("limit", Annotated[int, Field(ge=1, le=MAX_LIST_LIMIT)], 10),
        _parameter("cursor", Annotated[str | None, Field(max_length=MAX_CURSOR_CHARS,
                                                         description="next_cursor from a previous result")]),
    ]
    tool.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return declare(ASKS_THE_APIS, EntityPage)(tool)


def make_get_tool(kind: EntityKind):
    async def tool(id: str):
        return await entity_get(kind, id)

    tool.__name__ = f"{kind.name}_get"
    extra = "".join(f" or {name.upper()}" for name in kind.external_ids)
    tool.__doc__ = (f"Get one OpenAlex {kind.name} complete: the full record as OpenAlex gives it (ids, counts by "
                    f"year, topics and the rest), with only its longest lists shortened if it would pass the result "
                    f"budget (\"shortened\" says which). Use it after {kind.name}_list, or with an id the user gave. "
                    f"Free of OpenAlex credits.")
    tool.__signature__ = inspect.Signature([inspect.Parameter(  # type: ignore[attr-defined]
        "id", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[str, Field(
            min_length=1, max_length=200, description=f"an OpenAlex {kind.name} id ({kind.letter}…){extra}")])])
    return declare(ASKS_THE_APIS, EntityRecord)(tool)


async def entity_list(kind: EntityKind, tool: Any, arguments: dict[str, Any]):
    cursor = arguments.pop("cursor", None)
    start, offset, api_cursor = 1, 0, None
    if cursor:
        resumed = resume(tool, cursor)
        arguments, offset = resumed.arguments, resumed.offset
        start, api_cursor = resumed.extra.get("start"), resumed.extra.get("api")
        if type(start) is not int or not 1 <= start <= MAX_START or not (
                api_cursor is None or (isinstance(api_cursor, str) and 0 < len(api_cursor) <= MAX_API_CURSOR)):
            raise UsageError("the cursor's place in the OpenAlex list is not one this server gives; run the call "
                             "again without a cursor")
    query = (arguments.get("query") or "").strip() or None
    sort = arguments.get("sort")
    aliases = {alias: arguments.get(alias) for alias in LIST_ALIASES[kind.name]}
    page, notes = await current().online(lambda http, _store: entity_page(
        http.session("openalex"), kind, query=query, aliases=aliases, raw=arguments.get("filter"),
        sort=None if sort in (None, "relevance") else f"{sort}:desc", limit=arguments.get("limit") or 10,
        cursor=api_cursor))
    items = page.items[offset:]
    first = start + offset

    def result(count: int) -> tuple[str, dict[str, Any]]:
        from ..render.entities import entity_list_markdown

        if count < len(items):  # the rest of this OpenAlex page
            following = encode_cursor(f"{kind.name}_list", arguments, offset + count, {"start": start,
                                                                                      "api": api_cursor})
        elif page.next_cursor:
            following = encode_cursor(f"{kind.name}_list", arguments, 0, {"start": first + count,
                                                                         "api": page.next_cursor})
        else:
            following = None
        data = {"entity": kind.name, "query": query, "count": page.count, "filters": notes,
                "results": items[:count], "next_cursor": following}
        text = entity_list_markdown(kind, items[:count], query=query, count=page.count, notes=notes,
                                    more="pass next_cursor for the next page" if following else None, first=first)
        return text, data

    count = largest_fit(len(items), lambda n: result_size(*result(n)), current().max_chars) if items else 0
    return tool_result(*result(count))


async def entity_get(kind: EntityKind, entity_id: str):
    from ..render.entities import entity_markdown

    record = await current().online(lambda http, _store: get_entity(http.session("openalex"), kind, entity_id))
    text = entity_markdown(kind, record)
    budget = current().max_chars - len(text) - 200
    shortened_record, shortened = fit_record(record, max(budget, 1000))
    return tool_result(text, {"entity": kind.name, "record": shortened_record, "shortened": shortened})


def entity_tools() -> list:
    return [make_list_tool(KINDS[name]) for name in LIST_TOOLS] + [make_get_tool(KINDS[name]) for name in GET_TOOLS]
