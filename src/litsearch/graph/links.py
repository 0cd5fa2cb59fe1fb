"""The citation links among the library's saved papers.

After a save, the reference lists of the library's papers are fetched from the providers with
the ``reference_ids`` capability, the one that answers most papers per call first (OpenAlex's
``referenced_works``, 100 papers per call), the next for the papers it could not answer
(Semantic Scholar's batch endpoint, in batches sized by their reference counts), and an edge is
stored for every reference that is itself in the library. All papers are asked, not only the new
ones, so an older paper that cites a new one is linked too; the response cache makes repeated
lists free for a day.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..core.errors import ProviderError
from ..core.identifiers import normalize_identifier
from ..core.services import REFERENCE_IDS
from ..library.store import Store
from ..net.http import HttpClient
from ..providers.base import provider_label, providers_for

# A reference's ids, strongest first, as the library's identifier kinds.
MATCH_ORDER = ("paper_id", "openalex_id", "doi", "pmid", "arxiv_id")


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

    def match(self, reference: dict[str, Any]) -> int | None:
        """The library paper a reference names by any of its ids."""
        for kind in MATCH_ORDER:
            if reference.get(kind):
                found = self.find(kind, reference[kind])
                if found is not None:
                    return found
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
    answered: set[int] = set()
    for provider in providers_for(REFERENCE_IDS):
        asked = [(i, api_id) for i in targets if i not in answered and (api_id := provider.library_ids(identifiers[i]))]
        if not asked:
            continue
        label = provider_label(provider.name)
        try:
            lists, said = await provider.reference_lists(http.session(provider.name), [api_id for _, api_id in asked])
        except ProviderError as error:
            notes.append(f"{label} references unavailable ({error})")
            continue
        notes += [f"{label}: {note}" for note in said]
        for (citing, _), references in zip(asked, lists):
            if references is None:
                continue
            answered.add(citing)
            for reference in references:
                cited = index.match(reference)
                if cited is not None:
                    edges.add((citing, cited))
    new = store.add_citations(sorted(edges))
    return new, notes


async def save_shown(http: HttpClient, store: Store, shown: list[Any]) -> tuple[str, Any]:
    """Keep ``shown`` (RankedPapers) in the library and refresh the citation links: (the
    footer's note, the StoreError when the library could not be written, else None)."""
    from ..core.errors import StoreError
    from ..library.record import saved_record

    try:
        ids = store.save_papers([saved_record(item.paper, found_by=[hit.provider for hit in item.hits],
                                              doi_verified=item.doi_verified) for item in shown])
        links, problems = await link_citations(http, store)
    except StoreError as error:  # the answers are still shown; the command then exits 4
        return f"not saved to the library: {error}", error
    note = (f"saved {len(ids)} papers to the library ({store.path}); "
            f"{links} new citation links among library papers")
    if problems:
        note += " (" + "; ".join(problems) + ")"
    return note, None
