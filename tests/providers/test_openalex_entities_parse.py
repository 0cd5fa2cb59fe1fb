"""OpenAlex entity parsing, pure: on the real recorded bodies in ../shared/fixtures/openalex
(the dehydrated institutions, sources and topics inside a recorded work; the API's error
bodies and its HTML 404 page) and on the fake API's lists and records (the real API's shapes),
plus ids, name resolution and hostile values."""

from __future__ import annotations

import json

import pytest

import fake_openalex_entities as fake
from litsearch.core.errors import ProviderError
from litsearch.providers.openalex_entities_parse import (
    parse_autocomplete,
    parse_entity,
    parse_entity_page,
    summary,
    top_match,
)
from litsearch.providers.openalex_entity_kinds import KINDS, api_entity_id, short_id

WORK = "openalex/raw/openalex_python__work_W2741809807_peerj.4375.json"


def test_dehydrated_entities_of_a_recorded_work(shared):
    work = json.loads(shared(WORK).read_text(encoding="utf-8"))
    institution = summary(KINDS["institution"], work["authorships"][0]["institutions"][0])
    assert institution == {"id": "I4210166736", "display_name": "Impact Technology Development (United States)",
                           "ror": "05ppvf150", "country_code": "US", "type": "company", "city": None,
                           "works_count": None, "cited_by_count": None, "h_index": None}
    source = summary(KINDS["source"], work["primary_location"]["source"])
    assert source["id"] == "S1983995261" and source["issn_l"] == "2167-8359"
    assert (source["is_oa"], source["is_in_doaj"], source["host_organization_name"]) == (True, True, "PeerJ, Inc.")
    topic = summary(KINDS["topic"], work["primary_topic"])
    assert (topic["id"], topic["subfield"], topic["field"], topic["domain"]) == (
        "T10102", "Statistics, Probability and Uncertainty", "Decision Sciences", "Social Sciences")
    author = summary(KINDS["author"], work["authorships"][0]["author"])
    assert (author["id"], author["orcid"]) == ("A5048491430", "0000-0003-1613-5981")
    assert summary(KINDS["author"], work["authorships"][0]["institutions"][0]) is None  # an I-id is no author


@pytest.mark.parametrize("body,message", [
    ("openalex/bodies/openalexPro__error_400_invalid_filter_and_select__00_400.json",
     "API error: Invalid query parameters error.: DOESNTEXIST is not a valid field"),
    ("openalex/bodies/openalexPro__error_401_rate_limit_endpoint_bad_key__00_401.json",
     "API error: Invalid or missing API key: API key not found"),
    ("openalex/bodies/paperqa__openalex_doi_not_found_404_html__00_404.html", "unexpected response (an HTML page"),
])
def test_recorded_error_bodies_become_one_line_provider_errors(shared, body, message):
    content = shared(body).read_bytes()
    for parse in (lambda b: parse_entity_page(KINDS["author"], b), lambda b: parse_entity(KINDS["author"], b),
                  parse_autocomplete):
        with pytest.raises(ProviderError) as caught:
            parse(content)
        assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_a_recorded_work_is_no_entity(shared):
    with pytest.raises(ProviderError, match="no source id"):
        parse_entity(KINDS["source"], shared(WORK).read_bytes())


@pytest.mark.parametrize("plural,kind", [("authors", "author"), ("sources", "source"),
                                         ("institutions", "institution"), ("topics", "topic"),
                                         ("publishers", "publisher"), ("funders", "funder")])
def test_list_pages_and_records_of_every_kind(plural, kind):
    records = fake.CORPUS[plural]
    body = json.dumps({"meta": {"count": 123456789, "next_cursor": "Ic3Vw"}, "results": records + [None, 7]})
    page = parse_entity_page(KINDS[kind], body)
    assert [item["id"] for item in page.items] == [short_id(r["id"]) for r in records]
    assert (page.count, page.next_cursor) == (123456789, "Ic3Vw")
    for item, record in zip(page.items, records):
        assert item["display_name"] == record["display_name"]
        assert item["cited_by_count"] == record["cited_by_count"]  # an NIH-sized count is kept
    full = parse_entity(KINDS[kind], json.dumps(records[0]))
    assert full["id"] == short_id(records[0]["id"]) and full["display_name"] == records[0]["display_name"]
    assert set(records[0]) <= set(full)  # complete: nothing dropped


def test_summaries_keep_the_designs_fields():
    author = summary(KINDS["author"], fake.AUTHORS[0])
    assert author["top_topics"] == ["Neural Networks and Applications", "Research topic number 0 in machine learning",
                                    "Research topic number 1 in machine learning"]
    funders = [summary(KINDS["funder"], f) for f in fake.FUNDERS]
    assert [f["awards_count"] for f in funders] == [273557, 190000]  # grants_count (older) or awards_count
    publisher = summary(KINDS["publisher"], fake.PUBLISHERS[0])
    assert (publisher["hierarchy_level"], publisher["country_codes"]) == (1, ["GB"])


def test_hostile_values_are_coerced_and_made_safe():
    record = {"id": "https://openalex.org/A123", "display_name": "Evil\x1b[31m\u202eName", "works_count": "many",
              "cited_by_count": -5, "summary_stats": [], "last_known_institutions": "MIT", "topics": [{"x": 1}, 5],
              "orcid": {"a": 1}}
    brief = summary(KINDS["author"], record)
    assert brief == {"id": "A123", "display_name": "Evil[31mName", "orcid": None, "works_count": None,
                     "cited_by_count": None, "h_index": None, "last_known_institutions": [], "top_topics": []}


@pytest.mark.parametrize("kind,text,expected", [
    ("author", "A5023888391", "A5023888391"), ("author", "https://openalex.org/a5023888391", "A5023888391"),
    ("author", "0000-0001-6187-6610", "orcid:0000-0001-6187-6610"),
    ("author", "https://orcid.org/0000-0001-6187-661x", "orcid:0000-0001-6187-661X"),
    ("institution", "https://ror.org/042nb2s44", "ror:042nb2s44"), ("institution", "042nb2s44", "ror:042nb2s44"),
    ("source", "1087-0156", "issn:1087-0156"), ("source", "issn:0028-083x", "issn:0028-083X"),
    ("topic", "T10211", "T10211"), ("topic", "A123", None), ("author", "Geoffrey Hinton", None),
    ("funder", "F4320332161", "F4320332161"), ("publisher", "P4310319965", "P4310319965"),
    ("institution", "0000-0001-6187-6610", None),
])
def test_ids_the_user_may_give(kind, text, expected):
    assert api_entity_id(KINDS[kind], text) == expected


def test_autocomplete_and_the_top_match():
    body = json.dumps({"results": [
        {"id": "https://openalex.org/I4210156909", "display_name": "MIT Lincoln Laboratory", "cited_by_count": 2},
        {"id": "https://openalex.org/I63966007", "display_name": "Massachusetts Institute of Technology",
         "cited_by_count": 19_000_000, "hint": "Cambridge, USA"},
        {"id": "https://openalex.org/A1", "display_name": "An author", "cited_by_count": 10**9}]})
    count, candidates = parse_autocomplete(body)
    assert count is None and len(candidates) == 3
    assert top_match(candidates, KINDS["institution"])["id"] == "I63966007"
    assert top_match(candidates, KINDS["topic"]) is None
    assert [c["id"] for c in parse_autocomplete(body, KINDS["institution"])[1]] == ["I4210156909", "I63966007"]
