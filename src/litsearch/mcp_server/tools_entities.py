"""The OpenAlex explorer's tools, made from one table so every entity has the same shape:
``{entity}_list`` (search and filter, slim summaries, cursor paging), ``{entity}_get`` (one
entity complete), ``{entity}_autocomplete`` (the short list of names) and ``work_find``
(works by meaning). Each tool's schema is built from its entity's filter aliases; a cursor
comes back signed and its arguments pass that same schema again (mcp_server/cursors.py)."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Callable, Literal

from pydantic import Field, WithJsonSchema

from ..core.errors import UsageError
from ..providers.openalex_declaration import SEMANTIC_MAX_RESULTS
from ..providers.openalex_entities import MAX_LIST_LIMIT, MAX_SEMANTIC_CHARS
from ..providers.openalex_entity_filters import FIND_ALIASES, LIST_ALIASES, lists_filtering_by
from ..providers.openalex_entity_kinds import KINDS, EntityKind
from .conduct import ASKS_THE_APIS, declare
from .cursors import MAX_CURSOR_CHARS, encode_cursor, resume
from .entity_words import FIND_DESCRIPTION, autocomplete_description, get_description, list_description
from .outputs import EntityMatches, EntityPage, EntityRecord
from .paging import fit_record, largest_fit
from .runtime import current, result_size, tool_result

# A list cursor's bookmarks: the rank of the page's first row, and OpenAlex's own cursor.
MAX_START = 1_000_000
MAX_API_CURSOR = 2_000

TYPE_EXAMPLES = {"work": "article, review, preprint, book-chapter", "source": "journal, repository, conference",
                 "institution": "education, company, healthcare"}
ALIAS_SCHEMA = {
    "count": (str, "{what}: 100 (at least), >100, <50, 100-500"),
    "year": (str, "publication year: 2020, 2018-2020, 2018- or -2015"),
    "country": (list, "ISO country codes (DE, US) of {what}"),
    "continent": (list, "continents of {what} (europe, asia, north_america, …)"),
    "flag": (bool, "true: {what}; false or unset: no filter"),
    "text": (str, "OpenAlex type, e.g. {what}"),
}
_JSON_TYPES = {str: "string", bool: "boolean", list: "array"}
ALIAS_WORDS = {"citations": "cited-by count", "works": "works count", "h_index": "h-index", "open": "open access only"}
PLACE_WORDS = {"work": "authors' institutions", "author": "last known institution"}


def nullable(value_type: type, description: str, max_length: int | None = None) -> Any:
    """An optional argument whose schema says ``"type": ["string", "null"]``: the same contract as
    pydantic's anyOf form in half the characters (the tools/list answer goes into every context)."""
    schema: dict[str, Any] = {"type": [_JSON_TYPES[value_type], "null"], "description": description}
    if value_type is list:
        schema["items"] = {"type": "string"}
    if max_length:
        schema["maxLength"] = max_length
    annotation = list[str] if value_type is list else value_type
    return Annotated[annotation | None, Field(max_length=max_length), WithJsonSchema(schema)]


Cursor = nullable(str, "next_cursor from a previous result", MAX_CURSOR_CHARS)


def _parameter(name: str, annotation: Any, default: Any = None) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def _alias_parameter(kind: EntityKind, alias: str, value_kind: str) -> inspect.Parameter:
    if value_kind.startswith("entity:"):
        target = KINDS[value_kind.split(":", 1)[1]]
        return _parameter(alias, nullable(str, f"{target.name}: id ({target.id_hint}) or name (the top match)"))
    value_type, text = ALIAS_SCHEMA[value_kind]
    what = (TYPE_EXAMPLES.get(kind.name, "") if value_kind == "text" else
            PLACE_WORDS.get(kind.name, "the " + kind.name) if value_kind in ("country", "continent") else
            ALIAS_WORDS.get(alias, alias))
    return _parameter(alias, nullable(value_type, text.format(what=what)))


