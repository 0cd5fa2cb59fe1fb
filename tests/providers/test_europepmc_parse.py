"""Europe PMC parsing, fed every recorded /search answer in ../shared/fixtures/europepmc/
(skipped when absent: core, lite, idlist, an empty result, searchPOST, the 1000-record page
with 24 PPR preprints, the 10-page cursorMark chain, the XML and Dublin Core flavours), plus
small bodies written here for what no recording holds (notices, preprint links, errors)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import europepmc_parse as epmc
from litsearch.providers.europepmc_parse import parse_result, parse_search


def raw(name: str) -> bytes:
    return shared_file(f"europepmc/pyeuropepmc__{name}").read_bytes()


def results(name: str) -> list[dict]:
    return json.loads(raw(name))["resultList"]["result"]


CORE = "search_query_cancer_core_25.json"
LITE_1000 = "search_query_cancer_lite_1000_incl_24_PPR_preprints.json"
CHAIN = "search_query_cancer_cursor_chain_10pages_x100.json"


# ---------------------------------------------------------------- core records

def test_core_page_gives_every_record_and_the_next_cursor():
    page = parse_search(raw(CORE))
    assert len(page.records) == 25 and page.records.skipped == 0
    assert page.hit_count == 5059039
    assert page.next_cursor == "AoIIP4ZawSg1MzEyODI1MA=="
    assert [paper.rank for paper in page.records] == list(range(1, 26))
    assert page.ids[:2] == [("MED", "39709209"), ("MED", "39709208")]


def test_core_record_fields():
    paper = parse_search(raw(CORE)).records[0]
    assert paper.provider == "europepmc"
    assert paper.title == "Abscopal response in a patient with fibrolamellar hepatocellular carcinoma following radiotherapy."
    assert paper.authors == ["Jonathan D Schoenfeld", "Daphne A Haas-Kogan", "Allison F O'Neill"]
    assert (paper.pmid, paper.doi) == ("39709209", "10.1016/s0140-6736(24)02600-x")
    assert paper.journal == "Lancet (London, England)"
    assert (paper.year, paper.volume, paper.issue, paper.pages) == (2025, "404", "10471", "2603-2604")
    # "2025 Dec" is stored as 2025-12-01: a day Europe PMC made up is no publication date.
    assert paper.publication_date is None
    assert paper.url == "https://europepmc.org/article/MED/39709209"
    assert paper.publication_types == ["Journal Article"]
    assert paper.citation_count == 0
    assert paper.oa_url is None  # its only link is the publisher's, subscription required
    assert paper.retracted is False  # a MEDLINE record without the "Retracted Publication" mark
    assert paper.external_ids == {"doi": "10.1016/s0140-6736(24)02600-x", "pmid": "39709209",
                                  "europepmc": "MED:39709209"}


def test_core_authors_are_the_full_list():
    for obj, paper in zip(results(CORE), parse_search(raw(CORE)).records):
        assert len(paper.authors) == len(obj.get("authorList", {}).get("author", []))
    by_pmid = {paper.pmid: paper for paper in parse_search(raw(CORE)).records}
    assert len(by_pmid["40377773"].authors) == 22
    assert by_pmid["39709208"].authors == []  # "Department of Error." has no authors


def test_core_abstract_headings_become_labels_and_markup_goes():
    by_pmid = {paper.pmid: paper for paper in parse_search(raw(CORE)).records}
    abstract = by_pmid["40464630"].abstract
    assert abstract.startswith("Background: Patients with cancer suffer from cancer- and treatment-specific")
    assert " Methods: This article is based on pertinent publications" in abstract
    assert "<h4>" not in abstract and "</h4>" not in abstract
    assert by_pmid["40524053"].abstract.startswith("This review explores the role of Mendelian randomization")
    assert sum(1 for paper in by_pmid.values() if paper.abstract) == 21


def test_core_open_access_links_prefer_the_free_pdf():
    by_pmid = {paper.pmid: paper for paper in parse_search(raw(CORE)).records}
    paper = by_pmid["40518973"]
    assert paper.external_ids["pmcid"] == "PMC12175096"
    assert paper.oa_url == "https://europepmc.org/articles/PMC12175096?pdf=render"
    # Free to read (availability F) though not open access: still a link to the text.
    assert by_pmid["39709208"].oa_url == "https://europepmc.org/articles/PMC12124214?pdf=render"
    with_links = {pmid for pmid, paper in by_pmid.items() if paper.oa_url}
    assert len(with_links) == 9
    assert all(by_pmid[pmid].external_ids.get("pmcid") for pmid in with_links)


def test_core_dates_are_real_days_only():
    by_pmid = {paper.pmid: paper for paper in parse_search(raw(CORE)).records}
    assert by_pmid["40524053"].publication_date == "2025-06-16"  # electronicPublicationDate
    assert by_pmid["40468710"].publication_date is None  # "2025 Sep" only


def test_core_erratum_is_typed_and_its_erratum_for_link_is_no_notice_about_it():
    by_pmid = {paper.pmid: paper for paper in parse_search(raw(CORE)).records}
    erratum = by_pmid["39709208"]
    assert erratum.publication_types == ["Published Erratum", "correction"]
    assert erratum.updates == [] and erratum.retracted is False


def test_core_mesh_terms():
    obj = next(obj for obj in results(CORE) if obj["id"] == "40468710")
    terms = epmc.mesh_terms(obj)
    assert terms[:4] == ["Humans", "Neoplasms*", "Neoplasms/psychology", "Neoplasms/therapy"]
    assert "Adaptation, Psychological*" in terms and terms[-1] == "United Kingdom"
    assert epmc.mesh_terms(results(CORE)[0]) == []


# ---------------------------------------------------------------- lite records and preprints

def test_lite_page_of_1000_with_its_24_preprints():
    page = parse_search(raw(LITE_1000))
    assert len(page.records) == 1000 and page.records.skipped == 0
    assert page.next_cursor == "AoIIP4HN8ig1MzEwOTI4OQ=="
    preprints = [paper for paper in page.records if "preprint" in paper.publication_types]
    assert len(preprints) == 24
    assert Counter(paper.journal for paper in preprints) == {
        "Research Square (preprint)": 11, "bioRxiv (preprint)": 6, "Preprints.org (preprint)": 5,
        "medRxiv (preprint)": 2}
    assert all(paper.external_ids["ppr"].startswith("PPR") and paper.pmid is None for paper in preprints)
    assert all(paper.retracted is None for paper in preprints)  # nothing said either way


def test_lite_preprint_record():
    page = parse_search(raw(LITE_1000))
    paper = next(paper for paper in page.records if paper.external_ids.get("ppr") == "PPR1036674")
    assert paper.doi == "10.1101/2025.06.13.25329599"
    assert paper.journal == "medRxiv (preprint)"
    assert paper.publication_date == "2025-06-16"  # the day it was posted
    assert paper.url == "https://europepmc.org/article/PPR/PPR1036674"
    assert paper.authors[:3] == ["Mendez JS", "Queme B", "Fu Y"] and len(paper.authors) == 72
    assert paper.publication_types == ["preprint"]


def test_lite_sources_and_fields():
    page = parse_search(raw(LITE_1000))
    first = page.records[0]
    assert (first.journal, first.pmid, first.volume, first.issue) == ("Lancet", "39709209", "404", "10471")
    assert first.authors == ["Schoenfeld JD", "Haas-Kogan DA", "O'Neill AF"]
    sources = Counter(paper.external_ids["europepmc"].split(":")[0] for paper in page.records)
    assert sources == {"MED": 923, "PMC": 53, "PPR": 24}
    pmc_only = [paper for paper in page.records if paper.external_ids["europepmc"].startswith("PMC:")]
    assert all(paper.pmid is None and paper.external_ids["pmcid"].startswith("PMC") for paper in pmc_only)
    assert {paper.retracted for paper in page.records if paper.pmid} == {False}
    # Lite records split their "; "-joined types.
    assert page.records[5].publication_types == ["research-article", "journal article"]
    assert all(";" not in kind for paper in page.records for kind in paper.publication_types)


def test_lite_book_chapter_is_in_its_book():
    page = parse_search(raw(LITE_1000))
    book = next(paper for paper in page.records if paper.pmid == "40440438")
    assert book.journal == "GeneReviews®"
    assert book.publication_types == ["book", "review"]


def test_lite_small_pages_and_sorted_answer():
    assert len(parse_search(raw("search_query_cancer_lite_25_nextCursorMark.json")).records) == 25
    small = parse_search(raw("search_query_cancer_lite_pageSize5.json"))
    assert (len(small.records), small.next_cursor) == (5, "AoIIP4lkIig1MzE0NTMwOA==")
    cited = parse_search(raw("search_query_cancer_sort_CITED_asc.json")).records
    assert len(cited) == 25
    assert sum(1 for paper in cited if paper.doi is None) == 15
    assert {paper.citation_count for paper in cited} == {0}


def test_search_post_answer():
    page = parse_search(raw("searchPOST_query_cancer_synonym_true.json"))
    assert (len(page.records), page.hit_count) == (25, 5933343)
    assert page.next_cursor == "AoIIQM+luyg1MTc3NTM5Mw=="


# ---------------------------------------------------------------- idlist, empty, chain, other formats

def test_idlist_gives_ids_and_no_records():
    page = parse_search(raw("search_query_cancer_idlist_25.json"))
    assert page.records == [] and page.records.skipped == 0
    assert len(page.ids) == 25 and page.ids[0] == ("MED", "39709209")


def test_empty_result_has_no_next_page():
    page = parse_search(raw("search_no_results_hitCount0.json"))
    assert (page.records, page.hit_count, page.next_cursor) == ([], 0, None)


def test_cursor_chain_pages_follow_each_other_and_equal_the_1000_page():
    pages = json.loads(raw(CHAIN))
    assert len(pages) == 10
    gathered = []
    for number, body in enumerate(pages):
        page = parse_search(json.dumps(body), first_rank=len(gathered) + 1)
        if number + 1 < len(pages):
            # Each page's cursor is the one the next request sent (echoed URL-encoded).
            assert page.next_cursor.replace("=", "%3D") == pages[number + 1]["request"]["cursorMark"]
        gathered += page.records
    assert [paper.rank for paper in gathered] == list(range(1, 1001))
    whole = parse_search(raw(LITE_1000)).records
    assert [p.external_ids["europepmc"] for p in gathered] == [p.external_ids["europepmc"] for p in whole]
    assert page.next_cursor == parse_search(raw(LITE_1000)).next_cursor
    assert sum(1 for paper in gathered if "preprint" in paper.publication_types) == 24


@pytest.mark.parametrize("name", ["search_query_cancer_format_xml.xml", "search_query_cancer_format_dc_core.xml"])
def test_xml_flavours_are_refused_with_a_reason(name):
    with pytest.raises(ProviderError, match="XML, not the JSON"):
        parse_search(raw(name))


# ---------------------------------------------------------------- what no recording holds

def record(**fields) -> dict:
    return {"id": "1", "source": "MED", "pmid": "1", "title": "A title", **fields}


def comments(*entries) -> dict:
    return {"commentCorrectionList": {"commentCorrection": [
        dict(zip(("type", "source", "id", "reference"), entry)) for entry in entries]}}


def test_notices_use_the_shared_vocabulary():
    paper = parse_result(record(**comments(
        ("Retraction in", "MED", "34000002", "J Fict. 2021;12:45. doi: 10.5555/jfg.2021.0045."),
        ("Erratum in", "MED", "34000003", "J Fict. 2021;12:46."),
        ("Expression of concern in", "MED", "34000004", None),
        ("Comment in", "MED", "34000005", None), ("Erratum for", "MED", "34000006", None))))
    assert [(u["type"], u["notice_doi"], u["notice_pmid"]) for u in paper.updates] == [
        ("retraction", "10.5555/jfg.2021.0045", "34000002"), ("erratum", None, "34000003"),
        ("expression_of_concern", None, "34000004")]
    assert {u["source"] for u in paper.updates} == {"europepmc"}
    assert paper.retracted is True


@pytest.mark.parametrize("words,kind,retracted", [
    ("Retracted and republished in", "retracted_and_republished", True),
    ("Partial retraction in", "retraction", True),
    ("Update in", "new_version", None),
    ("Corrected and republished in", "correction", None),
    ("Republished in", None, None),
])
def test_every_notice_type_europe_pmc_documents_reaches_the_record(words, kind, retracted):
    """Issue 31: "Retracted and republished in" and "Update in" were not read, and "Partial
    retraction in" was mapped to a type the vocabulary then dropped."""
    paper = parse_result({"id": "PPR9", "source": "PPR", "title": "T",
                          **comments((words, "MED", "34000009", "J Fict. 2024;12:e21. doi: 10.5555/jfr.2024.0021."))})
    assert [(u["type"], u["notice_pmid"], u["notice_doi"]) for u in paper.updates] == (
        [(kind, "34000009", "10.5555/jfr.2024.0021")] if kind else [])
    assert paper.retracted is retracted


