"""OpenAlex entities (authors, sources, institutions, topics, publishers, funders), parsed
without I/O: which entities there are and how their ids look, a list page as slim summaries
(the fields worth a model's context, as the seed design chose them), one entity as the
complete record, and autocomplete answers for name resolution.

Every value is coerced (a field of the wrong kind becomes None or [], never an exception)
and every string is made safe (no control, bidi or hidden characters)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.errors import ProviderError
from ..core.sanitize import safe_value
from ._common import api_error, as_count, as_dict, as_int, as_list, clean, json_object, parse_each

TOP_TOPICS = 3  # an author's topics kept in a summary (a work has at most three)
_OPENALEX_URL = re.compile(r"^https?://(?:www\.)?openalex\.org/", re.I)


def short_id(value: Any) -> str | None:
    """``https://openalex.org/A5023888391`` -> ``A5023888391`` (None when it is no id)."""
    text = clean(value)
    if not text:
        return None
    bare = _OPENALEX_URL.sub("", text).strip("/")
    match = re.fullmatch(r"([A-Za-z])(\d+)", bare)
    return f"{match.group(1).upper()}{match.group(2)}" if match else None


def _names(values: Any, key: str = "display_name", limit: int | None = None) -> list[str]:
    names = [name for name in (clean(as_dict(item).get(key)) for item in as_list(values)) if name]
    return names[:limit] if limit is not None else names


def _h_index(obj: dict[str, Any]) -> int | None:
    return as_count(as_dict(obj.get("summary_stats")).get("h_index"))


