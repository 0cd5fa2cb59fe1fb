"""One paper's merged record, its references and the papers that cite it.

The providers that can look a paper up (the ``lookup`` capability: Semantic Scholar, OpenAlex)
are asked for its record in parallel, by the id given or, for one that could not use it, by an
id another one's record gave. The reference list comes from the first provider with the ``cites``
capability that has one (Semantic Scholar's page of records before OpenAlex's list of ids,
resolved in OR-filter calls of 100), the citing papers from those with ``cited_by`` (graph/
citing.py). Every provider with ``notices`` (Crossref for the DOI's notices, PubMed for
MEDLINE's retraction marks) is asked in the round of the lists. A provider failure becomes a
note. Only a paper that no provider has is an error: ``NotFound``, or ``FetchFailed`` when every
provider asked failed. No provider is named here: each is found by what it declares it can do.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable, TypeVar

from ..core.errors import FetchFailed, NotFound, ProviderError
from ..core.identifiers import PaperRef, parse_paper_ref
from ..core.records import OpenCopy, Paper
from ..core.services import CITES, LOOKUP, NOTICES
from ..core.updates import with_notices
from ..dedupe.clusters import find_clusters, merge_records
from ..dedupe.merge import merge_cluster
from ..net.http import HttpClient
from ..providers.base import Found, Provider, provider_label, providers_for
from .citing import citing_papers, rank_by_citations  # noqa: F401 (rank_by_citations: surface)

log = logging.getLogger("litsearch")

@dataclass
class PaperBundle:
    """A paper's merged record with its references and citing papers, each list merged and
    ranked by citations. The counts are the totals the providers report, which can exceed
    the fetched lists (one page each)."""

    paper: Paper
    references: list[Paper]
    citations: list[Paper]
    reference_count: int
    citation_count: int
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # providers whose record was merged
    records: list[Paper] = field(default_factory=list)  # those providers' own records
    references_from: str | None = None  # provider that supplied the reference list
    citations_from: str | None = None  # the first provider that listed citing papers
    citations_sources: list[str] = field(default_factory=list)  # every provider that did
    citations_coverage: str = ""  # what the citing list covers, in words (graph/citing.py)
    citations_complete: bool = False  # every citing paper a provider lists was fetched


T = TypeVar("T")


class _Attempts:
    """Runs provider calls, turning each failure into a note instead of an exception."""

    def __init__(self, settings) -> None:
        self.settings = settings
        self.notes: list[str] = []
        self.failed: dict[str, str] = {}  # provider -> first failure reason

    async def run(self, provider: str, what: str, call: Awaitable[T]) -> tuple[bool, T | None]:
        """(True, result) on success; (False, None) after noting the failure."""
        try:
            return True, await call
        except ProviderError as exc:
            reason = str(exc)
        except Exception as exc:  # a parser bug must not sink the other provider
            log.debug("%s: %s crashed", provider, what, exc_info=True)
            reason = f"internal error ({type(exc).__name__}: {str(exc)[:120]})"
        reason = self.settings.redact(" ".join(reason.split()))
        self.failed.setdefault(provider, reason)
        self.note(f"{provider_label(provider)}: {what} failed: {reason}")
        return False, None

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)


@dataclass
class _Asked:
    """What one provider said about the paper itself: its record (None when unknown), the
    ids it was asked by, and whether a lookup failed."""

    found: Found | None = None
    tried: set[str] = field(default_factory=set)
    failed: bool = False


@dataclass
class _Lookup:
    """Every lookup provider's answer, in the order they are asked."""

    asked: dict[str, _Asked] = field(default_factory=dict)
    providers: dict[str, Provider] = field(default_factory=dict)

    def found(self, name: str) -> Found | None:
        return self.asked[name].found

    @property
    def any_found(self) -> bool:
        return any(asked.found is not None for asked in self.asked.values())

    @property
    def labels(self) -> str:
        return " and ".join(provider_label(name) for name in self.providers)


