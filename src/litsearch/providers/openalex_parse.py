"""OpenAlex's answers, parsed (pure functions, fed real bodies in tests): /works list pages
and single works as ``Paper`` records, abstracts rebuilt from the inverted index, and a work's
``referenced_works``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..core.errors import ProviderError
from ..core.identifiers import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
)
from ..core.records import OpenCopy, Paper
from ..core.text import plain_text
from ..core.urls import http_url
from ._common import (
    api_error,
    as_count,
    as_date,
    as_dict,
    as_float,
    as_list,
    as_year,
    clean,
    distinct_authors,
    json_object,
    parse_each,
)

NAME = "openalex"
MAX_ABSTRACT_WORDS = 20_000  # positions beyond this in an inverted index are not an abstract
_ARXIV_HOST = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.I)


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
    payload = load_json_object(body)
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


def load_json_object(body: bytes | str) -> dict[str, Any]:
    """The decoded JSON object, or ProviderError for HTML pages, non-JSON and error payloads
    (``error: message`` on one line, shortened: the 400 message lists every field)."""
    payload = json_object(body)
    if "error" in payload and "results" not in payload and "id" not in payload:
        raise api_error(": ".join(str(payload.get(key)).strip() for key in ("error", "message") if payload.get(key)))
    return payload


def _author_names(authorships: Any) -> list[str]:
    pairs = []
    for authorship in as_list(authorships):
        authorship = as_dict(authorship)
        author = as_dict(authorship.get("author"))
        pairs.append((author.get("id"), clean(author.get("display_name")) or clean(authorship.get("raw_author_name"))))
    return distinct_authors(pairs)


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



@dataclass
class Work:
    """One OpenAlex work: the record, the W-ids it cites and how many it cites in total."""

    paper: Paper
    referenced_ids: list[str]
    referenced_count: int | None = None
    open_copies: list[OpenCopy] = field(default_factory=list)


def parse_work_with_references(body: bytes | str) -> Work:
    """One /works/{id} answer with its ``referenced_works``."""
    papers = parse_works(body)  # rejects HTML pages, error payloads and non-JSON
    if not papers:
        raise ProviderError("unexpected response (a work without a title)")
    payload = json.loads(body)
    referenced = referenced_work_ids(payload)
    total = as_count(payload.get("referenced_works_count"))
    return Work(papers[0], referenced, total if total is not None else len(referenced), open_copies(payload))


def open_copies(work: dict[str, Any]) -> list[OpenCopy]:
    """The work's open-access locations, best first: ``best_oa_location``, then each of
    ``locations`` that is open, once each; only http(s) links."""
    best = as_dict(work.get("best_oa_location"))
    found: list[OpenCopy] = []
    for location in [best] + [as_dict(entry) for entry in as_list(work.get("locations"))]:
        if location is not best and location.get("is_oa") is not True:
            continue
        landing, pdf = http_url(location.get("landing_page_url")), http_url(location.get("pdf_url"))
        if not (landing or pdf) or any((landing, pdf) == (c.landing_url, c.pdf_url) for c in found):
            continue
        source_type = clean(as_dict(location.get("source")).get("type"))
        found.append(OpenCopy(landing, pdf, clean(location.get("license")), clean(location.get("version")),
                              "repository" if source_type == "repository" else "publisher" if source_type else None))
    return found


def referenced_work_ids(work: Any) -> list[str]:
    """The bare W-ids of a work's ``referenced_works`` (given as URLs), in order, once each."""
    values = work.get("referenced_works") if isinstance(work, dict) else None
    ids = (normalize_openalex_id(value) for value in values or [] if isinstance(value, str))
    return list(dict.fromkeys(work_id for work_id in ids if work_id))


def parse_works_with_references(body: bytes | str) -> list[Work]:
    """The works of a list answer with the W-ids each cites (when ``referenced_works`` was selected)."""
    papers = parse_works(body)
    results = load_json_object(body).get("results")
    by_id = {}
    for work in results if isinstance(results, list) else []:
        work_id = normalize_openalex_id(work.get("id")) if isinstance(work, dict) else None
        if work_id:
            by_id[work_id] = referenced_work_ids(work)
    return [Work(paper, by_id.get(paper.openalex_id or "", [])) for paper in papers]
