"""One paper's merged record, its references and the papers that cite it.

Semantic Scholar answers first: ``/paper/{id}`` for the record, ``/paper/{id}/references``
and ``/paper/{id}/citations`` for the lists. OpenAlex is asked for the same record in
parallel; its ``referenced_works`` (resolved with one ``openalex_id:`` OR-filter call per 100
ids) and its ``cites:`` filter are the fallback when Semantic Scholar fails, does not know
the paper, or lists nothing. A paper with a PMID is also asked of PubMed, in the round of the
lists: MEDLINE marks retracted articles and links every notice (Crossref is asked for the
DOI's notices in the same round). A provider failure becomes a note. Only a paper that no
provider has is an error: ``NotFound``, or ``FetchFailed`` when every provider asked failed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Awaitable, Callable, TypeVar

from ..core.errors import FetchFailed, NotFound, ProviderError
from ..core.identifiers import PaperRef, is_arxiv_doi, parse_paper_ref
from ..core.records import Paper
from ..core.updates import with_notices
from ..dedupe.clusters import find_clusters, merge_records
from ..dedupe.merge import merge_cluster
from ..net.http import HttpClient, ProviderSession
from ..providers import openalex, semantic_scholar
from ..providers.base import provider_label
from .citing import citing_papers, rank_by_citations  # noqa: F401 (rank_by_citations: surface)

log = logging.getLogger("litsearch")

S2 = semantic_scholar.NAME
OPENALEX = openalex.NAME
PUBMED = "pubmed"
# A long review lists hundreds of works; 200 ids (4 list calls) cover nearly every paper
# while keeping one lookup cheap. The true total is still reported.
OPENALEX_MAX_REFERENCES = 200


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

    found: Any = None
    tried: set[str] = field(default_factory=set)
    failed: bool = False


@dataclass
class _Lookup:
    s2_asked: _Asked = field(default_factory=_Asked)  # found: (Paper, reference count)
    openalex_asked: _Asked = field(default_factory=_Asked)  # found: openalex.Work

    @property
    def s2(self) -> tuple[Paper, int | None] | None:
        return self.s2_asked.found

    @property
    def openalex(self) -> openalex.Work | None:
        return self.openalex_asked.found


async def fetch_paper_bundle(http: HttpClient, ref: str | PaperRef,
                             progress: Callable[[str], None] | None = None) -> PaperBundle:
    """Look the paper up everywhere, merge the records, fetch and rank both lists.

    Raises ``UnknownIdError`` for text that is no paper id (nothing is sent), ``NotFound``
    when no provider has the paper, and ``FetchFailed`` when every provider asked failed.
    """
    paper_ref = ref if isinstance(ref, PaperRef) else parse_paper_ref(ref)
    s2_session, oa_session = http.session(S2), http.session(OPENALEX)
    attempts = _Attempts(http.settings)
    if progress:
        progress(f"looking up {paper_ref.label} in Semantic Scholar and OpenAlex")
    lookup = await _look_up(s2_session, oa_session, paper_ref, attempts)
    if lookup.s2 is None and lookup.openalex is None:
        pubmed_record = await _pubmed_record(http, paper_ref.value, attempts) if paper_ref.kind == "pmid" else None
        if pubmed_record is None:
            raise _not_found(paper_ref, lookup, attempts)
        attempts.note("Semantic Scholar and OpenAlex do not know this PMID; PubMed's record is shown, "
                      "without references or citing papers")
        return PaperBundle(paper=pubmed_record, references=[], citations=[], reference_count=0,
                           citation_count=0, notes=attempts.notes, sources=[PUBMED], records=[pubmed_record])
    paper, records = _merged_record(lookup, attempts)

    # The lists are asked of S2 only when S2 knows the paper (by its own id, most specific).
    s2_ids = semantic_scholar.api_ids(lookup.s2[0]) if lookup.s2 else []
    s2_id = s2_ids[0] if s2_ids else None
    work = lookup.openalex
    (references, references_from), citing, notices, pubmed_record = await asyncio.gather(
        _reference_list(s2_session, oa_session, s2_id, _known(work), attempts),
        citing_papers(s2_session, oa_session, s2_id, work, attempts),
        _notices(http, paper, attempts),
        _pubmed_record(http, paper.pmid, attempts),
    )
    if notices is not None:  # Crossref's retraction and correction notices, with their DOIs
        paper = with_notices(paper, notices.retracted, notices.updates)
    if pubmed_record is not None:  # PubMed's "Retracted Publication" and CommentsCorrections
        paper = with_notices(paper, pubmed_record.retracted, pubmed_record.updates)
    reported_reference_counts = [lookup.s2[1] if lookup.s2 else None, work.referenced_count if work else None]
    reference_count = max([len(references)] + [n for n in reported_reference_counts if n is not None])
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
    """(the paper's merged record, notes): Semantic Scholar and OpenAlex asked in parallel, as
    for ``fetch_paper_bundle``, but no lists. Raises as ``fetch_paper_bundle`` does."""
    paper_ref = ref if isinstance(ref, PaperRef) else parse_paper_ref(ref)
    attempts = _Attempts(http.settings)
    if progress:
        progress(f"looking up {paper_ref.label} in Semantic Scholar and OpenAlex")
    lookup = await _look_up(http.session(S2), http.session(OPENALEX), paper_ref, attempts)
    if lookup.s2 is None and lookup.openalex is None:
        raise _not_found(paper_ref, lookup, attempts)
    paper, _records = _merged_record(lookup, attempts)
    return paper, attempts.notes


async def _notices(http: HttpClient, paper: Paper, attempts: _Attempts) -> Paper | None:
    """Crossref's record of the paper's DOI (its ``updated-by`` notices), in the same round as
    the lists; None without a Crossref DOI or when Crossref could not answer."""
    if not paper.doi or is_arxiv_doi(paper.doi):
        return None
    from ..providers import crossref

    _, found = await attempts.run(crossref.NAME, "looking up retraction and correction notices",
                                  crossref.get_work(http.session(crossref.NAME), paper.doi))
    return found


async def _pubmed_record(http: HttpClient, pmid: str | None, attempts: _Attempts) -> Paper | None:
    """PubMed's record of the PMID (None without a PMID, or when PubMed could not answer):
    what MEDLINE says about retraction and notices, which OpenAlex and Crossref can lack."""
    if not pmid:
        return None
    from ..providers import pubmed

    _, found = await attempts.run(PUBMED, "looking up retraction and correction notices",
                                  pubmed.fetch_notice_records(http.session(PUBMED), [pmid]))
    return (found or {}).get(pmid)


async def _look_up(s2: ProviderSession, oa: ProviderSession, ref: PaperRef, attempts: _Attempts) -> _Lookup:
    """Both providers in parallel by the given id; then, for a provider that could not use
    that id or did not know it, one more try with an id the other provider's record gave."""
    lookup = _Lookup()
    ask_s2 = partial(_ask, lookup.s2_asked, S2, s2, semantic_scholar.fetch_record, attempts)
    ask_openalex = partial(_ask, lookup.openalex_asked, OPENALEX, oa, openalex.fetch_work, attempts)
    await asyncio.gather(ask_s2(semantic_scholar.api_id(ref)), ask_openalex(openalex.api_id(ref)))
    follow_ups = []
    if lookup.s2 is None and not lookup.s2_asked.failed and lookup.openalex:
        untried = [i for i in semantic_scholar.api_ids(lookup.openalex.paper) if i not in lookup.s2_asked.tried]
        follow_ups.append(ask_s2(untried[0] if untried else None))
    if lookup.openalex is None and not lookup.openalex_asked.failed and lookup.s2:
        untried = [i for i in openalex.api_ids(lookup.s2[0]) if i not in lookup.openalex_asked.tried]
        follow_ups.append(ask_openalex(untried[0] if untried else None))
    await asyncio.gather(*follow_ups)
    return lookup


async def _ask(asked: _Asked, provider: str, session: ProviderSession, fetch: Callable[..., Awaitable[Any]],
               attempts: _Attempts, api_id: str | None) -> None:
    """Look the paper up by ``api_id`` at one provider (nothing when there is no such id)."""
    if api_id is None:
        return
    asked.tried.add(api_id)
    ok, found = await attempts.run(provider, f"looking up {api_id}", fetch(session, api_id))
    asked.failed = asked.failed or not ok
    asked.found = asked.found or found


def _merged_record(lookup: _Lookup, attempts: _Attempts) -> tuple[Paper, list[Paper]]:
    """(one record from both providers, the records merged). When the merge rules say the two
    are different papers (one DOI given to a whole supplement, say), Semantic Scholar's record
    stands alone and OpenAlex's work is dropped, lists included."""
    records = [record for record in (lookup.s2[0] if lookup.s2 else None,
                                     lookup.openalex.paper if lookup.openalex else None) if record]
    if len(records) == 1:
        return records[0], records
    if len(find_clusters(records)) > 1:
        attempts.note(f"OpenAlex's record for this id looks like a different paper "
                      f"({records[1].title[:80]!r}); it was not merged")
        lookup.openalex_asked.found = None
        return records[0], records[:1]
    return merge_cluster(records), records


def _not_found(ref: PaperRef, lookup: _Lookup, attempts: _Attempts) -> NotFound | FetchFailed:
    """FetchFailed ("could not fetch …") when every provider asked failed, else NotFound
    ("… was not found in …")."""
    asked = [p for p, tried in ((S2, lookup.s2_asked.tried), (OPENALEX, lookup.openalex_asked.tried)) if tried]
    failures = "; ".join(f"{provider_label(p)}: {reason}" for p, reason in attempts.failed.items())
    if all(p in attempts.failed for p in asked):
        return FetchFailed(f"could not fetch {ref.label}: {failures}")
    where = " or ".join(provider_label(p) for p in asked)
    return NotFound(f"{ref.label} was not found in {where}" + (f" ({failures})" if failures else ""))


def _known(work: openalex.Work | None) -> Callable[[], Awaitable[openalex.Work | None]]:
    async def get() -> openalex.Work | None:
        return work
    return get


async def _reference_list(s2: ProviderSession, oa: ProviderSession, s2_id: str | None,
                          get_work: Callable[[], Awaitable[openalex.Work | None]],
                          attempts: _Attempts) -> tuple[list[Paper], str | None]:
    """(references, provider) from S2; from OpenAlex when S2 fails, lacks the paper or lists none.

    ``get_work`` gives the OpenAlex work (looked up only when it is needed)."""
    s2_answered = False  # S2 knows the paper and lists no references
    if s2_id:
        ok, found = await attempts.run(S2, "references", semantic_scholar.fetch_references(s2, s2_id))
        if found:
            return rank_by_citations(merge_records(found)), S2
        s2_answered = ok and found is not None
    work = await get_work()
    if work is None or not work.referenced_ids:
        return [], (S2 if s2_answered else None)
    wanted = work.referenced_ids[:OPENALEX_MAX_REFERENCES]
    ok, found = await attempts.run(OPENALEX, "references", openalex.fetch_works(oa, wanted))
    if not ok:
        return [], None
    if s2_answered:
        attempts.note("Semantic Scholar lists no references for this paper; OpenAlex's are shown")
    if len(work.referenced_ids) > len(wanted):
        attempts.note(f"OpenAlex lists {len(work.referenced_ids)} references; the first {len(wanted)} were fetched")
    if len(found or []) < len(wanted):
        attempts.note(f"OpenAlex has usable records for {len(found or [])} of the {len(wanted)} works it lists "
                      f"as references")
    return rank_by_citations(merge_records(found or [])), OPENALEX


async def fetch_references_of(http: HttpClient, paper: Paper) -> tuple[list[Paper], list[str]]:
    """References of a paper already known (a network node): S2 by its best id, else OpenAlex
    (the work is looked up only when S2 cannot answer). Returns (references, notes)."""
    s2_session, oa_session = http.session(S2), http.session(OPENALEX)
    attempts = _Attempts(http.settings)
    s2_ids = semantic_scholar.api_ids(paper)
    cached: list[openalex.Work | None] = []

    async def get_work() -> openalex.Work | None:
        if not cached:
            openalex_ids = openalex.api_ids(paper)
            work = None
            if openalex_ids:
                _ok, work = await attempts.run(OPENALEX, f"looking up {openalex_ids[0]}",
                                               openalex.fetch_work(oa_session, openalex_ids[0]))
            cached.append(work)
        return cached[0]

    references, _source = await _reference_list(s2_session, oa_session, s2_ids[0] if s2_ids else None,
                                                get_work, attempts)
    return references, attempts.notes
