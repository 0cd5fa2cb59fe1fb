"""OpenAlex parsing and query building, fed real recorded bodies from ../shared."""

from __future__ import annotations

import json

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import openalex

BIODIVERSITY_PAGE = ("openalex/bodies/openalexPro__works_filter_title_and_abstract_search_"
                     "biodiversity_AND_finance_200results_LARGE__00_200.json")
PAPERQA_SEARCH = "openalex/bodies/paperqa__title_search_PaperQA__00_200.json"
WORK_PNAS = "openalex/bodies/paperqa__doi_search_10.1073_pnas.1414271111__00_200.json"
WORK_COLON_DOI = "openalex/bodies/paperqa__doi_search_10.1023_a_1007154515475__00_200.json"
WORK_PEERJ = "openalex/raw/openalex_python__work_W2741809807_peerj.4375.json"
WORK_TITLE_NULL = "openalex/bodies/openalexPro__work_W4234567890_title_null__00_200.json"
ERROR_400_FILTER = "openalex/bodies/openalexPro__error_400_invalid_filter_and_select__00_400.json"
ERROR_400_SELECT = "openalex/bodies/openalexPro__error_400_invalid_filter_and_select__01_400.json"
ERROR_401 = "openalex/bodies/openalexPro__error_401_rate_limit_endpoint_bad_key__00_401.json"
ERROR_404_HTML = "openalex/bodies/paperqa__openalex_doi_not_found_404_html__00_404.html"


def read(relative: str) -> bytes:
    return shared_file(relative).read_bytes()


@pytest.fixture(scope="module")
def biodiversity():
    return openalex.parse_works(read(BIODIVERSITY_PAGE))


# ---------------------------------------------------------------- abstract reconstruction

def test_rebuild_abstract_orders_words_by_position():
    index = {"world": [1], "Hello": [0], "again,": [2], "hello": [3], "world.": [4]}
    assert openalex.rebuild_abstract(index) == "Hello world again, hello world."


def test_rebuild_abstract_repeated_words_and_empty_input():
    assert openalex.rebuild_abstract({"the": [0, 2], "cat": [1], "hat": [3]}) == "the cat the hat"
    assert openalex.rebuild_abstract(None) is None
    assert openalex.rebuild_abstract({}) is None


def test_rebuilt_abstract_matches_the_recorded_index():
    work = json.loads(read(WORK_PEERJ))
    index = work["abstract_inverted_index"]
    # Read from the file: these words sit at positions 0-5.
    for word, position in [("Despite", 0), ("growing", 1), ("interest", 2), ("in", 3), ("Open", 4), ("Access", 5)]:
        assert position in index[word]
    abstract = openalex.rebuild_abstract(index)
    assert abstract.startswith("Despite growing interest in Open Access (OA) to scholarly literature, "
                               "there is an unmet need for large-scale")
    assert abstract.endswith("as a way to inform OA policy and practice.")
    assert len(abstract.split()) == sum(len(positions) for positions in index.values())


# ---------------------------------------------------------------- the 200-result page

def test_biodiversity_page_has_all_records_ranked(biodiversity):
    assert len(biodiversity) == 200
    assert [paper.rank for paper in biodiversity] == list(range(1, 201))
    assert all(paper.provider == "openalex" and paper.openalex_id.startswith("W") for paper in biodiversity)


def test_first_biodiversity_record(biodiversity):
    paper = biodiversity[0]
    assert paper.title == "Biodiversity Finance"
    assert paper.openalex_id == "W4235089722"
    assert paper.doi == "10.1111/1468-2346.00131"
    assert paper.authors == ["Michael C. Rubino"]
    assert paper.year == 2000
    assert paper.publication_date == "2000-04-01"
    assert paper.journal == "International Affairs"
    assert (paper.volume, paper.issue, paper.pages) == ("76", "2", "223-240")
    assert paper.citation_count == 22
    assert paper.score == pytest.approx(137.30615)
    assert paper.publication_types == ["article"]
    assert paper.oa_url is None  # closed access
    assert paper.abstract.startswith("The 1992 Convention on Biological Diversity (CBD) challenged signatory countries")
    assert paper.url == "https://openalex.org/W4235089722"


def test_biodiversity_record_with_pmid(biodiversity):
    paper = biodiversity[11]
    assert paper.title == "The Domestic Benefits of Tropical Forests: A Critical Review"
    assert paper.pmid == "12295970"
    assert paper.doi == "10.1093/wbro/13.1.13"
    assert paper.external_ids == {"openalex": "W2154174829", "doi": "10.1093/wbro/13.1.13",
                                  "mag": "2154174829", "pmid": "12295970"}


def test_biodiversity_open_access_pdf(biodiversity):
    paper = biodiversity[1]
    assert paper.title == "Financing Biodiversity Conservation"
    assert paper.oa_url == ("https://publications.iadb.org/publications/english/document/"
                            "Financing-Biodiversity-Conservation.pdf")


def test_biodiversity_coverage_matches_the_file(biodiversity):
    # Counted in the raw file: 137 DOIs, 18 PMIDs, 151 abstracts, every work has a relevance_score.
    assert sum(1 for paper in biodiversity if paper.doi) == 137
    assert sum(1 for paper in biodiversity if paper.pmid) == 18
    assert sum(1 for paper in biodiversity if paper.abstract) == 151
    assert all(isinstance(paper.score, float) for paper in biodiversity)
    assert biodiversity[-1].score == pytest.approx(2.5661888)


