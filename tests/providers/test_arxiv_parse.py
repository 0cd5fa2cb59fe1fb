"""arXiv Atom parsing, fed the real recorded bodies from ../shared (skipped when absent)."""

from __future__ import annotations

import time

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import arxiv


def feed(name: str) -> list:
    return arxiv.parse_feed(shared_file(name).read_bytes())


# ---------------------------------------------------------------- real feeds

def test_ten_entry_query_feed():
    papers = feed("arxiv/bodies/arxivpy__query_testing_start0_max10_10entries.atom.xml")
    assert len(papers) == 10
    assert [p.rank for p in papers] == list(range(1, 11))
    assert [p.arxiv_id for p in papers][:3] == ["2202.12139", "2405.13786", "2005.14124"]

    first = papers[0]
    assert first.title == "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
    assert first.authors == ["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"]
    assert (first.year, first.publication_date) == (2022, "2022-02-24")
    # arxiv:doi is the published version's DOI, normalized to lower case.
    assert first.doi == "10.1109/icstw55395.2022.00035"
    assert first.journal.startswith("Artificial Intelligence in Software Testing @ 2022 IEEE International")
    assert first.external_ids == {"arXiv": "2202.12139v1", "arxiv_primary_category": "cs.SE"}
    assert first.publication_types == ["preprint"]
    assert first.oa_url == "https://arxiv.org/pdf/2202.12139v1"
    assert first.url == "https://arxiv.org/abs/2202.12139"
    assert first.abstract.startswith("Deep Learning (DL) has revolutionized the capabilities of vision-based")
    assert first.abstract.endswith("discuss its results.")
    assert first.score is None


def test_hundred_entry_feed_includes_old_style_ids():
    papers = feed("arxiv/bodies/arxivpy__query_testing_start0_max100_100entries.atom.xml")
    assert len(papers) == 100
    assert papers[-1].rank == 100
    assert len({p.arxiv_id for p in papers}) == 100
    last = papers[-1]
    assert last.arxiv_id == "gr-qc/0103067"
    assert last.external_ids["arXiv"] == "gr-qc/0103067v1"
    assert last.title == ("Principles of Equivalence: Their Role in Gravitation Physics and "
                          "Experiments that Test Them")
    assert last.year == 2001
    assert last.doi == "10.1007/3-540-40988-2_10"
    assert {p.arxiv_id for p in papers if "/" in p.arxiv_id} == {"cs/0503050", "hep-ph/0301050", "gr-qc/0103067"}
    assert all("\n" not in p.abstract and "  " not in p.abstract for p in papers)
    assert all(p.oa_url.startswith("https://arxiv.org/pdf/") for p in papers)


def test_second_page_ranks_restart_at_one():
    papers = feed("arxiv/bodies/arxivpy__query_testing_start10_max10_10entries.atom.xml")
    assert [p.rank for p in papers] == list(range(1, 11))
    assert papers[0].arxiv_id == "2403.16981"
    assert papers[0].external_ids["arXiv"] == "2403.16981v2"
    assert papers[0].title == "The Sample Complexity of Simple Binary Hypothesis Testing"


def test_old_layout_boolean_feed_unwraps_titles_and_summaries():
    papers = feed("arxiv/raw/findpapers__query_ml_or_dl_AND_nlp_20entries_2020.atom.xml")
    assert len(papers) == 20
    first = papers[0]
    # The title is hard-wrapped in the feed ("on Sina\n  Weibo").
    assert first.title == "A Multitask Deep Learning Approach for User Depression Detection on Sina Weibo"
    assert first.authors == ["Yiding Wang", "Zhenyi Wang", "Chenghao Li", "Yilin Zhang", "Haizhou Wang"]
    assert first.abstract.startswith("In recent years, due to the mental burden of depression, the number of people who endanger")
    assert "\n" not in first.abstract
    # The namespace is declared on each element in this layout, not on the feed.
    assert first.external_ids == {"arXiv": "2008.11708v1", "arxiv_primary_category": "cs.SI"}
    assert first.oa_url == "http://arxiv.org/pdf/2008.11708v1"
    # findpapers edited the published dates of this test file; we read what is there.
    assert (first.year, papers[1].year) == (2020, 2021)
    with_doi = [p for p in papers if p.doi]
    assert [(p.arxiv_id, p.doi, p.journal) for p in with_doi] == [
        ("2008.11505", "10.1016/j.isprsjprs.2020.07.002", "ISPRS Journal of Photogrammetry and Remote Sensing 2020")]


@pytest.mark.parametrize("name, arxiv_id, versioned, title_start", [
    ("arxivpy__idlist_oldstyle_astro-ph_0601001.atom.xml", "astro-ph/0601001", "astro-ph/0601001v1",
     "Frequency of Hot Jupiters and Very Hot Jupiters"),
    ("arxivpy__idlist_oldstyle_versioned_quant-ph_0201082v1.atom.xml", "quant-ph/0201082", "quant-ph/0201082v1",
     "Quantum Computers and Quantum Computer Languages"),
    ("arxivpy__idlist_versioned_2104.12255v1.atom.xml", "2104.12255", "2104.12255v1", "0"),
    ("arxivpy__idlist_1605.08386_1entry.atom.xml", "1605.08386", "1605.08386v1",
     "Heat-bath random walks with Markov bases"),
    ("arxivpy__idlist_two_ids_one_missing_1entry.atom.xml", "1707.08567", "1707.08567v1",
     "Proceedings of Workshop AEW10"),
])
def test_id_list_feeds(name, arxiv_id, versioned, title_start):
    (paper,) = feed(f"arxiv/bodies/{name}")
    assert paper.arxiv_id == arxiv_id
    assert paper.external_ids["arXiv"] == versioned
    assert paper.title.startswith(title_start)
    assert paper.url == f"https://arxiv.org/abs/{arxiv_id}"


