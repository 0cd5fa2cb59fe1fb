"""Semantic Scholar parsing and query building, fed real recorded bodies from ../shared."""

from __future__ import annotations

import json

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import semantic_scholar as s2

TURING_PAGE = "semantic_scholar/bodies/s2d__search_turing_fullfields_429x2_then_200_100recs__02_200.json"
TURING_429 = "semantic_scholar/bodies/s2d__search_turing_fullfields_429x2_then_200_100recs__00_429.json"
EMPTY_PAGE = "semantic_scholar/bodies/s2d__search_no_results_total0__00_200.json"
BULK_PAGE = "semantic_scholar/bodies/s2d__search_bulk_kubernetes_1000recs__00_200.json"
PAPER_XGEN = "semantic_scholar/bodies/paperqa__doi_search_10.1016_j.xgen.2025.100814__00_200.json"
PAPER_PAPERQA = "semantic_scholar/bodies/paperqa__bulk_doi_search_6_dois_incl_404s__04_200.json"
PAPER_NO_AUTHORS = "semantic_scholar/bodies/paperqa__doi_search_10.1007_s40278-023-41815-2__00_200.json"
ERROR_400 = "semantic_scholar/bodies/s2d__error_400_unrecognized_field__00_400.json"
ERROR_404 = "semantic_scholar/bodies/s2d__error_404_paper_and_author_not_found__00_404.json"


def read(relative: str) -> bytes:
    return shared_file(relative).read_bytes()


@pytest.fixture(scope="module")
def turing():
    return s2.parse_search(read(TURING_PAGE))


# ---------------------------------------------------------------- the 100-record search page

def test_turing_page_has_all_hundred_records_ranked_in_order(turing):
    assert len(turing) == 100
    assert [paper.rank for paper in turing] == list(range(1, 101))
    assert all(paper.provider == "semantic_scholar" and paper.score is None for paper in turing)


def test_arxiv_preprint_record(turing):
    paper = turing[0]
    assert paper.title == "Large Language Models Pass the Turing Test"
    assert paper.semantic_scholar_id == "66e350075a66ca5fd0c09f20d76aaad2c5c6860c"
    assert paper.authors == ["Cameron R. Jones", "Benjamin K. Bergen"]
    assert paper.year == 2025
    assert paper.publication_date == "2025-03-31"
    assert paper.journal == "arXiv.org"  # venue wins over journal.name "ArXiv"
    # S2 keeps the publisher's case; the record is bare lower-case, the raw id kept as sent.
    assert paper.doi == "10.48550/arxiv.2503.23674"
    assert paper.arxiv_id == "2503.23674"
    assert paper.external_ids == {
        "DBLP": "journals/corr/abs-2503-23674", "ArXiv": "2503.23674",
        "DOI": "10.48550/arXiv.2503.23674", "CorpusId": "277451766",
    }
    assert paper.citation_count == 72
    assert paper.influential_citation_count == 5
    assert paper.abstract.startswith("We evaluated 4 systems (ELIZA, GPT-4o, LLaMa-3.1-405B, and GPT-4.5)")
    assert paper.oa_url is None  # openAccessPdf.url is "" here
    assert paper.volume is None  # the arXiv pseudo-volume "abs/2503.23674" is dropped
    assert paper.publication_types == ["JournalArticle"]
    assert paper.url == "https://www.semanticscholar.org/paper/66e350075a66ca5fd0c09f20d76aaad2c5c6860c"


def test_pubmed_record_with_open_access_pdf(turing):
    paper = turing[1]
    assert paper.title == "A Turing test of whether AI chatbots are behaviorally similar to humans"
    assert paper.authors == ["Qiaozhu Mei", "Yutong Xie", "Walter Yuan", "Matthew O Jackson"]
    assert paper.doi == "10.1073/pnas.2313925121"
    assert paper.pmid == "38386710"
    assert paper.arxiv_id is None
    assert paper.external_ids["PubMedCentral"] == "10907317"
    assert paper.oa_url == "https://www.pnas.org/doi/pdf/10.1073/pnas.2313925121"
    assert paper.citation_count == 240
    assert paper.volume == "121"
    assert paper.abstract.startswith("Significance As AI interacts with humans")