# ---------------------------------------------------------------- single works (/works/{doi})

def test_single_work_with_pmid_pmcid_and_mag():
    [paper] = openalex.parse_works(read(WORK_PNAS))
    assert paper.title.startswith("Developing functional musculoskeletal tissues through hypoxia")
    assert paper.doi == "10.1073/pnas.1414271111"
    assert paper.pmid == "25349395"
    assert paper.openalex_id == "W2109415576"
    assert paper.external_ids["pmcid"] == "PMC4234579"
    assert paper.external_ids["mag"] == "2109415576"
    assert paper.journal == "Proceedings of the National Academy of Sciences"
    assert paper.year == 2014
    assert paper.rank is None and paper.score is None  # a singleton has neither


def test_single_work_with_colon_in_doi():
    [paper] = openalex.parse_works(read(WORK_COLON_DOI))
    assert paper.doi == "10.1023/a:1007154515475"
    assert paper.pmid == "11330823"
    assert (paper.volume, paper.issue, paper.pages) == ("218", "1/2", "1-11")
    assert paper.abstract is None
    assert paper.authors == ["Subrata Adak", "Debasish Bandyopadhyay", "Uday Bandyopadhyay", "Ranajit K. Banerjee"]


def test_single_work_oa_pdf_and_single_page_article():
    [paper] = openalex.parse_works(read(WORK_PEERJ))
    assert paper.title == ("The state of OA: a large-scale analysis of the prevalence and impact "
                           "of Open Access articles")
    assert paper.doi == "10.7717/peerj.4375"
    assert paper.pmid == "29456894"
    assert paper.oa_url == "https://peerj.com/articles/4375.pdf"
    assert paper.pages == "e4375"  # first_page == last_page
    assert len(paper.authors) == 9 and paper.authors[2] == "Vincent Larivière"


def test_arxiv_doi_work_gives_arxiv_id():
    [paper] = openalex.parse_works(read(PAPERQA_SEARCH))
    assert paper.doi == "10.48550/arxiv.2312.07559"
    assert paper.arxiv_id == "2312.07559"
    assert paper.publication_types == ["preprint"]
    assert paper.journal == "arXiv (Cornell University)"
    assert paper.score == pytest.approx(1082.9331)
    assert paper.rank == 1
    assert paper.abstract.startswith("Large Language Models (LLMs) generalize well across language tasks")
    assert paper.oa_url == "https://arxiv.org/abs/2312.07559"  # no pdf_url, so open_access.oa_url


def test_arxiv_id_from_an_arxiv_location_when_the_doi_is_the_publishers():
    work = {
        "id": "https://openalex.org/W1", "display_name": "T", "doi": "https://doi.org/10.1/x",
        "locations": [{"landing_page_url": "https://doi.org/10.1/x"},
                      {"landing_page_url": "https://arxiv.org/abs/2101.00001v3"}],
    }
    assert openalex.parse_work(work).arxiv_id == "2101.00001"


def test_work_without_a_title_is_skipped():
    assert openalex.parse_works(read(WORK_TITLE_NULL)) == []


# ---------------------------------------------------------------- error bodies

@pytest.mark.parametrize("relative, expected", [
    (ERROR_400_FILTER, "Invalid query parameters error.: DOESNTEXIST is not a valid field"),
    (ERROR_400_SELECT, "DOESNTEXIST is not a valid select field"),
    (ERROR_401, "Invalid or missing API key: API key not found"),
])
def test_json_error_bodies_raise_a_short_line(relative, expected):
    with pytest.raises(ProviderError) as caught:
        openalex.parse_works(read(relative))
    message = str(caught.value)
    assert expected in message
    assert "\n" not in message and len(message) <= 180


def test_html_page_raises():
    with pytest.raises(ProviderError, match="HTML page"):
        openalex.parse_works(read(ERROR_404_HTML))


def test_non_json_text_raises():
    with pytest.raises(ProviderError, match=r"not JSON"):
        openalex.parse_works(b"Service Unavailable")


# ---------------------------------------------------------------- query building

def test_combine_queries_joins_variants_with_or():
    assert openalex.combine_queries(["deep learning", "neural networks"]) == "(deep learning) OR (neural networks)"


def test_combine_queries_neutralises_user_operators():
    assert openalex.combine_queries(["cats AND dogs NOT birds", "Oregon OR Nevada"]) == \
        "(cats and dogs not birds) OR (Oregon or Nevada)"


def test_combine_queries_keeps_balanced_phrases_and_drops_stray_quotes_and_parentheses():
    assert openalex.combine_queries(['"machine learning" radiology']) == '("machine learning" radiology)'
    assert openalex.combine_queries(['"machine learning radiology']) == "(machine learning radiology)"
    assert openalex.combine_queries(["heart (failure"]) == "(heart failure)"
    assert openalex.combine_queries(["heart) failure (x"]) == "(heart failure x)"
    assert openalex.combine_queries(["(heart failure) therapy"]) == "((heart failure) therapy)"


def test_combine_queries_drops_empty_and_duplicate_variants():
    assert openalex.combine_queries(["COVID-19 vaccine", "covid-19 VACCINE", "()", ""]) == "(COVID-19 vaccine)"
    with pytest.raises(ValueError):
        openalex.combine_queries(['""', " "])
