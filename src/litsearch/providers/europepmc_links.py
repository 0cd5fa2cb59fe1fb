"""Europe PMC's citation lists, for deep search: ``GET /{source}/{id}/citations`` (the records
citing it, Europe PMC's own count) and ``/references`` (the reference list it extracted), for
a record Europe PMC keys as MED (PubMed), PMC or PPR (a preprint). The JSON wraps each list as
``citationList.citation[]`` / ``referenceList.reference[]`` (../shared/reference/apis-more.md
§1); entries carry ids, title, authors, journal and year, never an abstract.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.identifiers import normalize_doi, normalize_pmid
from ..core.records import Paper
from ..core.text import plain_text
from ..net.http import ProviderSession
from ._common import as_count, as_dict, as_list, as_year, clean, json_object, parse_each
from .europepmc_parse import EUROPEPMC_ID, NAME

NOT_FOUND = frozenset({404})
MAX_PAGE_SIZE = 1000
_SOURCES = {"MED", "PMC", "PPR"}


def link_id(paper: Paper) -> tuple[str, str] | None:
    """(source, id) Europe PMC files the record under, from its own key or the record's ids."""
    own = (paper.external_ids or {}).get(EUROPEPMC_ID) or ""
    source, _, ident = own.partition(":")
    if source.upper() in _SOURCES and ident:
        return source.upper(), ident
    if paper.pmid:
        return "MED", paper.pmid
    pmcid = (paper.external_ids or {}).get("pmcid") or (paper.external_ids or {}).get("PMCID")
    return ("PMC", pmcid.upper()) if pmcid else None


async def fetch_linked(session: ProviderSession, paper: Paper, direction: str, limit: int) -> list[Paper] | None:
    """Up to ``limit`` references or citing records; None when Europe PMC has no list for it."""
    found = link_id(paper)
    if found is None:
        return None
    source, ident = found
    listing = "references" if direction == "references" else "citations"
    params = {"page": "1", "pageSize": str(max(1, min(limit, MAX_PAGE_SIZE))), "format": "json",
              **session.identity_params()}
    response = await session.get(session.url(f"/{source}/{ident}/{listing}"), params=params,
                                 accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    return parse_links(response.content, listing)[:limit]


def parse_links(body: bytes | str, listing: str) -> list[Paper]:
    """The records of a /citations or /references answer, ranked by position."""
    payload = json_object(body)
    wrapper, item = ("citationList", "citation") if listing == "citations" else ("referenceList", "reference")
    entries = as_list(as_dict(payload.get(wrapper)).get(item))
    return parse_each(entries, parse_entry)


def parse_entry(obj: Any, rank: int | None = None) -> Paper | None:
    entry = as_dict(obj)
    title = plain_text(entry.get("title"))
    if not title:
        return None
    source, ident = (clean(entry.get("source")) or "").upper(), clean(entry.get("id"))
    pmid = normalize_pmid(ident) if source == "MED" else None
    ids = {EUROPEPMC_ID: f"{source}:{ident}"} if source in _SOURCES and ident else {}
    authors = [name.strip() for name in re.split(r",\s*", (clean(entry.get("authorString")) or "").rstrip("."))
               if name.strip()]
    return Paper(provider=NAME, title=title.rstrip("."), authors=authors, year=as_year(entry.get("pubYear")),
                 journal=clean(entry.get("journalAbbreviation")), doi=normalize_doi(clean(entry.get("doi"))),
                 pmid=pmid, citation_count=as_count(entry.get("citedByCount")), volume=clean(entry.get("volume")),
                 issue=clean(entry.get("issue")), pages=clean(entry.get("pageInfo")), external_ids=ids, rank=rank)
