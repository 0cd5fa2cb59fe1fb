"""OpenAlex /works: relevance search with ``search=``, one work with the works it cites,
works by id in batches, the works citing one, and author/source name resolution."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..core.config import Settings
from ..core.errors import ProviderError
from ..core.filters import Filters
from ..core.identifiers import (
    PaperRef,
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
)
from ..core.records import Paper
from ..core.text import plain_text
from ..core.urls import http_url, id_in_path
from ..net.http import FetchedResponse, ProviderSession
from ..net.pacing import PacePolicy
from ._common import (
    any_of,
    api_error,
    as_count,
    as_date,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_year,
    clean,
    json_object,
    parse_each,
    skipped_notes,
)
from .base import PROBE_DOI, PROBE_STATUSES, Capabilities, Provider, ProviderAnswer
from .openalex_entities import count_filter, works_filters

NAME = "openalex"

WORKS_PATH = "/works"
MAX_PER_PAGE = 100  # the current docs cap per_page at 100 (older ones said 200)
MAX_ABSTRACT_WORDS = 20_000  # positions beyond this in an inverted index are not an abstract

# Root-level fields only (select cannot reach inside objects). relevance_score is
# selectable: the API's own 400 answer for a bad select field lists it among the valid ones.
SELECT_FIELDS = ",".join((
    "id", "doi", "title", "display_name", "publication_year", "publication_date", "ids",
    "authorships", "primary_location", "best_oa_location", "open_access", "cited_by_count",
    "type", "biblio", "abstract_inverted_index", "relevance_score", "locations", "is_retracted",
))

_BOOLEAN_WORD = re.compile(r"\b(AND|OR|NOT)\b")
_ARXIV_HOST = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.I)


# ---------------------------------------------------------------- parsing (pure)

def rebuild_abstract(inverted_index: Any) -> str | None:
    """Plain abstract text from OpenAlex's ``{word: [positions]}`` index, or None."""
    if not isinstance(inverted_index, dict) or not inverted_index:
        return None
    placed: list[tuple[int, str]] = []
    for word, positions in inverted_index.items():
        for position in as_list(positions):
            if isinstance(position, int) and not isinstance(position, bool) and 0 <= position < MAX_ABSTRACT_WORDS:
                placed.append((position, str(word)))
    placed.sort(key=lambda item: item[0])
    return " ".join(word for _, word in placed) or None


def parse_works(body: bytes | str) -> list[Paper]:
    """Records of a /works list page, ranked by position; a single work object gives one record."""
    payload = _load_json_object(body)
    if "results" in payload:
        results = payload["results"] or []
        if not isinstance(results, list):
            raise ProviderError("unexpected response ('results' is not a list)")
        return parse_each(results, lambda work, position: parse_work(work, rank=position))
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
    ids = as_dict(obj.get("ids"))
    doi = normalize_doi(clean(obj.get("doi")) or clean(ids.get("doi")))
    biblio = as_dict(obj.get("biblio"))
    work_type = clean(obj.get("type"))
    return Paper(
        provider=NAME,
        title=title,
        authors=_author_names(obj.get("authorships")),
        year=as_year(obj.get("publication_year")),
        publication_date=as_date(obj.get("publication_date")),
        journal=_source_name(obj.get("primary_location")),
        doi=doi,
        pmid=normalize_pmid(clean(ids.get("pmid"))),
        arxiv_id=arxiv_id_from_doi(doi) or _arxiv_id_from_locations(obj),
        openalex_id=normalize_openalex_id(clean(obj.get("id")) or clean(ids.get("openalex"))),
        abstract=plain_text(rebuild_abstract(obj.get("abstract_inverted_index"))),
        citation_count=as_count(obj.get("cited_by_count")),
        oa_url=_oa_url(obj),
        publication_types=[work_type] if work_type else [],
        external_ids=_external_ids(ids),
        volume=clean(biblio.get("volume")),
        issue=clean(biblio.get("issue")),
        pages=_pages(biblio.get("first_page"), biblio.get("last_page")),
        url=http_url(obj.get("id")),
        rank=rank,
        score=as_float(obj.get("relevance_score")),
        retracted=obj.get("is_retracted") if isinstance(obj.get("is_retracted"), bool) else None,
    )


