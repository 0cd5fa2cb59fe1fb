"""Enrich the shown results: Crossref checks each DOI, PubMed says whether each PMID is
retracted, Unpaywall finds free full text.

All run on the rows about to be shown (not on every fetched record), batched and paced
through the same HTTP layer, so they add a request or a few, not one per paper. Each
returns what it found for each item (by position), and the pipeline builds the enriched
items from that: nothing is changed in place.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.errors import ProviderError
from ..core.identifiers import is_arxiv_doi
from ..core.updates import with_notices
from ..core.urls import is_pdf_url
from ..net.http import HttpClient
from .rank import RankedPaper


@dataclass
class EnrichmentReport:
    notes: list[str] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)

    def count(self, provider: str, requests: int) -> None:
        self.requests[provider] = self.requests.get(provider, 0) + requests

    def extend(self, other: "EnrichmentReport") -> None:
        self.notes.extend(other.notes)
        for provider, requests in other.requests.items():
            self.count(provider, requests)


# Enrichment that could not start this long before the search's deadline is skipped.
MIN_SECONDS_LEFT = 0.5


async def enrich_shown(http: HttpClient, items: list[RankedPaper], report: EnrichmentReport, *,
                       open_access: bool, verify: bool, deadline: float) -> list[RankedPaper]:
    """Unpaywall links and Crossref DOI checks for the shown rows, both at once (one round
    trip after the search), within the search's one deadline."""
    if not (open_access or verify) or not items:
        return items
    if deadline - http.clock() < MIN_SECONDS_LEFT:
        report.notes.append("DOI checks and open-access lookups skipped: the search's time budget ran out")
        return items
    oa_report, doi_report, pubmed_report = EnrichmentReport(), EnrichmentReport(), EnrichmentReport()
    linked, checked, pubmed_says = await asyncio.gather(
        _guarded(find_open_access(http, items, oa_report, deadline), items, oa_report, "open-access lookups",
                 http) if open_access else _same(items),
        _guarded(check_dois(http, items, doi_report, deadline), items, doi_report, "DOI checks", http)
        if verify else _same(items),
        _guarded(pubmed_notices(http, items, pubmed_report, deadline), {}, pubmed_report,
                 "PubMed retraction checks", http) if verify else _nothing())
    report.extend(oa_report)
    report.extend(doi_report)
    report.extend(pubmed_report)
    enriched = [with_link.with_doi_check(with_check.doi_check) if with_check.doi_check is not None else with_link
                for with_link, with_check in zip(linked, checked)]
    for position, (retracted, updates) in pubmed_says.items():
        item = enriched[position]
        enriched[position] = replace(item, paper=with_notices(item.paper, retracted, updates))
    return enriched


async def _nothing() -> dict:
    return {}


async def _same(items: list[RankedPaper]) -> list[RankedPaper]:
    return items


async def _guarded(work, items: Any, report: EnrichmentReport, what: str, http: HttpClient) -> Any:
    """Enrichment that fails costs only the enrichment: the rows are shown without it and the
    footer says why. (A provider failure normally arrives as a value; this is the last guard.)"""
    try:
        return await work
    except Exception as error:  # noqa: BLE001 - whatever broke, the search's results are kept
        reason = str(error) if isinstance(error, ProviderError) else f"{type(error).__name__}: {error}"
        reason = http.settings.redact(" ".join(reason.split()))[:160]
        report.notes.append(f"{what} failed ({reason}); the results are shown without them")
        return items  # what the step had before it: the rows as they were, or nothing learnt


async def check_dois(http: HttpClient, items: list[RankedPaper], report: EnrichmentReport,
                     deadline: float | None = None) -> list[RankedPaper]:
    """The items, each with a DOI carrying Crossref's verdict (``doi_verified``/``doi_check``)."""
    candidates = [item for item in items if item.paper.doi]
    if not candidates:
        return list(items)
    from ..providers import crossref  # loaded when the shown rows are known, not before
    session = http.session(crossref.NAME, deadline=deadline)
    checks = await crossref.verify_many(
        session, [(item.paper.doi, item.paper.title, item.paper.year) for item in candidates])
    report.count(crossref.NAME, session.requests_sent)
    checked = [item.with_doi_check(checks.verdicts.get(item.paper.doi) or {}) if item.paper.doi else item
               for item in items]
    with_doi = [item for item in checked if item.paper.doi]
    verified = sum(1 for item in with_doi if item.doi_verified is not None)
    mismatched = sum(1 for item in with_doi if item.doi_verified is False)
    failures = sum(1 for item in with_doi if item.paper.doi in checks.unreachable)
    line = f"DOIs checked at Crossref: {verified} of {len(with_doi)}"
    if mismatched:
        line += f", {mismatched} not found or not matching (marked ⚠)"
    if failures:
        why = "their Crossref answers are not in the cache" if _offline(http) else "Crossref unreachable"
        line += f"; {failures} could not be checked ({why})"
    report.notes.append(line)
    return checked


