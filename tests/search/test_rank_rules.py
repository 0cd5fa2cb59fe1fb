"""search/rank.py rule by rule, in process: the score's formula and its weights, the providers'
evidence, the citation prior, the "why" line, the sort orders and their tie-breaks, the
impact of --sort impact, and what a Crossref verdict or an open-access link changes.
test_ranking.py checks the same rules on real recorded answers."""

from __future__ import annotations

import datetime
import math

import pytest

from litsearch.core.records import Paper
from litsearch.search.rank import (
    RankedPaper,
    citation_priors,
    citations_of,
    provider_relevance,
    relevance_of,
    score_of,
    score_terms,
    sort_ranked,
    why,
)
from litsearch.search.relevance import PoolIndex, lexical_scores, title_matches


def item(title="t", *, score=0.0, relevance=0.0, citations=None, year=None, doi=None, s2=None, openalex=None,
         scores=None, terms=None) -> RankedPaper:
    paper = Paper("merged", title, citation_count=citations, year=year, doi=doi, semantic_scholar_id=s2,
                  openalex_id=openalex)
    return RankedPaper(paper, [], provider_scores=dict(scores or {}), relevance=relevance, score=score,
                       score_terms=dict(terms or {}))


# ---------------------------------------------------------------- the score's formula (module docstring)

@pytest.mark.parametrize("terms,relevance,score", [
    ({"lexical": 1.0, "agreement": 0.0, "title_match": 0.0, "citation_prior": 0.0}, 0.8, 0.8),
    ({"lexical": 1.0, "agreement": 1.0, "title_match": 0.0, "citation_prior": 0.0}, 1.0, 1.0),
    ({"lexical": 0.5, "agreement": 0.5, "title_match": 0.4, "citation_prior": 0.6}, 0.5 * 0.9 + 0.2, 0.68),
    ({"lexical": 0.0, "agreement": 1.0, "title_match": 1.0, "citation_prior": 1.0}, 0.5, 0.55),
    ({"lexical": 0.0, "agreement": 1.0, "title_match": 0.0, "citation_prior": 1.0}, 0.0, 0.05),
    # A term that is missing counts as 0.
    ({}, 0.0, 0.0), ({"lexical": 1.0}, 0.8, 0.8), ({"agreement": 1.0}, 0.0, 0.0),
    ({"title_match": 1.0}, 0.5, 0.5), ({"citation_prior": 1.0}, 0.0, 0.05),
    ({"lexical": 0.25, "title_match": 0.0}, 0.2, 0.2),
])
def test_relevance_and_score_follow_the_documented_formula(terms, relevance, score):
    assert relevance_of(terms) == pytest.approx(relevance, abs=1e-12)
    assert score_of(terms) == pytest.approx(score, abs=1e-12)


# ---------------------------------------------------------------- the providers' evidence

def test_a_providers_scores_are_divided_by_its_best_and_never_negative():
    scored = [Paper("openalex", t, rank=i, score=s) for i, (t, s) in enumerate(
        [("a", 0.5), ("b", 0.1), ("c", 0.4), ("d", -0.2)], start=1)]
    assert provider_relevance(scored) == pytest.approx([1.0, 0.2, 0.8, 0.0])
    assert provider_relevance(scored[:1]) == [1.0]


@pytest.mark.parametrize("scores", [
    [None, None, None],  # no scores: by rank
    [3.0, None, 1.0],  # some missing: by rank, for all
    [0.0, 0.0, 0.0],  # nothing to divide by
    [-1.0, -2.0, -3.0],  # a best below zero
    [-0.5, -0.7, -0.9],  # a best below zero, however close
])
def test_without_usable_scores_the_rank_decides(scores):
    records = [Paper("pubmed", t, rank=i, score=s) for i, (t, s) in enumerate(zip("abc", scores), start=1)]
    assert provider_relevance(records) == pytest.approx([1.0, 2 / 3, 1 / 3])


