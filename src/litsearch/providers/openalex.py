"""OpenAlex /works: relevance search with ``search=``."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from ..filters import Filters
from ._common import any_of, json_object, clean, as_int, as_float
from ..http import ProviderError, ProviderSession
from ..identifiers import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmid,
)
from ..records import Paper
from ..text import plain_text

NAME = "openalex"

WORKS_PATH = "/works"
MAX_PER_PAGE = 100  # the current docs cap per_page at 100 (older ones said 200)

# Root-level fields only (select cannot reach inside objects). relevance_score is
# selectable: the API's own 400 answer for a bad select field lists it among the valid ones.
SELECT_FIELDS = ",".join((
    "id", "doi", "title", "display_name", "publication_year", "publication_date", "ids",
    "authorships", "primary_location", "best_oa_location", "open_access", "cited_by_count",
    "type", "biblio", "abstract_inverted_index", "relevance_score", "locations",
))

_BOOLEAN_WORD = re.compile(r"\b(AND|OR|NOT)\b")
_ARXIV_HOST = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.I)
_MESSAGE_LIMIT = 160


# ---------------------------------------------------------------- parsing (pure)

def rebuild_abstract(inverted_index: Any) -> str | None:
    """Plain abstract text from OpenAlex's ``{word: [positions]}`` index, or None."""
    if not isinstance(inverted_index, dict) or not inverted_index:
        return None
    placed: list[tuple[int, str]] = []
    for word, positions in inverted_index.items():
        for position in positions or []:
            if isinstance(position, int):
                placed.append((position, word))
    placed.sort(key=lambda item: item[0])
    return " ".join(word for _, word in placed) or None


def parse_works(body: bytes | str) -> list[Paper]:
    """Records of a /works list page, ranked by position; a single work object gives one record."""
    payload = _load_json_object(body)
    if "results" in payload:
        results = payload["results"] or []
        if not isinstance(results, list):
            raise ProviderError("unexpected response ('results' is not a list)")
        works = (parse_work(work, rank=position) for position, work in enumerate(results, start=1))
        return [paper for paper in works if paper is not None]
    if "id" in payload:  # /works/{id} answers with the bare work
        paper = parse_work(payload)
        return [paper] if paper else []
    raise ProviderError("unexpected response (neither a list of works nor a work)")


def parse_work(obj: Any, rank: int | None = None) -> Paper | None:
    """One OpenAlex work as a ``Paper``; None for a null entry or a work without a title."""
    if not isinstance(obj, dict):
        return None
    title = plain_text(obj.get("display_name") or obj.get("title"))
    if not title:
        return None
    ids = obj.get("ids") or {}
    doi = normalize_doi(obj.get("doi") or ids.get("doi"))
    biblio = obj.get("biblio") or {}
    work_type = obj.get("type")
    return Paper(
        provider=NAME,
        title=title,
        authors=_author_names(obj.get("authorships")),
        year=as_int(obj.get("publication_year")),
        publication_date=obj.get("publication_date") or None,
        journal=_source_name(obj.get("primary_location")),
        doi=doi,
        pmid=normalize_pmid(ids.get("pmid")),
        arxiv_id=arxiv_id_from_doi(doi) or _arxiv_id_from_locations(obj),
        openalex_id=normalize_openalex_id(obj.get("id") or ids.get("openalex")),
        abstract=plain_text(rebuild_abstract(obj.get("abstract_inverted_index"))),
        citation_count=as_int(obj.get("cited_by_count")),
        oa_url=_oa_url(obj),
        publication_types=[work_type] if work_type else [],
        external_ids=_external_ids(ids),
        volume=clean(biblio.get("volume")),
        issue=clean(biblio.get("issue")),
        pages=_pages(biblio.get("first_page"), biblio.get("last_page")),
        url=obj.get("id") or None,
        rank=rank,
        score=as_float(obj.get("relevance_score")),
    )


def _load_json_object(body: bytes | str) -> dict[str, Any]:
    """The decoded JSON object, or ProviderError for HTML pages, non-JSON and error payloads."""
    payload = json_object(body)
    if "error" in payload and "results" not in payload and "id" not in payload:
        raise ProviderError(_api_message(payload))
    return payload


