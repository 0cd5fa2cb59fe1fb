"""search/relevance.py against its definition, in process: BM25F (Robertson & Zaragoza 2009,
section 3.5) computed here by the formula on small pools, CombSUM over query variants, the
known-item title match and its 90 cutoff, the words that count, and the plural-only stemmer
used where PyStemmer has no wheel. test_ranking.py checks the model's behaviour on real
answers."""

from __future__ import annotations

import builtins
import math

import pytest

from litsearch.core.records import Paper
from litsearch.core.text import fold_plain
from litsearch.search import relevance
from litsearch.search.relevance import Analyzer, PoolIndex, lexical_scores, paper_text, title_matches

# Words that are their own stems and no stop words, so the pools below read as written.
POOL = [("cat dog", "fish fish owl"), ("cat", "dog dog dog dog bird"), ("owl bird bird", ""),
        ("fish", "cat"), ("", "owl")]


def papers(pool=POOL) -> list[Paper]:
    return [Paper("x", title, abstract=abstract or None) for title, abstract in pool]


def bm25f(pool, query: str) -> list[float]:
    """The score by the formula: for each query word, idf x pseudo / (k1 + pseudo), where pseudo
    is the field-weighted, length-normalised frequency (title weight 2, b 0.5; abstract weight 1,
    b 0.75; k1 1.2) and idf is Lucene's ln(1 + (N - df + 0.5) / (df + 0.5))."""
    titles = [t.split() for t, _ in pool]
    bodies = [b.split() for _, b in pool]
    n = len(pool)
    average_title = sum(map(len, titles)) / n
    average_body = sum(map(len, bodies)) / n
    scores = []
    for title, body in zip(titles, bodies):
        total = 0.0
        for word in query.split():
            df = sum(1 for t, b in zip(titles, bodies) if word in t or word in b)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            title_norm = 1 - 0.5 + 0.5 * len(title) / average_title if average_title else 1.0
            body_norm = 1 - 0.75 + 0.75 * len(body) / average_body if average_body else 1.0
            pseudo = 2.0 * title.count(word) / title_norm + 1.0 * body.count(word) / body_norm
            total += idf * pseudo / (1.2 + pseudo) if pseudo else 0.0
        scores.append(total)
    return scores


@pytest.mark.parametrize("query", ["cat", "dog", "bird", "owl", "fish", "cat owl", "dog bird fish", "zebra",
                                   "cat cat"])
def test_bm25f_is_the_formula(query):
    assert PoolIndex(papers()).scores(query) == pytest.approx(bm25f(POOL, query), abs=1e-12)


def test_a_pool_without_abstracts_or_titles_is_scored_on_what_it_has():
    titles_only = [("cat dog", ""), ("cat", ""), ("owl", "")]
    assert PoolIndex(papers(titles_only)).scores("cat owl") == pytest.approx(bm25f(titles_only, "cat owl"))
    bodies_only = [("", "cat dog"), ("", "cat"), ("", "owl owl")]
    assert PoolIndex(papers(bodies_only)).scores("owl") == pytest.approx(bm25f(bodies_only, "owl"))


def test_idf_is_never_negative_and_falls_as_more_papers_have_the_word():
    index = PoolIndex(papers())
    assert index.idf("zebra") == pytest.approx(math.log(1 + 5.5 / 0.5))
    assert index.idf("cat") == pytest.approx(math.log(1 + 2.5 / 3.5))  # in three papers of five
    everywhere = PoolIndex(papers([("cat", ""), ("cat", ""), ("cat", "")]))
    assert everywhere.idf("cat") == pytest.approx(math.log(1 + 0.5 / 3.5)) and everywhere.idf("cat") > 0


def test_a_query_word_said_twice_counts_twice():
    index = PoolIndex(papers())
    assert index.scores("cat cat") == pytest.approx([2 * s for s in index.scores("cat")])


def test_a_query_of_stop_words_scores_nothing():
    assert PoolIndex(papers()).scores("the of and with") == [0.0] * len(POOL)


def test_the_abstract_is_the_tldr_when_a_source_gave_none():
    assert paper_text(Paper("x", "T", abstract="A", tldr="L")) == ("T", "A")
    assert paper_text(Paper("x", "T", tldr="L")) == ("T", "L")
    assert paper_text(Paper("x", None)) == ("", "")  # type: ignore[arg-type]
    with_tldr = PoolIndex([Paper("x", "cat", tldr="owl"), Paper("x", "dog", abstract="fish")])
    assert with_tldr.scores("owl") == pytest.approx(bm25f([("cat", "owl"), ("dog", "fish")], "owl"))


