"""The retraction and correction vocabulary (core/updates.py) on the words each source really
uses: Crossref's update types, PubMed's CommentsCorrections RefTypes and RefSource citations,
merging the same notice from several sources, and the words shown to people. Written to kill
the mutants of core/updates.py (bench/mutation.py)."""

from __future__ import annotations

import pytest

from litsearch.core.records import Paper
from litsearch.core.updates import (
    EUROPEPMC_LINKS, combined_retracted, crossref_type, doi_in_citation, europepmc_comment_type, merged_updates,
    notice_words, pubmed_ref_type, update, with_notices,
)


@pytest.mark.parametrize("word,kind", [
    ("retraction", "retraction"), ("partial_retraction", "retraction"), ("withdrawal", "retraction"),
    ("removal", "retraction"), ("correction", "correction"), ("corrigendum", "correction"),
    ("addendum", "correction"), ("clarification", "correction"), ("erratum", "erratum"),
    ("expression_of_concern", "expression_of_concern"), ("expression-of-concern", "expression_of_concern"),
    ("new_version", "new_version"), ("new_edition", "new_version"),
    (" Retraction ", "retraction"), ("CORRIGENDUM", "correction"),
    ("comment", None), ("", None), (None, None), (7, None), (["retraction"], None),
])
def test_crossref_update_types(word, kind):
    assert crossref_type(word) == kind


@pytest.mark.parametrize("word,kind", [
    ("RetractionIn", "retraction"), ("RetractedandRepublishedIn", "retracted_and_republished"),
    ("ErratumIn", "erratum"), ("ExpressionOfConcernIn", "expression_of_concern"),
    ("CorrectedandRepublishedIn", "correction"), ("UpdateIn", "new_version"),
    # the reverse forms sit on the notice itself and say nothing against the record carrying them
    ("RetractionOf", None), ("ErratumFor", None), ("CommentIn", None), ("retractionin", None), (None, None),
])
def test_pubmed_ref_types(word, kind):
    assert pubmed_ref_type(word) == kind


# Europe PMC's commentCorrection types, every one it documents (MEDLINE's CommentsCorrections in
# words, and its preprint links), with what each is: a notice of that type, or no notice (None).
EUROPEPMC_TYPES = {
    "Retraction in": "retraction", "Partial retraction in": "retraction",
    "Retracted and republished in": "retracted_and_republished", "Erratum in": "erratum",
    "Expression of concern in": "expression_of_concern", "Corrected and republished in": "correction",
    "Update in": "new_version",
    "Retraction of": None, "Partial retraction of": None, "Retracted and republished from": None,
    "Erratum for": None, "Expression of concern for": None, "Corrected and republished from": None,
    "Update of": None, "Republished in": None, "Republished from": None, "Reprint in": None, "Reprint of": None,
    "Comment in": None, "Comment on": None, "Summary for patients in": None, "Original report in": None,
    "Dataset described in": None, "Dataset use reported in": None, "Associated dataset": None,
    "Associated publication": None, "Cites": None, "Preprint in": None, "Preprint of": None,
}


@pytest.mark.parametrize("word", list(EUROPEPMC_TYPES))
def test_europepmc_comment_types(word):
    kind = EUROPEPMC_TYPES[word]
    assert europepmc_comment_type(word) == kind
    assert europepmc_comment_type(f"  {word.upper()} ") == kind  # its case and spacing vary
    assert (kind is None) == (word.lower() in EUROPEPMC_LINKS)  # every type is a notice or a known link


def test_every_europepmc_notice_type_means_what_pubmeds_does():
    pubmed = {"Retraction in": "RetractionIn", "Retracted and republished in": "RetractedandRepublishedIn",
              "Erratum in": "ErratumIn", "Expression of concern in": "ExpressionOfConcernIn",
              "Corrected and republished in": "CorrectedandRepublishedIn", "Update in": "UpdateIn"}
    for words, ref_type in pubmed.items():
        assert europepmc_comment_type(words) == pubmed_ref_type(ref_type), words
    assert europepmc_comment_type("Partial retraction in") == crossref_type("partial_retraction")
    for odd in ("", "retraction", "Retraction in in", None, 3, ["Retraction in"]):
        assert europepmc_comment_type(odd) is None


