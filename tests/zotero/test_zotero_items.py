"""Papers as Zotero items: every kind of publication gives an item Zotero's schema accepts (checked
against the real schema.json in ../shared/fixtures/zotero), with creators split, ids in their
fields or ``extra``, the abstract, URL and retraction notice; the embedded field table agrees
with the schema; Zotero items are matched by DOI, PMID, arXiv id, then title and year."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsearch.core.records import Paper
from litsearch.zotero.items import ITEM_TYPES, creators, zotero_item
from litsearch.zotero.matching import LibraryIndex
from litsearch.zotero.schema import ITEM_FIELDS, check_item
from litsearch.zotero.web_api import parse_write_reply

PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SCHEMA = "zotero/zoteroschema__schema.json"


@pytest.fixture
def schema(shared):
    return json.loads(shared(SCHEMA).read_text(encoding="utf-8"))


def paper(**fields) -> Paper:
    values = {"provider": "test", "title": "A Title", "authors": ["Ada Lovelace", "van der Berg, Jan",
                                                                  "WHO Collaborating Group"], "year": 2021}
    values.update(fields)
    return Paper(**values)


KINDS = {
    "journalArticle": paper(journal="Nature", doi="10.1038/x1", pmid="123", volume="5", issue="2", pages="10-20",
                            external_ids={"PMCID": "PMC77"}, abstract="An <i>abstract</i>."),
    "preprint": paper(arxiv_id="2101.00001", doi="10.48550/arxiv.2101.00001", journal="arXiv"),
    "conferencePaper": paper(journal="Proceedings of the Workshop on Things", doi="10.1/conf", pages="1-9"),
    "book": paper(publication_types=["book"], doi="10.1/book"),
    "bookSection": paper(publication_types=["book-chapter"], journal="The Book", pages="3-4"),
    "thesis": paper(publication_types=["thesis"], journal="University of Bergen"),
    "report": paper(publication_types=["report"], journal="WHO", pmid="99"),
    "document": paper(),
}


def test_the_embedded_table_is_the_schema(schema):
    for entry in schema["itemTypes"]:
        if entry["itemType"] in ITEM_FIELDS:
            assert ITEM_FIELDS[entry["itemType"]] == {f["field"] for f in entry["fields"]}, entry["itemType"]
    assert set(ITEM_TYPES.values()) == set(ITEM_FIELDS)


@pytest.mark.parametrize("item_type", list(KINDS))
def test_every_kind_is_a_valid_item(item_type, schema):
    item = zotero_item(KINDS[item_type], "ABCD2345")
    assert item["itemType"] == item_type
    assert check_item(item, schema) == []
    assert check_item(zotero_item(KINDS[item_type], "ABCD2345", conservative=True), schema) == []
    assert item["collections"] == ["ABCD2345"] and item["relations"] == {}


def test_journal_article_fields():
    item = zotero_item(KINDS["journalArticle"])
    assert item["creators"] == [{"creatorType": "author", "firstName": "Ada", "lastName": "Lovelace"},
                                {"creatorType": "author", "firstName": "Jan", "lastName": "van der Berg"},
                                {"creatorType": "author", "name": "WHO Collaborating Group"}]
    assert (item["DOI"], item["PMID"], item["PMCID"], item["publicationTitle"]) == ("10.1038/x1", "123", "PMC77",
                                                                                    "Nature")
    assert (item["volume"], item["issue"], item["pages"], item["date"]) == ("5", "2", "10-20", "2021")
    assert item["abstractNote"] == "An abstract." and item["url"] == "https://doi.org/10.1038/x1"
    assert "extra" not in item
    old = zotero_item(KINDS["journalArticle"], conservative=True)  # a server without PMID/PMCID fields
    assert "PMID" not in old and old["extra"] == "PMID: 123\nPMCID: PMC77"


def test_ids_without_a_field_go_to_extra():
    preprint = zotero_item(KINDS["preprint"])
    assert (preprint["repository"], preprint["archiveID"]) == ("arXiv", "arXiv:2101.00001")
    assert preprint["DOI"] == "10.48550/arxiv.2101.00001" and preprint["url"] == "https://arxiv.org/abs/2101.00001"
    report = zotero_item(KINDS["report"])
    assert report["extra"] == "PMID: 99" and report["institution"] == "WHO"
    article = zotero_item(paper(journal="J", arxiv_id="1706.03762", doi="10.1/pub"))
    assert article["itemType"] == "journalArticle" and article["extra"] == "arXiv: 1706.03762"


def test_retracted_paper_is_tagged_and_noted(schema):
    item = zotero_item(paper(journal="J", retracted=True, updates=[
        {"type": "retraction", "doi": "10.5555/notice", "date": "2021-03-01"}]))
    assert item["tags"] == [{"tag": "Retracted"}]
    assert item["extra"].startswith("RETRACTED")
    assert check_item(item, schema) == []


def test_check_item_finds_what_zotero_refuses(schema):
    item = zotero_item(KINDS["thesis"])
    assert check_item({**item, "publicationTitle": "x"}, schema) == ["field 'publicationTitle' is not a field of thesis"]
    assert check_item({**item, "itemType": "podcastEpisode"}) == ["unknown item type 'podcastEpisode'"]
    assert "needs a name" in check_item({**item, "creators": [{"creatorType": "author", "lastName": ""}]}, schema)[0]
    assert check_item({**item, "creators": [{"creatorType": "reviewer", "name": "x"}]}, schema)
    assert check_item({k: v for k, v in item.items() if k != "tags"}, schema) == ["'tags' is missing"]


any_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@PROPERTY
@given(any_text, st.lists(any_text, max_size=6), any_text, st.sampled_from(
    [[], ["book"], ["thesis"], ["report"], ["book-chapter"], ["preprint"], ["conference"]]),
    st.one_of(st.none(), st.integers(min_value=1000, max_value=2100)))
def test_any_paper_gives_a_valid_item(title, authors, journal, types, year):
    item = zotero_item(Paper("x", title=title, authors=authors, journal=journal, publication_types=types, year=year,
                             doi="10.1/x" if year and year % 2 else None))
    assert check_item(item) == []
    for creator in item["creators"]:
        assert (creator.get("name") or creator.get("lastName", "")).strip()


def test_creators_of_odd_names():
    assert creators(["", "   ", "Madonna"]) == [{"creatorType": "author", "firstName": "", "lastName": "Madonna"}]
    assert creators(["King, Jr., Martin Luther"])[0]["lastName"] == "King"


def item(key, **fields):
    return {"key": key, "version": 3, "itemType": "journalArticle", "collections": ["COLL1234"], **fields}


@pytest.mark.parametrize("library, candidate, expected", [
    ([item("AAAA2222", DOI="https://doi.org/10.1038/NBT.2647")], paper(doi="10.1038/nbt.2647"), ("AAAA2222", "DOI")),
    ([item("BBBB2222", extra="tex.x: 1\nPMID: 23873081")], paper(pmid="23873081"), ("BBBB2222", "PMID")),
    ([item("CCCC2222", archiveID="arXiv:1706.03762")], paper(arxiv_id="1706.03762"), ("CCCC2222", "arXiv id")),
    ([item("DDDD2222", url="https://arxiv.org/abs/1706.03762v5")], paper(arxiv_id="1706.03762"),
     ("DDDD2222", "arXiv id")),
    ([item("EEEE2222", title="Attention is all you need!", date="2017-06-12")],
     paper(title="Attention Is All You Need", year=2017), ("EEEE2222", "title and year")),
    ([item("FFFF2222", title="Attention is all you need", date="2018")],
     paper(title="Attention Is All You Need", year=2017), None),
    ([item("GGGG2222", title="Editorial", date="2019", DOI="10.1234/a")],  # one title, two DOIs: two papers
     paper(title="Editorial", year=2019, doi="10.1234/b"), None),
    ([{"key": "HHHH2222", "itemType": "note", "title": "A Title", "date": "2021"}], paper(), None),
])
def test_library_matching(library, candidate, expected):
    index = LibraryIndex()
    for data in library:
        index.add(data)
    found = index.match(candidate)
    assert ((found[0].key, found[1]) if found else None) == expected


def test_write_replies(shared):
    reply = parse_write_reply(shared("zotero/weblibrary__post_items_response_successful_success_unchanged_failed.json")
                              .read_bytes(), 1)
    assert reply.created == {0: "AABBCCDD"} and not reply.failed
    trimmed = parse_write_reply(shared("zotero/pyzotero__creation_doc.json").read_bytes(), 2)
    assert trimmed.created == {0: "ABC123"} and trimmed.failed == {1: "Zotero's answer does not mention this item"}
    mixed = parse_write_reply(json.dumps({"success": {"0": "KEY22222"}, "unchanged": {"1": "KEY33333"},
                                          "failed": {"2": {"key": "", "code": 400, "message": "Bad\ninput"}}}), 3)
    assert (mixed.created, mixed.unchanged, mixed.failed) == ({0: "KEY22222"}, {1: "KEY33333"}, {2: "400: Bad input"})
