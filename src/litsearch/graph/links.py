"""The citation links among the library's saved papers.

After a save, the reference lists of the library's papers are fetched (OpenAlex
``referenced_works``, 100 papers per call; Semantic Scholar's batch endpoint for papers
OpenAlex does not know, in batches sized by their reference counts), and an edge is stored for every reference that is itself in the
library. All papers are asked, not only the new ones, so an older paper that cites a new
one is linked too; the response cache makes repeated lists free for a day.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..core.errors import ProviderError
from ..core.identifiers import normalize_identifier
from ..library.store import Store
from ..net.http import HttpClient
from ..providers import openalex, semantic_scholar


class _IdentityIndex:
    """Every identifier of every library paper -> its library id."""

    def __init__(self, identifiers: dict[int, dict[str, list[str]]]):
        self.by_key: dict[tuple[str, str], int] = {}
        for library_id, ids in identifiers.items():
            for kind, values in ids.items():
                for value in values:
                    self.by_key[(kind, str(value).lower())] = library_id

    def find(self, kind: str, value: Any) -> int | None:
        normalized = normalize_identifier(kind, value)
        return self.by_key.get((kind, normalized.lower())) if normalized else None


def _s2_reference_match(index: _IdentityIndex, reference: dict[str, Any]) -> int | None:
    ids = reference.get("externalIds")
    ids = ids if isinstance(ids, dict) else {}
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
            references = await openalex.fetch_reference_ids(http.session(openalex.NAME), list(via_openalex))
        except ProviderError as error:
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
            answers = await semantic_scholar.fetch_reference_ids(http.session(semantic_scholar.NAME),
                                                                 [api_id for _, api_id in rest])
        except ProviderError as error:
            notes.append(f"Semantic Scholar references unavailable ({error})")
            answers = []
        notes += [f"Semantic Scholar: {note}" for note in getattr(answers, "notes", [])]
        for (citing, _), references in zip(rest, answers):
            for reference in references:
                cited = _s2_reference_match(index, reference)
                if cited is not None:
                    edges.add((citing, cited))
    new = store.add_citations(sorted(edges))
    return new, notes
