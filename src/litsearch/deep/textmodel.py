"""Texts as term vectors, for telling which candidates read like the papers judged relevant.

A candidate's text is its title (counted twice: the title is what a paper is about) and its
abstract, folded, stop words dropped and stemmed exactly as the search's ranking does
(search/relevance.py). Its ``MAX_TERMS`` most frequent terms are kept (ties in the order the
text first has them), stored in the session with the candidate so a round never re-reads every
abstract: that is every term of an abstract (a review's records have 60–90 distinct terms, a
long one 150), and bounds a record whose "abstract" is a whole text. Until 0.4.57 it was 48, ties
broken alphabetically: four review records in five lost the terms late in the alphabet, and the
relevant papers' likeness was measured on an arbitrary half of their words.

Weights are tf-idf with the idf taken from the session's own candidate pool (the only
collection a deep search has), sublinear in the count (1 + ln tf), vectors of unit length.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from itertools import repeat
from operator import mul
from typing import Iterable, Mapping, Sequence

from ..core.records import Paper
from ..core.text import fold_plain
from ..search.relevance import Analyzer, paper_text

MAX_TERMS = 160
# Words of scientific prose that never name what a paper is about: a query is never made of them.
GENERIC = frozenset("""
one two three four five first second new use used using based result results method methods paper papers study
studies approach approaches present presented show shown shows problem problems general special case cases give
given gives well number numbers also may can however thus several various different large small high low
describe described discuss discussed consider considered propose proposed report reported effect effects
illustrate illustrated illustrates example examples introduce introduced demonstrate demonstrated
background conclusion conclusions purpose aim aims introduction summary significance
""".split())
# (The last line: labels of structured abstracts, "BACKGROUND: … CONCLUSIONS: …": one provider's
# records carry them and another's do not, so they can look shared beyond chance. Labels whose
# stem is a topic elsewhere stay out: "objective" is "object", "setting" "set", "abstract"
# an abstract data type, "context" a context-free grammar.)
# Words that name a kind of study, not what it is about: "A systematic review and meta-analysis"
# after a question mark is no topic of its own.
STUDY_KINDS = frozenset("""
systematic review reviews meta analysis analyses trial trials randomized randomised controlled
survey overview tertiary literature scoping narrative update cohort
""".split())
TITLE_WEIGHT = 2
# A query's words must be shared by the relevant papers beyond chance: at most this chance over
# every term the relevant papers have (Bonferroni's correction; "distinctive_terms").
SIGNIFICANCE = 0.05
_TF = (0.0, *(1.0 + math.log(count) for count in range(1, 256)))  # a count's sublinear weight, by count
_ANALYZER: list[Analyzer] = []


def analyzer() -> Analyzer:
    """One analyzer per process: its stem cache is shared by every text it reads."""
    if not _ANALYZER:
        _ANALYZER.append(Analyzer())
    return _ANALYZER[0]


def term_counts(papers: Sequence[Paper]) -> list[dict[str, int]]:
    """Each paper's kept terms and their counts (title terms counted ``TITLE_WEIGHT`` times)."""
    texts = [paper_text(paper) for paper in papers]
    titles = analyzer().terms_of_many([fold_plain(title) for title, _ in texts])
    bodies = analyzer().terms_of_many([fold_plain(body) for _, body in texts])
    counted = []
    for title, body in zip(titles, bodies):
        counts = Counter(body)
        for term in title:
            counts[term] += TITLE_WEIGHT
        # sorted() is stable: a tie keeps the order the text first has the terms in
        counted.append(dict(sorted(counts.items(), key=lambda item: -item[1])[:MAX_TERMS]))
    return counted


def query_counts(text: str) -> dict[str, int]:
    return dict(Counter(analyzer().terms(fold_plain(text))))