def _load_json_object(body: bytes | str) -> dict[str, Any]:
    """The decoded JSON object, or ProviderError for HTML pages, non-JSON and error payloads
    (``error: message`` on one line, shortened: the 400 message lists every field)."""
    payload = json_object(body)
    if "error" in payload and "results" not in payload and "id" not in payload:
        raise api_error(": ".join(str(payload.get(key)).strip() for key in ("error", "message") if payload.get(key)))
    return payload


def _author_names(authorships: Any) -> list[str]:
    names = []
    for authorship in as_list(authorships):
        authorship = as_dict(authorship)
        author = as_dict(authorship.get("author"))
        name = clean(author.get("display_name")) or clean(authorship.get("raw_author_name"))
        if name:
            names.append(name)
    return names


def _source_name(location: Any) -> str | None:
    return clean(as_dict(as_dict(location).get("source")).get("display_name"))


def _locations(obj: dict[str, Any]) -> Iterable[dict[str, Any]]:
    yield as_dict(obj.get("primary_location"))
    yield as_dict(obj.get("best_oa_location"))
    for location in as_list(obj.get("locations")):
        yield as_dict(location)


def _arxiv_id_from_locations(obj: dict[str, Any]) -> str | None:
    """OpenAlex has no arXiv id field; an arxiv.org landing page or PDF link gives it away."""
    for location in _locations(obj):
        for url in (clean(location.get("landing_page_url")), clean(location.get("pdf_url"))):
            if url and _ARXIV_HOST.match(url):
                arxiv_id = normalize_arxiv_id(_ARXIV_HOST.sub("https://arxiv.org/abs/", url))
                if arxiv_id:
                    return arxiv_id
    return None


def _oa_url(obj: dict[str, Any]) -> str | None:
    best = as_dict(obj.get("best_oa_location"))
    return http_url(best.get("pdf_url")) or http_url(as_dict(obj.get("open_access")).get("oa_url"))


def _external_ids(ids: dict[str, Any]) -> dict[str, str]:
    """Every id OpenAlex lists, in its bare form (``W…``, bare DOI, digits, ``PMC…``)."""
    normalizers = {
        "openalex": normalize_openalex_id,
        "doi": normalize_doi,
        "pmid": normalize_pmid,
        "pmcid": normalize_pmcid,
    }
    external: dict[str, str] = {}
    for key, value in ids.items():
        text = clean(value)
        if text is None:
            continue
        normalize = normalizers.get(key)
        external[str(key)] = (normalize(text) if normalize else None) or text
    return external


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

def _identity_params(settings: Settings) -> dict[str, str]:
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
    path = {"author": "/authors", "venue": "/sources"}[kind]
    params = {"search": name, "per_page": 10, "select": "id,display_name,works_count",
              **_identity_params(session.settings)}
    response = await session.get(session.url(path), params=params)
    try:
        results = json.loads(response.content).get("results") or []
    except (ValueError, AttributeError):
        raise ProviderError(f"unexpected answer while resolving {kind} {name!r}") from None
    candidates = [r for r in results if isinstance(r, dict) and r.get("id")]
    if not candidates:
        return None
    best = max(candidates, key=lambda r: (as_int(r.get("works_count")) or 0))
    entity_id = str(best["id"]).rsplit("/", 1)[-1]
    return entity_id, str(best.get("display_name") or entity_id)


