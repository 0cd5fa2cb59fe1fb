"""OpenAlex entities parsed without I/O: a list page as slim summaries (the fields worth a
model's context, field for field as the explorer design chose them), one entity as the
complete record, and autocomplete answers.

Every value is coerced (a field of the wrong kind becomes None or [], never an exception)
and every string is made safe (no control, bidi or hidden characters)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi
from ..core.sanitize import safe_value
from ..core.text import plain_text
from ..core.urls import http_url
from ._common import api_error, as_count, as_dict, as_float, as_int, as_list, as_year, clean, json_object, parse_each
from .openalex_entity_kinds import KINDS, EntityKind, bare_orcid, bare_ror, short_id
from .openalex_parse import rebuild_abstract

TOP_TOPICS = 3  # an author's topics kept in a summary (a work has at most three)
WORK_AUTHORS = 10  # a work summary's author names; "et al." says there are more
ABSTRACT_CHARS = 4_000  # a work summary's abstract text, at most (longer ones end in "…")


def _names(values: Any, key: str = "display_name", limit: int | None = None) -> list[str]:
    names = [name for name in (clean(as_dict(item).get(key)) for item in as_list(values)) if name]
    return names[:limit] if limit is not None else names


def _name_of(value: Any) -> str | None:
    return clean(as_dict(value).get("display_name"))


def _h_index(obj: dict[str, Any]) -> int | None:
    return as_count(as_dict(obj.get("summary_stats")).get("h_index"))


def _total(value: Any) -> int | None:
    """An entity's aggregate count: a whole number >= 0 (a funder's citations pass any cap a
    single paper's would meet: the NIH's exceed 15 million; a domain has 100 million works)."""
    number = as_int(value)
    return number if number is not None and 0 <= number < 10**13 else None


def _counts(obj: dict[str, Any]) -> dict[str, Any]:
    return {"works_count": _total(obj.get("works_count")), "cited_by_count": _total(obj.get("cited_by_count"))}


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _named(obj: dict[str, Any]) -> dict[str, Any]:
    return {"display_name": clean(obj.get("display_name"))}


def _capped(text: str | None, limit: int) -> str | None:
    return text if text is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _work(obj: dict[str, Any]) -> dict[str, Any]:
    source = as_dict(as_dict(obj.get("primary_location")).get("source"))
    access = as_dict(obj.get("open_access"))
    authors = _names([as_dict(entry).get("author") for entry in as_list(obj.get("authorships"))])
    return {"title": plain_text(clean(obj.get("display_name")) or clean(obj.get("title"))),
            "doi": normalize_doi(clean(obj.get("doi"))), "publication_year": as_year(obj.get("publication_year")),
            "type": clean(obj.get("type")),
            "authors": authors[:WORK_AUTHORS] + (["et al."] if len(authors) > WORK_AUTHORS else []),
            "journal": _name_of(source), "is_oa": _flag(access.get("is_oa")), "oa_url": http_url(access.get("oa_url")),
            "cited_by_count": _total(obj.get("cited_by_count")), "primary_topic": _name_of(obj.get("primary_topic")),
            "abstract_text": _capped(rebuild_abstract(obj.get("abstract_inverted_index")) or clean(obj.get("abstract")),
                                     ABSTRACT_CHARS)}


def _author(obj: dict[str, Any]) -> dict[str, Any]:
    return {**_named(obj), "orcid": bare_orcid(obj.get("orcid")), **_counts(obj), "h_index": _h_index(obj),
            "last_known_institutions": _names(obj.get("last_known_institutions")),
            "top_topics": _names(obj.get("topics"), limit=TOP_TOPICS)}


def _source(obj: dict[str, Any]) -> dict[str, Any]:
    return {**_named(obj), "issn_l": clean(obj.get("issn_l")), "type": clean(obj.get("type")),
            "is_oa": _flag(obj.get("is_oa")), "is_in_doaj": _flag(obj.get("is_in_doaj")), **_counts(obj),
            "h_index": _h_index(obj), "host_organization_name": clean(obj.get("host_organization_name"))}


def _institution(obj: dict[str, Any]) -> dict[str, Any]:
    return {**_named(obj), "ror": bare_ror(obj.get("ror")), "country_code": clean(obj.get("country_code")),
            "type": clean(obj.get("type")), "city": clean(as_dict(obj.get("geo")).get("city")), **_counts(obj),
            "h_index": _h_index(obj)}


def _topic(obj: dict[str, Any]) -> dict[str, Any]:
    level = {name: _name_of(obj.get(name)) for name in ("subfield", "field", "domain")}
    return {**_named(obj), "description": clean(obj.get("description")), **level, **_counts(obj)}


def _publisher(obj: dict[str, Any]) -> dict[str, Any]:
    codes = [code for code in (clean(c) for c in as_list(obj.get("country_codes"))) if code]
    return {**_named(obj), "hierarchy_level": as_count(obj.get("hierarchy_level")), "country_codes": codes,
            **_counts(obj)}


def _funder(obj: dict[str, Any]) -> dict[str, Any]:
    # Funders counted grants until OpenAlex renamed them awards; either spelling is read.
    awards = _total(obj.get("awards_count"))
    return {**_named(obj), "country_code": clean(obj.get("country_code")), "description": clean(obj.get("description")),
            "awards_count": awards if awards is not None else _total(obj.get("grants_count")), **_counts(obj)}


def _domain(obj: dict[str, Any]) -> dict[str, Any]:
    return {**_named(obj), "description": clean(obj.get("description")), "fields": _names(obj.get("fields")),
            **_counts(obj)}


def _field(obj: dict[str, Any]) -> dict[str, Any]:
    subfields = obj.get("subfields")
    return {**_named(obj), "description": clean(obj.get("description")), "domain": _name_of(obj.get("domain")),
            "subfield_count": len(subfields) if isinstance(subfields, list) else None, **_counts(obj)}


def _subfield(obj: dict[str, Any]) -> dict[str, Any]:
    return {**_named(obj), "description": clean(obj.get("description")), "field": _name_of(obj.get("field")),
            "domain": _name_of(obj.get("domain")), **_counts(obj)}


SUMMARIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "work": _work, "author": _author, "source": _source, "institution": _institution, "topic": _topic,
    "publisher": _publisher, "funder": _funder, "domain": _domain, "field": _field, "subfield": _subfield,
}


def summary(kind: EntityKind, obj: Any) -> dict[str, Any] | None:
    """One entity as its slim summary (its id first); None for an entry without a usable id
    of this kind. A nameless entity is named by its id (a work's missing title stays None)."""
    if not isinstance(obj, dict):
        return None
    entity_id = short_id(obj.get("id"))
    if not kind.owns(entity_id):
        return None
    brief = {"id": entity_id, **SUMMARIES[kind.name](obj)}
    if "display_name" in brief and not brief["display_name"]:
        brief["display_name"] = entity_id
    return safe_value(brief)


@dataclass
class EntityPage:
    """One page of a list: the summaries, the total OpenAlex counts, and its cursor for the
    next page (None on the last). ``skipped`` counts entries that could not be read."""

    items: list[dict[str, Any]]
    count: int | None = None
    next_cursor: str | None = None
    skipped: int = 0


def _payload(body: bytes | str) -> dict[str, Any]:
    payload = json_object(body)
    if "error" in payload and "results" not in payload and "id" not in payload:
        raise api_error(": ".join(str(payload.get(key)).strip() for key in ("error", "message") if payload.get(key)))
    return payload


def _scored(kind: EntityKind, obj: Any, with_score: bool) -> dict[str, Any] | None:
    brief = summary(kind, obj)
    if brief is not None and with_score:
        brief["relevance_score"] = as_float(as_dict(obj).get("relevance_score"))
    return brief


def parse_entity_page(kind: EntityKind, body: bytes | str, with_score: bool = False) -> EntityPage:
    """A /{entities} list answer as slim summaries (``with_score``: each with OpenAlex's
    ``relevance_score``, for a semantic search)."""
    payload = _payload(body)
    results = payload.get("results")
    if not isinstance(results, list):
        raise ProviderError("unexpected response ('results' is not a list)")
    items = parse_each(results, lambda obj, _position: _scored(kind, obj, with_score))
    meta = as_dict(payload.get("meta"))
    return EntityPage(list(items), _total(meta.get("count")), clean(meta.get("next_cursor")), items.skipped)


def parse_entity(kind: EntityKind, body: bytes | str) -> dict[str, Any]:
    """One /{entities}/{id} answer: the complete record as OpenAlex gives it, strings made
    safe, with its short id under ``id`` (the URL form stays under ``ids.openalex``). A
    work's ``abstract_inverted_index`` becomes ``abstract``, the same words in order."""
    payload = _payload(body)
    entity_id = short_id(payload.get("id"))
    if not kind.owns(entity_id):
        raise ProviderError(f"unexpected response (no {kind.name} id in the answer)")
    record = safe_value(payload)
    record["id"] = entity_id
    if kind.name == "work" and "abstract_inverted_index" in record:
        record = {("abstract" if name == "abstract_inverted_index" else name):
                  (rebuild_abstract(value) if name == "abstract_inverted_index" else value)
                  for name, value in record.items()}
    return record


def parse_autocomplete(body: bytes | str, kind: EntityKind | None = None) -> tuple[int | None, list[dict[str, Any]]]:
    """An /autocomplete/{entities} answer: (OpenAlex's count of matches, the short list as
    [{id, display_name, hint, cited_by_count, works_count, external_id}]), of ``kind`` only
    when it is given."""
    payload = _payload(body)
    found = []
    for obj in as_list(payload.get("results")):
        obj = as_dict(obj)
        entity_id = short_id(obj.get("id"))
        if entity_id and (kind is None or kind.owns(entity_id)):
            found.append(safe_value({"id": entity_id, "display_name": clean(obj.get("display_name")) or entity_id,
                                     "hint": clean(obj.get("hint")), **_counts(obj),
                                     "external_id": clean(obj.get("external_id"))}))
    return _total(as_dict(payload.get("meta")).get("count")), found


def top_match(candidates: list[dict[str, Any]], kind: EntityKind) -> dict[str, Any] | None:
    """The best resolution of a name: the candidate of the right kind with the most citations,
    or works where citations are not given (ties: the first given, OpenAlex's own order)."""
    right_kind = [c for c in candidates if kind.owns(str(c.get("id", "")))]
    if not right_kind:
        return None
    return max(right_kind, key=lambda c: (c.get("cited_by_count") or 0, c.get("works_count") or 0))
