"""Discipline detection and request planning (the ranking itself: test_ranking.py)."""

import pytest

from litsearch.search.plan import detect_providers, parse_provider_list, plan_requests


@pytest.mark.parametrize("topic,expected", [
    ("CRISPR off-target effects", ["semantic_scholar", "openalex", "pubmed", "europepmc"]),
    ("randomized trial of statins in elderly patients", ["semantic_scholar", "openalex", "pubmed", "europepmc"]),
    ("graph neural networks for molecule generation", ["semantic_scholar", "openalex", "arxiv"]),
    ("quantum error correction codes", ["semantic_scholar", "openalex", "arxiv"]),
    ("deep learning for tumor segmentation in MRI", ["semantic_scholar", "openalex", "pubmed", "europepmc", "arxiv"]),
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
    by_name = {p.provider: p for p in plans}
    assert all(by_name[name].mode == "combined" for name in ("openalex", "pubmed", "arxiv"))
    assert " OR " in by_name["openalex"].query and " OR " in by_name["pubmed"].query
    assert " OR " in by_name["arxiv"].query
    # Semantic Scholar's relevance search for the topic (TLDRs, a pool not chosen by citations):
    # its OR-capable bulk endpoint has no relevance order.
    assert (by_name["semantic_scholar"].mode, by_name["semantic_scholar"].query) == ("search", "CRISPR off-target")
    single = plan_requests(["openalex"], ["CRISPR off-target"])
    assert single[0].mode == "search" and single[0].query == "CRISPR off-target"


@pytest.mark.parametrize("sort", ["citations", "year"])
def test_semantic_scholar_asks_the_bulk_endpoint_for_the_most_cited_or_newest(sort):
    plan, = plan_requests(["semantic_scholar"], ["CRISPR off-target", "Cas9 specificity"], sort)
    assert plan.mode == "combined" and "|" in plan.query


@pytest.mark.parametrize("sort", ["relevance", "impact"])
def test_semantic_scholar_asks_the_relevance_search_for_relevance_sorts(sort):
    plan, = plan_requests(["semantic_scholar"], ["CRISPR off-target", "Cas9 specificity"], sort)
    assert (plan.mode, plan.query) == ("search", "CRISPR off-target")