def _api_message(payload: dict[str, Any]) -> str:
    """``error: message`` on one line, shortened (the 400 message lists every field)."""
    parts = [str(payload.get(key)).strip() for key in ("error", "message") if payload.get(key)]
    text = " ".join(": ".join(parts).split())
    if len(text) > _MESSAGE_LIMIT:
        text = text[: _MESSAGE_LIMIT - 1].rstrip() + "…"
    return f"API error: {text}" if text else "API error (no message)"


def _author_names(authorships: Any) -> list[str]:
    names = []
    for authorship in authorships or []:
        authorship = authorship or {}
        author = authorship.get("author") or {}
        name = clean(author.get("display_name")) or clean(authorship.get("raw_author_name"))
        if name:
            names.append(name)
    return names


def _source_name(location: Any) -> str | None:
    source = (location or {}).get("source") or {}
    return clean(source.get("display_name"))


def _locations(obj: dict[str, Any]) -> Iterable[dict[str, Any]]:
    yield obj.get("primary_location") or {}
    yield obj.get("best_oa_location") or {}
    for location in obj.get("locations") or []:
        yield location or {}


def _arxiv_id_from_locations(obj: dict[str, Any]) -> str | None:
    """OpenAlex has no arXiv id field; an arxiv.org landing page or PDF link gives it away."""
    for location in _locations(obj):
        for url in (location.get("landing_page_url"), location.get("pdf_url")):
            if url and _ARXIV_HOST.match(url):
                arxiv_id = normalize_arxiv_id(_ARXIV_HOST.sub("https://arxiv.org/abs/", url))
                if arxiv_id:
                    return arxiv_id
    return None


def _oa_url(obj: dict[str, Any]) -> str | None:
    best = obj.get("best_oa_location") or {}
    return best.get("pdf_url") or (obj.get("open_access") or {}).get("oa_url") or None


def _external_ids(ids: dict[str, Any]) -> dict[str, str]:
    """Every id OpenAlex lists, in its bare form (``W…``, bare DOI, digits, ``PMC…``)."""
    normalizers = {
        "openalex": normalize_openalex_id,
        "doi": normalize_doi,
        "pmid": normalize_pmid,
        "pmcid": _normalize_pmcid,
    }
    external: dict[str, str] = {}
    for key, value in ids.items():
        if value is None or value == "":
            continue
        normalize = normalizers.get(key)
        external[key] = (normalize(value) if normalize else None) or str(value)
    return external


def _normalize_pmcid(value: Any) -> str | None:
    """``PMC123`` from ``https://www.ncbi.nlm.nih.gov/pmc/articles/123`` (OpenAlex drops the PMC)."""
    match = re.search(r"(?:PMC)?(\d+)/?\s*$", str(value), re.I)
    return f"PMC{match.group(1)}" if match else None


def _pages(first: Any, last: Any) -> str | None:
    first, last = clean(first), clean(last)
    if first and last and first != last:
        return f"{first}-{last}"
    return first or last


# ---------------------------------------------------------------- query building (pure)

def combine_queries(variants: list[str]) -> str:
    """One ``search=`` expression matching any variant: ``(v1) OR (v2)``.

    OpenAlex reads upper-case AND/OR/NOT as operators, so those words are
    lower-cased inside a variant; quotes and parentheses that do not pair up are
    dropped so one variant cannot swallow the next.
    """
    return any_of(variants, _neutralise_variant, "OR")


def _neutralise_variant(text: str) -> str:
    text = _BOOLEAN_WORD.sub(lambda match: match.group(1).lower(), text)
    if text.count('"') % 2:
        text = text.replace('"', " ")  # which quote is the stray one is unknowable
    text = _drop_unpaired_parentheses(text)
    text = re.sub(r'\(\s*\)|""', " ", text)  # empty groups and phrases
    return " ".join(text.split())