def _bare_orcid(value: Any) -> str | None:
    match = re.search(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", clean(value) or "", re.I)
    return match.group(1).upper() if match else None


def _bare_ror(value: Any) -> str | None:
    match = re.search(r"(?:ror\.org/)?(0[a-z0-9]{6}\d{2})$", clean(value) or "", re.I)
    return match.group(1).lower() if match else None


def _total(value: Any) -> int | None:
    """An entity's aggregate count: a whole number >= 0 (a funder's citations pass any cap a
    single paper's would meet: the NIH's exceed 15 million)."""
    number = as_int(value)
    return number if number is not None and 0 <= number < 10**13 else None


def _counts(obj: dict[str, Any]) -> dict[str, Any]:
    return {"works_count": _total(obj.get("works_count")), "cited_by_count": _total(obj.get("cited_by_count"))}


def _author(obj: dict[str, Any]) -> dict[str, Any]:
    return {"orcid": _bare_orcid(obj.get("orcid")), **_counts(obj), "h_index": _h_index(obj),
            "last_known_institutions": _names(obj.get("last_known_institutions")),
            "top_topics": _names(obj.get("topics"), limit=TOP_TOPICS)}


def _source(obj: dict[str, Any]) -> dict[str, Any]:
    return {"issn_l": clean(obj.get("issn_l")), "type": clean(obj.get("type")), "is_oa": _flag(obj.get("is_oa")),
            "is_in_doaj": _flag(obj.get("is_in_doaj")), **_counts(obj), "h_index": _h_index(obj),
            "host_organization_name": clean(obj.get("host_organization_name"))}


def _institution(obj: dict[str, Any]) -> dict[str, Any]:
    return {"ror": _bare_ror(obj.get("ror")), "country_code": clean(obj.get("country_code")),
            "type": clean(obj.get("type")), "city": clean(as_dict(obj.get("geo")).get("city")), **_counts(obj),
            "h_index": _h_index(obj)}


def _topic(obj: dict[str, Any]) -> dict[str, Any]:
    level = {name: clean(as_dict(obj.get(name)).get("display_name")) for name in ("subfield", "field", "domain")}
    return {"description": clean(obj.get("description")), **level, **_counts(obj)}


def _publisher(obj: dict[str, Any]) -> dict[str, Any]:
    codes = [code for code in (clean(c) for c in as_list(obj.get("country_codes"))) if code]
    return {"hierarchy_level": as_count(obj.get("hierarchy_level")), "country_codes": codes, **_counts(obj)}


def _funder(obj: dict[str, Any]) -> dict[str, Any]:
    # Funders counted grants until OpenAlex renamed them awards; either spelling is read.
    awards = _total(obj.get("awards_count"))
    return {"country_code": clean(obj.get("country_code")), "description": clean(obj.get("description")),
            "awards_count": awards if awards is not None else _total(obj.get("grants_count")), **_counts(obj)}


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


@dataclass(frozen=True)
class EntityKind:
    """One OpenAlex entity type: its endpoint, id letter, the root fields a list asks for
    (``select``; None = all) and the fields its slim summary keeps."""

    name: str  # singular, as in the tool and command names: "author"
    path: str  # "/authors"
    letter: str  # "A"
    summarize: Callable[[dict[str, Any]], dict[str, Any]]
    select: tuple[str, ...] | None = None
    sorts: tuple[str, ...] = ("cited_by_count", "works_count")
    external_ids: dict[str, str] = field(default_factory=dict)  # what else /{path}/{prefix}:{value} takes

    @property
    def plural(self) -> str:
        return self.path.strip("/")


_COMMON = ("id", "display_name", "works_count", "cited_by_count")
KINDS: dict[str, EntityKind] = {kind.name: kind for kind in (
    EntityKind("author", "/authors", "A", _author,
               select=_COMMON + ("orcid", "summary_stats", "last_known_institutions", "topics"),
               external_ids={"orcid": "orcid"}),
    EntityKind("source", "/sources", "S", _source,
               select=_COMMON + ("issn_l", "type", "is_oa", "is_in_doaj", "summary_stats", "host_organization_name"),
               external_ids={"issn": "issn"}),
    EntityKind("institution", "/institutions", "I", _institution,
               select=_COMMON + ("ror", "country_code", "type", "geo", "summary_stats"),
               external_ids={"ror": "ror"}),
    # Topics, publishers and funders are small records: asked whole, so a renamed field costs nothing.
    EntityKind("topic", "/topics", "T", _topic),
    EntityKind("publisher", "/publishers", "P", _publisher),
    EntityKind("funder", "/funders", "F", _funder),
)}


def summary(kind: EntityKind, obj: Any) -> dict[str, Any] | None:
    """One entity as its slim summary; None for an entry without a usable id."""
    if not isinstance(obj, dict):
        return None
    entity_id = short_id(obj.get("id"))
    if not entity_id or not entity_id.startswith(kind.letter):
        return None
    return safe_value({"id": entity_id, "display_name": clean(obj.get("display_name")) or entity_id,
                       **kind.summarize(obj)})


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


def parse_entity_page(kind: EntityKind, body: bytes | str) -> EntityPage:
    """A /{entities} list answer as slim summaries."""
    payload = _payload(body)
    results = payload.get("results")
    if not isinstance(results, list):
        raise ProviderError("unexpected response ('results' is not a list)")
    items = parse_each(results, lambda obj, _position: summary(kind, obj))
    meta = as_dict(payload.get("meta"))
    return EntityPage(list(items), _total(meta.get("count")), clean(meta.get("next_cursor")), items.skipped)


def parse_entity(kind: EntityKind, body: bytes | str) -> dict[str, Any]:
    """One /{entities}/{id} answer: the complete record as OpenAlex gives it, strings made
    safe, with its short id under ``id`` (the URL form stays under ``ids.openalex``)."""
    payload = _payload(body)
    entity_id = short_id(payload.get("id"))
    if not entity_id or not entity_id.startswith(kind.letter):
        raise ProviderError(f"unexpected response (no {kind.name} id in the answer)")
    record = safe_value(payload)
    record["id"] = entity_id
    return record


def parse_autocomplete(body: bytes | str) -> list[dict[str, Any]]:
    """An /autocomplete/{entities} answer: [{id, display_name, hint, cited_by_count, works_count}]."""
    payload = _payload(body)
    found = []
    for obj in as_list(payload.get("results")):
        obj = as_dict(obj)
        entity_id = short_id(obj.get("id"))
        if entity_id:
            found.append(safe_value({"id": entity_id, "display_name": clean(obj.get("display_name")) or entity_id,
                                     "hint": clean(obj.get("hint")), **_counts(obj)}))
    return found


def top_match(candidates: list[dict[str, Any]], letter: str) -> dict[str, Any] | None:
    """The best resolution of a name: the candidate of the right kind with the most citations
    (ties: the first given, which is OpenAlex's own order)."""
    right_kind = [c for c in candidates if str(c.get("id", "")).startswith(letter)]
    if not right_kind:
        return None
    return max(right_kind, key=lambda c: c.get("cited_by_count") or 0)


def api_entity_id(kind: EntityKind, text: str) -> str | None:
    """The ``/{entities}/{id}`` form of an id the user gave: an OpenAlex id (bare or URL, any
    case) of this kind, or an external id the kind takes (ORCID, ROR, ISSN); None otherwise."""
    value = (text or "").strip()
    short = short_id(value)
    if short:
        return short if short.startswith(kind.letter) else None
    if "orcid" in kind.external_ids and _bare_orcid(value) and re.fullmatch(r"(?:https?://orcid\.org/|orcid:)?[\d-]+[\dXx]", value, re.I):
        return f"orcid:{_bare_orcid(value)}"
    if "ror" in kind.external_ids and re.fullmatch(r"(?:https?://ror\.org/|ror:)?0[a-z0-9]{6}\d{2}", value, re.I):
        return f"ror:{_bare_ror(value.rsplit(':', 1)[-1])}"
    if "issn" in kind.external_ids and re.fullmatch(r"(?:issn:)?\d{4}-\d{3}[\dXx]", value, re.I):
        return f"issn:{value.rsplit(':', 1)[-1].upper()}"
    return None