def test_record_without_abstract_and_without_publication_types(turing):
    paper = turing[2]
    assert paper.title == "Quantum theory, the Church\u2013Turing principle and the universal quantum computer"
    assert paper.authors == ["D. Deutsch"]
    assert paper.year == 1985
    assert paper.abstract is None
    assert paper.publication_types == []  # null in the answer
    assert paper.doi == "10.1098/rspa.1985.0070"
    assert paper.external_ids["MAG"] == "136785111"
    assert paper.volume == "400"
    assert paper.pages == "117-97"  # "117 - 97" as S2 prints it, spacing normalized
    assert paper.oa_url == "http://www.cs.berkeley.edu/~christos/classics/Deutsch_quantum_theory.pdf"


def test_identifier_coverage_matches_the_file(turing):
    # Counted in the raw file: 87 DOIs, 40 PubMed ids, 30 ArXiv ids, 32 null abstracts.
    assert sum(1 for paper in turing if paper.doi) == 87
    assert sum(1 for paper in turing if paper.pmid) == 40
    assert sum(1 for paper in turing if paper.external_ids.get("ArXiv")) == 30
    assert sum(1 for paper in turing if paper.abstract is None) == 32
    assert all(paper.external_ids["CorpusId"].isdigit() for paper in turing)
    # Every DOI is bare and lower-case.
    assert all(paper.doi == paper.doi.lower() and not paper.doi.startswith("http")
               for paper in turing if paper.doi)


# ---------------------------------------------------------------- errors and empty answers

def test_rate_limit_body_raises_with_the_api_message():
    with pytest.raises(ProviderError) as caught:
        s2.parse_search(read(TURING_429))
    message = str(caught.value)
    assert "Too Many Requests" in message
    assert "\n" not in message and len(message) <= 180


def test_error_bodies_raise():
    with pytest.raises(ProviderError, match=r"Unrecognized or unsupported fields: \[unknown\]"):
        s2.parse_search(read(ERROR_400))
    with pytest.raises(ProviderError, match="Paper with id 0 not found"):
        s2.parse_search(read(ERROR_404))


def test_non_json_body_raises():
    with pytest.raises(ProviderError, match=r"unexpected response \(an HTML page, not JSON\)"):
        s2.parse_search(b"<html><body>502 Bad Gateway</body></html>")


def test_empty_result_page_without_data_is_no_records():
    assert read(EMPTY_PAGE).strip() == b'{"total": 0, "offset": 0}'
    assert s2.parse_search(read(EMPTY_PAGE)) == []


def test_null_entries_are_skipped_but_ranks_keep_positions():
    body = '{"data": [null, {"paperId": "a", "title": "Kept"}, {"paperId": "b", "title": null}]}'
    papers = s2.parse_search(body)
    assert [(paper.title, paper.rank) for paper in papers] == [("Kept", 2)]


# ---------------------------------------------------------------- single papers and bulk

def test_paper_by_doi_record():
    paper = s2.parse_paper(json.loads(read(PAPER_XGEN)))
    assert paper.title == "High-throughput screening of human genetic variants by pooled prime editing"
    assert paper.doi == "10.1016/j.xgen.2025.100814"
    assert paper.pmid == "40120586"
    assert paper.year == 2024
    assert paper.journal == "bioRxiv"  # venue; journal.name says "Cell Genomics"
    assert paper.volume == "5"
    assert paper.oa_url == "https://doi.org/10.1016/j.xgen.2025.100814"
    assert paper.authors[0] == "Michael Herger" and paper.authors[-1] == "Gregory M. Findlay"
    assert paper.abstract is None and paper.tldr is None  # neither was requested in that recording
    assert paper.rank is None


def test_arxiv_doi_record_gives_arxiv_id():
    paper = s2.parse_paper(json.loads(read(PAPER_PAPERQA)))
    assert paper.title == "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"
    assert paper.doi == "10.48550/arxiv.2312.07559"
    assert paper.arxiv_id == "2312.07559"
    assert paper.external_ids["DOI"] == "10.48550/arXiv.2312.07559"
    assert paper.external_ids["CorpusId"] == "266191420"
    assert paper.citation_count == 111
    assert len(paper.authors) == 6