async def filter_expression(session: ProviderSession, filters: Filters | None) -> tuple[str, set[str], list[str]]:
    """The ``filter=`` value for the search filters, which filters it covers, and notes.
    Author and venue names are resolved to OpenAlex ids first (OpenAlex filters by id)."""
    parts: list[str] = []
    native: set[str] = set()
    notes: list[str] = []
    if not filters:
        return "", native, notes
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
        if not session.settings.openalex_api_key:
            # Each lookup would spend the tiny keyless daily allowance; filter after fetching.
            notes.append(f"{kind} {name!r} applied after fetching (name lookups need OPENALEX_API_KEY)")
            continue
        try:
            found = await resolve_entity(session, kind, name)
        except ProviderError as error:  # the search itself goes on
            notes.append(f"{kind} {name!r}: name lookup failed ({error}); applied after fetching")
            continue
        if found is None:
            notes.append(f"{kind} {name!r} not found in OpenAlex; applied after fetching")
            continue
        entity_id, display = found
        notes.append(f"{kind} {name!r} → {display}, {entity_id}")
        parts.append(f"{field_name}:{entity_id}")
        native.add(kind)
    if filters.open_access:
        parts.append("open_access.is_oa:true")
        native.add("open_access")
    if filters.types and all(t in _OPENALEX_TYPES for t in filters.types):
        parts.append("type:" + "|".join(_OPENALEX_TYPES[t] for t in filters.types))
        native.add("type")
    if filters.min_citations is not None or filters.max_citations is not None:
        parts.append(count_filter("cited_by_count", filters.min_citations, filters.max_citations))
        native.update(name for name in ("min_citations", "max_citations") if getattr(filters, name) is not None)
    entity_parts, entity_native = works_filters(filters)  # resolved before the providers run
    return ",".join(parts + entity_parts), native | entity_native, notes


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> ProviderAnswer:
    """Relevance-ranked ``/works?search=``, first page only (at most 100 records)."""
    params: dict[str, Any] = {
        "search": query,
        "per_page": max(1, min(int(limit), MAX_PER_PAGE)),
        "select": SELECT_FIELDS,
        **_identity_params(session.settings),
    }
    expression, native, notes = await filter_expression(session, filters)
    if expression:
        params["filter"] = expression
    response = await session.get(session.url(WORKS_PATH), params=params)
    records = parse_works(response.content)
    notes += budget_notes(response.headers)
    # Never more than asked, whatever the server sends.
    return ProviderAnswer(records[: params["per_page"]], frozenset(native), notes + skipped_notes(records))


LOW_BUDGET_SHARE = 0.1  # of the daily allowance


def budget_notes(headers: Any) -> list[str]:
    """One line when OpenAlex says little of today's allowance is left (its X-RateLimit-*-USD
    headers), so the user knows before searches start failing."""
    remaining = as_float(headers.get("x-ratelimit-remaining-usd"))
    limit = as_float(headers.get("x-ratelimit-limit-usd"))
    if remaining is None or (limit and remaining >= LOW_BUDGET_SHARE * limit) or (not limit and remaining >= 0.01):
        return []
    of_limit = f" of ${limit:g}" if limit else ""
    return [f"only ${remaining:.4f}{of_limit} of today's OpenAlex allowance is left; it resets at midnight UTC"
            + ("" if limit and limit > 0.1 else " (a free OPENALEX_API_KEY raises it to $1/day)")]


# ---------------------------------------------------------------- one work, works by id, citing works

NOT_FOUND = frozenset({404})
# OR-filters take at most 50 values, so 50 ids per list call.
ID_BATCH = 50
CITING_PER_PAGE = 50
# relevance_score exists only with a search; referenced_works is what the fallback needs.
WORK_SELECT = ",".join(
    [name for name in SELECT_FIELDS.split(",") if name != "relevance_score"]
    + ["referenced_works", "referenced_works_count"])
# List entries skip the abstract: the tables never show it and it is most of the bytes.
LIST_SELECT = ",".join(
    name for name in SELECT_FIELDS.split(",") if name not in ("relevance_score", "abstract_inverted_index"))


@dataclass
class Work:
    """One OpenAlex work: the record, the W-ids it cites and how many it cites in total."""

    paper: Paper
    referenced_ids: list[str]
    referenced_count: int | None = None


def api_id(ref: PaperRef) -> str | None:
    """A typed id in /works/{id} form, or None for S2-only ids. OpenAlex has no arXiv id
    field, but it files every arXiv paper under arXiv's DataCite DOI."""
    return {"doi": f"doi:{ref.value}", "pmid": f"pmid:{ref.value}",
            "arxiv": f"doi:10.48550/arxiv.{ref.value}", "openalex": ref.value}.get(ref.kind)


def api_ids(paper: Paper) -> list[str]:
    """The ids /works/{id} accepts for a known paper, most specific first."""
    ids = [paper.openalex_id,
           f"doi:{paper.doi}" if paper.doi else None,
           f"pmid:{paper.pmid}" if paper.pmid else None,
           f"doi:10.48550/arxiv.{paper.arxiv_id}" if paper.arxiv_id else None]
    return list(dict.fromkeys(i for i in ids if i))


