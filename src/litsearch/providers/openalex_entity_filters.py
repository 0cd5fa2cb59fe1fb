"""The filters of OpenAlex's lists: the explorer design's aliases for each entity (works 14,
authors 6, sources 7, institutions 5, topics 5, publishers 4, funders 4, domains 1, fields 2,
subfields 3), the /works filters a search's entity and place filters become, and one
``filter=`` value built from aliases and a raw filter.

An alias and a raw filter that set the same field are an error, never a silent overwrite;
"the same field" includes the other names OpenAlex takes for it (``is_oa`` and
``open_access.is_oa``), so an alias cannot be contradicted under another spelling."""

from __future__ import annotations

import re
from typing import Any, Awaitable, Callable, Mapping

from ..core.errors import UsageError
from ..core.filters import Filters, build_filters, parse_count_range, parse_year_range
from .openalex_entity_kinds import KINDS, EntityKind
from .openalex_query import name_search_text

# The /works filter each search filter becomes (the seed design's keys).
WORKS_FILTERS = {
    "source": "primary_location.source.id",
    "institution": "authorships.institutions.lineage",  # the institution or any part of it
    "topic": "primary_topic.id",
    "publisher": "primary_location.source.publisher_lineage",
    "funder": "funders.id",
}

# alias -> (OpenAlex filter, value kind). "entity:<kind>" is an id or a name, resolved to its
# id; "count" takes parse_count_range's forms, "year" parse_year_range's; "country" and
# "continent" are checked; "flag" is true or false; "text" passes a word (a type) as given.
_PLACE = {"country": ("country_code", "country"), "continent": ("continent", "continent")}
_COUNTS = {"citations": ("cited_by_count", "count"), "works": ("works_count", "count")}
_WORKS = {"works": ("works_count", "count")}
LIST_ALIASES: dict[str, dict[str, tuple[str, str]]] = {
    "work": {"author": ("authorships.author.id", "entity:author"), "topic": ("primary_topic.id", "entity:topic"),
             "domain": ("primary_topic.domain.id", "entity:domain"), "field": ("primary_topic.field.id", "entity:field"),
             "subfield": ("primary_topic.subfield.id", "entity:subfield"),
             "publisher": ("primary_location.source.publisher_lineage", "entity:publisher"),
             "source": ("primary_location.source.id", "entity:source"),
             "institution": ("authorships.institutions.lineage", "entity:institution"),
             "year": ("publication_year", "year"), "citations": ("cited_by_count", "count"),
             "country": ("authorships.institutions.country_code", "country"),
             "continent": ("authorships.institutions.continent", "continent"),
             "type": ("type", "text"), "open": ("is_oa", "flag")},
    "author": {"institution": ("last_known_institutions.id", "entity:institution"),
               "country": ("last_known_institutions.country_code", "country"),
               "continent": ("last_known_institutions.continent", "continent"),
               **_COUNTS, "h_index": ("summary_stats.h_index", "count")},
    "source": {"publisher": ("host_organization_lineage", "entity:publisher"), **_PLACE,
               "type": ("type", "text"), "open": ("is_oa", "flag"), **_COUNTS},
    "institution": {**_PLACE, "type": ("type", "text"), **_COUNTS},
    "topic": {"domain": ("domain.id", "entity:domain"), "field": ("field.id", "entity:field"),
              "subfield": ("subfield.id", "entity:subfield"), **_COUNTS},
    "publisher": {"country": ("country_codes", "country"), "continent": ("continent", "continent"), **_COUNTS},
    "funder": {**_PLACE, **_COUNTS},
    "domain": dict(_WORKS),
    "field": {"domain": ("domain.id", "entity:domain"), **_WORKS},
    "subfield": {"domain": ("domain.id", "entity:domain"), "field": ("field.id", "entity:field"), **_WORKS},
}
# OpenAlex's semantic search takes neither a citation-count nor a country filter
# (help.openalex.org/api/semantic-search): work_find offers the other work aliases.
SEMANTIC_REFUSED = ("cited_by_count", "country_code")
FIND_ALIASES = {alias: spec for alias, spec in LIST_ALIASES["work"].items()
                if not spec[0].endswith(SEMANTIC_REFUSED)}

# Other names OpenAlex takes for an alias's field (../shared/reference/apis-more.md section 6).
SYNONYMS = {
    "authorships.author.id": ("author.id",),
    "authorships.institutions.lineage": ("institutions.lineage",),
    "authorships.institutions.country_code": ("institutions.country_code",),
    "authorships.institutions.continent": ("institutions.continent",),
    "primary_location.source.id": ("journal",),
    "is_oa": ("open_access.is_oa",),
    "host_organization_lineage": ("host_organization",),
}

PLACE_ARGUMENTS = {"country": "countries", "continent": "continents"}  # build_filters' names
Resolver = Callable[[EntityKind, str], Awaitable[tuple[str, str]]]