def test_medline_retracted_type_marks_the_record():
    paper = parse_result(record(pubTypeList={"pubType": ["Journal Article", "Retracted Publication"]}))
    assert paper.retracted is True
    lite = parse_result(record(pubType="retracted publication; journal article"))
    assert lite.retracted is True


def test_preprint_and_article_carry_their_link():
    preprint = parse_result({"id": "PPR707121", "source": "PPR", "title": "A preprint", "doi": "10.1101/2023.08.20.1",
                             "pubTypeList": {"pubType": ["Preprint"]},
                             "bookOrReportDetails": {"publisher": "bioRxiv"},
                             **comments(("Preprint of", "MED", "38605817", "F1000Research. 2023;12:1007"))})
    assert preprint.external_ids["published_pmid"] == "38605817"
    assert preprint.external_ids["ppr"] == "PPR707121"
    assert preprint.pmid is None  # the link names another record, never this one's PMID
    assert preprint.journal == "bioRxiv (preprint)"
    assert preprint.publication_types == ["Preprint"]
    article = parse_result(record(**comments(("Preprint in", "PPR", "PPR707121", None))))
    assert article.external_ids["preprint_ppr"] == "PPR707121"
    in_pmc = parse_result({"id": "PPR1", "source": "PPR", "title": "T", **comments(("Preprint of", "PMC", "PMC77", None))})
    assert in_pmc.external_ids["published_pmcid"] == "PMC77"


