"""The local library: saving search results, and the citation links among saved papers.

After a save, the reference lists of the library's papers are fetched (OpenAlex
``referenced_works``, 50 papers per call; Semantic Scholar's batch endpoint for papers
OpenAlex does not know), and an edge is stored for every reference that is itself in the
library. All papers are asked, not only the new ones, so an older paper that cites a new
one is linked too; the response cache makes repeated lists free for a day.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from .http import HttpClient, ProviderError
from .identifiers import normalize_arxiv_id, normalize_doi, normalize_openalex_id, normalize_pmid
from .providers import openalex, semantic_scholar
from .records import Paper
from .store import Store

OPENALEX_BATCH = 50  # ids per openalex_id:W1|W2|… filter (the API's OR limit)
S2_BATCH = 500  # ids per /paper/batch call (the API's limit)
_NORMALIZE = {"doi": normalize_doi, "pmid": normalize_pmid, "arxiv_id": normalize_arxiv_id,
              "openalex_id": normalize_openalex_id, "paper_id": lambda v: v}


def paper_from_record(record: dict[str, Any]) -> Paper:
    """A saved (JSON) record back as a Paper, for exports."""
    fields = {name: record.get(name) for name in (
        "title", "year", "journal", "doi", "pmid", "paper_id", "arxiv_id", "openalex_id", "abstract", "tldr",
        "citation_count", "influential_citation_count", "oa_url", "volume", "issue", "pages", "url",
        "publication_date")}
    fields["title"] = fields["title"] or ""
    return Paper(provider="library", authors=list(record.get("authors") or []),
                 publication_types=list(record.get("publication_types") or []),
                 external_ids=dict(record.get("external_ids") or {}), **fields)


class _IdentityIndex:
    """Every identifier of every library paper -> its library id."""

    def __init__(self, identifiers: dict[int, dict[str, list[str]]]):
        self.by_key: dict[tuple[str, str], int] = {}
        for library_id, ids in identifiers.items():
            for kind, values in ids.items():
                for value in values:
                    self.by_key[(kind, str(value).lower())] = library_id

    def find(self, kind: str, value: Any) -> int | None:
        normalize = _NORMALIZE.get(kind)
        if normalize is None or value in (None, ""):
            return None
        normalized = normalize(str(value))
        return self.by_key.get((kind, str(normalized).lower())) if normalized else None


async def _openalex_references(http: HttpClient, work_ids: list[str]) -> dict[str, list[str]]:
    """W-id -> the W-ids it references, one call per 50 works."""
    session = http.session("openalex")
    settings = http.settings
    found: dict[str, list[str]] = {}
    for start in range(0, len(work_ids), OPENALEX_BATCH):
        chunk = work_ids[start:start + OPENALEX_BATCH]
        params = {"filter": "openalex_id:" + "|".join(chunk), "select": "id,referenced_works",
                  "per_page": len(chunk), **openalex._identity_params(settings)}
        response = await session.get(settings.url("openalex", openalex.WORKS_PATH), params=params)
        for work in json.loads(response.content).get("results") or []:
            work_id = normalize_openalex_id(work.get("id"))
            if work_id:
                found[work_id] = [w for w in map(normalize_openalex_id, work.get("referenced_works") or []) if w]
    return found


async def _s2_references(http: HttpClient, api_ids: list[str]) -> list[list[dict[str, Any]]]:
    """For each id (same order), its references as ``{paperId, externalIds}`` dicts."""
    session = http.session("semantic_scholar")
    settings = http.settings
    answers: list[list[dict[str, Any]]] = []
    for start in range(0, len(api_ids), S2_BATCH):
        chunk = api_ids[start:start + S2_BATCH]
        response = await session.post(settings.url("semantic_scholar", "/graph/v1/paper/batch"),
                                      params={"fields": "paperId,references.paperId,references.externalIds"},
                                      json={"ids": chunk}, headers=semantic_scholar._auth_headers(session))
        for paper in json.loads(response.content):
            answers.append([ref for ref in ((paper or {}).get("references") or []) if isinstance(ref, dict)])
    return answers


def _s2_reference_match(index: _IdentityIndex, reference: dict[str, Any]) -> int | None:
    ids = reference.get("externalIds") or {}
    candidates = [("paper_id", reference.get("paperId")), ("doi", ids.get("DOI")), ("pmid", ids.get("PubMed")),
                  ("arxiv_id", ids.get("ArXiv"))]
    for kind, value in candidates:
        found = index.find(kind, value)
        if found is not None:
            return found
    return None


def _s2_api_id(ids: dict[str, list[str]]) -> str | None:
    for kind, prefix in (("paper_id", ""), ("doi", "DOI:"), ("arxiv_id", "ARXIV:"), ("pmid", "PMID:")):
        if ids.get(kind):
            return prefix + ids[kind][0]
    return None


async def link_citations(http: HttpClient, store: Store,
                         library_ids: Iterable[int] | None = None) -> tuple[int, list[str]]:
    """Fetch the references of ``library_ids`` (default: every saved paper) and store edges
    to papers in the library. Returns (new edges, notes); a provider failure becomes a note."""
    identifiers = store.library_identifiers()
    index = _IdentityIndex(identifiers)
    wanted = identifiers if library_ids is None else dict.fromkeys(library_ids)
    targets = [i for i in wanted if i in identifiers]
    edges: set[tuple[int, int]] = set()
    notes: list[str] = []
    via_openalex = {identifiers[i]["openalex_id"][0]: i for i in targets if identifiers[i].get("openalex_id")}
    answered: set[int] = set()
    if via_openalex:
        try:
            references = await _openalex_references(http, list(via_openalex))
        except (ProviderError, ValueError, AttributeError) as error:
            notes.append(f"OpenAlex references unavailable ({error})")
            references = {}
        for work_id, cited_works in references.items():
            citing = via_openalex.get(work_id)
            if citing is None:
                continue
            answered.add(citing)
            for cited_work in cited_works:
                cited = index.find("openalex_id", cited_work)
                if cited is not None:
                    edges.add((citing, cited))
    rest = [(i, api_id) for i in targets if i not in answered and (api_id := _s2_api_id(identifiers[i]))]
    if rest:
        try:
            answers = await _s2_references(http, [api_id for _, api_id in rest])
        except (ProviderError, ValueError, TypeError) as error:
            notes.append(f"Semantic Scholar references unavailable ({error})")
            answers = []
        for (citing, _), references in zip(rest, answers):
            for reference in references:
                cited = _s2_reference_match(index, reference)
                if cited is not None:
                    edges.add((citing, cited))
    new = store.add_citations(sorted(edges))
    return new, notes