def parse_work_with_references(body: bytes | str) -> Work:
    """One /works/{id} answer with its ``referenced_works``."""
    papers = parse_works(body)  # rejects HTML pages, error payloads and non-JSON
    if not papers:
        raise ProviderError("unexpected response (a work without a title)")
    payload = json.loads(body)
    referenced = referenced_work_ids(payload)
    total = as_count(payload.get("referenced_works_count"))
    return Work(papers[0], referenced, total if total is not None else len(referenced))


def referenced_work_ids(work: Any) -> list[str]:
    """The bare W-ids of a work's ``referenced_works`` (given as URLs), in order, once each."""
    values = work.get("referenced_works") if isinstance(work, dict) else None
    ids = (normalize_openalex_id(value) for value in values or [] if isinstance(value, str))
    return list(dict.fromkeys(work_id for work_id in ids if work_id))


def id_batches(ids: list[str], size: int = ID_BATCH) -> list[list[str]]:
    """The ids in consecutive groups of at most ``size`` (one OR-filter call each)."""
    return [ids[start:start + size] for start in range(0, len(ids), size)]


async def fetch_work(session: ProviderSession, work_api_id: str) -> Work | None:
    """The work with its referenced W-ids; None when OpenAlex does not know it."""
    url = session.url(f"{WORKS_PATH}/{id_in_path(work_api_id, keep='/:')}")
    params = {"select": WORK_SELECT, **_identity_params(session.settings)}
    response = await session.get(url, params=params, accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    return parse_work_with_references(response.content)


async def fetch_works(session: ProviderSession, work_ids: list[str]) -> list[Paper]:
    """The records of the given W-ids: one ``openalex_id:W1|W2|…`` call per 50 ids."""
    papers: list[Paper] = []
    for batch in id_batches(work_ids):
        params = {"filter": "openalex_id:" + "|".join(batch), "per_page": len(batch),
                  "select": LIST_SELECT, **_identity_params(session.settings)}
        response = await session.get(session.url(WORKS_PATH), params=params)
        papers.extend(parse_works(response.content))
    return papers


async def fetch_citing(session: ProviderSession, work_id: str) -> list[Paper]:
    """The most cited works that cite ``work_id`` (first page, most cited first)."""
    params = {"filter": f"cites:{work_id}", "sort": "cited_by_count:desc",
              "per_page": CITING_PER_PAGE, "select": LIST_SELECT, **_identity_params(session.settings)}
    response = await session.get(session.url(WORKS_PATH), params=params)
    return parse_works(response.content)[:CITING_PER_PAGE]


async def fetch_reference_ids(session: ProviderSession, work_ids: list[str]) -> dict[str, list[str]]:
    """W-id -> the W-ids it references, one call per 50 works (works OpenAlex lacks are absent)."""
    found: dict[str, list[str]] = {}
    for batch in id_batches(work_ids):
        params = {"filter": "openalex_id:" + "|".join(batch), "select": "id,referenced_works",
                  "per_page": len(batch), **_identity_params(session.settings)}
        response = await session.get(session.url(WORKS_PATH), params=params)
        results = _load_json_object(response.content).get("results")
        for work in results if isinstance(results, list) else []:
            work_id = normalize_openalex_id(work.get("id")) if isinstance(work, dict) else None
            if work_id:
                found[work_id] = referenced_work_ids(work)
    return found


# ---------------------------------------------------------------- the provider

class OpenAlex(Provider):
    name = NAME
    label = "OpenAlex"
    key_variable = "OPENALEX_API_KEY"
    capabilities = Capabilities(combines_variants=True, native_filters=True)
    key_benefit = ("OpenAlex has required a key since 13 Feb 2026 and the keyless daily allowance is tiny; set "
                   "OPENALEX_API_KEY (free from your OpenAlex account settings)")
    pace = PacePolicy(min_interval=0.1, max_in_flight=5)
    limits = ("a key has been required since 13 Feb 2026; a daily allowance in USD (a free key: $1/day; "
              "without one, a few cents); a search costs 10x a list or filter call, one work by id is free")
    email_benefit = "sent as mailto, so OpenAlex can reach you about your traffic"
    combine = staticmethod(combine_queries)
    search_function = staticmethod(search)

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        # One work by DOI: free in OpenAlex's pricing, and it answers with the allowance headers.
        return await session.get(session.url(f"{WORKS_PATH}/doi:{PROBE_DOI}"),
                                 params={"select": "id", **_identity_params(session.settings)},
                                 accept_status=PROBE_STATUSES, retries=0)


PROVIDER = OpenAlex()