class Space:
    """The pool's idf, and unit tf-idf vectors built with it."""

    def __init__(self, documents: Iterable[Mapping[str, int]]):
        frequency: Counter = Counter()
        size = 0
        for terms in documents:
            frequency.update(terms.keys())
            size += 1
        self.size = max(1, size)
        self.idf = {term: math.log(1.0 + self.size / df) for term, df in frequency.items()}
        self.default_idf = math.log(1.0 + self.size)  # a term no candidate has

    def vector(self, counts: Mapping[str, int | float]) -> dict[str, float]:
        terms, weights, norm = self.weights(counts)
        return {term: value / norm for term, value in zip(terms, weights)}

    def weights(self, counts: Mapping[str, int | float]) -> tuple[list[str], list[float], float]:
        """The tf-idf weights of ``counts`` (its terms and their weights, in the counts' order) and
        their norm: the unit vector is each weight over the norm (nothing when the norm is 0). A
        round weighs every candidate, so the usual counts (whole numbers below ``len(_TF)``) are
        weighed by the built-ins; the floats are the very ones a plain loop gives."""
        terms, counts_of = list(counts), list(counts.values())
        try:
            if not counts_of or min(counts_of) <= 0:
                raise TypeError("a count to leave out")
            weights = list(map(mul, map(_TF.__getitem__, counts_of), map(self.idf.get, terms, repeat(self.default_idf))))
        except (TypeError, IndexError):
            kept = {term: (1.0 + math.log(count)) * self.idf.get(term, self.default_idf)
                    for term, count in counts.items() if count > 0}
            terms, weights = list(kept), list(kept.values())
        norm = math.sqrt(sum(map(mul, weights, weights)))
        return (terms, weights, norm) if norm else ([], [], 0.0)

    def centroid(self, vectors: Sequence[Mapping[str, float]]) -> dict[str, float]:
        """The mean of unit vectors, made unit again (Rocchio's prototype of a set)."""
        total: dict[str, float] = {}
        for vector in vectors:
            for term, value in vector.items():
                total[term] = total.get(term, 0.0) + value
        norm = math.sqrt(sum(value * value for value in total.values()))
        return {term: value / norm for term, value in total.items()} if norm else {}


def cosine(vector: Mapping[str, float], prototype: Mapping[str, float]) -> float:
    if len(vector) > len(prototype):
        vector, prototype = prototype, vector
    return sum(value * prototype.get(term, 0.0) for term, value in vector.items())


def distinctive_terms(relevant: Sequence[Mapping[str, int]], others: Sequence[Mapping[str, int]],
                      known: set[str], minimum_share: float = 0.25, limit: int = 6,
                      significance: float = SIGNIFICANCE) -> list[str]:
    """Terms the relevant papers share and the rest of the pool does not: in at least
    ``minimum_share`` of the relevant papers (and three of them), and in so many more of them than
    the rest of the pool's rate predicts that chance is not a likely reason: the binomial chance
    of as many at that rate is at most ``significance`` divided by the number of distinct terms
    the relevant papers have (every one of them is a term that could have been picked). Without
    that test, a handful of relevant papers always "share" some everyday words ("defined",
    "called", "application"), and a query of them brings noise. The most significant first,
    leaving out ``known`` terms (the topic's own). Their stems; ``surface`` gives words to search."""
    if len(relevant) < 2:
        return []
    in_relevant: Counter = Counter(term for terms in relevant for term in terms)
    in_others: Counter = Counter(term for terms in others for term in terms)
    generic = generic_stems()
    threshold = math.log(significance / max(1, len(in_relevant)))
    scored = []
    for term, count in in_relevant.items():
        if term in known or term in generic or count < 3 or count / len(relevant) < minimum_share or term.isdigit():
            continue
        rate_others = (in_others.get(term, 0) + 0.5) / (len(others) + 1)
        chance = log_binomial_tail(count, len(relevant), rate_others)
        if chance <= threshold:
            scored.append((chance, term))
    scored.sort()
    return [term for _, term in scored[:limit]]


@functools.cache
def generic_stems() -> frozenset[str]:
    """The stems of GENERIC: words of scientific prose that never name a paper's subject (stemmed
    once per process: a round asks for them for every query it derives)."""
    return frozenset(stem for word in GENERIC for stem in analyzer().terms(word))


def topic_terms(text: str) -> set[str]:
    """The stems of ``text`` that can name a subject: its content words less GENERIC and
    STUDY_KINDS (a sentence of a topic needs some to be searched on its own)."""
    left_out = generic_stems() | {stem for word in STUDY_KINDS for stem in analyzer().terms(word)}
    return set(query_counts(text)) - left_out


def log_binomial_tail(k: int, n: int, p: float) -> float:
    """ln P(X >= k) for X ~ Binomial(n, p), 0 < p < 1 (in logs: hundreds of papers underflow)."""
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p)
             + (n - i) * math.log1p(-p) for i in range(k, n + 1)]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def surface_forms(papers: Sequence[Paper], stems: Iterable[str]) -> dict[str, str]:
    """For each stem, the word the papers most often wrote it as (what a search should send)."""
    wanted = set(stems)
    seen: dict[str, Counter] = {stem: Counter() for stem in wanted}
    for paper in papers:
        title, body = paper_text(paper)
        words = sorted({w for w in fold_plain(f"{title} {body}").split() if len(w) > 1})
        for word, terms in zip(words, analyzer().terms_of_many(words)):
            if terms and terms[0] in wanted:
                seen[terms[0]][word] += 1
    return {stem: counts.most_common(1)[0][0] for stem, counts in seen.items() if counts}