def free_copies_found(found: int, asked: int) -> str:
    """"a free copy found for 1 of 3 papers without one", "no free copy found for the paper
    without one", "free copies found for all 4 papers without one"."""
    if asked == 1:
        return f"{'a' if found else 'no'} free copy found for the paper without one"
    papers = f"{asked} papers without one"
    if found == 0:
        return f"no free copy found for the {papers}"
    what = "a free copy" if found == 1 else "free copies"
    return f"free copies found for all {papers}" if found == asked else f"{what} found for {found} of {papers}"


async def pubmed_notices(http: HttpClient, items: list[RankedPaper], report: EnrichmentReport,
                         deadline: float | None = None) -> dict[int, tuple[bool | None, list[dict]]]:
    """What PubMed says about each shown row with a PMID that PubMed did not supply itself
    (a search that skipped PubMed, a PMID from Semantic Scholar or OpenAlex): by position,
    (retracted, notices). MEDLINE marks every retracted article ("Retracted Publication") and
    links its notices (CommentsCorrections), where OpenAlex's is_retracted can lag and a
    notice may never reach Crossref. One batched efetch for all of them."""
    from ..providers import pubmed  # loaded when the shown rows are known, not before

    wanted = {position: item.paper.pmid for position, item in enumerate(items)
              if item.paper.pmid and not any(hit.provider == pubmed.NAME for hit in item.hits)}
    if not wanted:
        return {}
    session = http.session(pubmed.NAME, deadline=deadline)
    try:
        records = await pubmed.fetch_notice_records(session, list(wanted.values()))
    except ProviderError as error:
        why = "their PubMed answers are not in the cache" if _offline(http) else str(error)
        report.notes.append(f"PubMed retraction check skipped for {len(wanted)} PMIDs ({why})")
        return {}
    finally:
        report.count(pubmed.NAME, session.requests_sent)
    found = {position: (records[pmid].retracted, records[pmid].updates)
             for position, pmid in wanted.items() if pmid in records}
    retracted = sum(1 for is_retracted, _ in found.values() if is_retracted)
    line = f"PMIDs checked at PubMed for retractions and notices: {len(found)} of {len(wanted)}"
    report.notes.append(line + (f", {retracted} retracted" if retracted else ""))
    return found


async def find_open_access(http: HttpClient, items: list[RankedPaper], report: EnrichmentReport,
                           deadline: float | None = None) -> list[RankedPaper]:
    """The items with their open-access links: a provider's link is kept (and labelled), and
    Unpaywall is asked for each item with a DOI and no link that was not asked before."""
    items = [item.with_open_access(item.paper.oa_url, is_pdf_url(item.paper.oa_url), "provider")
             if item.paper.oa_url and item.oa_source is None else item for item in items]
    wanted = [position for position, item in enumerate(items)
              if not item.paper.oa_url and item.oa_source is None
              and item.paper.doi and not is_arxiv_doi(item.paper.doi)]
    if not wanted:
        return items
    if not http.settings.email:
        report.notes.append("Unpaywall skipped: it needs a contact email (set LITSEARCH_EMAIL)")
        return items
    from ..providers import (
        unpaywall,  # loaded when the shown rows are known, not before
    )

    session = http.session(unpaywall.NAME, deadline=deadline)

    async def lookup(item: RankedPaper) -> RankedPaper | str:
        """The item with what Unpaywall said, or the failure reason."""
        try:
            answer = await unpaywall.get_open_access_url(session, item.paper.doi)
        except ProviderError as error:
            return str(error)
        except Exception as error:  # noqa: BLE001 - one unreadable answer costs one lookup
            return f"unreadable answer ({type(error).__name__})"
        if answer and answer.get("url"):
            return item.with_open_access(answer["url"], bool(answer.get("is_pdf")), "unpaywall")
        return item.with_open_access(None, item.oa_is_pdf, "none")  # asked: not asked again

    # Concurrent, within Unpaywall's pace (10/s, 5 in flight).
    answers = await asyncio.gather(*(lookup(items[position]) for position in wanted))
    report.count(unpaywall.NAME, session.requests_sent)
    failures = [answer for answer in answers if isinstance(answer, str)]
    found = 0
    for position, answer in zip(wanted, answers):
        if isinstance(answer, RankedPaper):
            items[position] = answer
            found += answer.oa_source == "unpaywall"
    line = f"Unpaywall: {free_copies_found(found, len(wanted))}"
    if failures and _offline(http):
        line += f"; {len(failures)} not looked up (not in the cache)"
    elif failures:
        line += f"; {len(failures)} {'lookup' if len(failures) == 1 else 'lookups'} failed ({failures[0]})"
    report.notes.append(line)
    return items


def _offline(http: HttpClient) -> bool:
    """--offline: what is missing was not fetched, not unreachable."""
    return http.cache is not None and http.cache.offline