@pytest.mark.parametrize("citation,doi", [
    ("Nature. 2021;591(7850):E28. doi: 10.1038/s41586-021-03275-y.", "10.1038/s41586-021-03275-y"),
    ("Lancet. 2020 Jun 13;395(10240):1820. doi: 10.1016/S0140-6736(20)31324-6", "10.1016/s0140-6736(20)31324-6"),
    ("Sci Rep. 2019;9:1. doi:10.1038/S41598-019-40005-3; PMID 30804382", "10.1038/s41598-019-40005-3"),
    ("DOI 10.1002/ejhf.1234, published online", "10.1002/ejhf.1234"),
    ("J Biol Chem. 2015;290(1):1. doi: 10.1074/jbc.A114.000001 Epub 2015", "10.1074/jbc.a114.000001"),
    ("see the notice: 10.1038/nature.2014.1", None),  # no "doi" word: not read as one
    ("nodoi: 10.1038/x.", None),
    ("doi: 10.123/too-short.", None),
    ("", None), (None, None),
])
def test_the_doi_in_a_pubmed_citation(citation, doi):
    assert doi_in_citation(citation) == doi


def test_update_record_shape():
    assert update("retraction", "10.1/r", "2021-03-01", "crossref", notice_pmid="123") == {
        "type": "retraction", "notice_doi": "10.1/r", "notice_pmid": "123", "date": "2021-03-01", "source": "crossref"}
    assert update("erratum", None, None, "pubmed")["notice_pmid"] is None


def test_the_same_notice_from_two_sources_is_one_notice_with_both_sources():
    crossref = [update("retraction", "10.1/r", None, "crossref")]
    pubmed = [update("retraction", "10.1/r", "2021-03-01", "pubmed", notice_pmid="33700000")]
    assert merged_updates(crossref, pubmed) == [{
        "type": "retraction", "notice_doi": "10.1/r", "notice_pmid": "33700000", "date": "2021-03-01",
        "source": "crossref, pubmed"}]
    # the first source's details are kept where both have one
    first = [update("correction", "10.1/c", "2020-01-01", "crossref")]
    second = [update("correction", "10.1/c", "2020-02-02", "openalex")]
    assert merged_updates(first, second)[0]["date"] == "2020-01-01"
    # the same source twice is named once
    assert merged_updates(first, first)[0]["source"] == "crossref"


def test_notices_are_told_apart_by_type_and_id():
    notices = merged_updates([update("retraction", "10.1/a", None, "crossref"),
                              update("retraction", "10.1/b", None, "crossref"),
                              update("correction", "10.1/a", None, "crossref"),
                              update("erratum", None, None, "pubmed", notice_pmid="111"),
                              update("erratum", None, None, "pubmed", notice_pmid="222")])
    assert [(n["type"], n["notice_doi"] or n["notice_pmid"]) for n in notices] == [
        ("retraction", "10.1/a"), ("retraction", "10.1/b"), ("correction", "10.1/a"), ("erratum", "111"),
        ("erratum", "222")]


def test_notices_without_an_id_are_one_per_type_and_source():
    notices = merged_updates([update("retraction", None, None, "openalex")],
                             [update("retraction", None, None, "pubmed")],
                             [update("retraction", None, "2022", "openalex")])
    assert [(n["source"], n["date"]) for n in notices] == [("pubmed", None), ("openalex", "2022")]


def test_notices_in_the_order_of_gravity_then_date():
    notices = merged_updates([
        update("new_version", "10.1/v", "2019", "crossref"), update("correction", "10.1/c2", "2021", "crossref"),
        update("erratum", "10.1/e", "2018", "crossref"), update("retraction", "10.1/r", "2022", "crossref"),
        {"type": "made_up_kind", "notice_doi": "10.1/m", "date": "2000", "source": "x"},
        update("correction", "10.1/c1", "2020", "crossref"), update("expression_of_concern", "10.1/x", None, "pubmed"),
        update("retracted_and_republished", "10.1/rr", "2023", "crossref"),
    ])
    assert [n["notice_doi"] for n in notices] == ["10.1/r", "10.1/rr", "10.1/c1", "10.1/c2", "10.1/x", "10.1/e",
                                                  "10.1/v", "10.1/m"]