async def fetch_paper_bundle(http: HttpClient, ref: str | PaperRef,
                             progress: Callable[[str], None] | None = None) -> PaperBundle:
    """Look the paper up everywhere, merge the records, fetch and rank both lists.

    Raises ``UnknownIdError`` for text that is no paper id (nothing is sent), ``NotFound``
    when no provider has the paper, and ``FetchFailed`` when every provider asked failed.
    """
    paper_ref, lookup, attempts = await _looked_up(http, ref, progress)
    if not lookup.any_found:
        record = await _record_by_pmid(http, paper_ref, attempts) if paper_ref.kind == "pmid" else None
        if record is None:
            raise _not_found(paper_ref, lookup, attempts)
        attempts.note(f"{lookup.labels} do not know this PMID; {provider_label(record.provider)}'s record is shown, "
                      "without references or citing papers")
        return PaperBundle(paper=record, references=[], citations=[], reference_count=0,
                           citation_count=0, notes=attempts.notes, sources=[record.provider], records=[record])
    paper, records = _merged_record(lookup, attempts)

    (references, references_from), citing, notices = await asyncio.gather(
        _reference_list(http, {name: _known(lookup.found(name)) for name in lookup.providers}, attempts),
        citing_papers(http, {name: lookup.found(name) for name in lookup.providers}, attempts),
        _notices(http, paper, attempts),
    )
    for record in notices:  # Crossref's notices with their DOIs, PubMed's "Retracted Publication"
        paper = with_notices(paper, record.retracted, record.updates)
    reported = [found.reference_count for name in lookup.providers if (found := lookup.found(name))]
    reference_count = max([len(references)] + [n for n in reported if n is not None])
    citation_count = max(paper.citation_count or 0, len(citing.papers))
    return PaperBundle(
        paper=paper, references=references, citations=citing.papers,
        reference_count=reference_count, citation_count=citation_count,
        notes=attempts.notes, sources=[record.provider for record in records], records=records,
        references_from=references_from, citations_from=citing.answered_by, citations_sources=citing.sources,
        citations_coverage=citing.coverage, citations_complete=citing.complete,
    )


async def fetch_paper_record(http: HttpClient, ref: str | PaperRef,
                             progress: Callable[[str], None] | None = None) -> tuple[Paper, list[str]]:
    """(the paper's merged record, notes): every lookup provider asked in parallel, as for
    ``fetch_paper_bundle``, but no lists. Raises as ``fetch_paper_bundle`` does."""
    found = await look_up_paper(http, ref, progress)
    return found.paper, found.notes


@dataclass
class LookedUp:
    """A paper as the lookup providers know it: the merged record, the notes, and the
    open-access copies each provider named (provider, OpenCopy), in the providers' order."""

    paper: Paper
    notes: list[str]
    open_copies: list[tuple[str, OpenCopy]] = field(default_factory=list)


async def look_up_paper(http: HttpClient, ref: str | PaperRef,
                        progress: Callable[[str], None] | None = None) -> LookedUp:
    """``fetch_paper_record`` with the open copies the providers named (those whose record was
    merged: a provider that described another paper names none)."""
    paper_ref, lookup, attempts = await _looked_up(http, ref, progress)
    if not lookup.any_found:
        raise _not_found(paper_ref, lookup, attempts)
    paper, _records = _merged_record(lookup, attempts)
    copies = [(name, copy) for name in lookup.providers if (found := lookup.found(name)) is not None
              for copy in found.open_copies]
    return LookedUp(paper, attempts.notes, copies)


async def _looked_up(http: HttpClient, ref: str | PaperRef, progress: Callable[[str], None] | None
                     ) -> tuple[PaperRef, _Lookup, _Attempts]:
    """The paper id parsed (UnknownIdError for text that is none) and every lookup provider
    asked for it in parallel: (the id, what each answered, the attempts' notes)."""
    paper_ref = ref if isinstance(ref, PaperRef) else parse_paper_ref(ref)
    attempts = _Attempts(http.settings)
    lookup = _Lookup(providers={provider.name: provider for provider in providers_for(LOOKUP)})
    if progress:
        progress(f"looking up {paper_ref.label} in {lookup.labels}")
    await _look_up(http, lookup, paper_ref, attempts)
    return paper_ref, lookup, attempts


async def _notices(http: HttpClient, paper: Paper, attempts: _Attempts) -> list[Paper]:
    """What each provider with notices says about the paper (its records, in the order they
    are applied), in the same round as the lists; a provider without a record says nothing."""
    providers = providers_for(NOTICES)
    answers = await asyncio.gather(*(
        attempts.run(provider.name, "looking up retraction and correction notices",
                     provider.notices(http.session(provider.name), paper)) for provider in providers))
    return [found for _ok, found in answers if found is not None]


async def _record_by_pmid(http: HttpClient, ref: PaperRef, attempts: _Attempts) -> Paper | None:
    """A record of a PMID no lookup provider knows, from a provider with notices (PubMed):
    what MEDLINE says about the paper, without lists."""
    for record in await _notices(http, Paper(provider="", title="", pmid=ref.value), attempts):
        if record.pmid == ref.value and record.title:
            return record
    return None


async def _look_up(http: HttpClient, lookup: _Lookup, ref: PaperRef, attempts: _Attempts) -> None:
    """Every lookup provider in parallel by the given id; then, for a provider that could not
    use that id or did not know it, one more try with an id another provider's record gave."""
    lookup.asked = {name: _Asked() for name in lookup.providers}

    def ask(name: str, api_id: str | None) -> Awaitable[None]:
        return _ask(lookup.asked[name], name, http, lookup.providers[name], attempts, api_id)

    await asyncio.gather(*(ask(name, provider.api_id(ref)) for name, provider in lookup.providers.items()))
    follow_ups = []
    for name, provider in lookup.providers.items():
        asked = lookup.asked[name]
        if asked.found is not None or asked.failed:
            continue
        others = [other.found.paper for other_name, other in lookup.asked.items()
                  if other_name != name and other.found is not None]
        untried = [i for paper in others for i in provider.api_ids(paper) if i not in asked.tried]
        if others:
            follow_ups.append(ask(name, untried[0] if untried else None))
    await asyncio.gather(*follow_ups)


