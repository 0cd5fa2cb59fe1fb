"""zotero/items.py field by field, in process (no schema file needed): where each type keeps its
venue, the length limits Zotero enforces, the date, the URL's order of preference, the ids in
fields or ``extra`` lines and their order, creators, and the retraction tag. test_zotero_items.py
checks every kind against Zotero's real schema.json."""

from __future__ import annotations

import pytest

from litsearch.core.records import Paper
from litsearch.zotero.items import creators, paper_pmcid, zotero_item


def paper(**fields) -> Paper:
    return Paper(**{"provider": "test", "title": "A Title", "year": 2021, **fields})


@pytest.mark.parametrize("fields,item_type,venue_field", [
    ({"journal": "Nature"}, "journalArticle", "publicationTitle"),
    ({"journal": "Proceedings of the Workshop on Things"}, "conferencePaper", "proceedingsTitle"),
    ({"publication_types": ["book-chapter"], "journal": "The Book"}, "bookSection", "bookTitle"),
    ({"publication_types": ["thesis"], "journal": "University of Bergen"}, "thesis", "university"),
    ({"publication_types": ["report"], "journal": "WHO"}, "report", "institution"),
    ({"publication_types": ["preprint"], "journal": "bioRxiv"}, "preprint", "repository"),
])
def test_each_type_keeps_its_venue_in_its_own_field(fields, item_type, venue_field):
    item = zotero_item(paper(**fields))
    assert item["itemType"] == item_type and item[venue_field] == fields["journal"]
    assert [name for name in ("publicationTitle", "proceedingsTitle", "bookTitle", "university", "institution",
                              "repository", "publisher") if name in item] == [venue_field]


def test_a_book_has_no_venue_and_a_document_none_to_name():
    assert zotero_item(paper(publication_types=["book"]))["itemType"] == "book"
    document = zotero_item(paper())
    assert document["itemType"] == "document" and "publisher" not in document


def test_an_arxiv_preprints_repository_is_arxiv_whatever_its_journal_says():
    item = zotero_item(paper(arxiv_id="2101.00001", journal="ArXiv.org e-prints"))
    assert (item["itemType"], item["repository"], item["archiveID"]) == ("preprint", "arXiv", "arXiv:2101.00001")
    from_doi = zotero_item(paper(doi="10.48550/arXiv.2101.00002"))
    assert (from_doi["repository"], from_doi["archiveID"]) == ("arXiv", "arXiv:2101.00002")
    other = zotero_item(paper(publication_types=["preprint"], journal="medRxiv"))
    assert other["repository"] == "medRxiv" and "archiveID" not in other and "extra" not in other


@pytest.mark.parametrize("name,limit", [("title", 10_000), ("journal", 10_000), ("abstract", 30_000)])
def test_fields_are_kept_whole_up_to_zoteros_limit_and_cut_past_it(name, limit):
    field = {"title": "title", "journal": "publicationTitle", "abstract": "abstractNote"}[name]
    extra = {"journal": "J"} if name != "journal" else {}
    for length, kept in ((limit - 1, limit - 1), (limit, limit), (limit + 1, limit), (limit * 2, limit)):
        item = zotero_item(paper(**{**extra, name: "x" * length}))
        assert item[field] == "x" * kept, (name, length)


def test_the_title_is_one_plain_line_and_never_empty():
    assert zotero_item(paper(title="A <i>title</i>\n on  two lines"))["title"] == "A title on two lines"
    assert zotero_item(paper(title=""))["title"] == "Untitled"
    assert zotero_item(paper(title="   "))["title"] == "Untitled"


@pytest.mark.parametrize("fields,date", [
    ({"publication_date": "2021-03-01"}, "2021-03-01"),
    ({"publication_date": "", "year": 2020}, "2020"),
    ({"year": 1999}, "1999"),
    ({"year": None}, None),
])
def test_the_date_is_the_publication_date_else_the_year(fields, date):
    assert zotero_item(paper(**fields)).get("date") == date


@pytest.mark.parametrize("fields,url", [
    ({"url": "https://journal.example/a", "doi": "10.1234/a", "arxiv_id": "2101.00001"}, "https://journal.example/a"),
    ({"url": "javascript:alert(1)", "arxiv_id": "2101.00001", "journal": "J"}, "https://arxiv.org/abs/2101.00001"),
    ({"doi": "10.1234/a", "oa_url": "https://repo.example/a.pdf"}, "https://doi.org/10.1234/a"),
    ({"doi": "10.48550/arXiv.2101.00001"}, "https://arxiv.org/abs/2101.00001"),
    ({"oa_url": "https://repo.example/a.pdf", "pmid": "42"}, "https://repo.example/a.pdf"),
    ({"pmid": "42"}, "https://pubmed.ncbi.nlm.nih.gov/42/"),
    ({}, None),
])
def test_the_url_is_the_records_own_else_arxiv_else_the_doi_else_a_copy_else_a_landing_page(fields, url):
    assert zotero_item(paper(**fields)).get("url") == url


