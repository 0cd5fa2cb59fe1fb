"""Discipline detection, request planning, and the ranking formula."""

import math

import pytest

from litsearch.search.plan import detect_providers, parse_provider_list, plan_requests
from litsearch.search.rank import RankedPaper, lexical_relevance, provider_relevance, query_terms, score_paper, sort_ranked
from litsearch.core.records import Paper


@pytest.mark.parametrize("topic,expected", [
    ("CRISPR off-target effects", ["semantic_scholar", "openalex", "pubmed"]),
    ("randomized trial of statins in elderly patients", ["semantic_scholar", "openalex", "pubmed"]),
    ("graph neural networks for molecule generation", ["semantic_scholar", "openalex", "arxiv"]),
    ("quantum error correction codes", ["semantic_scholar", "openalex", "arxiv"]),
    ("deep learning for tumor segmentation in MRI", ["semantic_scholar", "openalex", "pubmed", "arxiv"]),
    ("medieval monastic economies", ["semantic_scholar", "openalex"]),
    ("the rather strange rates of rating", ["semantic_scholar", "openalex"]),
])
def test_discipline_detection(topic, expected):
    choice = detect_providers([topic])
    assert choice.providers == expected
    assert "semantic_scholar and openalex" in choice.reason


def test_reason_names_the_words_that_decided():
    choice = detect_providers(["CRISPR off-target effects in mice"])
    assert "'crispr'" in choice.reason and "'mice'" in choice.reason


def test_parse_provider_list():
    assert parse_provider_list("arxiv, Semantic-Scholar") == ["semantic_scholar", "arxiv"]
    with pytest.raises(ValueError, match="unknown provider"):
        parse_provider_list("scholar")
    with pytest.raises(ValueError):
        parse_provider_list(" , ")


def test_variants_become_one_query_per_provider():
    plans = plan_requests(["semantic_scholar", "openalex", "pubmed", "arxiv"],
                          ["CRISPR off-target", "Cas9 specificity"])
    assert [p.mode for p in plans] == ["combined"] * 4
    by_name = {p.provider: p.query for p in plans}
    assert "|" in by_name["semantic_scholar"]
    assert " OR " in by_name["openalex"] and " OR " in by_name["pubmed"] and " OR " in by_name["arxiv"]
    single = plan_requests(["openalex"], ["CRISPR off-target"])
    assert single[0].mode == "search" and single[0].query == "CRISPR off-target"


def test_provider_relevance_from_scores_or_ranks():
    scored = [Paper("openalex", "a", rank=1, score=50.0), Paper("openalex", "b", rank=2, score=25.0)]
    assert provider_relevance(scored) == [1.0, 0.5]
    ranked = [Paper("pubmed", t, rank=i) for i, t in enumerate("abcd", start=1)]
    assert provider_relevance(ranked) == [1.0, 0.75, 0.5, 0.25]


def test_score_formula_and_agreement_bonus():
    one = RankedPaper(Paper("merged", "x", citation_count=99), [], provider_scores={"openalex": 0.5})
    score_paper(one)
    assert one.relevance == 0.5 and one.score == pytest.approx(0.5 * math.log(100))
    three = RankedPaper(Paper("merged", "x", citation_count=0), [],
                        provider_scores={"openalex": 0.5, "pubmed": 0.2, "arxiv": 0.1})
    score_paper(three)
    assert three.relevance == pytest.approx(0.7) and three.score == 0.0
    capped = RankedPaper(Paper("merged", "x"), [], provider_scores={"a": 0.95, "b": 0.9})
    score_paper(capped)
    assert capped.relevance == 1.0


def test_sorting_is_deterministic_with_ties():
    def item(title, cites, year, rel):
        r = RankedPaper(Paper("merged", title, citation_count=cites, year=year), [], provider_scores={"x": rel})
        score_paper(r)
        return r

    items = [item("b", 10, 2020, 0.5), item("a", 10, 2020, 0.5), item("c", 1000, 2010, 0.1), item("d", 0, 2024, 1.0)]
    # a, b: 0.5 × ln 11 = 1.20 (tie broken by title); c: 0.1 × ln 1001 = 0.69; d: 1.0 × ln 1 = 0
    assert [i.paper.title for i in sort_ranked(items)] == ["a", "b", "c", "d"]
    assert [i.paper.title for i in sort_ranked(items, "citations")] == ["c", "a", "b", "d"]
    assert [i.paper.title for i in sort_ranked(items, "year")] == ["d", "a", "b", "c"]


def test_lexical_relevance_weights_title_over_abstract():
    terms = query_terms(["CRISPR off-target effects"])
    in_title = Paper("s2", "Off-target effects of CRISPR")
    in_abstract = Paper("s2", "Something else", abstract="we study crispr off-target effects")
    assert lexical_relevance(terms, in_title) == 1.0
    assert lexical_relevance(terms, in_abstract) == 0.5
    assert lexical_relevance(terms, Paper("s2", "Unrelated")) == 0.0
