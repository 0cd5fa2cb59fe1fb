"""Enrich the shown results: Crossref checks each DOI, Unpaywall finds free full text.

Both run on the rows about to be shown (not on every fetched record), batched and paced
through the same HTTP layer, so they add a request or a few, not one per paper.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .http import HttpClient, ProviderError
from .identifiers import is_arxiv_doi, is_pdf_url
from .providers import crossref, unpaywall
from .rank import RankedPaper


@dataclass
class EnrichmentReport:
    notes: list[str] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)


async def verify_dois(http: HttpClient, items: list[RankedPaper], report: EnrichmentReport) -> None:
    """Set ``doi_verified``/``doi_check`` on every item with a DOI."""
    candidates = [item for item in items if item.paper.doi]
    if not candidates:
        return
    session = http.session("crossref")
    verdicts = await crossref.verify_many(
        session, [(item.paper.doi, item.paper.title, item.paper.year) for item in candidates])
    report.requests["crossref"] = session.requests_sent
    failures = 0
    for item in candidates:
        verdict = verdicts.get(item.paper.doi) or {}
        item.doi_verified = verdict.get("verified")
        item.doi_check = verdict
        if str(verdict.get("reason", "")).startswith("Crossref lookup failed"):
            failures += 1
    checked = sum(1 for item in candidates if item.doi_verified is not None)
    mismatched = sum(1 for item in candidates if item.doi_verified is False)
    line = f"DOIs checked at Crossref: {checked} of {len(candidates)}"
    if mismatched:
        line += f", {mismatched} not found or not matching (marked ⚠)"
    if failures:
        line += f"; {failures} could not be checked (Crossref unreachable)"
    report.notes.append(line)


async def add_open_access(http: HttpClient, items: list[RankedPaper], report: EnrichmentReport) -> None:
    """Ask Unpaywall for a free copy of each item that no provider gave an OA link for."""
    for item in items:
        if item.paper.oa_url and item.oa_source is None:
            item.oa_source = "provider"
            item.oa_is_pdf = is_pdf_url(item.paper.oa_url)
    wanted = [item for item in items if not item.paper.oa_url and item.oa_source is None
              and item.paper.doi and not is_arxiv_doi(item.paper.doi)]
    if not wanted:
        return
    if not http.settings.email:
        report.notes.append("Unpaywall skipped: it needs a contact email (set LITSEARCH_EMAIL)")
        return
    session = http.session("unpaywall")

    async def lookup(item: RankedPaper) -> str | None:
        """None on success, else the failure reason."""
        try:
            answer = await unpaywall.get_open_access_url(session, item.paper.doi)
        except ProviderError as error:
            return str(error)
        item.oa_source = "none"  # asked: not asked again
        if answer and answer.get("url"):
            item.paper.oa_url = answer["url"]
            item.oa_is_pdf = bool(answer.get("is_pdf"))
            item.oa_source = "unpaywall"
        return None

    # Concurrent, within Unpaywall's pace (10/s, 5 in flight).
    failures = [reason for reason in await asyncio.gather(*(lookup(item) for item in wanted)) if reason]
    found = sum(1 for item in wanted if item.oa_source == "unpaywall")
    report.requests["unpaywall"] = session.requests_sent
    line = f"Unpaywall: free copies found for {found} of {len(wanted)} papers without one"
    if failures:
        line += f"; {len(failures)} lookups failed ({failures[0]})"
    report.notes.append(line)
