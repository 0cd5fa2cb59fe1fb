"""The filter aliases of the seed design on a search: ``institution``, ``topic``, ``source``,
``publisher``, ``funder`` (an OpenAlex id or a name, resolved to the top match before the
providers run), ``country``, ``continent``, and ``type``, ``open``, ``year``, ``citations``
beside the explicit filters they stand for. An alias that disagrees with the explicit filter
it stands for is an error, never a silent overwrite."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core.errors import ProviderError, UsageError
from ..core.filters import ENTITY_FILTERS, OPENALEX_ONLY_FILTERS, Filters, build_filters, parse_count_range

if TYPE_CHECKING:  # the command line checks the aliases before any HTTP is loaded (--help stays fast)
    from ..net.http import HttpClient


def search_filters(*, year: str | None = None, since: str | None = None, until: str | None = None,
                   venue: str | None = None, author: str | None = None, open_access: bool | None = None,
                   types: list[str] | None = None, min_citations: int | None = None, preprints: bool | None = None,
                   open: bool | None = None, citations: str | None = None, country: list[str] | None = None,
                   continent: list[str] | None = None, flag_prefix: str = "--", **entities: str | None) -> Filters:
    """Filters from the explicit filters and the aliases (``entities``: source, institution,
    topic, publisher, funder). UsageError for a bad value or an alias that contradicts its
    explicit filter (``source``/``venue``, ``open``/``open_access``, ``citations``/``min_citations``)."""
    def flag(name: str) -> str:
        return flag_prefix + (name.replace("_", "-") if flag_prefix == "--" else name)

    given = {name: _typed(name, value, flag) for name, value in
             {"year": year, "since": since, "until": until, "venue": venue, "author": author,
              "open_access": open_access, "types": types, "min_citations": min_citations, "preprints": preprints,
              "open": open, "citations": citations, "country": country, "continent": continent,
              **entities}.items()}
    year, since, until, venue, author = (given[name] for name in ("year", "since", "until", "venue", "author"))
    open_access, types, min_citations, preprints, open = (given[name] for name in
                                                          ("open_access", "types", "min_citations", "preprints", "open"))
    citations, country, continent = given["citations"], given["country"], given["continent"]
    entities = {name: given[name] for name in entities}
    venue_given = (venue or "").strip()
    source_given = (entities.get("source") or "").strip()
    if venue_given and source_given and venue_given.casefold() != source_given.casefold():
        raise UsageError(f"{flag('source')} {source_given!r} and {flag('venue')} {venue_given!r} disagree; "
                         f"give one of them ({flag('source')} is an OpenAlex source, {flag('venue')} a name)")
    if open is not None and open_access is not None and open != open_access:
        raise UsageError(f"{flag('open')} and {flag('open_access')} disagree; give one of them")
    low = high = None
    try:
        if citations is not None and str(citations).strip():
            low, high = parse_count_range(str(citations), flag("citations"))
        if min_citations is not None and citations:
            if low != min_citations:
                raise UsageError(f"{flag('citations')} {citations!r} and {flag('min_citations')} {min_citations} "
                                 "disagree; give one of them")
        return build_filters(year=year, since=since, until=until, venue=None if source_given else venue_given,
                             author=author, open_access=bool(open or open_access), types=types, preprints=preprints,
                             min_citations=low if low is not None else min_citations, max_citations=high,
                             countries=country, continents=continent,
                             **{name: entities.get(name) for name in ENTITY_FILTERS})
    except ValueError as error:
        raise UsageError(str(error) if flag_prefix == "--" else _renamed(str(error), flag_prefix)) from None


def _renamed(message: str, prefix: str) -> str:
    """A filter's message in the command line's words (--min-citations, --type) as another door
    names the filter: filters.min_citations for the MCP tools, min_citations and types in Python."""
    def named(match: re.Match) -> str:
        name = match[1].replace("-", "_")
        return prefix + ("types" if name == "type" and not prefix else name)

    return re.sub(r"(?<![\w-])--([a-z][a-z-]*)", named, message)


# The filters by the kind of value each takes. A door whose values are typed already (the command
# line's parser, the MCP tools' schemas) passes these checks; a Python caller's slip (year=2005,
# types="review", preprints="no") is taken as meant where that is plain, else refused in words,
# never iterated letter by letter nor read as true.
TEXT_FILTERS = frozenset({"year", "since", "until", "venue", "author", "citations", *ENTITY_FILTERS})
YES_NO_FILTERS = frozenset({"open_access", "preprints", "open"})
LIST_FILTERS = frozenset({"types", "country", "continent"})


def _typed(name: str, value, flag):
    """``value`` of the filter ``name`` as its kind is (one text is a list of one; a year a
    number or text), or UsageError naming the filter by ``flag``."""
    if value is None:
        return None
    kind = type(value).__name__
    if name in ("year", "citations") and type(value) is int:
        return str(value)
    if name in TEXT_FILTERS:
        if not isinstance(value, str):
            raise UsageError(f"{flag(name)} takes text, not {kind} {value!r}")
    elif name in YES_NO_FILTERS:
        if not isinstance(value, bool):
            raise UsageError(f"{flag(name)} is True or False, not {kind} {value!r}")
    elif name in LIST_FILTERS:
        if isinstance(value, str):
            return [value]
        if isinstance(value, (bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
            raise UsageError(f"{flag(name)} takes a name or a list of names, not {kind}")
        value = list(value)
        if not all(isinstance(item, str) for item in value):
            raise UsageError(f"{flag(name)} takes names as text, not {value!r}")
    elif name == "min_citations" and type(value) is not int:
        raise UsageError(f"{flag(name)} takes a whole number, not {kind} {value!r}")
    return value


def check_providers(filters: Filters, providers: list[str] | None) -> None:
    """A filter only OpenAlex can apply, with OpenAlex left out of the chosen providers,
    would silently remove every paper: refused instead."""
    only_openalex = [name for name in filters.active() if name in OPENALEX_ONLY_FILTERS]
    if only_openalex and providers is not None and "openalex" not in providers:
        raise UsageError(f"only OpenAlex can apply the {', '.join(only_openalex)} filter; "
                         "add openalex to the providers")


async def resolve_filters(http: HttpClient, filters: Filters) -> Filters:
    """``filters`` with each entity filter resolved to its OpenAlex id and name (one lookup
    each, free of credits; an id is looked up for its name). UsageError when a name matches
    nothing; ProviderError when OpenAlex cannot be asked."""
    from ..providers.openalex_entities import resolve_entity
    from ..providers.openalex_entity_kinds import api_entity_id, kind_named

    pending = [name for name in ENTITY_FILTERS if getattr(filters, name) and name not in filters.resolved]
    if not pending:
        return filters
    session = http.session("openalex")
    for name in pending:
        kind, given = kind_named(name), getattr(filters, name)
        try:
            entity_id, display = await resolve_entity(session, kind, given)
        except ProviderError:
            given_id = api_entity_id(kind, given)
            if given_id is None or ":" in given_id:  # a name (or an external id) needs its answer
                raise
            entity_id, display = given_id, given_id  # an OpenAlex id filters as it is; its name is a nicety
        filters = filters.with_resolution(name, entity_id, display)
    return filters


def only_openalex_note(name: str, others: list[str]) -> str:
    """What the footer says of a filter only OpenAlex can apply, after the other providers."""
    return (f"only OpenAlex can apply it: papers from {', '.join(others)} are kept only where OpenAlex "
            "found them too")