def _aliases(kind: EntityKind, aliases: dict[str, tuple[str, str]]) -> list[inspect.Parameter]:
    return [_alias_parameter(kind, alias, value_kind) for alias, (_, value_kind) in aliases.items()]


def _raw_filter() -> inspect.Parameter:
    return _parameter("filter", nullable(str, "a raw OpenAlex filter, e.g. has_orcid:true", 1000))


def _tool(name: str, description: str, parameters: list[inspect.Parameter], output: type,
          run: Callable[[Any, dict[str, Any]], Any]):
    """A tool function whose signature is ``parameters`` (the schema); ``run(tool, arguments)``."""
    async def tool(**arguments: Any):
        return await run(tool, arguments)

    tool.__name__ = name
    tool.__doc__ = description
    tool.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return declare(ASKS_THE_APIS, output)(tool)


def make_list_tool(kind: EntityKind):
    aliases = LIST_ALIASES[kind.name]
    parameters = [
        _parameter("query", nullable(str, "words to search for", 300)),
        *_aliases(kind, aliases), _raw_filter(),
        _parameter("sort", Annotated[Literal["relevance", *kind.sorts] | None,  # type: ignore[valid-type]
                                     Field(description="default: relevance with a query, else cited_by_count")]),
        _parameter("limit", Annotated[int, Field(ge=1, le=MAX_LIST_LIMIT)], 10),
        _parameter("cursor", Cursor),
    ]
    return _tool(f"{kind.name}_list", list_description(kind), parameters, EntityPage,
                 lambda tool, arguments: entity_list(kind, tool, arguments))


def make_get_tool(kind: EntityKind):
    extra = ", DOI, PMID or PMCID" if kind.name == "work" else ""
    parameters = [_parameter("id", Annotated[str, Field(min_length=1, max_length=300, description=(
        f"an OpenAlex {kind.name} id ({kind.id_hint}{extra})"))], inspect.Parameter.empty)]
    return _tool(f"{kind.name}_get", get_description(kind), parameters, EntityRecord,
                 lambda _tool, arguments: entity_get(kind, arguments["id"]))


def make_autocomplete_tool(kind: EntityKind):
    parameters = [_parameter("query", Annotated[str, Field(min_length=1, max_length=200, description=(
        "the typed text (a name or its start; an id or DOI is matched too)"))], inspect.Parameter.empty)]
    return _tool(f"{kind.name}_autocomplete", autocomplete_description(kind), parameters, EntityMatches,
                 lambda _tool, arguments: entity_autocomplete(kind, arguments["query"]))


def make_find_tool():
    parameters = [
        _parameter("query", Annotated[str, Field(min_length=1, max_length=MAX_SEMANTIC_CHARS, description=(
            "what the works should be about: a question, an abstract or a paragraph"))], inspect.Parameter.empty),
        *_aliases(KINDS["work"], FIND_ALIASES), _raw_filter(),
        _parameter("limit", Annotated[int, Field(ge=1, le=SEMANTIC_MAX_RESULTS)], 10),
        _parameter("cursor", Cursor),
    ]
    return _tool("work_find", FIND_DESCRIPTION, parameters, EntityPage, work_find)


async def entity_list(kind: EntityKind, tool: Any, arguments: dict[str, Any]):
    from ..providers.openalex_entities import entity_page
    from ..render.entities import entity_list_markdown

    tool_name = f"{kind.name}_list"
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
    if sort == "relevance" and not query:
        raise UsageError("sort relevance needs a query")
    aliases = {alias: arguments.get(alias) for alias in LIST_ALIASES[kind.name]}
    page, notes = await current().online(lambda http, _store: entity_page(
        http.session("openalex"), kind, query=query, aliases=aliases, raw=arguments.get("filter"),
        sort=None if sort in (None, "relevance") else f"{sort}:desc", limit=arguments.get("limit") or 10,
        cursor=api_cursor))
    items = page.items[offset:]
    first = start + offset

    def result(count: int) -> tuple[str, dict[str, Any]]:
        if count < len(items):  # the rest of this OpenAlex page
            following = encode_cursor(tool_name, arguments, offset + count, {"start": start, "api": api_cursor})
        elif page.next_cursor:
            following = encode_cursor(tool_name, arguments, 0, {"start": first + count, "api": page.next_cursor})
        else:
            following = None
        data = {"entity": kind.name, "query": query, "count": page.count, "filters": notes,
                "results": items[:count], "next_cursor": following}
        text = entity_list_markdown(kind, items[:count], query=query, count=page.count, notes=notes,
                                    more="pass next_cursor for the next page" if following else None, first=first)
        return text, data

    return tool_result(*result(_fitting(len(items), result)))


