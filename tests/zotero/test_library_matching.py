"""zotero/matching.py in process: where a Zotero item's ids are read from (fields, ``extra``
lines, archiveID, an arxiv.org URL, title and year), which items count, and which match wins
(DOI, then PMID, then arXiv id, then title and year unless DOIs contradict it)."""

from __future__ import annotations

import pytest

from litsearch.core.records import Paper
from litsearch.zotero.matching import Existing, LibraryIndex, item_identities, paper_identities


@pytest.mark.parametrize("data,identities", [
    ({"DOI": "https://doi.org/10.1038/NBT.2647"}, {("doi", "10.1038/nbt.2647")}),
    ({"DOI": "10.48550/arXiv.1706.03762"}, {("arxiv_id", "1706.03762")}),  # an arXiv DOI is the arXiv id
    ({"PMID": "23873081"}, {("pmid", "23873081")}),
    ({"extra": "tex.ids: x\nDOI: 10.1234/ABC\nPMID: 123\nPMCID: PMC5\narXiv: 1706.03762\n"},
     {("doi", "10.1234/abc"), ("pmid", "123"), ("arxiv_id", "1706.03762")}),  # a PMCID is no identity here
    ({"extra": "arXiv ID: 2101.00001"}, {("arxiv_id", "2101.00001")}),
    ({"extra": "ARXIV:2101.00001"}, {("arxiv_id", "2101.00001")}),
    ({"extra": "  pmid :  42  "}, {("pmid", "42")}),
    ({"extra": "Original DOI: 10.1234/x"}, set()),  # a line is read only when it starts with the key
    ({"extra": "DOI: 10.1234/x and more"}, set()),  # and holds one value
    ({"extra": "PMID: not-a-number"}, set()),
    ({"archiveID": "arXiv:1706.03762"}, {("arxiv_id", "1706.03762")}),
    ({"archiveID": "ARXIV:1706.03762"}, {("arxiv_id", "1706.03762")}),
    ({"archiveID": "SSRN:1706.03762"}, set()),
    ({"url": "https://arxiv.org/pdf/1706.03762v2?download=1"}, {("arxiv_id", "1706.03762")}),
    ({"url": "http://ARXIV.org/abs/hep-th/9901001"}, {("arxiv_id", "hep-th/9901001")}),
    ({"url": "https://example.org/abs/1706.03762"}, set()),
    ({"DOI": 10.1, "PMID": 123, "extra": None, "url": ["https://arxiv.org/abs/1706.03762"]}, set()),  # not text
    ({"DOI": "", "PMID": " "}, set()),
])
def test_where_an_items_ids_are_read(data, identities):
    assert item_identities(data) == identities


@pytest.mark.parametrize("date,year", [
    ("2021-03-01", "2021"), ("March 2021", "2021"), ("2021", "2021"), ("ca. 1500", "1500"), ("2199", "2199"),
    ("1499", None), ("2200", None), ("12021", None), ("20211", None), ("21", None), ("", None), ("03/01/1999", "1999"),
])
def test_the_year_is_a_four_digit_year_from_1500_to_2199_standing_alone(date, year):
    found = item_identities({"title": "Attention Is All You Need!", "date": date})
    assert found == ({("title", f"attention is all you need|{year}")} if year else set())


def test_a_title_without_a_year_or_a_year_without_a_title_is_no_identity():
    assert item_identities({"title": "", "date": "2021"}) == set()
    assert item_identities({"title": "!!!", "date": "2021"}) == set()
    assert item_identities({"title": None, "date": "2021"}) == set()  # a field that is not text is no text
    assert item_identities({"title": ["A Title"], "date": "2021"}) == set()
    assert item_identities({"title": "A Title", "date": 2021}) == set()
    assert paper_identities(Paper("x", "A Title")) == set()
    assert paper_identities(Paper("x", "", year=2021)) == set()


def test_a_papers_identities():
    paper = Paper("x", "Attention Is All You Need", year=2017, doi="10.48550/ARXIV.1706.03762", pmid="PMID: 99",
                  arxiv_id="arXiv:1706.03762v5")
    assert paper_identities(paper) == {("arxiv_id", "1706.03762"), ("pmid", "99"),
                                       ("title", "attention is all you need|2017")}
    assert paper_identities(Paper("x", "T", doi="https://doi.org/10.1234/X", pmid="abc")) == {("doi", "10.1234/x")}


def item(key, **fields):
    return {"key": key, "version": 3, "itemType": "journalArticle", "collections": ["COLL1234"], **fields}


def index_of(*items) -> LibraryIndex:
    index = LibraryIndex()
    for data in items:
        index.add(data)
    return index