def test_ids_go_to_their_fields_or_to_extra_lines_in_a_fixed_order():
    article = paper(journal="J", doi="10.1234/a", pmid="42", external_ids={"PMCID": "PMC77"}, arxiv_id="2101.00001")
    item = zotero_item(article)
    assert (item["DOI"], item["PMID"], item["PMCID"]) == ("10.1234/a", "42", "PMC77")
    assert item["extra"] == "arXiv: 2101.00001"
    old_server = zotero_item(article, conservative=True)
    assert "PMID" not in old_server and "PMCID" not in old_server and old_server["DOI"] == "10.1234/a"
    assert old_server["extra"] == "PMID: 42\nPMCID: PMC77\narXiv: 2101.00001"
    report = zotero_item(paper(publication_types=["report"], pmid="42", external_ids={"pmcid": "77"},
                               doi="10.1234/r", retracted=True))
    assert report["extra"] == "PMID: 42\nPMCID: PMC77\nRETRACTED" and report["DOI"] == "10.1234/r"
    conference = zotero_item(paper(journal="Proceedings of the Workshop on Things", pmid="42", doi="10.1234/c",
                                   arxiv_id="2101.00001"))
    assert conference["itemType"] == "conferencePaper"
    assert conference["extra"] == "PMID: 42\narXiv: 2101.00001"


def test_a_preprint_keeps_its_arxiv_id_in_archive_id_not_in_extra():
    item = zotero_item(paper(arxiv_id="2101.00001", pmid="42"))
    assert item["archiveID"] == "arXiv:2101.00001" and item["extra"] == "PMID: 42"


@pytest.mark.parametrize("external_ids,pmcid", [
    ({"PMCID": "PMC77"}, "PMC77"), ({"pmcid": "77"}, "PMC77"), ({"PubMedCentral": "77"}, "PMC77"),
    ({"DOI": "10.1234/x", "PMCID": "PMC5"}, "PMC5"), ({"PMCID": "not one"}, None), ({"PMID": "77"}, None), ({}, None),
])
def test_the_pmcid_is_read_from_the_external_ids_in_any_spelling(external_ids, pmcid):
    assert paper_pmcid(paper(external_ids=external_ids)) == pmcid


def test_a_retracted_paper_is_tagged_and_others_are_not():
    retracted = zotero_item(paper(journal="J", retracted=True, updates=[
        {"type": "retraction", "notice_doi": "10.5555/notice", "date": "2021-03-01"}]))
    assert retracted["tags"] == [{"tag": "Retracted"}]
    assert retracted["extra"] == "RETRACTED (retraction: 10.5555/notice (2021-03-01))"
    corrected = zotero_item(paper(journal="J", updates=[{"type": "correction", "notice_doi": "10.5555/fix"}]))
    assert corrected["tags"] == [] and corrected["extra"] == "Notices: correction: 10.5555/fix"
    assert zotero_item(paper(journal="J", retracted=False))["tags"] == []


def test_an_item_outside_a_collection_has_none():
    item = zotero_item(paper())
    assert item["collections"] == [] and item["relations"] == {} and item["creators"] == []
    assert zotero_item(paper(), "")["collections"] == []


@pytest.mark.parametrize("author,creator", [
    ("Ada Lovelace", {"firstName": "Ada", "lastName": "Lovelace"}),
    ("King, Jr., Martin Luther", {"firstName": "Martin Luther, Jr.", "lastName": "King"}),
    ("Madonna", {"firstName": "", "lastName": "Madonna"}),
    ("{World Health Organization}", {"name": "World Health Organization"}),
    ("WHO Collaborating Group", {"name": "WHO Collaborating Group"}),
    ("Ada <b>Lovelace</b>", {"firstName": "Ada", "lastName": "Lovelace"}),
])
def test_creators_are_people_split_or_groups_named_whole(author, creator):
    assert creators([author]) == [{"creatorType": "author", **creator}]


def test_empty_names_are_left_out_and_long_ones_cut():
    assert creators(["", "   ", "\n"]) == []
    long_group = "{" + "Consortium " * 1000 + "}"
    assert len(creators([long_group])[0]["name"]) == 10_000
    person = creators(["Ada " + "Lovelace" * 2000])[0]
    assert len(person["lastName"]) == 10_000 and person["firstName"] == "Ada"


def test_an_id_the_paper_lacks_is_in_no_field_and_no_extra_line():
    item = zotero_item(paper(journal="J"))
    assert not {"DOI", "PMID", "PMCID", "archiveID", "extra"} & set(item)
    for conservative in (False, True):
        only_doi = zotero_item(paper(journal="J", doi="10.1234/a"), conservative=conservative)
        assert only_doi["DOI"] == "10.1234/a" and not {"PMID", "PMCID", "extra"} & set(only_doi)


def test_every_author_is_kept_in_order_whatever_comes_before():
    assert creators(["{World Health Organization}", "Ada Lovelace", "", "Madonna", "WHO Group", "Alan Turing"]) == [
        {"creatorType": "author", "name": "World Health Organization"},
        {"creatorType": "author", "firstName": "Ada", "lastName": "Lovelace"},
        {"creatorType": "author", "firstName": "", "lastName": "Madonna"},
        {"creatorType": "author", "name": "WHO Group"},
        {"creatorType": "author", "firstName": "Alan", "lastName": "Turing"}]


def test_an_empty_group_name_is_kept_as_written_not_made_an_empty_person():
    # "{ }" is a group name with nothing in it: the author string is kept, never a person with no names.
    assert creators(["{ }"]) == [{"creatorType": "author", "name": "{ }"}]


def test_a_type_without_a_doi_field_keeps_the_doi_in_extra(monkeypatch):
    # Every type has DOI in schema 41; in older schemas only journal articles had it.
    from litsearch.zotero import items

    monkeypatch.setitem(items.ITEM_FIELDS, "report", items.ITEM_FIELDS["report"] - {"DOI"})
    report = zotero_item(paper(publication_types=["report"], doi="10.1234/r", pmid="42"))
    assert "DOI" not in report and report["extra"] == "PMID: 42\nDOI: 10.1234/r"