def test_withdrawn_preprint_counts_as_retracted():
    versions = {"versionList": {"version": [
        {"id": "PPR1", "source": "PPR", "firstPublishDate": "2023-08-21", "pubTypeList": {"pubType": ["preprint"]}},
        {"id": "PPR2", "source": "PPR", "firstPublishDate": "2023-11-22",
         "pubTypeList": {"pubType": ["preprint-withdrawal"]}}]}}
    paper = parse_result({"id": "PPR1", "source": "PPR", "title": "T", **versions})
    assert paper.retracted is True
    assert paper.updates == [{"type": "retraction", "notice_doi": None, "notice_pmid": None, "date": "2023-11-22",
                              "source": "europepmc"}]


@pytest.mark.parametrize("doi, publisher, venue", [
    ("10.21203/rs.3.rs-1/v1", None, "Research Square (preprint)"), ("10.9999/x", None, "Preprint"),
    ("10.1101/x", "medRxiv", "medRxiv (preprint)")])
def test_preprint_venue_names_the_server(doi, publisher, venue):
    details = {"bookOrReportDetails": {"publisher": publisher}} if publisher else {}
    paper = parse_result({"id": "PPR9", "source": "PPR", "title": "T", "doi": doi, **details})
    assert paper.journal == venue and "preprint" in paper.publication_types