def test_what_is_kept_of_an_item():
    index = index_of(item("AAAA2222", DOI="10.1234/a", version="7", collections=["C1", 5, None, "C2"]))
    assert index.match(Paper("x", "T", doi="10.1234/a")) == (Existing("AAAA2222", 0, ["C1", "C2"]), "DOI")
    index = index_of(item("BBBB2222", DOI="10.1234/b", version=12, collections=None))
    assert index.match(Paper("x", "T", doi="10.1234/b")) == (Existing("BBBB2222", 12, []), "DOI")


@pytest.mark.parametrize("data", [
    {"key": "NOTE2222", "itemType": "note", "DOI": "10.1234/a"},
    {"key": "ATTA2222", "itemType": "attachment", "DOI": "10.1234/a"},
    {"key": "ANNO2222", "itemType": "annotation", "DOI": "10.1234/a"},
    {"itemType": "journalArticle", "DOI": "10.1234/a"},
    {"key": 12345678, "itemType": "journalArticle", "DOI": "10.1234/a"},
])
def test_notes_attachments_annotations_and_items_without_a_key_hold_no_paper(data):
    assert index_of(data).match(Paper("x", "T", doi="10.1234/a")) is None


def test_the_first_item_with_an_identity_keeps_it():
    index = index_of(item("FIRST222", DOI="10.1234/a"), item("SECOND22", DOI="10.1234/a"))
    assert index.match(Paper("x", "T", doi="10.1234/a"))[0].key == "FIRST222"


def test_the_strongest_identity_wins():
    index = index_of(item("BYDOI222", DOI="10.1234/a"), item("BYPMID22", PMID="42"),
                     item("BYARXIV2", archiveID="arXiv:1706.03762"),
                     item("BYTITLE2", title="Attention is all you need", date="2017"))
    paper = Paper("x", "Attention Is All You Need", year=2017, doi="10.1234/a", pmid="42", arxiv_id="1706.03762")
    assert index.match(paper)[0].key == "BYDOI222" and index.match(paper)[1] == "DOI"
    found = [index.match(Paper("x", "Attention Is All You Need", year=2017, pmid="42", arxiv_id="1706.03762")),
             index.match(Paper("x", "Attention Is All You Need", year=2017, arxiv_id="1706.03762")),
             index.match(Paper("x", "Attention Is All You Need", year=2017))]
    assert [(existing.key, label) for existing, label in found] == [
        ("BYPMID22", "PMID"), ("BYARXIV2", "arXiv id"), ("BYTITLE2", "title and year")]
    assert index.match(Paper("x", "Attention Is All You Need", year=2018)) is None
    assert index.match(Paper("x", "Another paper", year=2017, doi="10.1234/other")) is None


@pytest.mark.parametrize("item_doi,paper_doi,matched", [
    (None, None, True), ("10.1234/a", None, True), (None, "10.1234/a", True),
    ("10.1234/a", "10.1234/A", True),  # the DOI match itself
    ("10.1234/a", "10.1234/b", False),  # one title, two DOIs: two papers (an editorial, a column)
])
def test_a_title_and_year_match_needs_no_contradicting_dois(item_doi, paper_doi, matched):
    index = index_of(item("EDIT2222", title="Editorial", date="2019", **({"DOI": item_doi} if item_doi else {})))
    found = index.match(Paper("x", "Editorial", year=2019, doi=paper_doi))
    assert (found is not None and found[0].key == "EDIT2222") is matched


def test_a_title_match_is_checked_against_the_dois_of_the_item_it_found():
    # Two items share the title; the first holds it, and only its DOIs count.
    index = index_of(item("FIRST222", title="Editorial", date="2019", DOI="10.1234/a"),
                     item("SECOND22", title="Editorial", date="2019", DOI="10.1234/b"))
    assert index.match(Paper("x", "Editorial", year=2019, doi="10.1234/c")) is None
    assert index.match(Paper("x", "Editorial", year=2019, doi="10.1234/b"))[0].key == "SECOND22"  # by its DOI


def test_a_paper_just_created_is_found_by_each_of_its_ids():
    index = LibraryIndex()
    created = Paper("x", "Attention Is All You Need", year=2017, doi="10.1234/a", pmid="42", arxiv_id="1706.03762")
    index.add_paper(created, "NEWKEY22", "COLL1234")
    for paper, label in ((Paper("y", "Other", doi="10.1234/A"), "DOI"), (Paper("y", "Other", pmid="42"), "PMID"),
                         (Paper("y", "Other", arxiv_id="1706.03762v2"), "arXiv id"),
                         (Paper("y", "attention is all you need", year=2017), "title and year")):
        assert index.match(paper) == (Existing("NEWKEY22", 0, ["COLL1234"]), label)
    index.add_paper(Paper("x", "No collection", year=2020), "NEWKEY33", None)
    assert index.match(Paper("y", "No collection", year=2020)) == (Existing("NEWKEY33", 0, []), "title and year")
    index.add_paper(Paper("x", "Without ids"), "NEWKEY44", None)  # no year: nothing to find it by
    assert index.match(Paper("y", "Without ids")) is None
