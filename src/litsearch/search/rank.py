"""Rank merged papers: relevance to the topic first, citations a gentle prior.

Each paper's score is made of four terms, all computed over the merged pool (JSON
``score_terms``, so a reader can see why a paper ranks where it does):

- ``lexical`` (0–1): BM25F of its title and abstract against the topic and each variant
  (``relevance.py``);
- ``agreement`` (0–1): the providers' evidence, the mean over the providers that answered of
  each one's normalised position or score for the paper (0 where it did not find it);
- ``title_match`` (0–1): the query is the paper's title (a known-item search);
- ``citation_prior`` (0–1): log(1 + citations per year) over the pool's best.

``relevance = lexical × (0.8 + 0.2 × agreement) + 0.5 × title_match``: the providers'
agreement lifts a paper's text match by up to a quarter but cannot make a paper that shares no
word with the topic relevant; a title equal to the query comes first whatever its citations.
``score = relevance + 0.05 × citation_prior``: citations order papers of about equal relevance
and can never lift a paper past one whose relevance is more than 0.05 higher, so an uncited
paper is never buried by its count. ``--sort impact`` keeps the
first design's order: ``impact = provider relevance × ln(citations + 1)``, where provider
relevance is the best provider's normalised position plus 0.1 per further provider (max 1).
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ..core.records import Paper
from ..core.text import fold_title
from ..core.updates import with_notices
from .options import SORT_KEYS
from .relevance import PoolIndex, lexical_scores, title_matches

LEXICAL_WEIGHT = 0.8  # the text match alone; agreement adds up to AGREEMENT_WEIGHT of it
AGREEMENT_WEIGHT = 0.2
TITLE_MATCH_WEIGHT = 0.5
CITATION_PRIOR_WEIGHT = 0.05
UNKNOWN_AGE_YEARS = 5  # a paper without a year counts as this old for citations per year
IMPACT_AGREEMENT_BONUS = 0.1  # --sort impact: the first design's bonus per further provider

@dataclass
class RankedPaper:
    paper: Paper  # the merged record
    hits: list[Paper]  # each provider's own record, with its rank and score
    merge_reasons: list[str] = field(default_factory=list)
    provider_scores: dict[str, float] = field(default_factory=dict)
    relevance: float = 0.0
    score: float = 0.0
    score_terms: dict[str, float] = field(default_factory=dict)
    # Enrichment: Crossref's verdict on the DOI (True/False, None = not checked) and its details.
    doi_verified: bool | None = None
    doi_check: dict | None = None
    oa_is_pdf: bool | None = None
    oa_source: str | None = None  # which service gave the open-access link
    # Citation chasing (`snowball`): the seeds this paper connects to and in which direction.
    via: list[dict[str, str]] | None = None
    # A word shown before the title in the table and the terminal view: a deep session's verdict
    # ("relevant", "maybe", "not judged"), so a reader sees which group a row is in.
    label: str | None = None

    def __repr__(self) -> str:
        # The generated repr printed every provider's whole record: the paper, in a line
        paper = self.paper
        title = paper.title if len(paper.title or "") <= 60 else paper.title[:59] + "…"
        return f"<RankedPaper {title!r} {paper.year or ''} doi={paper.doi or None} score={self.score:.3f}>"

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

    @property
    def provider_relevance(self) -> float:
        """The first design's relevance: the best provider's value + 0.1 per further provider, max 1."""
        if not self.provider_scores:
            return 0.0
        best = max(self.provider_scores.values())
        return min(1.0, best + IMPACT_AGREEMENT_BONUS * (len(self.provider_scores) - 1))

    @property
    def impact(self) -> float:
        """``--sort impact``: provider relevance × ln(citations + 1)."""
        return self.provider_relevance * math.log(citations_of(self.paper) + 1)


def citations_of(paper: Paper) -> int:
    count = paper.citation_count
    return max(0, count) if isinstance(count, int) and not isinstance(count, bool) else 0


def provider_relevance(records: Sequence[Paper], in_relevance_order: bool = True) -> list[float]:
    """0–1 for each record of one provider's answer, in the given order: the provider's own
    score over its best when it gives scores (OpenAlex), else 1 − (rank − 1) / n. An answer in
    another order (newest or most cited first) says only that the provider found each: 1.0."""
    if not in_relevance_order:
        return [1.0] * len(records)
    scores = [r.score for r in records]
    if records and all(s is not None for s in scores):
        top = max(scores)  # type: ignore[type-var]
        if top and top > 0:
            return [max(0.0, float(s)) / float(top) for s in scores]  # type: ignore[arg-type]
    count = len(records)
    return [1.0 - ((r.rank or i + 1) - 1) / count for i, r in enumerate(records)]


def citation_priors(papers: Sequence[Paper], this_year: int | None = None) -> list[float]:
    """0–1 per paper: log(1 + citations per year since publication) over the pool's best."""
    this_year = this_year or datetime.date.today().year
    rates = []
    for paper in papers:
        year = paper.year if isinstance(paper.year, int) and not isinstance(paper.year, bool) else None
        age = max(1, this_year - year + 1) if year else UNKNOWN_AGE_YEARS
        rates.append(math.log1p(citations_of(paper) / age))
    best = max(rates, default=0.0)
    return [rate / best if best > 0 else 0.0 for rate in rates]