def test_a_record_without_a_rank_takes_its_position():
    records = [Paper("arxiv", "a"), Paper("arxiv", "b", rank=3), Paper("arxiv", "c")]
    assert provider_relevance(records) == pytest.approx([1.0, 1 / 3, 1 / 3])
    assert provider_relevance([]) == [] and provider_relevance([], in_relevance_order=False) == []
    assert provider_relevance(records, in_relevance_order=False) == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("scores,best,best_score,relevance", [
    ({}, None, None, 0.0),
    ({"openalex": 0.4}, "openalex", 0.4, 0.4),
    ({"pubmed": 0.3, "openalex": 0.6}, "openalex", 0.6, 0.7),
    ({"pubmed": 0.6, "openalex": 0.6, "arxiv": 0.1}, "openalex", 0.6, 0.8),  # a tie: the first name
    ({"a": 0.9, "b": 0.8, "c": 0.7}, "a", 0.9, 1.0),  # 0.9 + 0.2 is capped at 1
    ({"a": 0.95}, "a", 0.95, 0.95),
])
def test_the_best_provider_and_the_first_designs_provider_relevance(scores, best, best_score, relevance):
    ranked = item(scores=scores)
    assert (ranked.best_provider, ranked.best_score) == (best, best_score)
    assert ranked.provider_relevance == pytest.approx(relevance, abs=1e-12)


@pytest.mark.parametrize("scores,citations,impact", [
    ({"a": 0.5}, 99, 0.5 * math.log(100)),
    ({"a": 0.5, "b": 0.2}, 0, 0.0),
    ({"a": 0.5, "b": 0.2}, 10, 0.6 * math.log(11)),
    ({}, 1000, 0.0),
    ({"a": 1.0}, None, 0.0),
    ({"a": 1.0}, -5, 0.0),
])
def test_impact_is_provider_relevance_times_log_of_citations_plus_one(scores, citations, impact):
    assert item(scores=scores, citations=citations).impact == pytest.approx(impact, abs=1e-12)


@pytest.mark.parametrize("count,counted", [(12, 12), (0, 0), (1, 1), (-3, 0), (None, 0), (True, 0), ("12", 0),
                                           (2.5, 0)])
def test_only_a_whole_non_negative_count_counts(count, counted):
    assert citations_of(Paper("x", "t", citation_count=count)) == counted


# ---------------------------------------------------------------- the citation prior

def test_the_citation_prior_is_citations_per_year_over_the_pools_best():
    papers = [Paper("x", "this year", year=2000, citation_count=9),  # 1 year: 9 a year
              Paper("x", "ten years", year=1991, citation_count=90),  # 10 years: 9 a year
              Paper("x", "no year", citation_count=24),  # counted as 5 years: 4.8 a year
              Paper("x", "next year", year=2002, citation_count=3),  # not yet out: 1 year
              Paper("x", "a flag for a year", year=True, citation_count=24),  # not a year: 5 years
              Paper("x", "uncited", year=1990, citation_count=0)]
    best = math.log1p(9)
    assert citation_priors(papers, this_year=2000) == pytest.approx(
        [1.0, 1.0, math.log1p(4.8) / best, math.log1p(3) / best, math.log1p(4.8) / best, 0.0])


def test_the_prior_of_an_uncited_pool_is_zero_and_an_empty_pool_has_none():
    assert citation_priors([Paper("x", "a", year=2000, citation_count=0), Paper("x", "b")], this_year=2000) == \
        [0.0, 0.0]
    assert citation_priors([], this_year=2000) == []


def test_the_year_defaults_to_this_one():
    this_year = datetime.date.today().year
    papers = [Paper("x", "now", year=this_year, citation_count=4), Paper("x", "a year ago", year=this_year - 1,
                                                                          citation_count=4)]
    assert citation_priors(papers) == pytest.approx([1.0, math.log1p(2) / math.log1p(4)])


