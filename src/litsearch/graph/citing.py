"""The papers citing one paper: all of them, or at least the most cited, and a sentence that
says which.

Semantic Scholar lists citing papers in its own order, not by citation count, up to 1,000 a
page (``/paper/{id}/citations``, ../shared/reference/apis.md A1). OpenAlex sorts them on the
server (``filter=cites:W…&sort=cited_by_count:desc``, A2), so its first page holds the most
cited. Hence:

1. Semantic Scholar's first page of 1,000. When that is everything it lists, the list is
   complete and nothing else is asked.
2. When it lists more, or cannot answer, OpenAlex's 100 most cited are added (one list call):
   the most cited citers are then in the list whichever provider answered.
3. Without OpenAlex, Semantic Scholar is paged on, up to ``S2_CITING_CAP``.

The merged list is ranked by citations; ``coverage`` goes into the footers of ``paper``,
``snowball`` and ``network``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Protocol, TypeVar

from ..core.records import Paper
from ..core.text import fold_title
from ..dedupe.clusters import merge_records
from ..net.http import ProviderSession
from ..providers import openalex, semantic_scholar

S2 = semantic_scholar.NAME
OPENALEX = openalex.NAME
# Semantic Scholar is paged this far when OpenAlex cannot give the most cited: three pages,
# three seconds at its keyed pace.
S2_CITING_CAP = 3 * semantic_scholar.CITATIONS_PAGE

T = TypeVar("T")


class Attempts(Protocol):
    """Runs provider calls, turning each failure into a note (graph.bundle's)."""

    async def run(self, provider: str, what: str, call: Awaitable[T]) -> tuple[bool, T | None]: ...
    def note(self, message: str) -> None: ...


def rank_by_citations(papers: list[Paper]) -> list[Paper]:
    """Most cited first; papers without a count last; then newer, then by title (stable order)."""
    return sorted(papers, key=lambda p: (p.citation_count is None, -(p.citation_count or 0),
                                         -(p.year or 0), fold_title(p.title)))


@dataclass
class CitingList:
    """Citing papers (merged, most cited first), who listed them, and what was covered."""

    papers: list[Paper] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    coverage: str = ""  # "all 812 citing papers Semantic Scholar lists", …
    complete: bool = False  # every citing paper a provider lists was fetched
    answered_by: str | None = None  # the provider that answered, even with an empty list


@dataclass
class _S2Pages:
    papers: list[Paper] = field(default_factory=list)
    answered: bool = False  # S2 knows the paper (even when it lists none)
    next_offset: int | None = None  # more to fetch

    @property
    def more(self) -> bool:
        return self.next_offset is not None


async def citing_papers(s2: ProviderSession, oa: ProviderSession, s2_id: str | None, work: Any,
                        attempts: Attempts) -> CitingList:
    """The citing papers of the paper S2 knows as ``s2_id`` and OpenAlex as ``work`` (either
    may be None)."""
    pages = _S2Pages()
    if s2_id:
        await _next_s2_page(s2, s2_id, pages, attempts, first=True)
    if pages.papers and not pages.more:
        return _all_of_s2(pages)
    most_cited, total = [], None
    work_id = work.paper.openalex_id if work is not None else None
    asked_openalex = bool(work_id) and work.paper.citation_count != 0
    if asked_openalex:
        ok, found = await attempts.run(OPENALEX, "citing papers", openalex.fetch_citing(oa, work_id))
        asked_openalex = ok
        most_cited, total = found if ok and found else ([], None)
    if pages.more and not asked_openalex:
        while pages.more and len(pages.papers) < S2_CITING_CAP:
            if not await _next_s2_page(s2, s2_id, pages, attempts):
                break
        if pages.papers and not pages.more:
            return _all_of_s2(pages)
    if pages.papers and most_cited:
        return _listed(pages.papers + most_cited, [S2, OPENALEX],
                       f"the first {len(pages.papers):,} Semantic Scholar lists (in its order, not by citations) "
                       f"and the {len(most_cited):,} most cited{_of(total)} in OpenAlex (sorted by citations)")
    if pages.papers:
        return _listed(pages.papers, [S2], f"the first {len(pages.papers):,} Semantic Scholar lists, in its order "
                       f"(not by citations): more cited ones may be missing" + (
                           f" (stopped at {S2_CITING_CAP:,})" if pages.more else ""))
    if most_cited:
        if pages.answered:
            attempts.note("Semantic Scholar lists no citing papers for this paper; OpenAlex's are shown")
        complete = total is not None and len(most_cited) >= total
        words = (f"all {len(most_cited):,} citing work{'s' if len(most_cited) != 1 else ''} OpenAlex lists"
                 if complete else
                 f"the {len(most_cited):,} most cited{_of(total)} in OpenAlex (sorted by citations)")
        return _listed(most_cited, [OPENALEX], words, complete=complete)
    answered = S2 if pages.answered else OPENALEX if asked_openalex else None
    return CitingList(answered_by=answered, complete=answered is not None,
                      coverage="none listed" if answered else "")


async def _next_s2_page(s2: ProviderSession, s2_id: str, pages: _S2Pages, attempts: Attempts,
                        first: bool = False) -> bool:
    """Fetch the next page into ``pages``; False when S2 failed or had nothing more."""
    offset = 0 if first else pages.next_offset
    what = "citing papers" if first else f"citing papers from {offset:,} on"
    ok, found = await attempts.run(S2, what, semantic_scholar.fetch_citations_page(s2, s2_id, offset or 0))
    if not ok or found is None:
        pages.next_offset = None
        return False
    papers, pages.next_offset = found
    pages.answered = True
    pages.papers.extend(papers)
    return bool(papers)


def _all_of_s2(pages: _S2Pages) -> CitingList:
    count = len(pages.papers)
    return _listed(pages.papers, [S2], f"all {count:,} citing paper{'s' if count != 1 else ''} "
                   f"Semantic Scholar lists", complete=True)


def _listed(papers: list[Paper], sources: list[str], coverage: str, complete: bool = False) -> CitingList:
    return CitingList(rank_by_citations(merge_records(papers)), sources, coverage, complete, sources[0])


def _of(total: int | None) -> str:
    return f" of {total:,}" if total else ""
