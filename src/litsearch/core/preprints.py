"""What makes a record a preprint, one rule for every step that asks: the merge (a journal
version is preferred over its preprint), the exports (a preprint's entry type), the
``--preprints`` / ``--no-preprints`` filter and the table's Venue cell.

A record is a preprint when a type says so (preprint, posted-content, unpublished, manuscript:
the APIs' and the reference formats' spellings), when its venue is a preprint server (arXiv,
bioRxiv, medRxiv, Research Square …, or Europe PMC's "Preprint"), when arXiv itself is its
source or its DOI is arXiv's, or when it has an arXiv id and no venue at all.
"""

from __future__ import annotations

import re

from .identifiers import is_arxiv_doi
from .records import Paper

PREPRINT_TYPES = frozenset({"preprint", "posted-content", "unpublished", "manuscript"})
PREPRINT_SERVERS = re.compile(r"\b(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|ssrn|research square|"
                              r"preprints?\.org|techrxiv|osf preprints)\b|\(preprint\)$|^preprint$", re.I)


def is_preprint(paper: Paper) -> bool:
    """The rule in the module docstring, for one record."""
    if {str(kind).lower() for kind in paper.publication_types} & PREPRINT_TYPES:
        return True
    journal = (paper.journal or "").strip()
    if journal and PREPRINT_SERVERS.search(journal):
        return True
    if paper.provider == "arxiv" or is_arxiv_doi(paper.doi):
        return True
    return bool(not journal and paper.arxiv_id)


def only_preprints(records: list[Paper]) -> bool:
    """A merged paper is a preprint only when none of its records is a journal (or other)
    version: a published paper with its preprint merged in is the published paper."""
    return bool(records) and all(is_preprint(record) for record in records)


def shown_venue(paper: Paper, records: list[Paper]) -> str | None:
    """The Venue a table shows for a merged ``paper`` (``records``: every record of it): its
    journal; for a preprint (every record one) the server, marked: "bioRxiv (preprint)",
    "arXiv (preprint)", or "Preprint" when no record names it."""
    journal = (paper.journal or "").strip() or None
    if not only_preprints(records):
        return journal
    if journal and journal.lower().endswith("(preprint)"):
        return journal
    if journal and PREPRINT_SERVERS.search(journal):
        return f"{journal} (preprint)" if journal.lower() != "preprint" else "Preprint"
    servers = [found for record in records if (found := (record.journal or "").strip())
               and PREPRINT_SERVERS.search(found)]
    if servers:
        return servers[0] if servers[0].lower().endswith("(preprint)") else f"{servers[0]} (preprint)"
    if paper.arxiv_id or is_arxiv_doi(paper.doi) or any(record.provider == "arxiv" for record in records):
        return "arXiv (preprint)"
    return f"{journal} (preprint)" if journal else "Preprint"
