"""A snowball as a search result, so every search output serves it (the table, JSON, every
export, --save, --record): the shown rows enriched as a search's are (DOI checks with their
retraction notices, open-access links), and the snowball's counts in the footer."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..core.text import plural
from ..search.enrich import EnrichmentReport, enrich_shown
from ..search.pipeline import SearchResult, search_deadline
from .snowball import SnowballResult


@dataclass
class ChasedResult(SearchResult):
    """A SearchResult whose records come from the seeds' lists, not from searches: the records
    identified are the references and citing papers found."""

    records_found: int = 0

    @property
    def record_count(self) -> int:
        return self.records_found


async def as_search_result(http: Any, found: SnowballResult, limit: int, verify: bool,
                           started: float) -> ChasedResult:
    """The snowball ``found`` as a result whose first ``limit`` rows are enriched (unless not
    ``verify``); ``started``: its start on ``time.monotonic``'s clock."""
    report = EnrichmentReport()
    for provider, count in found.requests.items():
        report.count(provider, count)
    shown, rest = found.results[:limit], found.results[limit:]
    if shown and verify:  # DOI checks (with retraction notices) and open-access links
        shown = await enrich_shown(http, shown, report, open_access=True, verify=True,
                                   deadline=search_deadline(http))
    seeds_ok = [seed for seed in found.seeds if seed.paper is not None]
    report.notes[:0] = [
        f"seeds: {len(seeds_ok)} of {len(found.seeds)} fetched ({', '.join(seed.label for seed in found.seeds)})",
        f"found: {plural(found.references_found, 'reference')}, {plural(found.citing_found, 'citing paper')}; "
        f"{plural(len(found.results), 'paper')} after removing duplicates and the seeds; {len(shown)} shown",
        f"reach ({found.direction}): {found.reach()}",
    ] + found.notes
    labels = ", ".join(seed.label for seed in found.seeds)
    return ChasedResult(query=f"snowball from {labels} ({found.direction})", variants=[], outcomes=[],
                        results=shown + rest, provider_reason=None,
                        search_time_ms=int((time.monotonic() - started) * 1000), enrichment=report,
                        sent=list(http.sent), records_found=found.references_found + found.citing_found,
                        reranked=found.reranked, rerank_note=found.rerank_note)
