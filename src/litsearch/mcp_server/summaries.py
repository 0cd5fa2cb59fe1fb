"""Slim paper summaries for tool results: what a model needs to choose and cite a paper (ids,
title, first authors, year, venue, citations, the DOI check, the open-access link, the
retraction flag, relevance and why), never the raw provider records."""

from __future__ import annotations

from typing import Any

from ..core.records import Paper
from ..core.text import plain_text
from ..core.urls import http_url
from ..search.rank import RankedPaper

AUTHORS_KEPT = 3


def relevance_and_why(item: RankedPaper) -> dict[str, Any]:
    """``relevance`` (0-1) and ``why``: the terms of the paper's score in words. Built from
    what RankedPaper carries (its relevance, each provider's own score and rank); the one
    place to change when the ranking gives its own terms."""
    ranks = ", ".join(f"{hit.provider} #{hit.rank}" if hit.rank else hit.provider for hit in item.hits)
    scores = ", ".join(f"{name} {score:.2f}" for name, score in sorted(item.provider_scores.items()))
    why = f"found by {ranks}" if ranks else "found by citation chasing"
    if scores:
        why += f"; provider relevance {scores}"
    if item.via:
        why += "; " + "; ".join(f"{entry.get('direction')} of {entry.get('seed')}" for entry in item.via)
    return {"relevance": round(item.relevance, 4), "score": round(item.score, 4), "why": why}


def paper_brief(paper: Paper) -> dict[str, Any]:
    """A paper's ids, title, first authors, year, venue, citations, open-access link and
    retraction flag."""
    ids = {"doi": paper.doi, "pmid": paper.pmid, "arxiv": paper.arxiv_id, "openalex": paper.openalex_id,
           "semantic_scholar": paper.paper_id}
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