def _drop_unpaired_parentheses(text: str) -> str:
    open_positions: list[int] = []
    unpaired: set[int] = set()
    for position, char in enumerate(text):
        if char == "(":
            open_positions.append(position)
        elif char == ")":
            if open_positions:
                open_positions.pop()
            else:
                unpaired.add(position)
    unpaired.update(open_positions)
    return "".join(" " if position in unpaired else char for position, char in enumerate(text))


# ---------------------------------------------------------------- HTTP flow

def _identity_params(settings) -> dict[str, str]:
    params = {}
    if settings.email:
        params["mailto"] = settings.email
    if settings.openalex_api_key:
        params["api_key"] = settings.openalex_api_key
    return params


# OpenAlex work types for the filter; conference papers are "article" here (their
# Crossref type says proceedings-article), so that type is left to the post-filter.
_OPENALEX_TYPES = {"article": "article", "review": "review", "preprint": "preprint"}


async def resolve_entity(session: ProviderSession, kind: str, name: str) -> tuple[str, str] | None:
    """(id, display name) of the author or source best matching ``name``: among the search
    hits, the one with the most works. One extra call; None when nothing matches."""
    settings = session.http.settings
    path = {"author": "/authors", "venue": "/sources"}[kind]
    params = {"search": name, "per_page": 10, "select": "id,display_name,works_count", **_identity_params(settings)}
    response = await session.get(settings.url(NAME, path), params=params)
    try:
        results = json.loads(response.content).get("results") or []
    except (ValueError, AttributeError):
        raise ProviderError(f"unexpected answer while resolving {kind} {name!r}") from None
    candidates = [r for r in results if isinstance(r, dict) and r.get("id")]
    if not candidates:
        return None
    best = max(candidates, key=lambda r: (r.get("works_count") or 0))
    entity_id = str(best["id"]).rsplit("/", 1)[-1]
    return entity_id, str(best.get("display_name") or entity_id)


async def filter_expression(session: ProviderSession, filters: Filters | None) -> tuple[str, set[str]]:
    """The ``filter=`` value for the search filters, and which filters it covers.
    Author and venue names are resolved to OpenAlex ids first (OpenAlex filters by id)."""
    parts: list[str] = []
    native: set[str] = set()
    if not filters:
        return "", native
    if filters.date_from:
        parts.append(f"from_publication_date:{filters.date_from.isoformat()}")
    if filters.date_to:
        parts.append(f"to_publication_date:{filters.date_to.isoformat()}")
    if filters.date_from or filters.date_to:
        native.add("date")
    for kind, field_name in (("author", "authorships.author.id"), ("venue", "primary_location.source.id")):
        name = getattr(filters, kind)
        if not name:
            continue
        found = await resolve_entity(session, kind, name)
        if found is None:
            session.note(f"{kind} {name!r} not found in OpenAlex; applied after fetching")
            continue
        entity_id, display = found
        session.note(f"{kind} {name!r} → {display}, {entity_id}")
        parts.append(f"{field_name}:{entity_id}")
        native.add(kind)
    if filters.open_access:
        parts.append("open_access.is_oa:true")
        native.add("open_access")
    if filters.types and all(t in _OPENALEX_TYPES for t in filters.types):
        parts.append("type:" + "|".join(_OPENALEX_TYPES[t] for t in filters.types))
        native.add("type")
    if filters.min_citations is not None:
        parts.append(f"cited_by_count:>{filters.min_citations - 1}")
        native.add("min_citations")
    return ",".join(parts), native


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> list[Paper]:
    """Relevance-ranked ``/works?search=``, first page only (at most 100 records)."""
    settings = session.http.settings
    params: dict[str, Any] = {
        "search": query,
        "per_page": max(1, min(int(limit), MAX_PER_PAGE)),
        "select": SELECT_FIELDS,
        **_identity_params(settings),
    }
    expression, session.native_filters = await filter_expression(session, filters)
    if expression:
        params["filter"] = expression
    response = await session.get(settings.url(NAME, WORKS_PATH), params=params)
    return parse_works(response.content)[: params["per_page"]]  # never more than asked, whatever the server sends