# ---------------------------------------------------------------- the four terms over a pool

def test_the_terms_of_each_paper_rounded_to_four_places():
    papers = [Paper("x", "Gut microbiome and depression", abstract="The gut microbiome shapes depression risk.",
                    year=2019, citation_count=7),
              Paper("x", "Depression in the great economic crisis", abstract="Markets, gut feelings and wages.",
                    year=1990, citation_count=1000),
              Paper("x", "Gut microbiome and depressions", year=2020, citation_count=2)]
    found = [{"openalex": 1.0, "pubmed": 0.75}, {"openalex": 1 / 3}, {}]
    queries = ["gut microbiome depression", "Gut microbiome and depression"]
    terms = score_terms(papers, found, queries, providers_answered=3, this_year=2021)
    index = PoolIndex(papers)
    lexical, titles = lexical_scores(index, queries), title_matches(index, queries)
    priors = citation_priors(papers, this_year=2021)
    assert terms == [{"lexical": round(lexical[i], 4), "agreement": round(agreement, 4),
                      "title_match": round(titles[i], 4), "citation_prior": round(priors[i], 4)}
                     for i, agreement in enumerate([1.75 / 3, 1 / 9, 0.0])]
    # Rounded, not cut: each term has more than four places before rounding here.
    assert terms[1]["agreement"] == 0.1111 and terms[0]["agreement"] == 0.5833
    assert 0.9 < terms[2]["title_match"] < 1.0 and terms[2]["title_match"] == round(titles[2], 4)


@pytest.mark.parametrize("answered,found,agreement", [
    (1, {"openalex": 0.5}, 0.5),
    (2, {"openalex": 0.5}, 0.25),
    (0, {"openalex": 0.5}, 0.5),  # no provider counted: as if one answered
    (0, {}, 0.0),
    (1, {"openalex": 1.0, "pubmed": 1.0}, 1.0),  # never above 1
])
def test_agreement_is_the_mean_over_the_providers_that_answered(answered, found, agreement):
    terms = score_terms([Paper("x", "A title")], [found], ["a title"], providers_answered=answered)
    assert terms[0]["agreement"] == agreement


# ---------------------------------------------------------------- why a paper ranks where it does

@pytest.mark.parametrize("terms,scores,citations,answered,line", [
    ({}, {"a": 1.0}, 10, 3, ""),
    ({"lexical": 0.5, "title_match": 1.0}, {"a": 1, "b": 1}, 1234, 3,
     "title is the query; text match 0.50; found by 2 of 3 sources; 1,234 citations"),
    ({"lexical": 0.987, "title_match": 0.95}, {"a": 1}, 0, 2, "title nearly the query; text match 0.99; found by 1 of 2 "
                                                             "sources"),
    ({"lexical": 0.1, "title_match": 0.0}, {"a": 1}, None, None, "text match 0.10; found by 1 source"),
    ({"lexical": 0.1}, {}, 1, None, "text match 0.10; found by 0 sources; 1 citations"),
    ({"title_match": 0.5}, {"a": 1, "b": 1}, -4, None, "title nearly the query; text match 0.00; found by 2 sources"),
    ({"lexical": 0.3, "semantic": 0.714}, {"a": 1}, 5, 1,
     "text match 0.30; meaning match 0.71 (re-ranked by meaning); found by 1 of 1 sources; 5 citations"),
])
def test_why_names_each_term_that_counts(terms, scores, citations, answered, line):
    assert why(item(terms=terms, scores=scores, citations=citations), answered) == line


# ---------------------------------------------------------------- the sort orders and their tie-breaks

def titles(items) -> list[str]:
    return [i.paper.title for i in items]