async def _ask(asked: _Asked, name: str, http: HttpClient, provider: Provider, attempts: _Attempts,
               api_id: str | None) -> None:
    """Look the paper up by ``api_id`` at one provider (nothing when there is no such id)."""
    if api_id is None:
        return
    asked.tried.add(api_id)
    ok, found = await attempts.run(name, f"looking up {api_id}", provider.look_up(http.session(name), api_id))
    asked.failed = asked.failed or not ok
    asked.found = asked.found or found


def _merged_record(lookup: _Lookup, attempts: _Attempts) -> tuple[Paper, list[Paper]]:
    """(one record from every provider that found the paper, the records merged). When the
    merge rules say a record is a different paper (one DOI given to a whole supplement, say),
    the first provider's record stands, and the other's is dropped, lists included."""
    named = [(name, found.paper) for name in lookup.providers if (found := lookup.found(name)) is not None]
    records = [record for _, record in named]
    if len(records) == 1:
        return records[0], records
    first = next(cluster for cluster in find_clusters(records) if 0 in cluster.members)
    if len(first.members) < len(records):
        for position, (name, record) in enumerate(named):
            if position not in first.members:
                attempts.note(f"{provider_label(name)}'s record for this id looks like a different paper "
                              f"({record.title[:80]!r}); it was not merged")
                lookup.asked[name].found = None
        records = [record for position, record in enumerate(records) if position in first.members]
        if len(records) == 1:
            return records[0], records
    return merge_cluster(records), records


def _not_found(ref: PaperRef, lookup: _Lookup, attempts: _Attempts) -> NotFound | FetchFailed:
    """FetchFailed ("could not fetch …") when every provider asked failed, else NotFound
    ("… was not found in …")."""
    asked = [name for name, answer in lookup.asked.items() if answer.tried]
    failures = "; ".join(f"{provider_label(p)}: {reason}" for p, reason in attempts.failed.items())
    if all(p in attempts.failed for p in asked):
        return FetchFailed(f"could not fetch {ref.label}: {failures}")
    where = " or ".join(provider_label(p) for p in asked)
    return NotFound(f"{ref.label} was not found in {where}" + (f" ({failures})" if failures else ""))


def _known(found: Found | None) -> Callable[[], Awaitable[Found | None]]:
    async def get() -> Found | None:
        return found
    return get


async def _reference_list(http: HttpClient, found_by: dict[str, Callable[[], Awaitable[Found | None]]],
                          attempts: _Attempts) -> tuple[list[Paper], str | None]:
    """(references, provider): from the first provider with the ``cites`` capability that lists
    any; one that knows the paper and lists none is named when a later one's list is shown.

    ``found_by`` gives each provider's record of the paper (looked up only when needed)."""
    listed_none: list[str] = []  # providers that know the paper and list no references
    for provider in providers_for(CITES):
        get_found = found_by.get(provider.name)
        found = await get_found() if get_found else None
        if found is None:
            continue
        ok, answer = await attempts.run(provider.name, "references",
                                        provider.references(http.session(provider.name), found))
        if answer is None:
            if not ok and listed_none:
                return [], None
            continue
        if not answer.papers and not answer.notes:
            listed_none.append(provider.name)
            continue
        if listed_none:
            names = " and ".join(provider_label(name) for name in listed_none)
            attempts.note(f"{names} lists no references for this paper; {provider_label(provider.name)}'s are shown")
        for note in answer.notes:
            attempts.note(note)
        return rank_by_citations(merge_records(answer.papers)), provider.name
    return [], (listed_none[0] if listed_none else None)


async def fetch_references_of(http: HttpClient, paper: Paper) -> tuple[list[Paper], list[str]]:
    """References of a paper already known (a network node): from the first provider with the
    ``cites`` capability that can ask its list by the paper's ids, else one that looks the
    paper up first (only when the earlier ones cannot answer). Returns (references, notes)."""
    attempts = _Attempts(http.settings)
    found_by = {provider.name: _found_for(http, provider, paper, attempts) for provider in providers_for(CITES)}
    references, _source = await _reference_list(http, found_by, attempts)
    return references, attempts.notes


def _found_for(http: HttpClient, provider: Provider, paper: Paper,
               attempts: _Attempts) -> Callable[[], Awaitable[Found | None]]:
    """The provider's handle on ``paper``: by its ids alone, or looked up by its best id (once)."""
    kept: list[Found | None] = []

    async def get() -> Found | None:
        if not kept:
            found = provider.found_without_lookup(paper)
            ids = provider.api_ids(paper)
            if found is None and ids:
                _ok, found = await attempts.run(provider.name, f"looking up {ids[0]}",
                                                provider.look_up(http.session(provider.name), ids[0]))
            kept.append(found)
        return kept[0]
    return get