def test_arxiv_doi_gives_the_arxiv_id():
    paper = parse_result({"id": "PPR3", "source": "PPR", "title": "T", "doi": "10.48550/arXiv.2101.00001"})
    assert paper.arxiv_id == "2101.00001"
    assert paper.journal == "arXiv (preprint)"


@pytest.mark.parametrize("body, message", [
    (b"<html><body>Service unavailable</body></html>", "HTML page"),
    (b'{"errMsg": "Invalid cursorMark"}', "API error: Invalid cursorMark"),
    (b'{"version": "6.9", "hitCount": 3}', "no resultList"),
    (b'{"resultList": {"result": {"id": "1"}}}', "not a list"),
    (b"Rate exceeded.", "not JSON"),
])
def test_error_answers_are_provider_errors(body, message):
    with pytest.raises(ProviderError, match=message):
        parse_search(body)


def test_a_cursor_equal_to_the_one_asked_ends_the_paging():
    body = {"hitCount": 30, "nextCursorMark": "AoE/x==", "request": {"cursorMark": "AoE%2Fx%3D%3D"},
            "resultList": {"result": [record()]}}
    assert parse_search(json.dumps(body)).next_cursor is None
    body["request"]["cursorMark"] = "%2A"
    assert parse_search(json.dumps(body)).next_cursor == "AoE/x=="


def test_a_cursor_with_no_results_ends_the_paging():
    body = {"hitCount": 30, "nextCursorMark": "AoE/y==", "request": {"cursorMark": "AoE%2Fx%3D%3D"},
            "resultList": {"result": []}}
    assert parse_search(json.dumps(body)).next_cursor is None


def test_a_bad_record_costs_only_itself():
    body = {"hitCount": 3, "resultList": {"result": [
        record(id="1", pmid="1", title="First"), record(authorList={"author": "nonsense"}, title=["x"]),
        None, record(id="3", pmid="3", title="Third", citedByCount="many", journalInfo=[1])]}}
    page = parse_search(json.dumps(body))
    assert [paper.title for paper in page.records] == ["First", "Third"]
    assert page.records[1].citation_count is None and page.records[1].journal is None
