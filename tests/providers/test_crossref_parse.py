"""Crossref parsing, query building and title comparison, fed real recorded bodies from ../shared."""

from __future__ import annotations

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import crossref

BOETTIGER_PAGE = "crossref/bodies/habanero__works_query_ecology_author_boettiger_20items__00_200.json"
WIDGET_PAGE = "crossref/bodies/habanero__works_query_widget_cursor_star_20items__00_200.json"
RENEAR_PAGE = "crossref/bodies/rcrossref__works_queries_NSF_renear_filters_and_404__01_200.json"
FULL_TEXT_PAGE = "crossref/bodies/rcrossref__works_queries_NSF_renear_filters_and_404__03_200.json"
ABSTRACTS_PAGE = "crossref/bodies/fulltext__works_query_ecology_hasabstract_rows10_plus_10_dois__00_200.json"
SELECT_PAGE = "crossref/bodies/habanero__works_query_ecology_rows3_select__00_200.json"
NO_RESULTS = "crossref/bodies/rcrossref__works_query_no_results_0items__00_200.json"
NO_RESULTS_TITLE = "crossref/bodies/paperqa__bad_titles_404_and_0_results__00_200.json"
WORK_PNAS = "crossref/bodies/paperqa__doi_search_10.1073_pnas.1414271111__00_200.json"
WORK_PLOS = "crossref/bodies/habanero__work_by_doi_10.1371_journal.pone.0033693__00_200.json"
WORK_SREP = "crossref/bodies/habanero__works_by_doi_5_dois__02_200.json"
WORK_NULL_DATES = "crossref/bodies/habanero__works_by_doi_5_dois__03_200.json"
WORK_FAMILY_ONLY = "crossref/bodies/habanero__works_by_doi_5_dois__04_200.json"
WORK_NO_AUTHORS = "crossref/bodies/paperqa__bulk_doi_search_6_dois_incl_404s__04_200.json"
WORK_SOFTX = "crossref/raw/litstudy__work_by_doi_10.1016_j.softx.2022.101207.json"
ERROR_400 = "crossref/bodies/habanero__error_400_query_on_single_doi__00_400.json"
ERROR_404_CURSOR = "crossref/bodies/habanero__error_404_bad_cursor_json_body__00_404.json"
NOT_FOUND_TEXTS = [
    "crossref/bodies/habanero__error_404_unknown_doi_text_body__00_404.txt",
    "crossref/bodies/paperqa__bulk_doi_search_6_dois_incl_404s__05_404.txt",
    "crossref/bodies/rcrossref__works_queries_NSF_renear_filters_and_404__09_404.txt",
]


def read(relative: str) -> bytes:
    return shared_file(relative).read_bytes()


@pytest.fixture(scope="module")
def boettiger():
    return crossref.parse_works(read(BOETTIGER_PAGE))


# ---------------------------------------------------------------- search pages

def test_search_page_records_in_order(boettiger):
    assert len(boettiger) == 20
    assert [paper.rank for paper in boettiger] == list(range(1, 21))
    assert all(paper.provider == "crossref" for paper in boettiger)
    scores = [paper.score for paper in boettiger]
    assert scores == sorted(scores, reverse=True)


def test_first_search_record(boettiger):
    paper = boettiger[0]
    assert paper.title == "The forecast trap"
    assert paper.doi == "10.1111/ele.14024"
    assert paper.external_ids == {"doi": "10.1111/ele.14024"}
    assert paper.authors == ["Carl Boettiger"]
    assert (paper.year, paper.publication_date) == (2022, "2022-05-30")  # issued, not published-print (2022-07)
    assert paper.journal == "Ecology Letters"
    assert (paper.volume, paper.issue, paper.pages) == ("25", "7", "1655-1664")
    assert paper.citation_count == 26
    assert paper.publication_types == ["journal-article"]
    assert paper.score == pytest.approx(35.49375)
    assert paper.url == "https://doi.org/10.1111/ele.14024"


def test_jats_abstract_is_flattened_and_its_heading_dropped(boettiger):
    abstract = boettiger[0].abstract
    assert abstract.startswith("Encouraged by decision makers’ appetite for future information")
    assert abstract.endswith("Existing practices promoting a broader set of models are the best way to avoid the trap.")
    assert "<" not in abstract and "Abstract" not in abstract and "  " not in abstract


def test_titles_with_markup_and_hard_wraps_are_flattened(boettiger):
    by_doi = {paper.doi: paper for paper in boettiger}
    # Recorded as "The role of\n    <scp>AI</scp>\n    in ecology’s …"
    assert by_doi["10.1002/fee.70021"].title == "The role of AI in ecology’s computational carbon footprint"
    assert by_doi["10.1111/2041-210x.12469"].title == ("RNeXML: a package for reading and writing richly "
                                                       "annotated phylogenetic, character and trait data in r")
    # Crossref lost the spaces around the tags in the deposit itself; only the tags go.
    assert by_doi["10.1111/j.2041-210x.2012.00247.x"].title.startswith("Treebase: anRpackage for discovery")


