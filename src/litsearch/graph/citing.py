"""The papers citing one paper: all of them, or at least the most cited, and a sentence that
says which.

Providers list citing papers in one of two ways (``Provider.citing_order``, found by the
``cited_by`` capability, never by name): in their own order, page after page (Semantic
Scholar: 1,000 a page, not by citation count), or the most cited first, sorted on their server
(OpenAlex: ``filter=cites:W…&sort=cited_by_count:desc``, one page of 100). Hence:

1. The first page of the provider listing in its own order. When that is everything it lists,
   the list is complete and nothing else is asked.
2. When it lists more, or cannot answer, the most cited from a provider sorting by citations
   are added (one list call): the most cited citers are then in the list whichever answered.
3. Without such a provider, the first one is paged on, up to ``CITING_CAP_PAGES`` pages.

The merged list is ranked by citations; ``coverage`` goes into the footers of ``paper``,
``snowball`` and ``network``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Protocol, TypeVar

from ..core.records import Paper
from ..core.services import CITED_BY
from ..core.text import fold_title
from ..dedupe.clusters import merge_records
from ..providers.base import MOST_CITED, OWN_ORDER, Found, Provider, provider_label, providers_for

# The provider listing in its own order is paged this far when none can give the most cited:
# three pages (Semantic Scholar: three seconds at its keyed pace).
CITING_CAP_PAGES = 3


def _first(order: str) -> Provider | None:
    return next((provider for provider in providers_for(CITED_BY) if provider.citing_order == order), None)


def citing_cap() -> int:
    """How many citing papers the own-order provider is paged to (``CITING_CAP_PAGES`` pages)."""
    own = _first(OWN_ORDER)
    return CITING_CAP_PAGES * own.citing_page_size if own else 0


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
class _Pages:
    """What the own-order provider listed so far."""

    papers: list[Paper] = field(default_factory=list)
    answered: bool = False  # it knows the paper (even when it lists none)
    next_offset: int | None = None  # more to fetch

    @property
    def more(self) -> bool:
        return self.next_offset is not None


async def citing_papers(http: Any, found_by: dict[str, Found | None], attempts: Attempts) -> CitingList:
    """The citing papers of the paper each provider found as ``found_by[name]`` (None where it
    did not)."""
    own, sorted_by_citations = _first(OWN_ORDER), _first(MOST_CITED)
    own_found = found_by.get(own.name) if own else None
    pages = _Pages()
    if own and own_found is not None:
        await _next_page(http, own, own_found, pages, attempts, first=True)
    if pages.papers and not pages.more:
        return _all_of(own, pages)
    most_cited: list[Paper] = []
    total = None
    top_found = found_by.get(sorted_by_citations.name) if sorted_by_citations else None
    asked_top = False
    if sorted_by_citations and top_found is not None:
        ok, page = await attempts.run(sorted_by_citations.name, "citing papers",
                                      sorted_by_citations.citing(http.session(sorted_by_citations.name), top_found))
        asked_top = ok and page is not None
        most_cited, total = (page.papers, page.total) if asked_top else ([], None)
    if pages.more and not asked_top:
        cap = citing_cap()
        while pages.more and len(pages.papers) < cap:
            if not await _next_page(http, own, own_found, pages, attempts):
                break
        if pages.papers and not pages.more:
            return _all_of(own, pages)
    own_label = provider_label(own.name) if own else ""
    top_label = provider_label(sorted_by_citations.name) if sorted_by_citations else ""
    if pages.papers and most_cited:
        return _listed(pages.papers + most_cited, [own.name, sorted_by_citations.name],
                       f"the first {len(pages.papers):,} {own_label} lists (in its order, not by citations) "
                       f"and the {len(most_cited):,} most cited{_of(total)} in {top_label} (sorted by citations)")
    if pages.papers:
        return _listed(pages.papers, [own.name], f"the first {len(pages.papers):,} {own_label} lists, in its order "
                       f"(not by citations): more cited ones may be missing" + (
                           f" (stopped at {citing_cap():,})" if pages.more else ""))
    if most_cited:
        if pages.answered:
            attempts.note(f"{own_label} lists no citing papers for this paper; {top_label}'s are shown")
        complete = total is not None and len(most_cited) >= total
        words = (f"all {len(most_cited):,} citing work{'s' if len(most_cited) != 1 else ''} {top_label} lists"
                 if complete else
                 f"the {len(most_cited):,} most cited{_of(total)} in {top_label} (sorted by citations)")
        return _listed(most_cited, [sorted_by_citations.name], words, complete=complete)
    answered = own.name if pages.answered else sorted_by_citations.name if asked_top else None
    return CitingList(answered_by=answered, complete=answered is not None,
                      coverage="none listed" if answered else "")


async def _next_page(http: Any, provider: Provider, found: Found, pages: _Pages, attempts: Attempts,
                     first: bool = False) -> bool:
    """Fetch the next page into ``pages``; False when the provider failed or had nothing more."""
    offset = 0 if first else pages.next_offset
    what = "citing papers" if first else f"citing papers from {offset:,} on"
    ok, page = await attempts.run(provider.name, what, provider.citing(http.session(provider.name), found, offset or 0))
    if not ok or page is None:
        pages.next_offset = None
        return False
    pages.next_offset = page.next_offset if page.next_offset and page.next_offset > (offset or 0) else None
    pages.answered = True
    pages.papers.extend(page.papers)
    return bool(page.papers)


def _all_of(provider: Provider, pages: _Pages) -> CitingList:
    count = len(pages.papers)
    return _listed(pages.papers, [provider.name], f"all {count:,} citing paper{'s' if count != 1 else ''} "
                   f"{provider_label(provider.name)} lists", complete=True)


def _listed(papers: list[Paper], sources: list[str], coverage: str, complete: bool = False) -> CitingList:
    return CitingList(rank_by_citations(merge_records(papers)), sources, coverage, complete, sources[0])


def _of(total: int | None) -> str:
    return f" of {total:,}" if total else ""
