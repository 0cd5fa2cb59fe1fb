"""OpenAlex's entities as one table: each kind's endpoint, how its ids look (a letter and
digits, or a level of the topic hierarchy and a number: ``domains/3``), the root fields its
list asks for, its sorts, the external ids ``/{entities}/{id}`` takes, and how a name becomes
an id. Pure: no I/O.

The ten kinds are the explorer design's: works, authors, sources, institutions, topics,
publishers, funders, and the hierarchy above topics (domains, fields, subfields)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import UnknownIdError, UsageError
from ..core.identifiers import parse_paper_ref, parse_pmcid_ref
from ._common import clean

_OPENALEX_URL = re.compile(r"^https?://(?:www\.|api\.)?openalex\.org/", re.I)
_LETTER_ID = re.compile(r"([A-Za-z])(\d{1,15})")
_LEVEL_ID = re.compile(r"(domains|fields|subfields)/(\d{1,6})", re.I)


@dataclass(frozen=True)
class EntityKind:
    """One OpenAlex entity type.

    ``letter``: the id's letter (``A`` for authors); None for the topic hierarchy, whose ids
    are numbers under their level (``domains/3``). ``select``: the root fields a list asks
    for (None: whole records, for small ones). ``autocomplete_tool``: the design gives it an
    ``*_autocomplete`` tool. ``resolved_by_search``: a name becomes an id through a small
    search, for the kinds OpenAlex has no autocomplete for (domains, fields)."""

    name: str  # singular, as in the tool and command names: "author"
    path: str  # "/authors"
    letter: str | None = None
    select: tuple[str, ...] | None = None
    sorts: tuple[str, ...] = ("cited_by_count", "works_count")
    external_ids: dict[str, str] = field(default_factory=dict)  # what else /{path}/{prefix}:{value} takes
    autocomplete_tool: bool = True
    resolved_by_search: bool = False

    @property
    def plural(self) -> str:
        return self.path.strip("/")

    @property
    def id_hint(self) -> str:
        """How its ids look, in a few words (for messages and schemas)."""
        if self.letter is None:
            return f"{self.plural}/N or N"
        extra = "".join(f", {name.upper()}" for name in self.external_ids)
        return f"{self.letter}…{extra}"

    @property
    def actions(self) -> tuple[str, ...]:
        """What its command and tools do: list and get; find for works; autocomplete where the
        design has it."""
        return ("list", "get", *(("find",) if self.name == "work" else ()),
                *(("autocomplete",) if self.autocomplete_tool else ()))

    def owns(self, short: str | None) -> bool:
        """``short`` (a ``short_id``) is an id of this kind."""
        if not short:
            return False
        if self.letter is None:
            return short.startswith(self.plural + "/")
        return bool(_LETTER_ID.fullmatch(short)) and short[0] == self.letter

    def filter_value(self, short: str) -> str:
        """The value a filter takes for one of its ids: the id, or a hierarchy level's number
        (``primary_topic.field.id:17``, as OpenAlex's own examples write it)."""
        return short.rsplit("/", 1)[-1] if self.letter is None else short


_COMMON = ("id", "display_name", "works_count", "cited_by_count")
_HIERARCHY = ("id", "display_name", "description", "works_count", "cited_by_count")
# The work summary's fields, root level only (select cannot reach inside objects).
WORK_SELECT = ("id", "doi", "display_name", "publication_year", "type", "authorships", "primary_location",
               "open_access", "cited_by_count", "primary_topic", "abstract_inverted_index")

KINDS: dict[str, EntityKind] = {kind.name: kind for kind in (
    EntityKind("work", "/works", "W", select=WORK_SELECT, sorts=("cited_by_count", "publication_date")),
    EntityKind("author", "/authors", "A",
               select=_COMMON + ("orcid", "summary_stats", "last_known_institutions", "topics"),
               external_ids={"orcid": "orcid"}),
    EntityKind("source", "/sources", "S",
               select=_COMMON + ("issn_l", "type", "is_oa", "is_in_doaj", "summary_stats", "host_organization_name"),
               external_ids={"issn": "issn"}),
    EntityKind("institution", "/institutions", "I",
               select=_COMMON + ("ror", "country_code", "type", "geo", "summary_stats"),
               external_ids={"ror": "ror"}),
    # Topics, publishers and funders are small records: asked whole, so a renamed field costs nothing.
    EntityKind("topic", "/topics", "T", autocomplete_tool=False),
    EntityKind("publisher", "/publishers", "P"),
    EntityKind("funder", "/funders", "F"),
    EntityKind("domain", "/domains", select=_HIERARCHY + ("fields",), autocomplete_tool=False,
               resolved_by_search=True),
    EntityKind("field", "/fields", select=_HIERARCHY + ("domain", "subfields"), autocomplete_tool=False,
               resolved_by_search=True),
    EntityKind("subfield", "/subfields", select=_HIERARCHY + ("field", "domain")),
)}


def kind_named(name: str) -> EntityKind:
    if name not in KINDS:
        raise UsageError(f"unknown OpenAlex entity {name!r}; one of {', '.join(KINDS)}")
    return KINDS[name]


def short_id(value: Any) -> str | None:
    """``https://openalex.org/A5023888391`` -> ``A5023888391``; ``https://openalex.org/fields/17``
    -> ``fields/17``; None when it is no OpenAlex id."""
    text = clean(value)
    if not text:
        return None
    bare = _OPENALEX_URL.sub("", text).strip("/")
    if match := _LETTER_ID.fullmatch(bare):
        return f"{match.group(1).upper()}{match.group(2)}"
    if match := _LEVEL_ID.fullmatch(bare):
        return f"{match.group(1).lower()}/{int(match.group(2))}"
    return None


def bare_orcid(value: Any) -> str | None:
    match = re.search(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", clean(value) or "", re.I)
    return match.group(1).upper() if match else None


def bare_ror(value: Any) -> str | None:
    match = re.search(r"(?:ror\.org/)?(0[a-z0-9]{6}\d{2})$", clean(value) or "", re.I)
    return match.group(1).lower() if match else None


def api_entity_id(kind: EntityKind, text: str) -> str | None:
    """What follows ``/{entities}/`` for an id the user gave: an OpenAlex id (bare or URL, any
    case) of this kind, a hierarchy level's number, an external id the kind takes (ORCID, ROR,
    ISSN; a work's DOI, PMID or PMCID); None when ``text`` is no id of this kind."""
    value = (text or "").strip()
    short = short_id(value)
    if short:
        return kind.filter_value(short) if kind.owns(short) else None
    if kind.letter is None:
        return str(int(value)) if re.fullmatch(r"\d{1,6}", value) else None
    if kind.name == "work":
        return _work_api_id(value)
    if "orcid" in kind.external_ids and bare_orcid(value) and re.fullmatch(r"(?:https?://orcid\.org/|orcid:)?[\d-]+[\dXx]", value, re.I):
        return f"orcid:{bare_orcid(value)}"
    if "ror" in kind.external_ids and re.fullmatch(r"(?:https?://ror\.org/|ror:)?0[a-z0-9]{6}\d{2}", value, re.I):
        return f"ror:{bare_ror(value.rsplit(':', 1)[-1])}"
    if "issn" in kind.external_ids and re.fullmatch(r"(?:issn:)?\d{4}-\d{3}[\dXx]", value, re.I):
        return f"issn:{value.rsplit(':', 1)[-1].upper()}"
    return None


def _work_api_id(value: str) -> str | None:
    """A work by DOI (arXiv's own DOIs included), PMID or PMCID, as /works/{id} takes them."""
    pmcid = parse_pmcid_ref(value)
    if pmcid is not None:
        return f"pmcid:{pmcid.value}"
    try:
        ref = parse_paper_ref(value)
    except UnknownIdError:
        return None
    if ref.kind == "arxiv":
        return f"doi:10.48550/arxiv.{ref.value}"
    return {"openalex": ref.value, "doi": f"doi:{ref.value}", "pmid": f"pmid:{ref.value}"}.get(ref.kind)
