"""One record from a cluster of records of the same paper: the richest value of each field."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.identifiers import arxiv_id_from_doi, is_arxiv_doi
from ..core.preprints import is_preprint as preprint_record
from ..core.records import Paper
from ..core.updates import combined_retracted, merged_updates


def merge_cluster(records: Sequence[Paper]) -> Paper:
    """One record holding the richest value of each field of the cluster's records.

    Longest abstract, highest citation counts, union of identifiers, longest
    author list; for the other fields the first non-empty value, taking journal
    versions before preprints so DOI, journal and year are the published ones.
    """
    if not records:
        raise ValueError("merge_cluster needs at least one record")
    ordered = sorted(records, key=is_preprint)  # stable: journal versions first, input order kept
    published = [r for r in ordered if not is_preprint(r)]
    first = lambda name: _first_present(getattr(r, name) for r in ordered)  # noqa: E731

    external_ids: dict[str, str] = {}
    for record in ordered:
        for key, value in record.external_ids.items():
            external_ids.setdefault(key, value)

    return Paper(
        provider="merged",
        title=first("title") or "",
        authors=max((r.authors for r in ordered), key=len),
        year=first("year"),
        publication_date=first("publication_date"),
        journal=first("journal"),
        doi=_preferred_doi(ordered),
        pmid=first("pmid"),
        semantic_scholar_id=first("semantic_scholar_id"),
        arxiv_id=first("arxiv_id") or _first_present(arxiv_id_from_doi(r.doi) for r in ordered),
        openalex_id=first("openalex_id"),
        abstract=max((r.abstract for r in ordered if r.abstract), key=len, default=None),
        tldr=first("tldr"),
        citation_count=max((r.citation_count for r in ordered if r.citation_count is not None), default=None),
        influential_citation_count=max(
            (r.influential_citation_count for r in ordered if r.influential_citation_count is not None),
            default=None,
        ),
        oa_url=first("oa_url"),
        # A published paper is no preprint for having a preprint merged in: its types are the
        # journal versions' (the preprint stays known by its ids).
        publication_types=list(dict.fromkeys(t for r in published or ordered for t in r.publication_types)),
        external_ids=external_ids,
        volume=first("volume"),
        issue=first("issue"),
        pages=first("pages"),
        url=first("url"),
        rank=min((r.rank for r in records if r.rank is not None), default=None),
        score=max((r.score for r in records if r.score is not None), default=None),
        retracted=combined_retracted((r.retracted for r in ordered), (u for r in ordered for u in r.updates)),
        updates=merged_updates(*(r.updates for r in ordered)),
    )


# --------------------------------------------------------------------------- merging helpers

def is_preprint(record: Paper) -> bool:
    """A preprint server's record (core/preprints.py: the one rule every step uses)."""
    return preprint_record(record)


def _preferred_doi(ordered: Sequence[Paper]) -> str | None:
    """A publisher DOI when any record has one; an arXiv DataCite DOI only as a fallback."""
    dois = [r.doi for r in ordered if r.doi]
    return _first_present(d for d in dois if not is_arxiv_doi(d)) or _first_present(dois)


def _first_present(values: Iterable):
    for value in values:
        if value not in (None, "", [], {}):
            return value
    return None
