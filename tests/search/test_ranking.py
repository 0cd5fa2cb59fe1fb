"""The ranking: relevance computed on each paper's own text over the merged pool, the providers'
agreement, known-item (title) searches, citations as a gentle prior, and --sort impact as the
first design's order."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pytest
from hypothesis import given, settings, strategies as st

from conftest import DATA, shared_file
from litsearch.core.records import Paper
from litsearch.providers import openalex, semantic_scholar
from litsearch.search.pipeline import ProviderOutcome, merge_and_rank
from litsearch.search.rank import (
    CITATION_PRIOR_WEIGHT,
    RankedPaper,
    citation_priors,
    provider_relevance,
    relevance_of,
    score_of,
    sort_ranked,
)
from litsearch.search.relevance import PoolIndex, lexical_scores, title_matches

PARSERS = {"s2_search": semantic_scholar.parse_search, "openalex_works": openalex.parse_works}


def outcome(provider: str, papers: list[Paper]) -> ProviderOutcome:
    ranked = [dataclasses.replace(p, provider=provider, rank=i + 1) for i, p in enumerate(papers)]
    return ProviderOutcome(provider, "q", "search", records=ranked)


def paper(title: str, abstract: str = "", citations: int = 0, year: int = 2020, doi: str | None = None) -> Paper:
    return Paper("openalex", title, abstract=abstract or None, citation_count=citations, year=year, doi=doi,
                 authors=[f"Author {title[:12]}"])


def recorded_pool() -> list[ProviderOutcome]:
    """The four recorded answers the old order was captured on (tests/data/ranking)."""
    golden = json.loads((DATA / "ranking" / "old_impact_order.json").read_text())
    outcomes = []
    for provider, parser, name in golden["pages"]:
        records = list(PARSERS[parser](shared_file(name).read_bytes()))[:100]
        outcomes.append(ProviderOutcome(provider, "query", "search", records=records))
    return outcomes


def key(item: RankedPaper) -> str:
    p = item.paper
    return p.doi or p.semantic_scholar_id or p.openalex_id or p.title


# ---------------------------------------------------------------- provider evidence and --sort impact

def test_provider_relevance_from_scores_or_ranks():
    scored = [Paper("openalex", "a", rank=1, score=50.0), Paper("openalex", "b", rank=2, score=25.0)]
    assert provider_relevance(scored) == [1.0, 0.5]
    ranked = [Paper("pubmed", t, rank=i) for i, t in enumerate("abcd", start=1)]
    assert provider_relevance(ranked) == [1.0, 0.75, 0.5, 0.25]
    # An answer sorted by citations or date says only that the provider found each paper.
    assert provider_relevance(ranked, in_relevance_order=False) == [1.0] * 4


def test_impact_is_the_first_designs_formula():
    one = RankedPaper(Paper("merged", "x", citation_count=99), [], provider_scores={"openalex": 0.5})
    assert one.provider_relevance == 0.5 and one.impact == pytest.approx(0.5 * math.log(100))
    three = RankedPaper(Paper("merged", "x", citation_count=0), [],
                        provider_scores={"openalex": 0.5, "pubmed": 0.2, "arxiv": 0.1})
    assert three.provider_relevance == pytest.approx(0.7) and three.impact == 0.0
    capped = RankedPaper(Paper("merged", "x"), [], provider_scores={"a": 0.95, "b": 0.9})
    assert capped.provider_relevance == 1.0


def test_impact_sort_ties_are_broken_as_before():
    def item(title, cites, year, rel):
        return RankedPaper(Paper("merged", title, citation_count=cites, year=year), [], provider_scores={"x": rel})

    items = [item("b", 10, 2020, 0.5), item("a", 10, 2020, 0.5), item("c", 1000, 2010, 0.1), item("d", 0, 2024, 1.0)]
    # a, b: 0.5 × ln 11 = 1.20 (tie broken by title); c: 0.1 × ln 1001 = 0.69; d: 1.0 × ln 1 = 0
    assert [i.paper.title for i in sort_ranked(items, "impact")] == ["a", "b", "c", "d"]
    assert [i.paper.title for i in sort_ranked(items, "citations")] == ["c", "a", "b", "d"]
    assert [i.paper.title for i in sort_ranked(items, "year")][0] == "d"


def test_impact_sort_reproduces_the_old_order_on_real_answers():
    """tests/data/ranking/old_impact_order.json is the order the first design's code (commit
    1d35fb5) gave these four recorded answers."""
    golden = json.loads((DATA / "ranking" / "old_impact_order.json").read_text())
    ranked = merge_and_rank(recorded_pool(), "impact", ["turing test"])
    assert [key(item) for item in ranked] == golden["order"]


def test_unknown_sort_is_refused():
    with pytest.raises(ValueError):
        sort_ranked([], "popularity")


# ---------------------------------------------------------------- the lexical model

def test_a_title_word_counts_more_than_an_abstract_word():
    pool = [paper("Off-target effects of CRISPR"), paper("Something else", "we study crispr off-target effects"),
            paper("Unrelated work", "on fish ladders")]
    scores = lexical_scores(PoolIndex(pool), ["CRISPR off-target effects"])
    assert scores[0] == 1.0 and 0 < scores[1] < scores[0] and scores[2] == 0.0


def test_words_match_in_any_inflection_and_stop_words_do_not_count():
    pool = [paper("Networks of neurons"), paper("The of and in with"), paper("Cooking pasta")]
    scores = lexical_scores(PoolIndex(pool), ["the network of neuron"])
    assert scores[0] == 1.0 and scores[1] == 0.0 and scores[2] == 0.0


def test_a_rare_word_weighs_more_than_a_common_one():
    # "learning" is in every paper of the pool, "crispr" in one: matching the rare word wins.
    pool = [paper("Deep learning for CRISPR"), paper("Deep learning for images"), paper("Learning to rank"),
            paper("Learning in games"), paper("Machine learning crispr screens")]
    scores = lexical_scores(PoolIndex(pool), ["crispr learning"])
    assert min(scores[0], scores[4]) > max(scores[1], scores[2], scores[3])


def test_variants_fuse_so_a_paper_matching_more_phrasings_ranks_higher():
    pool = [paper("Cas9 specificity and CRISPR off-target cleavage"), paper("CRISPR off-target cleavage"),
            paper("Cas9 specificity")]
    scores = lexical_scores(PoolIndex(pool), ["CRISPR off-target cleavage", "Cas9 specificity"])
    assert scores[0] > scores[1] and scores[0] > scores[2]


@pytest.mark.parametrize("query", ["Attention Is All You Need", "attention is all you need.",
                                   "ATTENTION IS ALL YOU NEED", "Attention is all you ned"])
def test_title_match_finds_the_title_however_it_is_typed(query):
    index = PoolIndex([paper("Attention Is All You Need"), paper("Attention in neural networks")])
    matches = title_matches(index, ["transformers", query])
    assert matches[0] >= 0.9 and matches[1] == 0.0


# ---------------------------------------------------------------- the score: relevance first, citations a prior

def recorded_titles(step: int = 13) -> list[str]:
    pool = recorded_pool()
    return [record.title for outcome in pool for record in outcome.records[::step]]


def test_an_exact_title_search_puts_that_paper_in_the_top_3_whatever_its_citations():
    """Every 13th paper of four real recorded answers (400 records), searched by its title, with
    its citations set to 0 and every other paper's raised tenfold."""
    pool = recorded_pool()
    misses = []
    for title in recorded_titles():
        outcomes = []
        for o in pool:
            records = [copy.deepcopy(r) for r in o.records]
            for r in records:
                r.citation_count = 0 if r.title == title else (r.citation_count or 0) * 10 + 1000
            outcomes.append(ProviderOutcome(o.provider, "q", "search", records=records))
        ranked = merge_and_rank(outcomes, "relevance", [title])
        position = next(i for i, item in enumerate(ranked) if item.paper.title == title)
        if position >= 3:
            misses.append((title, position + 1))
    assert not misses