def _fitting(count: int, result: Callable[[int], tuple[str, dict[str, Any]]]) -> int:
    """How many of ``count`` items fit the result bound (at least one, so a page moves on)."""
    return largest_fit(count, lambda n: result_size(*result(n)), current().max_chars) if count else 0


async def entity_get(kind: EntityKind, entity_id: str):
    from ..providers.openalex_entities import get_entity
    from ..render.entities import entity_markdown

    record = await current().online(lambda http, _store: get_entity(http.session("openalex"), kind, entity_id))
    text = entity_markdown(kind, record)
    budget = current().max_chars - len(text) - 200
    shortened_record, shortened = fit_record(record, max(budget, 1000))
    return tool_result(text, {"entity": kind.name, "record": shortened_record, "shortened": shortened})


async def entity_autocomplete(kind: EntityKind, text: str):
    from ..providers.openalex_entities import autocomplete
    from ..render.entities import autocomplete_markdown

    typed = " ".join(text.split())
    if not typed:
        raise UsageError(f"{kind.name}_autocomplete needs some text to complete")
    count, items = await current().online(lambda http, _store: autocomplete(http.session("openalex"), kind, typed))
    lists = ", ".join(f"{name}_list" for name in lists_filtering_by(kind.name))
    next_step = f"{kind.name}_get ID for the whole record" + (f"; or the {kind.name} filter of {lists}" if lists else "")
    return tool_result(autocomplete_markdown(kind, typed, items, count, next_step),
                       {"entity": kind.name, "query": typed, "count": count, "results": items})


async def work_find(tool: Any, arguments: dict[str, Any]):
    from ..providers.openalex_entities import NAME, find_works
    from ..render.entities import entity_list_markdown

    cursor = arguments.pop("cursor", None)
    offset = 0
    if cursor:
        resumed = resume(tool, cursor)
        arguments, offset = resumed.arguments, resumed.offset
    query = " ".join(arguments["query"].split())
    aliases = {alias: arguments.get(alias) for alias in FIND_ALIASES}
    # A cursor runs the same call again: answered from the response cache, no new request.
    page, notes = await current().online(lambda http, _store: find_works(
        http.session(NAME), query, aliases=aliases, raw=arguments.get("filter"), limit=arguments.get("limit") or 10))
    items = page.items[offset:]

    def result(count: int) -> tuple[str, dict[str, Any]]:
        following = encode_cursor("work_find", arguments, offset + count) if count < len(items) else None
        data = {"entity": "work", "query": query, "count": page.count, "filters": notes, "results": items[:count],
                "next_cursor": following}
        text = entity_list_markdown(KINDS["work"], items[:count], query=None, count=None, notes=notes,
                                    more="pass next_cursor for the rest" if following else None, first=offset + 1,
                                    heading="OpenAlex works closest in meaning to the text given")
        return text, data

    return tool_result(*result(_fitting(len(items), result)))


def entity_tools() -> list:
    """Every explorer tool, grouped by entity (works first, then the design's order), one per
    action the entity has (EntityKind.actions, which its command offers too)."""
    makers = {"list": make_list_tool, "get": make_get_tool, "find": lambda _kind: make_find_tool(),
              "autocomplete": make_autocomplete_tool}
    return [makers[action](kind) for kind in KINDS.values() for action in kind.actions]