def test_what_a_stored_record_may_hold_instead_of_notices_is_skipped():
    assert merged_updates(None, ["retraction", 3, None, update("erratum", "10.1/e", None, "crossref")]) == [
        update("erratum", "10.1/e", None, "crossref")]
    assert merged_updates() == []


def test_a_source_missing_on_one_side_is_not_written_as_none():
    kept = merged_updates([{"type": "retraction", "notice_doi": "10.1/r", "source": None}],
                          [{"type": "retraction", "notice_doi": "10.1/r", "source": "pubmed"}])
    assert kept[0]["source"] == "pubmed"
    nothing = merged_updates([{"type": "retraction", "notice_doi": "10.1/r"}],
                             [{"type": "retraction", "notice_doi": "10.1/r"}])
    assert nothing[0].get("source") is None


@pytest.mark.parametrize("values,updates,expected", [
    ([True], [], True), ([False], [], False), ([None], [], None), ([], [], None),
    ([False, False], [], False), ([None, False], [], False), ([True, None, False], [], True),
    ([False], [update("retraction", "10.1/r", None, "crossref")], True),
    ([None], [update("retracted_and_republished", "10.1/r", None, "crossref")], True),
    ([False], [update("correction", "10.1/c", None, "crossref")], False),
    ([None], [update("expression_of_concern", "10.1/c", None, "crossref")], None),
    ([False], [update("erratum", "10.1/e", None, "pubmed"), update("retraction", None, None, "pubmed")], True),
])
def test_retracted_from_every_source(values, updates, expected):
    assert combined_retracted(values, updates) is expected
    assert combined_retracted(iter(values), iter(updates)) is expected  # generators are read once


def test_with_notices_adds_another_sources_word():
    paper = Paper(provider="openalex", title="A retracted study", retracted=False,
                  updates=[update("correction", "10.1/c", "2020", "crossref")])
    marked = with_notices(paper, None, [update("retraction", "10.1/r", "2021", "pubmed")])
    assert marked.retracted is True
    assert [n["type"] for n in marked.updates] == ["retraction", "correction"]
    assert paper.retracted is False and len(paper.updates) == 1  # the original is left as it was
    assert with_notices(paper, None, []).retracted is False
    assert with_notices(Paper(provider="arxiv", title="t"), None, []).retracted is None


def test_notice_words_for_people():
    words = notice_words([
        update("retraction", "10.1038/s41586-021-03275-y", "2021-03-01", "crossref"),
        update("erratum", None, None, "pubmed", notice_pmid="33700000"),
        update("retracted_and_republished", None, "2020", "pubmed"),
        update("expression_of_concern", None, None, "openalex"),
        update("new_version", "10.1002/14651858.CD000001.pub2", None, "crossref"),
        {"type": "something_new", "notice_doi": None},
    ])
    assert words == ("retraction: 10.1038/s41586-021-03275-y (2021-03-01); erratum: PMID 33700000; "
                     "retracted and republished (2020); expression of concern; "
                     "newer version: 10.1002/14651858.CD000001.pub2; something_new")
    assert notice_words([update("correction", "10.1/c", None, "crossref")]) == "correction: 10.1/c"
    assert notice_words([]) == ""


@pytest.mark.parametrize("types,retracted", [(["Journal Article", "Retracted Publication"], True),
                                            (["Journal Article", "Retraction of Publication"], False),
                                            (["Journal Article"], False)])
def test_medline_marks_a_retracted_article_by_its_publication_type(types, retracted):
    import fake_apis
    from litsearch.providers.pubmed_parse import parse_efetch

    record = {"title": "Ileal-lymphoid-nodular hyperplasia", "authors": ["Wakefield AJ"], "year": 1998,
              "venue": "Lancet", "doi": "10.1016/s0140-6736(97)11096-0", "pubmed_types": types}
    paper = parse_efetch(fake_apis.efetch_body([fake_apis.pubmed_article_xml(record, "9500320")]))["9500320"]
    assert paper.retracted is retracted