def test_an_uncited_paper_on_the_topic_outranks_a_much_cited_one_sharing_a_word():
    exact = paper("Gut microbiome and depression", "The gut microbiome shapes depression risk.", citations=0,
                  doi="10.1234/a")
    loose = paper("Depression in the great economic crisis", "Markets and wages.", citations=1000, year=1990,
                  doi="10.1234/b")
    filler = [paper(f"Unrelated study {i}", "nothing", citations=i, doi=f"10.1234/{i}") for i in range(5)]
    for order in ([exact, loose, *filler], [loose, exact, *filler]):  # whichever the provider ranked first
        ranked = merge_and_rank([outcome("openalex", order)], "relevance", ["gut microbiome depression"])
        assert ranked[0].paper.doi == "10.1234/a"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)), min_size=2,
                max_size=12))
def test_citations_never_lift_a_paper_past_a_clearly_more_relevant_one(rows):
    items = []
    for i, (lexical, agreement, title, prior) in enumerate(rows):
        terms = {"lexical": lexical, "agreement": agreement, "title_match": title, "citation_prior": prior}
        items.append(RankedPaper(Paper("merged", f"p{i}"), [], relevance=relevance_of(terms), score=score_of(terms),
                                 score_terms=terms))
    ordered = sort_ranked(items, "relevance")
    for earlier, later in zip(ordered, ordered[1:]):
        assert later.relevance <= earlier.relevance + CITATION_PRIOR_WEIGHT + 1e-9