def score_terms(papers: Sequence[Paper], provider_scores: Sequence[dict[str, float]], queries: Sequence[str],
                providers_answered: int, this_year: int | None = None) -> list[dict[str, float]]:
    """The four terms of each paper's score (see the module's docstring), computed over the pool."""
    index = PoolIndex(papers)
    lexical = lexical_scores(index, queries)
    titles = title_matches(index, queries)
    priors = citation_priors(papers, this_year)
    answered = max(1, providers_answered)
    terms = []
    for position, scores in enumerate(provider_scores):
        agreement = min(1.0, sum(scores.values()) / answered)
        terms.append({"lexical": round(lexical[position], 4), "agreement": round(agreement, 4),
                      "title_match": round(titles[position], 4), "citation_prior": round(priors[position], 4)})
    return terms


def relevance_of(terms: dict[str, float]) -> float:
    text = terms.get("lexical", 0.0) * (LEXICAL_WEIGHT + AGREEMENT_WEIGHT * terms.get("agreement", 0.0))
    return text + TITLE_MATCH_WEIGHT * terms.get("title_match", 0.0)


def score_of(terms: dict[str, float]) -> float:
    return relevance_of(terms) + CITATION_PRIOR_WEIGHT * terms.get("citation_prior", 0.0)


def why(item: RankedPaper, providers_answered: int | None = None) -> str:
    """One line saying why the paper ranks where it does, from its score terms."""
    terms = item.score_terms
    if not terms:
        return ""
    parts = []
    if terms.get("title_match", 0) >= 1.0:
        parts.append("title is the query")
    elif terms.get("title_match", 0) > 0:
        parts.append("title nearly the query")
    parts.append(f"text match {terms.get('lexical', 0):.2f}")
    if "semantic" in terms:  # the optional re-ranker's term (semantic/rerank.py)
        parts.append(f"meaning match {terms['semantic']:.2f} (re-ranked by meaning)")
    found = len(item.provider_scores)
    parts.append(f"found by {found} of {providers_answered} sources" if providers_answered
                 else f"found by {found} source{'s' if found != 1 else ''}")
    citations = item.paper.citation_count
    if isinstance(citations, int) and citations > 0:
        parts.append(f"{citations:,} citations")
    return "; ".join(parts)


def sort_ranked(items: list[RankedPaper], sort: str = "relevance") -> list[RankedPaper]:
    if sort not in SORT_KEYS:
        raise ValueError(f"unknown sort {sort!r}")

    def identity(item: RankedPaper) -> tuple:
        paper = item.paper
        return (fold_title(paper.title), paper.doi or paper.semantic_scholar_id or paper.openalex_id or "")

    def by_relevance(item: RankedPaper) -> tuple:
        return (-item.score, -item.relevance, -citations_of(item.paper), -(item.paper.year or 0)) + identity(item)

    if sort == "impact":  # the first design's order, tie-breaks included
        return sorted(items, key=lambda i: (-i.impact, -i.provider_relevance, -citations_of(i.paper),
                                            -(i.paper.year or 0)) + identity(i))
    if sort == "citations":
        return sorted(items, key=lambda i: (-citations_of(i.paper),) + by_relevance(i))
    if sort == "year":
        return sorted(items, key=lambda i: (i.paper.year is None, -(i.paper.year or 0)) + by_relevance(i))
    return sorted(items, key=by_relevance)