def test_relevance_order_breaks_ties_by_relevance_citations_year_title_then_id():
    items = [item("by id b", score=0.5, relevance=0.5, citations=3, year=2000, doi="10.1/b"),
             item("by id a", score=0.5, relevance=0.5, citations=3, year=2000, s2="10.1/a"),
             item("by id a", score=0.5, relevance=0.5, citations=3, year=2000, openalex="W9"),
             item("by title", score=0.5, relevance=0.5, citations=3, year=2000),
             item("by year", score=0.5, relevance=0.5, citations=3, year=2001),
             item("by year none", score=0.5, relevance=0.5, citations=3, year=None),
             item("by citations", score=0.5, relevance=0.5, citations=4, year=1990),
             item("by relevance", score=0.5, relevance=0.6, citations=0, year=1990),
             item("by score", score=0.6, relevance=0.1, citations=0, year=1990)]
    expected = ["by score", "by relevance", "by citations", "by year", "by id a", "by id a", "by id b",
                "by title", "by year none"]
    for order in (items, items[::-1]):
        ranked = sort_ranked(order)
        assert titles(ranked) == expected
        assert [i.paper.openalex_id for i in ranked[4:6]] == [None, "W9"]  # "10.1/a" sorts before "W9"


def test_the_id_breaks_a_tie_between_twins_by_doi_else_semantic_scholar_else_openalex():
    twins = [item("twin", doi="10.1/z", s2="a", openalex="W1"), item("twin", s2="10.1/y", openalex="W0"),
             item("twin", openalex="10.1/x")]
    for order in (twins, twins[::-1]):
        assert [i.paper.title + ":" + (i.paper.doi or i.paper.semantic_scholar_id or i.paper.openalex_id)
                for i in sort_ranked(order)] == ["twin:10.1/x", "twin:10.1/y", "twin:10.1/z"]


def test_citations_order_is_most_cited_first_then_by_relevance():
    items = [item("less cited", score=0.9, citations=5), item("more relevant", score=0.8, citations=10),
             item("less relevant", score=0.2, citations=10), item("uncited", score=1.0)]
    for order in (items, items[::-1]):
        assert titles(sort_ranked(order, "citations")) == ["more relevant", "less relevant", "less cited", "uncited"]


def test_year_order_is_newest_first_undated_last_then_by_relevance():
    items = [item("undated", score=1.0), item("old", score=0.9, year=1999), item("new, less", score=0.1, year=2020),
             item("new, more", score=0.5, year=2020)]
    for order in (items, items[::-1]):
        assert titles(sort_ranked(order, "year")) == ["new, more", "new, less", "old", "undated"]


def test_impact_order_breaks_ties_by_provider_relevance_citations_year_then_title():
    items = [item("b", scores={"x": 0.5}, citations=10, year=2020),
             item("a", scores={"x": 0.5}, citations=10, year=2020),
             item("newer", scores={"x": 0.5}, citations=10, year=2021),
             item("uncited, more relevant", scores={"x": 0.9}, citations=0, year=2021),
             item("uncited, less relevant", scores={"x": 0.3}, citations=0, year=2030),
             item("uncited, no year", scores={"x": 0.9}, citations=0),
             item("top", scores={"x": 0.1}, citations=10**9)]
    for order in (items, items[::-1]):
        assert titles(sort_ranked(order, "impact")) == ["top", "newer", "a", "b", "uncited, more relevant",
                                                        "uncited, no year", "uncited, less relevant"]


def test_relevance_is_the_default_order_and_an_unknown_one_is_refused():
    items = [item("low", score=0.1), item("high", score=0.9)]
    assert titles(sort_ranked(items)) == ["high", "low"]
    for name in ("popularity", "", "Relevance"):
        with pytest.raises(ValueError, match="unknown sort"):
            sort_ranked(items, name)


# ---------------------------------------------------------------- what enrichment changes