def test_preprint_without_venue(boettiger):
    paper = boettiger[3]
    assert paper.doi == "10.1101/055319"
    assert paper.publication_types == ["posted-content"]
    assert paper.authors == ["Milad Memarzadeh", "Carl Boettiger"]
    assert paper.journal is None


def test_html_entities_in_titles():
    papers = crossref.parse_works(read(FULL_TEXT_PAGE))
    titles = [paper.title for paper in papers]
    assert "Verifying powerline emissions & immunity test systems per IEC standards & technical reports" in titles
    assert papers[0].score == 0.0  # a filter-only query: every record scores 0


def test_records_without_a_title_are_skipped_and_ranks_keep_positions():
    papers = crossref.parse_works(read(RENEAR_PAGE))
    # Item 5 (10.1023/a:1001832310939) has "title": null.
    assert len(papers) == 19
    assert [paper.rank for paper in papers][:5] == [1, 2, 3, 4, 6]
    assert "10.1023/a:1001832310939" not in {paper.doi for paper in papers}
    # The 1,000-result page of a full-text filter also holds a record whose title is [""].
    assert "10.3412/jsb1917.18.1_111" not in {paper.doi for paper in crossref.parse_works(read(FULL_TEXT_PAGE))}


def test_null_dates_give_no_year():
    papers = crossref.parse_works(read(WIDGET_PAGE))
    mania = papers[0]
    assert mania.title == "Widget Mania: Using a GUI Widget Framework"
    assert (mania.year, mania.publication_date) == (None, None)  # issued [[null]], others null
    assert mania.journal == "Practical JavaScript™, DOM Scripting, and Ajax Projects"
    assert mania.publication_types == ["book-chapter"]
    sizes = papers[2]
    assert (sizes.title, sizes.year, sizes.publication_date) == ("Adding Additional Widget Sizes", 2020, "2020")
    assert sizes.authors == ["Stewart Lynch"]


def test_year_only_and_year_month_dates():
    papers = crossref.parse_works(read(ABSTRACTS_PAGE))
    humpback = papers[6]
    assert humpback.doi == "10.1155/2011/868426"
    assert (humpback.year, humpback.publication_date) == (2011, "2011")  # issued [[2011]]
    assert humpback.authors == ["John H. Graham", "Jeffrey J. Duda"]
    assert humpback.journal == "International Journal of Ecology"
    assert humpback.issue is None and humpback.pages == "1-15"
    assert humpback.url == "http://dx.doi.org/10.1155/2011/868426"
    softx = crossref.parse_single(read(WORK_SOFTX))
    assert (softx.year, softx.publication_date) == (2022, "2022-12")


def test_placeholder_abstract_becomes_none():
    papers = crossref.parse_works(read(ABSTRACTS_PAGE))
    assert papers[1].title == "Political Ecology"
    assert papers[1].abstract is None  # recorded as "<jats:p>Abstract</jats:p>"
    assert papers[0].abstract.startswith("Political ecologists have long acknowledged the links between knowledge")


def test_selected_fields_only():
    papers = crossref.parse_works(read(SELECT_PAGE))  # select=DOI,title,author,published
    assert [paper.title for paper in papers] == ["Communicating Ecology", "Fire Ecology", "Ecosystem Ecology"]
    assert papers[1].authors == ["John Parminter"]
    assert papers[1].year == 2012  # from "published"; there is no "issued" in the answer
    assert papers[1].score is None and papers[1].citation_count is None


@pytest.mark.parametrize("relative", [NO_RESULTS, NO_RESULTS_TITLE])
def test_zero_result_queries(relative):
    assert crossref.parse_works(read(relative)) == []


# ---------------------------------------------------------------- single works

def test_single_work_with_section_heading_in_abstract():
    paper = crossref.parse_single(read(WORK_PNAS))
    assert paper.title == ("Developing functional musculoskeletal tissues through hypoxia and "
                           "lysyl oxidase-induced collagen cross-linking")
    assert paper.doi == "10.1073/pnas.1414271111"
    assert paper.authors[0] == "Eleftherios A. Makris" and paper.authors[-1] == "Kyriacos A. Athanasiou"
    assert paper.journal == "Proceedings of the National Academy of Sciences"
    assert (paper.year, paper.volume, paper.issue, paper.pages) == (2014, "111", "45", None)
    assert paper.citation_count == 129
    assert paper.abstract.startswith("Significance: The inadequate mechanical properties of engineered tissues")
    assert paper.score is None  # the answer says 1: a lookup, not a ranked search
    assert paper.rank is None


def test_single_work_fields():
    paper = crossref.parse_single(read(WORK_PLOS))
    assert paper.title == ("Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation "
                           "of Microglia in the Basal Ganglia of Mice")
    assert paper.authors[:2] == ["Shankar Sadasivan", "Brooks B. Pond"]
    assert (paper.journal, paper.pages, paper.citation_count) == ("PLoS ONE", "e33693", 72)
    assert paper.abstract is None  # no abstract deposited