def test_a_paper_without_a_title_or_text_counts_in_the_averages_as_empty():
    pool = [("cat", "owl"), ("", ""), ("dog", "owl fish")]
    index = PoolIndex([Paper("x", "cat", abstract="owl"), Paper("x", None), Paper("x", "dog", abstract="owl fish")])
    assert index.scores("cat owl") == pytest.approx(bm25f(pool, "cat owl"))


# ---------------------------------------------------------------- CombSUM over the topic and its variants

def test_each_query_is_divided_by_the_pools_best_then_the_sum_by_the_number_of_queries():
    index = PoolIndex(papers())
    cat, owl = index.scores("cat"), index.scores("owl")
    assert lexical_scores(index, ["cat"]) == pytest.approx([s / max(cat) for s in cat])
    assert lexical_scores(index, ["cat", "owl"]) == pytest.approx(
        [(c / max(cat) + o / max(owl)) / 2 for c, o in zip(cat, owl)])
    # A query no paper matches adds nothing but still counts as one of the queries.
    assert lexical_scores(index, ["cat", "zebra"]) == pytest.approx([s / max(cat) / 2 for s in cat])
    # Blank queries are no queries.
    assert lexical_scores(index, ["cat", "", "   "]) == lexical_scores(index, ["cat"])


def test_no_queries_or_no_papers_score_zero():
    index = PoolIndex(papers())
    assert lexical_scores(index, []) == [0.0] * len(POOL)
    assert lexical_scores(index, ["", " "]) == [0.0] * len(POOL)
    assert lexical_scores(PoolIndex([]), ["cat"]) == []
    assert PoolIndex([]).scores("cat") == []


# ---------------------------------------------------------------- the known-item title match

@pytest.mark.parametrize("query,title,match", [
    ("Attention Is All You Need", "Attention is all you need.", 1.0),
    ("attention is all you need", "Attention is all you ned", 0.9796),  # a typo
    ("attention is all you need", "Attention is not all you need", 0.9259),  # a word more
    ("gene drive", "Gene drove", 0.9),  # exactly at the cutoff of 90
    ("attention is all you need", "Attention is all we need", 0.0),  # 89.8: another paper
    ("attention is all you need", "Attention is all you", 0.0),  # 88.9
    ("deep residual learning for image", "Deep residual learning for images recognition", 0.0),  # 83.1
    ("anything", "", 0.0),  # a paper without a title matches nothing
    ("???", "???", 0.0),  # a query of punctuation folds to nothing
])
def test_a_query_that_is_the_title_or_nearly(query, title, match):
    index = PoolIndex([Paper("x", title), Paper("x", "Something else entirely")])
    assert title_matches(index, [query]) == [pytest.approx(match, abs=1e-4), 0.0]


def test_the_best_query_decides():
    index = PoolIndex([Paper("x", "Attention is all you need")])
    assert title_matches(index, ["attention is all you ned", "transformers", "Attention is all you need"]) == [1.0]
    assert title_matches(index, ["attention is not all you need", "attention is all you ned"]) == \
        [pytest.approx(0.9796, abs=1e-4)]
    assert title_matches(index, []) == [0.0]


# ---------------------------------------------------------------- the words that count

def test_the_words_that_count():
    analyzer = Analyzer()
    text = fold_plain("The networks of 3 neurons, a b AI x2 and (studies)")
    assert analyzer.terms(text) == ["network", "neuron", "ai", "x2", "studi"]
    assert analyzer.terms_of_many([fold_plain("Cats"), "", fold_plain("cats and dogs")]) == \
        [["cat"], [], ["cat", "dog"]]


@pytest.mark.parametrize("word,stem", [
    ("studies", "study"), ("flies", "fly"), ("ties", "tie"), ("networks", "network"), ("cats", "cat"),
    ("dogs", "dog"), ("gas", "gas"), ("bus", "bus"), ("class", "class"), ("analysis", "analysis"),
    ("word", "word"), ("owl", "owl"), ("as", "as"), ("virus", "virus"), ("corpus", "corpus"), ("axis", "axis"),
])
def test_without_pystemmer_plurals_are_made_singular(monkeypatch, word, stem):
    real_import = builtins.__import__

    def no_pystemmer(name, *args, **kwargs):
        if name == "Stemmer":
            raise ImportError("no wheel for this platform")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pystemmer)
    assert relevance._load_stemmer()([word]) == [stem]
