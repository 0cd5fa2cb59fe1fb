"""Slim paper summaries for tool results: what a model needs to choose and cite a paper (ids,
title, first authors, year, venue, citations, the DOI check, the open-access link, the
retraction flag, relevance and why), never the raw provider records."""

from __future__ import annotations

from typing import Any

from ..core.records import Paper
from ..core.text import plain_text
from ..core.urls import http_url
from ..search.rank import RankedPaper, why as rank_why

AUTHORS_KEPT = 3


def relevance_and_why(item: RankedPaper, providers_answered: int | None = None) -> dict[str, Any]:
    """``relevance``, ``score``, the terms of the score (search/rank.py) and ``why``, the
    same in words; for a paper found by citation chasing, which seeds it connects to."""
    why = rank_why(item, providers_answered) if item.score_terms else ""
    if item.via:
        why = "; ".join(filter(None, [why, *(f"{entry.get('direction')} of {entry.get('seed')}"
                                            for entry in item.via)]))
    return {"relevance": round(item.relevance, 4), "score": round(item.score, 4),
            "score_terms": dict(item.score_terms), "why": why or "found by citation chasing"}


def paper_brief(paper: Paper) -> dict[str, Any]:
    """A paper's ids, title, first authors, year, venue, citations, open-access link and
    retraction flag."""
    ids = {"doi": paper.doi, "pmid": paper.pmid, "arxiv": paper.arxiv_id, "openalex": paper.openalex_id,
           "semantic_scholar": paper.semantic_scholar_id}
    return {
        "ids": {name: value for name, value in ids.items() if value},
        "title": plain_text(paper.title),
        "authors": paper.authors[:AUTHORS_KEPT] + (["et al."] if len(paper.authors) > AUTHORS_KEPT else []),
        "year": paper.year,
        "venue": plain_text(paper.journal),
        "citations": paper.citation_count,
        "oa_url": http_url(paper.oa_url),
        "retracted": bool(paper.retracted),
    }


def paper_summary(item: RankedPaper, rank: int) -> dict[str, Any]:
    """A ranked row: its rank, the brief, Crossref's verdict on the DOI, relevance and why."""
    return {"rank": rank, **paper_brief(item.paper),
            "doi_verified": item.doi_verified,  # True: checked at Crossref; False: not found there or another paper
            **relevance_and_why(item)}
