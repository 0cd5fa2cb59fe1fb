"""How well each paper of the merged pool matches the topic: computed here, on the paper's own
title and abstract, not taken from the providers' rank positions.

The model is BM25F (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
Beyond", 2009, section 3.5): the title and the abstract (or the TLDR when there is no
abstract) are two fields, each length-normalised against its own average and weighted before
the term-frequency saturation, so a word in the title counts more than one in the abstract
without a long title being rewarded for its length. Document frequencies come from the pool
itself, the only collection a meta-search has. Words are folded (accents, case), English stop
words dropped and the rest stemmed with the Snowball English stemmer.

The topic and every variant are scored as separate queries and the scores, each divided by
the best in the pool, are summed and divided by the number of queries ("CombSUM" fusion of
query variations, Benham & Culpepper 2017; Belkin et al. 1995): a paper that matches several
phrasings is more surely on topic than one that matches one.

Separately, ``title_match`` spots a known-item search: the query is (nearly) the paper's title.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..core.records import Paper
from ..core.text import fold_plain, fold_title

K1 = 1.2  # term-frequency saturation (the usual BM25 value)
# Field weights and length normalisation: a title word is worth two abstract words; titles
# are short and even, so their length matters less than an abstract's.
FIELD_WEIGHTS = {"title": 2.0, "abstract": 1.0}
FIELD_B = {"title": 0.5, "abstract": 0.75}
# A query that is a paper's title (fold_title equal, or within a few typed characters).
TITLE_MATCH_RATIO = 90.0

# English function words (the SMART list's most common entries, trimmed to words that never
# carry a topic). Topic words such as "model", "effect" or "system" are kept.
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself neither no nor not of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up upon very via was we were what when where which while
who whom why will with within without would you your yours yourself yourselves vs versus et al
""".split())


def _load_stemmer():
    """Snowball's English (Porter2) stemmer from PyStemmer (C, ~100x faster than pure Python:
    a pool of 1,400 abstracts has ~15,000 distinct words). Without it (a platform with no
    wheel), a plural-only stemmer keeps the ranking working, a little less well."""
    try:
        import Stemmer  # PyStemmer

        return Stemmer.Stemmer("english").stemWords
    except ImportError:  # pragma: no cover - PyStemmer is a dependency
        return lambda words: [_strip_plural(word) for word in words]


def _strip_plural(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_stem_words = None


class Analyzer:
    """Text -> index terms, stemming each distinct word once for the whole pool."""

    def __init__(self) -> None:
        global _stem_words
        if _stem_words is None:
            _stem_words = _load_stemmer()
        self._stems: dict[str, str] = {}

    def terms(self, folded: str) -> list[str]:
        """Index terms of text already folded by ``fold_plain``."""
        return self.terms_of_many([folded])[0]

    def terms_of_many(self, folded_texts: Sequence[str]) -> list[list[str]]:
        words = [[w for w in text.split() if len(w) > 1 and w not in STOP_WORDS] for text in folded_texts]
        new = sorted({w for text in words for w in text if w not in self._stems})
        if new:
            self._stems.update(zip(new, _stem_words(new)))
        return [[self._stems[w] for w in text] for text in words]


def paper_text(paper: Paper) -> tuple[str, str]:
    """(title, body): the abstract, or the TLDR when a source gave no abstract."""
    return paper.title or "", paper.abstract or paper.tldr or ""


class PoolIndex:
    """BM25F statistics of one pool of papers, and their folded titles."""

    def __init__(self, papers: Sequence[Paper], analyzer: Analyzer | None = None):
        self.analyzer = analyzer or Analyzer()
        texts = [paper_text(paper) for paper in papers]
        self.folded_titles = [fold_plain(title) for title, _ in texts]
        titles = self.analyzer.terms_of_many(self.folded_titles)
        bodies = self.analyzer.terms_of_many([fold_plain(body) for _, body in texts])
        self.title_terms = [Counter(terms) for terms in titles]
        self.body_terms = [Counter(terms) for terms in bodies]
        self.size = len(texts)
        self.title_norm = _length_norms([len(terms) for terms in titles], FIELD_B["title"])
        self.body_norm = _length_norms([len(terms) for terms in bodies], FIELD_B["abstract"])
        frequency: Counter = Counter()
        for title, body in zip(self.title_terms, self.body_terms):
            frequency.update(title.keys() | body.keys())
        self.document_frequency = frequency

    def idf(self, term: str) -> float:
        """Lucene's BM25 idf: never negative, so a word in most of the pool still counts a little."""
        df = self.document_frequency.get(term, 0)
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> list[float]:
        """BM25F of every paper of the pool for ``query`` (0 for a paper with none of its words)."""
        weights = Counter(self.analyzer.terms(fold_title(query)))  # a word said twice counts twice
        if not weights:
            return [0.0] * self.size
        idf = {term: self.idf(term) for term in weights}
        w_title, w_body = FIELD_WEIGHTS["title"], FIELD_WEIGHTS["abstract"]
        results = []
        for title, body, t_norm, b_norm in zip(self.title_terms, self.body_terms, self.title_norm, self.body_norm):
            total = 0.0
            for term, count in weights.items():
                in_title = title.get(term, 0)
                in_body = body.get(term, 0)
                if in_title or in_body:
                    pseudo = w_title * in_title / t_norm + w_body * in_body / b_norm
                    total += count * idf[term] * pseudo / (K1 + pseudo)
            results.append(total)
        return results


def _length_norms(lengths: list[int], b: float) -> list[float]:
    """BM25's per-document length normalisation, 1 - b + b * length / average length."""
    average = sum(lengths) / len(lengths) if lengths else 0.0
    if not average:
        return [1.0] * len(lengths)
    return [1.0 - b + b * length / average for length in lengths]


def lexical_scores(index: PoolIndex, queries: Sequence[str]) -> list[float]:
    """0–1 per paper: the CombSUM of its BM25F for each query, each divided by the pool's best."""
    queries = [query for query in queries if query and query.strip()]
    if not index.size or not queries:
        return [0.0] * index.size
    totals = [0.0] * index.size
    for query in queries:
        scores = index.scores(query)
        best = max(scores)
        if best > 0:
            totals = [total + score / best for total, score in zip(totals, scores)]
    return [total / len(queries) for total in totals]


def title_matches(index: PoolIndex, queries: Sequence[str]) -> list[float]:
    """Per paper: 1.0 when a query is its title (folded: case, accents and punctuation aside),
    down to 0.9 for a near miss (a typo, a word more or less in a long title); else 0."""
    from rapidfuzz import fuzz

    folded_queries = {fold_title(query) for query in queries} - {""}
    matches = []
    for title in index.folded_titles:
        best = 0.0
        if title:
            for query in folded_queries:
                ratio = 100.0 if query == title else fuzz.ratio(query, title, score_cutoff=TITLE_MATCH_RATIO)
                best = max(best, ratio / 100.0)
        matches.append(best)
    return matches