def test_a_crossref_verdict_is_kept_and_its_notices_join_the_paper():
    ranked = item("t", doi="10.1/x")
    verdict = {"verified": True, "retracted": True,
               "updates": [{"type": "retraction", "doi": "10.1/notice", "date": "2021-03-01"}]}
    checked = ranked.with_doi_check(verdict)
    assert (checked.doi_verified, checked.doi_check) == (True, verdict)
    assert checked.paper.retracted is True and checked.paper.updates[0]["doi"] == "10.1/notice"
    assert ranked.paper.retracted is None and ranked.doi_verified is None  # the original is left as it was
    plain = ranked.with_doi_check({"verified": False, "retracted": True})  # no notices: the paper is untouched
    assert plain.doi_verified is False and plain.paper is ranked.paper


def test_an_open_access_link_replaces_the_papers_own_only_when_there_is_a_new_one():
    ranked = item("t")
    ranked.paper.oa_url = "https://old.example/a.pdf"
    found = ranked.with_open_access("https://new.example/a.pdf", True, "unpaywall")
    assert (found.paper.oa_url, found.oa_is_pdf, found.oa_source) == ("https://new.example/a.pdf", True, "unpaywall")
    asked = ranked.with_open_access(None, None, "none")
    assert (asked.paper.oa_url, asked.oa_source) == ("https://old.example/a.pdf", "none")
    same = ranked.with_open_access("https://old.example/a.pdf", True, "provider")
    assert same.paper is ranked.paper and same.oa_is_pdf is True
    assert ranked.paper.oa_url == "https://old.example/a.pdf" and ranked.oa_source is None


@pytest.mark.parametrize("said,notices,retracted", [
    (True, [{"type": "correction", "doi": "10.1/fix"}], True),  # Crossref says so, with only a correction
    (False, [{"type": "correction", "doi": "10.1/fix"}], False),  # Crossref could tell, and says not
    (None, [{"type": "correction", "doi": "10.1/fix"}], None),
    (False, [{"type": "retraction", "doi": "10.1/r"}], True),  # a retraction notice says it anyway
])
def test_crossrefs_word_on_retraction_is_kept_beside_its_notices(said, notices, retracted):
    checked = item("t", doi="10.1/x").with_doi_check({"verified": True, "retracted": said, "updates": notices})
    assert checked.paper.retracted is retracted


def test_a_paper_not_ranked_yet_has_no_relevance_and_no_score():
    # The records a renderer or the library wraps, never scored: their JSON says 0, not a made-up value.
    unranked = RankedPaper(Paper("openalex", "t"), [])
    assert (unranked.relevance, unranked.score, unranked.score_terms, unranked.provider_scores) == (0.0, 0.0, {}, {})
    assert (unranked.best_provider, unranked.best_score, unranked.provider_relevance, why(unranked)) == \
        (None, None, 0.0, "")


def test_a_pool_whose_best_rate_is_small_is_still_divided_by_it():
    # One citation in its first year: log(1 + 1) = 0.69, below 1, is still the pool's best.
    papers = [Paper("x", "a", year=2000, citation_count=1), Paper("x", "b", year=2000, citation_count=0)]
    assert citation_priors(papers, this_year=2000) == pytest.approx([1.0, 0.0])


def test_a_twin_without_any_id_comes_before_the_twins_with_one():
    twins = [item("twin", doi="10.1/z"), item("twin"), item("twin", openalex="W1")]
    for order in (twins, twins[::-1]):
        assert [i.paper.doi or i.paper.openalex_id for i in sort_ranked(order)] == [None, "10.1/z", "W1"]


def test_impact_order_among_papers_no_source_scored_is_by_citations():
    # A provider relevance of 0 makes every impact 0: the citations decide, most cited first.
    items = [item("less cited", scores={"x": 0.0}, citations=5), item("more cited", scores={"x": 0.0}, citations=50),
             item("unscored", citations=500)]
    for order in (items, items[::-1]):
        assert titles(sort_ranked(order, "impact")) == ["unscored", "more cited", "less cited"]