def test_old_style_entry_details():
    (paper,) = feed("arxiv/bodies/arxivpy__idlist_oldstyle_astro-ph_0601001.atom.xml")
    assert paper.authors == ["Andrew Gould", "Susan Dorsher", "B. Scott Gaudi", "Andrzej Udalski"]
    assert paper.journal == "ActaAstron.56:1-50,2006"
    assert paper.doi is None
    assert paper.external_ids["arxiv_primary_category"] == "astro-ph"
    # "V_max<17.5" is text in a type="text" summary and must survive.
    assert "limit of V_max<17.5. Hence, the frequencies" in paper.abstract


def test_error_entry_raises_with_its_message():
    with pytest.raises(ProviderError, match="incorrect id format for abc"):
        feed("arxiv/bodies/arxivpy__error_400_malformed_id_abc_error_entry.atom.xml")


def test_empty_feed_is_no_results():
    assert feed("arxiv/bodies/arxivpy__idlist_nonexistent_0000.0000_empty_feed.atom.xml") == []


# ---------------------------------------------------------------- bodies written here

def test_rate_exceeded_plain_text_raises():
    with pytest.raises(ProviderError, match="rate exceeded"):
        arxiv.parse_feed(b"Rate exceeded.")
    with pytest.raises(ProviderError, match="rate exceeded"):
        arxiv.parse_feed("Rate exceeded.\n")


@pytest.mark.parametrize("body, reason", [
    (b"", "empty body"),
    (b"<!DOCTYPE html><html><body>Service Unavailable</body></html>", "HTML page"),
    (b"<rss version='2.0'><channel/></rss>", "not an Atom feed"),
    (b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>", "malformed XML"),
    (b"/etc/passwd", "plain text"),
])
def test_non_feed_bodies_raise(body, reason):
    with pytest.raises(ProviderError, match=reason):
        arxiv.parse_feed(body)


def test_entity_expansion_bomb_is_refused_without_expanding():
    levels = "".join(f'<!ENTITY e{i} "{"".join(f"&e{i - 1};" for _ in range(10))}">' for i in range(1, 10))
    bomb = (f'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY e0 "ha">{levels}]>'
            '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2101.00001v1</id>'
            "<title>&e9;</title></entry></feed>")
    started = time.perf_counter()
    with pytest.raises(ProviderError, match="DOCTYPE"):
        arxiv.parse_feed(bomb)
    assert time.perf_counter() - started < 1.0


def test_empty_page_despite_results_is_an_error():
    body = ("<feed xmlns='http://www.w3.org/2005/Atom' xmlns:opensearch='http://a9.com/-/spec/opensearch/1.1/'>"
            "<opensearch:totalResults>5120</opensearch:totalResults>"
            "<opensearch:startIndex>0</opensearch:startIndex></feed>")
    with pytest.raises(ProviderError, match="empty page"):
        arxiv.parse_feed(body)


def test_other_namespace_prefix_is_followed():
    body = """<feed xmlns="http://www.w3.org/2005/Atom" xmlns:ax="http://arxiv.org/schemas/atom">
      <entry><id>https://arxiv.org/abs/2101.00001v3</id><title>A
        wrapped title</title><published>2021-01-01T00:00:00Z</published>
        <ax:doi>https://doi.org/10.5555/ABC</ax:doi><ax:primary_category term="cs.CL"/>
        <author><name>A. Person</name></author></entry></feed>"""
    (paper,) = arxiv.parse_feed(body)
    assert paper.title == "A wrapped title"
    assert paper.doi == "10.5555/abc"
    assert paper.external_ids == {"arXiv": "2101.00001v3", "arxiv_primary_category": "cs.CL"}
    assert paper.oa_url is None


# ---------------------------------------------------------------- query syntax

def test_to_search_query_strips_syntax_characters():
    assert arxiv.to_search_query('CRISPR/Cas9 "off-target" (effects): all:x') == \
        "(all:CRISPR AND all:Cas9 AND all:off-target AND all:effects AND all:all AND all:x)"
    assert arxiv.to_search_query("cats and dogs OR ANDNOT mice") == "(all:cats AND all:dogs AND all:mice)"
    assert arxiv.to_search_query('"" () : AND') == ""


def test_combine_queries():
    assert arxiv.combine_queries(["protein language model", "PLM scaling", "", "Protein  LANGUAGE model"]) == \
        "(all:protein AND all:language AND all:model) OR (all:PLM AND all:scaling)"
    assert arxiv.combine_queries(["a+b -c", "x~2 y^3 z*"]) == \
        "(all:a AND all:b AND all:c) OR (all:x AND all:2 AND all:y AND all:3 AND all:z)"
    assert arxiv.combine_queries([]) == ""