def lists_filtering_by(kind_name: str) -> list[str]:
    """The entities whose lists take an id of ``kind_name`` as a filter (subfield: work, topic)."""
    return [other for other, aliases in LIST_ALIASES.items()
            if aliases.get(kind_name, ("", ""))[1] == f"entity:{kind_name}"]


def count_filter(key: str, low: int | None, high: int | None) -> str:
    """``key:>99``, ``key:<51``, ``key:100-500`` for an inclusive range, ``key:2020`` for one value."""
    if low is not None and high is not None:
        return f"{key}:{low}" if low == high else f"{key}:{low}-{high}"
    if low is not None:
        return f"{key}:>{low - 1}" if low > 0 else f"{key}:>-1"
    return f"{key}:<{(high or 0) + 1}"


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


def searchable_filter(raw: str | None, notes: list[str]) -> str | None:
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


def filter_keys(expression: str) -> set[str]:
    """The filter names in a raw ``filter=`` value (``a:1,b:!2`` -> {a, b})."""
    return {part.split(":", 1)[0].strip().lower() for part in re.split(r",(?![^()]*\))", expression) if ":" in part}


def _same_field(key: str) -> set[str]:
    return {key.lower(), *(name.lower() for name in SYNONYMS.get(key, ()))}


async def filter_expression(known: Mapping[str, tuple[str, str]], what: str, aliases: Mapping[str, Any],
                            raw: str | None, resolve: Resolver | None) -> tuple[str, list[str]]:
    """The ``filter=`` of a list from its ``known`` aliases' values and a raw OpenAlex filter,
    and one line per resolved entity (``resolve`` turns an entity's id or name into (id,
    display name)). UsageError for an alias ``what`` does not take, a malformed value, or an
    alias whose field the raw value also sets."""
    notes: list[str] = []
    raw = searchable_filter(raw, notes)
    # Unset, empty, or a flag set false (the design's flags filter only when true) add nothing.
    given = {alias: value for alias, value in aliases.items() if value is not None and value != "" and value != []
             and not (value is False and known.get(alias, ("", ""))[1] == "flag")}
    taken = filter_keys(raw or "")
    for alias in given:  # every alias checked before any is resolved: a refusal costs no request
        if alias not in known:
            raise UsageError(f"{what} takes no {alias!r} filter; it takes {', '.join(known)}")
        if _same_field(known[alias][0]) & taken:
            raise UsageError(f"the {alias} filter and the raw filter both set {known[alias][0]}; give one of them")
    # Values read without a request first, so a malformed one is refused before any lookup.
    built = {alias: _value_part(alias, *known[alias], value) for alias, value in given.items()
             if not known[alias][1].startswith("entity:")}
    for alias, value in given.items():
        if alias not in built:
            built[alias] = await _entity_part(resolve, alias, *known[alias], value, notes)
    parts = ([raw.strip()] if raw and raw.strip() else []) + [built[alias] for alias in given]
    return ",".join(parts), notes


async def _entity_part(resolve: Resolver | None, alias: str, key: str, value_kind: str, value: Any,
                       notes: list[str]) -> str:
    if resolve is None:
        raise UsageError(f"the {alias} filter needs an OpenAlex lookup")
    kind = KINDS[value_kind.split(":", 1)[1]]
    entity_id, display = await resolve(kind, str(value))
    notes.append(f"{alias} {str(value)!r} → {display} ({entity_id})")
    return f"{key}:{kind.filter_value(entity_id)}"


def _value_part(alias: str, key: str, value_kind: str, value: Any) -> str:
    if value_kind == "count":
        low, high = _checked(lambda: parse_count_range(str(value), f"--{alias.replace('_', '-')}"))
        return count_filter(key, low, high)
    if value_kind == "year":
        start, end = _checked(lambda: parse_year_range(str(value)))
        return count_filter(key, start.year if start else None, end.year if end else None)
    if value_kind == "flag":
        if not isinstance(value, bool):
            raise UsageError(f"the {alias} filter is true or false, not {value!r}")
        return f"{key}:{str(value).lower()}"
    if value_kind in ("country", "continent"):
        values = value if isinstance(value, list) else [value]
        places = _checked(lambda: build_filters(**{PLACE_ARGUMENTS[value_kind]: values}))
        chosen = places.countries if value_kind == "country" else places.continents
        return f"{key}:" + "|".join(item.lower() for item in chosen)
    text = str(value).strip()
    if not re.fullmatch(r"[\w.-]+(?:\|[\w.-]+)*", text):
        raise UsageError(f"the {alias} filter takes a word such as article, journal or education, not {value!r}")
    return f"{key}:{text}"


def _checked(parse: Callable[[], Any]) -> Any:
    try:
        return parse()
    except ValueError as error:
        raise UsageError(str(error)) from None


def semantic_refusals(raw: str | None) -> list[str]:
    """The filter names of a raw filter OpenAlex's semantic search does not take."""
    return sorted(key for key in filter_keys(raw or "") if key.endswith(SEMANTIC_REFUSED))