def test_citation_prior_is_per_year_and_bounded():
    old = paper("a", citations=1000, year=1990)
    new = paper("b", citations=100, year=2025)
    none = paper("c", citations=0, year=2025)
    priors = citation_priors([old, new, none], this_year=2026)
    assert priors[1] == 1.0 and 0 < priors[0] < 1.0 and priors[2] == 0.0  # 50/yr beats 27/yr


def test_the_score_is_the_sum_of_its_terms_and_records_are_left_as_parsed():
    outcomes = recorded_pool()
    before = [[copy.deepcopy(r) for r in o.records] for o in outcomes]
    ranked = merge_and_rank(outcomes, "relevance", ["turing test", "imitation game"])
    assert [list(o.records) for o in outcomes] == before  # ranking never writes into parsed records
    for item in ranked:
        terms = item.score_terms
        assert set(terms) == {"lexical", "agreement", "title_match", "citation_prior"}
        assert all(0.0 <= value <= 1.0 for value in terms.values())
        assert item.relevance == pytest.approx(terms["lexical"] * (0.8 + 0.2 * terms["agreement"])
                                               + 0.5 * terms["title_match"])
        assert item.score == pytest.approx(item.relevance + 0.05 * terms["citation_prior"])
    assert [item.score for item in ranked] == sorted((item.score for item in ranked), reverse=True)


def test_agreement_lifts_a_match_but_never_makes_a_paper_without_the_topics_words_relevant():
    on_topic = paper("Gastric organoids", "organoid culture", citations=3, doi="10.1234/on")
    off_topic = paper("Attention is all you need", "transformers", citations=120_000, doi="10.1234/off")
    first = [dataclasses.replace(off_topic, provider=name, rank=1) for name in ("openalex", "pubmed", "arxiv")]
    outcomes = [ProviderOutcome(r.provider, "q", "search", records=[r, dataclasses.replace(on_topic, provider=r.provider,
                                                                                        rank=2)]) for r in first]
    ranked = merge_and_rank(outcomes, "relevance", ["gastric organoid"])
    assert [item.paper.doi for item in ranked] == ["10.1234/on", "10.1234/off"]
    assert ranked[1].relevance == 0.0 and ranked[1].score_terms["agreement"] == 1.0
    # ... and among matching papers, the one the providers put first gets the lift.
    twin = dataclasses.replace(on_topic, doi="10.1234/twin", title="Gastric organoid", authors=["Someone Else"])
    outcomes = [outcome("openalex", [twin, on_topic]), outcome("pubmed", [twin])]
    ranked = merge_and_rank(outcomes, "relevance", ["gastric organoid"])
    assert ranked[0].paper.doi == "10.1234/twin"