def test_arxiv_id_comes_from_the_arxiv_doi_when_externalids_lack_it():
    paper = s2.parse_paper({"title": "T", "externalIds": {"DOI": "10.48550/arXiv.2101.00001"}})
    assert paper.arxiv_id == "2101.00001"


def test_paper_without_authors_and_with_pages():
    paper = s2.parse_paper(json.loads(read(PAPER_NO_AUTHORS)))
    assert paper.title == "Convalescent-anti-sars-cov-2-plasma/immune-globulin"
    assert paper.authors == []
    assert paper.pages == "145-145"
    assert paper.volume == "1962"
    assert paper.journal == "Reactions weekly"


def test_bulk_page():
    papers = s2.parse_bulk(read(BULK_PAGE))
    assert len(papers) == 1000
    first = papers[0]
    assert first.title == "Kubernetes Cluster for Automating Software Production Environment"
    assert first.semantic_scholar_id == "0018ce3db8f9957b520d6b7e0cec84abfa230e1c"
    assert first.rank == 1
    assert papers[-1].title == "RARE: a labeled dataset for cloud-native memory anomalies"
    assert papers[-1].rank == 1000


def test_tldr_and_markup_in_title_are_plain_text():
    paper = s2.parse_paper({
        "title": "Folding of <i>E. coli</i> proteins",
        "abstract": "<p>First.</p><p>Second.</p>",
        "tldr": {"model": "tldr@v2.0.0", "text": "A short summary."},
        "year": "2020",
    })
    assert paper.title == "Folding of E. coli proteins"
    assert paper.abstract == "First. Second."
    assert paper.tldr == "A short summary."
    assert paper.year == 2020


# ---------------------------------------------------------------- query building

def test_plain_search_query_splits_inner_hyphens_only():
    assert s2.plain_search_query("COVID-19 long-term  effects") == "COVID 19 long term effects"
    assert s2.plain_search_query("-leading and trailing-") == "-leading and trailing-"


def test_combine_queries_groups_variants_with_or():
    assert s2.combine_queries(["deep learning", "neural networks"]) == "(deep learning) | (neural networks)"


def test_combine_queries_strips_bulk_operators_from_user_text():
    combined = s2.combine_queries(['"machine learning" +radiology', "COVID-19 (severe)", "fish~2 | ladder*"])
    assert combined == "(machine learning radiology) | (COVID 19 severe) | (fish 2 ladder)"


def test_combine_queries_drops_empty_and_duplicate_variants():
    assert s2.combine_queries(["Deep Learning", "  ", '"()"', "deep learning"]) == "(Deep Learning)"
    with pytest.raises(ValueError):
        s2.combine_queries(["+-|", ""])


@pytest.mark.parametrize("given, sent", [
    ("204E3073870FAE3D05BCBC2F6A8E263D9B72E776", "204e3073870fae3d05bcbc2f6a8e263d9b72e776"),
    ("10.1016/J.XGEN.2025.100814", "DOI:10.1016/j.xgen.2025.100814"),
    ("https://doi.org/10.1023/a:1007154515475", "DOI:10.1023/a:1007154515475"),
    ("doi:10.1093/mind/LIX.236.433", "DOI:10.1093/mind/LIX.236.433"),
    ("2312.07559v2", "ARXIV:2312.07559"),
    ("https://arxiv.org/abs/hep-th/9901001", "ARXIV:hep-th/9901001"),
    ("arxiv:1706.03762", "ARXIV:1706.03762"),
    ("pmid:40120586", "PMID:40120586"),
    ("corpusid:215416146", "CorpusId:215416146"),
])
def test_paper_id_forms(given, sent):
    assert s2.paper_id_for_api(given) == sent


def test_unrecognised_paper_id_is_rejected_before_any_request():
    with pytest.raises(ProviderError, match="unrecognised paper id"):
        s2.paper_id_for_api("not an id")
