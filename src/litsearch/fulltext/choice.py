"""Which copies of a paper to try, best first (pure: ids and Unpaywall's answer in, a plan out).

1. PubMed Central's JATS XML for a PMCID: NCBI efetch ``db=pmc``, then Europe PMC ``fullTextXML``
   (the same article; Europe PMC answers when NCBI holds the front matter only or fails).
2. arXiv's HTML rendering (LaTeXML) for an arXiv id, then its PDF.
3. The open-access copies the providers named when the paper was looked up (Semantic Scholar's
   openAccessPdf, OpenAlex's open locations), then those Unpaywall names for a DOI, best first
   and each link once: the landing page when it carries the article's text (HTML), else the PDF
   (the one named, or the one the page links to).

Only these legal sources are asked; a paper none of them has is reported as having no open copy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core.identifiers import (
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)
from ..core.urls import http_url

UNPAYWALL = "unpaywall"
MAX_LOCATIONS = 3  # per source: its best location and two more, enough to get past a dead link


@dataclass(frozen=True)
class PaperIds:
    """The ids that lead to a full text (any may be None)."""

    pmcid: str | None = None
    arxiv_id: str | None = None
    doi: str | None = None
    pmid: str | None = None

    @classmethod
    def of(cls, *, pmcid: Any = None, arxiv_id: Any = None, doi: Any = None, pmid: Any = None) -> "PaperIds":
        doi = normalize_doi(doi) if doi else None
        if doi and doi.startswith("10.48550/arxiv.") and not arxiv_id:
            arxiv_id = doi.split("arxiv.", 1)[1]
        return cls(pmcid=_pmcid(pmcid), arxiv_id=normalize_arxiv_id(arxiv_id) if arxiv_id else None,
                   doi=doi, pmid=normalize_pmid(pmid) if pmid else None)


@dataclass(frozen=True)
class Location:
    """One open-access location: its landing page and/or PDF, with what Unpaywall says of it."""

    landing_url: str | None
    pdf_url: str | None
    license: str | None = None
    version: str | None = None
    host: str | None = None  # "publisher" or "repository"
    # The service whose answer named these links: its origin, when the user set it, is trusted
    # as the user's own (net/http.py trusted_origin); None for links from a paper's record.
    named_by: str | None = None


@dataclass(frozen=True)
class Candidate:
    """One copy to try: ``kind`` is pmc, europepmc, arxiv_html, arxiv_pdf or open_access."""

    kind: str
    label: str
    identifier: str = ""
    location: Location | None = None


def plan(ids: PaperIds, locations: list[Location]) -> list[Candidate]:
    """The copies to try, best first (see the module docstring)."""
    candidates: list[Candidate] = []
    if ids.pmcid:
        candidates += [Candidate("pmc", "PubMed Central", ids.pmcid), Candidate("europepmc", "Europe PMC", ids.pmcid)]
    if ids.arxiv_id:
        candidates += [Candidate("arxiv_html", "arXiv (HTML)", ids.arxiv_id),
                       Candidate("arxiv_pdf", "arXiv (PDF)", ids.arxiv_id)]
    seen: set[str] = set()
    for location in locations:
        links = {url for url in (location.landing_url, location.pdf_url) if url}
        if _already_planned(location, ids) or links <= seen:
            continue
        seen |= links
        candidates.append(Candidate("open_access", _label(location), "", location))
        if sum(candidate.kind == "open_access" for candidate in candidates) == MAX_LOCATIONS:
            break
    return candidates


def _label(location: Location) -> str:
    from ..providers.registry import provider_label

    named = f", from {provider_label(location.named_by)}" if location.named_by else ""
    return f"open-access copy ({location.host or 'web'}{named})"


def unpaywall_locations(body: bytes | str) -> list[Location]:
    """The open-access locations in an Unpaywall /v2 answer: the best first, then the others,
    each once; only http(s) links. A closed paper has none."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise ValueError("Unpaywall's answer is not JSON") from None
    if not isinstance(payload, dict) or not payload.get("is_oa"):
        return []
    raw = [payload.get("best_oa_location")] + list(payload.get("oa_locations") or [])
    locations: list[Location] = []
    seen: set[tuple[str | None, str | None]] = set()
    for entry in raw:
        if not isinstance(entry, dict):
            continue
        landing = http_url(entry.get("url_for_landing_page"))
        pdf = http_url(entry.get("url_for_pdf"))
        if not landing and not pdf:
            landing = http_url(entry.get("url"))
        if not landing and not pdf or (landing, pdf) in seen:
            continue
        seen.add((landing, pdf))
        locations.append(Location(landing, pdf, _text(entry.get("license")), _text(entry.get("version")),
                                  _text(entry.get("host_type")), UNPAYWALL))
    return locations


def _already_planned(location: Location, ids: PaperIds) -> bool:
    """A location at PMC, Europe PMC or arXiv is the copy those sources already give."""
    urls = " ".join(u for u in (location.landing_url, location.pdf_url) if u).lower()
    if ids.pmcid and ("ncbi.nlm.nih.gov/pmc" in urls or "europepmc.org" in urls or "pmc.ncbi" in urls):
        return True
    return bool(ids.arxiv_id and "arxiv.org" in urls)


def _pmcid(value: Any) -> str | None:
    text = str(value or "").strip()
    if not text:
        return None
    found = normalize_pmcid(text)
    return found if found and found[3:].isdigit() and len(found) <= 13 else None


def _text(value: Any) -> str | None:
    return " ".join(value.split()) or None if isinstance(value, str) else None