def test_single_work_abstract_with_heading_and_non_ascii():
    paper = crossref.parse_single(read(WORK_SREP))
    assert paper.title.endswith("Parkinson’s disease genetically related mutants")
    assert paper.authors[3] == "Tuomas P. J. Knowles" and paper.authors[4] == "Mauro Dalla Serra"
    assert paper.abstract.startswith("Oligomers of alpha-synuclein are toxic to cells")
    assert "single-molecule Förster Resonance Energy Transfer" in paper.abstract


def test_single_work_with_null_dates():
    paper = crossref.parse_single(read(WORK_NULL_DATES))
    assert paper.title == "Accurate and explicit differentiation of wireless and congestion losses"
    assert paper.year is None  # issued [[null]]; `created` (2004) is a registration date, not used
    assert paper.publication_types == ["proceedings-article"]


def test_authors_with_family_name_only_and_without_authors():
    assert crossref.parse_single(read(WORK_FAMILY_ONLY)).authors[0] == "Stravopodis"
    paper = crossref.parse_single(read(WORK_NO_AUTHORS))
    assert paper.title == "Convalescent-anti-sars-cov-2-plasma/immune-globulin"
    assert paper.authors == []
    assert paper.pages == "145-145"


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("relative", NOT_FOUND_TEXTS)
def test_404_text_body_is_not_json(relative):
    assert read(relative) == b"Resource not found."
    with pytest.raises(ProviderError, match=r"not JSON\): 'Resource not found.'"):
        crossref.parse_single(read(relative))


@pytest.mark.parametrize("relative, expected", [
    (ERROR_400, "API error: parameter-not-allowed: This route does not support field query parameters"),
    (ERROR_404_CURSOR, "API error: cursor-invalid: Cursor specified but it is invalid"),
])
def test_json_failure_bodies_raise_one_line(relative, expected):
    for parse in (crossref.parse_works, crossref.parse_single):
        with pytest.raises(ProviderError) as caught:
            parse(read(relative))
        assert str(caught.value) == expected


def test_other_bad_bodies():
    with pytest.raises(ProviderError, match="HTML page"):
        crossref.parse_works(b"<html><body>Bad gateway</body></html>")
    with pytest.raises(ProviderError, match="no list of works"):
        crossref.parse_works(read(WORK_PLOS))  # a single work is not a list answer
    with pytest.raises(ProviderError, match="not a work"):
        crossref.parse_single(read(NO_RESULTS))
    with pytest.raises(ProviderError, match="NullPointerException"):
        crossref.parse_works(b'{"status": "error", "message-type": "exception", '
                             b'"message": {"name": "class java.lang.NullPointerException", "description": null}}')


# ---------------------------------------------------------------- shapes not in the recordings

def test_mathml_title_organisation_author_and_null_entries():
    work = {
        "DOI": "10.1000/MathML.1",
        "title": ["", "Bounds on <mml:math><mml:mi>k</mml:mi></mml:math>-colourings of <i>sparse</i> graphs"],
        "author": [{"name": "The  Graph Consortium", "sequence": "first"}, {"given": "Ada", "family": "Lovelace"}, None],
        "issued": {"date-parts": [[2019, 2]]},
        "container-title": [],
    }
    paper = crossref.parse_work(work, rank=4)
    assert paper.title == "Bounds on k-colourings of sparse graphs"
    assert paper.authors == ["The Graph Consortium", "Ada Lovelace"]
    assert (paper.doi, paper.year, paper.publication_date, paper.journal) == ("10.1000/mathml.1", 2019, "2019-02", None)
    assert paper.rank == 4
    assert crossref.parse_work(None) is None
    assert crossref.parse_work({"DOI": "10.1000/x", "title": []}) is None


def test_later_date_fields_are_used_when_issued_is_unknown():
    work = {"title": ["T"], "issued": {"date-parts": [[None]]}, "published": None,
            "published-print": {"date-parts": [[2001, 7, 3]]}}
    assert crossref.parse_work(work).publication_date == "2001-07-03"


# ---------------------------------------------------------------- query building

def test_combine_queries_is_a_bag_of_distinct_words():
    assert crossref.combine_queries(["heart failure", "Heart failure therapy", "SGLT2 failure"]) == \
        "heart failure therapy SGLT2"


def test_combine_queries_drops_operators_quotes_and_parentheses():
    assert crossref.combine_queries(['"machine learning" AND (radiology OR imaging)', "NOT x-ray"]) == \
        "machine learning radiology imaging x-ray"


def test_combine_queries_needs_words():
    with pytest.raises(ValueError):
        crossref.combine_queries(['""', " ", "AND ()"])


# ---------------------------------------------------------------- title comparison

def test_title_similarity_ignores_case_markup_and_punctuation():
    assert crossref.title_similarity("the role of AI in ecology's computational carbon footprint",
                                     "The role of <scp>AI</scp> in ecology’s computational carbon footprint") == 100


def test_title_similarity_low_for_a_different_paper_and_guarded_for_prefixes():
    assert crossref.title_similarity("The forecast trap", "Early warning signals") < crossref.TITLE_MATCH_THRESHOLD
    # A title that is only the start of another is a different (or truncated) title.
    assert crossref.title_similarity("Attention", "Attention: a survey of mechanisms in deep learning") == 0
    assert crossref.title_similarity(None, "x") == 0
