"""Rank merged papers: score = relevance × ln(citations + 1).

relevance (0–1) comes from each provider's own ordering:
- a provider that returns a relevance score (OpenAlex ``relevance_score``; our lexical
  score for Semantic Scholar's bulk search, which has none): score / best score in that answer;
- otherwise from the rank: 1 − (rank − 1) / n for an answer of n records.
These per-provider values are kept as ``provider_scores``. A paper's relevance is its best
provider value plus 0.1 for every further provider that found it, capped at 1.
Ties are broken by relevance, citations, year, then title and id, so the order is stable.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.records import Paper
from ..core.text import fold_title
from ..core.updates import with_notices

AGREEMENT_BONUS = 0.1

_STOPWORDS = frozenset(
    "a an and are as at be by for from in into is it of on or the to with via using based its their "
    "we our this that these those vs versus".split()
)


@dataclass
class RankedPaper:
    paper: Paper  # the merged record
    hits: list[Paper]  # each provider's own record, with its rank and score
    merge_reasons: list[str] = field(default_factory=list)
    provider_scores: dict[str, float] = field(default_factory=dict)
    relevance: float = 0.0
    score: float = 0.0
    # Enrichment: Crossref's verdict on the DOI (True/False, None = not checked) and its details.
    doi_verified: bool | None = None
    doi_check: dict | None = None
    oa_is_pdf: bool | None = None
    oa_source: str | None = None  # which service gave the open-access link
    # Citation chasing (`snowball`): the seeds this paper connects to and in which direction.
    via: list[dict[str, str]] | None = None

    def with_doi_check(self, verdict: dict[str, Any]) -> "RankedPaper":
        """A copy carrying Crossref's verdict on the DOI, and the notices (retraction,
        correction) Crossref knows about the work."""
        paper = self.paper
        if "updates" in verdict:
            paper = with_notices(paper, verdict.get("retracted"), verdict["updates"])
        return replace(self, paper=paper, doi_verified=verdict.get("verified"), doi_check=verdict)

    def with_open_access(self, url: str | None, is_pdf: bool | None, source: str) -> "RankedPaper":
        """A copy with its open-access link: from a ``provider``, from ``unpaywall``, or
        ``none`` (asked, nothing found: not asked again)."""
        paper = replace(self.paper, oa_url=url) if url and url != self.paper.oa_url else self.paper
        return replace(self, paper=paper, oa_is_pdf=is_pdf, oa_source=source)

    @property
    def best_provider(self) -> str | None:
        if not self.provider_scores:
            return None
        return max(sorted(self.provider_scores), key=lambda name: self.provider_scores[name])

    @property
    def best_score(self) -> float | None:
        best = self.best_provider
        return self.provider_scores[best] if best else None


def provider_relevance(records: list[Paper]) -> list[float]:
    """0–1 relevance for each record of one provider's answer, in the given order."""
    scores = [r.score for r in records]
    if records and all(s is not None for s in scores):
        top = max(scores)  # type: ignore[type-var]
        if top and top > 0:
            return [max(0.0, float(s)) / float(top) for s in scores]  # type: ignore[arg-type]
    count = len(records)
    return [1.0 - ((r.rank or i + 1) - 1) / count for i, r in enumerate(records)]


def query_terms(queries: list[str]) -> set[str]:
    words = set()
    for query in queries:
        words.update(w for w in fold_title(query).split() if w not in _STOPWORDS and len(w) > 1)
    return words


def lexical_relevance(terms: set[str], paper: Paper) -> float:
    """Share of the query's words found in the paper (title words count double)."""
    if not terms:
        return 0.0
    title = set(fold_title(paper.title).split())
    body = set(fold_title(paper.abstract or paper.tldr or "").split())
    hits = sum(2.0 if _present(t, title) else 1.0 if _present(t, body) else 0.0 for t in terms)
    return hits / (2.0 * len(terms))


def _present(term: str, words: set[str]) -> bool:
    # A light stemmer: "network" matches "networks", "learning" matches "learn".
    if term in words:
        return True
    stem = re.sub(r"(ing|ed|es|s)$", "", term) if len(term) > 4 else term
    return any(w.startswith(stem) for w in words)


def rank_by_lexical_relevance(records: list[Paper], queries: list[str]) -> list[Paper]:
    """Give records from an unranked answer (S2 bulk) a lexical score and rank by it."""
    terms = query_terms(queries)
    for record in records:
        record.score = round(lexical_relevance(terms, record), 4)
    ordered = sorted(records, key=lambda r: (-(r.score or 0), -(r.citation_count or 0), fold_title(r.title)))
    for position, record in enumerate(ordered, start=1):
        record.rank = position
    return ordered


def score_paper(item: RankedPaper) -> None:
    if item.provider_scores:
        best = max(item.provider_scores.values())
        item.relevance = min(1.0, best + AGREEMENT_BONUS * (len(item.provider_scores) - 1))
    citations = item.paper.citation_count if isinstance(item.paper.citation_count, int) else 0
    item.score = item.relevance * math.log(max(0, citations) + 1)


SORT_KEYS = ("relevance", "citations", "year")


def sort_ranked(items: list[RankedPaper], sort: str = "relevance") -> list[RankedPaper]:
    if sort not in SORT_KEYS:
        raise ValueError(f"unknown sort {sort!r}")

    def tie_break(item: RankedPaper) -> tuple:
        paper = item.paper
        return (-item.relevance, -(paper.citation_count or 0), -(paper.year or 0),
                fold_title(paper.title), paper.doi or paper.paper_id or paper.openalex_id or "")

    if sort == "citations":
        return sorted(items, key=lambda i: (-(i.paper.citation_count or 0), -i.score) + tie_break(i))
    if sort == "year":
        return sorted(items, key=lambda i: (i.paper.year is None, -(i.paper.year or 0), -i.score) + tie_break(i))
    return sorted(items, key=lambda i: (-i.score,) + tie_break(i))
