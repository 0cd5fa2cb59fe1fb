"""The OpenAlex explorer's tables, pure: the design's filter aliases for every list (names,
OpenAlex keys and value kinds), a conflict with a raw filter refused for every alias before
any lookup, each value kind's forms, the ids of every kind (the topic hierarchy's numbers, a
work's DOI, PMID or PMCID), and what each request costs in OpenAlex's credits."""

from __future__ import annotations

import asyncio
import re

import pytest

from litsearch.core.errors import UsageError
from litsearch.providers.openalex_costs import action_credits, request_credits
from litsearch.providers.openalex_entity_filters import (
    FIND_ALIASES,
    LIST_ALIASES,
    SYNONYMS,
    filter_expression,
    lists_filtering_by,
    searchable_filter,
    semantic_refusals,
)
from litsearch.providers.openalex_entity_kinds import KINDS, api_entity_id, short_id

# The explorer design's aliases (its CHANGES file), written out: alias -> OpenAlex filter key.
DESIGN = {
    "work": {"author": "authorships.author.id", "topic": "primary_topic.id", "domain": "primary_topic.domain.id",
             "field": "primary_topic.field.id", "subfield": "primary_topic.subfield.id",
             "publisher": "primary_location.source.publisher_lineage", "source": "primary_location.source.id",
             "institution": "authorships.institutions.lineage", "year": "publication_year",
             "citations": "cited_by_count", "country": "authorships.institutions.country_code",
             "continent": "authorships.institutions.continent", "type": "type", "open": "is_oa"},
    "author": {"institution": "last_known_institutions.id", "country": "last_known_institutions.country_code",
               "continent": "last_known_institutions.continent", "citations": "cited_by_count",
               "works": "works_count", "h_index": "summary_stats.h_index"},
    "source": {"publisher": "host_organization_lineage", "country": "country_code", "continent": "continent",
               "type": "type", "open": "is_oa", "citations": "cited_by_count", "works": "works_count"},
    "institution": {"country": "country_code", "continent": "continent", "type": "type",
                    "citations": "cited_by_count", "works": "works_count"},
    "topic": {"domain": "domain.id", "field": "field.id", "subfield": "subfield.id", "citations": "cited_by_count",
              "works": "works_count"},
    "publisher": {"country": "country_codes", "continent": "continent", "citations": "cited_by_count",
                  "works": "works_count"},
    "funder": {"country": "country_code", "continent": "continent", "citations": "cited_by_count",
               "works": "works_count"},
    "domain": {"works": "works_count"},
    "field": {"domain": "domain.id", "works": "works_count"},
    "subfield": {"domain": "domain.id", "field": "field.id", "works": "works_count"},
}
VALUES = {"count": "5", "year": "2020", "country": ["US"], "continent": ["europe"], "flag": True, "text": "article"}
# What each alias takes: an entity of its own name, or a value of these kinds.
VALUE_KINDS = {"year": "year", "citations": "count", "works": "count", "h_index": "count", "country": "country",
               "continent": "continent", "type": "text", "open": "flag"}
# Other names OpenAlex takes for an alias's field: each is a conflict too.
OTHER_NAMES = [("work", "author", "author.id"), ("work", "institution", "institutions.lineage"),
               ("work", "country", "institutions.country_code"), ("work", "continent", "institutions.continent"),
               ("work", "source", "journal"), ("work", "open", "open_access.is_oa"),
               ("source", "open", "open_access.is_oa"), ("source", "publisher", "host_organization")]


def build(known, aliases, raw=None, resolve=None):
    return asyncio.run(filter_expression(known, "this list", aliases, raw, resolve))


async def never(kind, text):
    raise AssertionError(f"resolved {kind.name} {text!r}: no lookup should happen")


async def resolved(kind, text):
    return {"domain": "domains/3", "field": "fields/17", "subfield": "subfields/1702"}.get(
        kind.name, f"{kind.letter}123"), f"The {kind.name}"


def test_the_aliases_are_the_designs_field_for_field():
    assert {kind: {alias: key for alias, (key, _) in aliases.items()} for kind, aliases in LIST_ALIASES.items()} == DESIGN
    assert set(LIST_ALIASES) == set(KINDS)
    for kind, aliases in LIST_ALIASES.items():
        for alias, (_, value_kind) in aliases.items():
            assert value_kind == VALUE_KINDS.get(alias, f"entity:{alias}"), (kind, alias)
            assert alias in VALUE_KINDS or alias in KINDS


@pytest.mark.parametrize("kind,alias", [(kind, alias) for kind, aliases in LIST_ALIASES.items() for alias in aliases])
def test_a_conflict_with_the_raw_filter_is_refused_before_any_lookup(kind, alias):
    key, value_kind = LIST_ALIASES[kind][alias]
    for raw_key in (key, *SYNONYMS.get(key, ())):
        with pytest.raises(UsageError, match=f"the {alias} filter and the raw filter both set {key}"):
            build(LIST_ALIASES[kind], {alias: VALUES.get(value_kind, "3"), "works": "2"}, f"x:1,{raw_key}:!1", never)
    expression, _ = build(LIST_ALIASES[kind], {alias: VALUES.get(value_kind, "3")}, "other.key:1", resolved)
    assert expression.startswith("other.key:1,") and f",{key}:" in expression


@pytest.mark.parametrize("kind,alias,other", OTHER_NAMES)
def test_an_alias_conflicts_with_every_name_of_its_field(kind, alias, other):
    value = VALUES.get(LIST_ALIASES[kind][alias][1], "3")
    with pytest.raises(UsageError, match="both set"):
        build(LIST_ALIASES[kind], {alias: value}, f"{other}:x", never)


def test_the_search_filters_become_works_filters():
    from litsearch.core.filters import build_filters
    from litsearch.providers.openalex_entity_filters import works_filters

    filters = build_filters(source="S1", institution="I2", topic="T3", publisher="P4", funder="F5",
                            countries=["de", "US"], continents=["europe", "asia"])
    for name, entity_id in (("source", "S1"), ("institution", "I2"), ("topic", "T3"), ("publisher", "P4"),
                            ("funder", "F5")):
        filters = filters.with_resolution(name, entity_id, entity_id)
    parts, native = works_filters(filters)
    assert parts == ["primary_location.source.id:S1", "authorships.institutions.lineage:I2", "primary_topic.id:T3",
                     "primary_location.source.publisher_lineage:P4", "funders.id:F5", "authorships.countries:de|us",
                     "authorships.institutions.continent:europe|asia"]
    assert native == {"source", "institution", "topic", "publisher", "funder", "country", "continent"}
    assert works_filters(None) == ([], set()) and works_filters(build_filters()) == ([], set())


def test_every_value_kind_becomes_its_openalex_form():
    work = LIST_ALIASES["work"]
    cases = [({"year": "2020"}, "publication_year:2020"), ({"year": "2018-2020"}, "publication_year:2018-2020"),
             ({"year": "2018-"}, "publication_year:>2017"), ({"year": "-2015"}, "publication_year:<2016"),
             ({"citations": ">100"}, "cited_by_count:>100"), ({"citations": "100-500"}, "cited_by_count:100-500"),
             ({"citations": "1"}, "cited_by_count:>0"), ({"citations": "0"}, "cited_by_count:>-1"),
             ({"citations": "<=0"}, "cited_by_count:<1"), ({"citations": "-9"}, "cited_by_count:<10"),
             ({"citations": "7-7"}, "cited_by_count:7"), ({"citations": ""}, ""), ({"country": []}, ""),
             ({"country": ["de", "US"]}, "authorships.institutions.country_code:de|us"),
             ({"continent": ["North America"]}, "authorships.institutions.continent:north_america"),
             ({"type": "book-chapter"}, "type:book-chapter"), ({"open": True}, "is_oa:true"),
             ({"open": False}, ""), ({"subfield": "AI"}, "primary_topic.subfield.id:1702"),
             ({"domain": "3"}, "primary_topic.domain.id:3"), ({"author": "x"}, "authorships.author.id:A123")]
    for aliases, expected in cases:
        assert build(work, aliases, None, resolved)[0] == expected, aliases
    assert build(work, {"field": "CS"}, None, resolved)[1] == ["field 'CS' → The field (fields/17)"]


@pytest.mark.parametrize("aliases,message", [
    ({"year": "last year"}, "--year takes"), ({"citations": "many"}, "takes 100 (at least)"),
    ({"country": ["Germany"]}, "two-letter ISO country codes"), ({"continent": ["atlantis"]}, "continent"),
    ({"open": "yes"}, "true or false"), ({"type": "a b;c"}, "takes a word"),
    ({"colour": "red"}, "this list takes no 'colour' filter; it takes author, topic, domain, field"),
])
def test_a_bad_value_is_one_usage_error_before_any_lookup(aliases, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        build(LIST_ALIASES["work"], {"institution": "MIT", **aliases}, None, never)


def test_a_bad_count_names_its_flag():
    with pytest.raises(UsageError, match="--h-index takes 100"):
        build(LIST_ALIASES["author"], {"h_index": "lots"}, None, never)


def test_semantic_search_takes_the_work_aliases_it_can():
    assert set(FIND_ALIASES) == set(LIST_ALIASES["work"]) - {"citations", "country"}
    assert semantic_refusals("type:article,cited_by_count:>5,authorships.institutions.country_code:us") == [
        "authorships.institutions.country_code", "cited_by_count"]
    assert semantic_refusals("publication_year:2020") == []
    assert lists_filtering_by("subfield") == ["work", "topic"] and lists_filtering_by("funder") == []
    assert lists_filtering_by("domain") == ["work", "topic", "field", "subfield"]


@pytest.mark.parametrize("kind,text,expected", [
    ("domain", "3", "3"), ("domain", "domains/3", "3"), ("domain", "https://openalex.org/domains/3", "3"),
    ("field", "https://openalex.org/fields/17", "17"), ("subfield", "Subfields/1702", "1702"),
    ("field", "domains/3", None), ("domain", "Physical Sciences", None), ("topic", "3", None),
    ("work", "W2741809807", "W2741809807"), ("work", "https://openalex.org/w2741809807", "W2741809807"),
    ("work", "10.7717/PEERJ.4375", "doi:10.7717/peerj.4375"), ("work", "https://doi.org/10.1038/35002501",
                                                               "doi:10.1038/35002501"),
    ("work", "PMID: 10706275", "pmid:10706275"), ("work", "PMC3299399", "pmcid:PMC3299399"),
    ("work", "arXiv:2007.14454", "doi:10.48550/arxiv.2007.14454"), ("work", "A123", None),
    ("work", "a" * 40, None), ("author", "fields/17", None),
])
def test_ids_of_every_kind(kind, text, expected):
    assert api_entity_id(KINDS[kind], text) == expected


def test_short_ids_and_their_kinds():
    assert short_id("https://openalex.org/subfields/1702") == "subfields/1702"
    assert short_id("https://openalex.org/W1") == "W1" and short_id("domains/x") is None
    assert KINDS["field"].owns("fields/17") and not KINDS["funder"].owns("fields/17")
    assert KINDS["funder"].owns("F4320332161") and not KINDS["field"].owns("F17")
    assert KINDS["subfield"].filter_value("subfields/1702") == "1702" and KINDS["topic"].filter_value("T1") == "T1"
    assert [kind.name for kind in KINDS.values() if "autocomplete" in kind.actions] == [
        "work", "author", "source", "institution", "publisher", "funder", "subfield"]
    assert [kind.name for kind in KINDS.values() if "find" in kind.actions] == ["work"]


@pytest.mark.parametrize("path,params,credits", [
    ("/works/W1", {}, 0), ("/works/doi:10.1038/35002501", {"select": "id"}, 0), ("/authors/orcid:0000-0001", {}, 0),
    ("/autocomplete/subfields", {"q": "ecol"}, 0), ("/works", {"filter": "type:article"}, 1),
    ("/works", {"search": "x"}, 10), ("/works", {"search.semantic": "x"}, 10),
    ("/works", {"filter": "title.search:x"}, 10), ("/works", {"search": "x", "group_by": "type"}, 1),
    ("/authors", {"search": "x", "per_page": 10, "select": "id,display_name,works_count"}, 0),
    ("/authors", {"search": "x", "per_page": 10, "select": "id,display_name"}, 10),
    ("/domains/3", {}, 1), ("/fields", {"search": "x", "per_page": 10, "select": "id,display_name,works_count"}, 1),
    ("/subfields", {}, 1), ("/topics/T1", {}, 0),
    ("/works/W1X", {}, 1),  # not an id the proxy reads as one (a letter after the digits): priced as any request
])
def test_what_a_request_costs_as_openalex_counts_it(path, params, credits):
    assert request_credits(path, params) == credits


# OpenAlex's proxy's own lists (ourresearch/openalex-api-proxy@b50c368 src/endpointClassifier.ts), written out.
PROXY_ENTITIES = ("works", "authors", "sources", "institutions", "topics", "publishers", "funders", "concepts")
PROXY_ID_PREFIXES = ("doi:", "pmid:", "pmcid:", "mag:", "openalex:", "orcid:", "ror:", "wikidata:", "issn:", "issn_l:",
                     "scopus:")
PROXY_SEARCH_FILTERS = ("abstract.search", "default.search", "display_name.search", "fulltext.search",
                        "keyword.search", "raw_affiliation_strings.search", "raw_author_name.search", "title.search",
                        "title_and_abstract.search")


def test_every_priced_entity_every_id_form_and_every_search_filter():
    for entity in PROXY_ENTITIES:
        assert request_credits(f"/{entity}/1") == 0 and request_credits(f"{entity}/X12/") == 0, entity
        assert request_credits(f"/{entity}") == 1 and request_credits(f"/{entity}", {"search": "x"}) == 10, entity
        for prefix in PROXY_ID_PREFIXES:
            assert request_credits(f"/{entity}/{prefix}123") == 0, (entity, prefix)
        for kind in PROXY_SEARCH_FILTERS:
            assert request_credits(f"/{entity}", {"filter": f"type:x,{kind}:y"}) == 10, (entity, kind)
        assert request_credits(f"/{entity}", {"search": "x", "group-by": "type"}) == 1
        free = {"search": "x", "select": "id,display_name,works_count"}
        assert request_credits(f"/{entity}", {**free, "per-page": "10"}) == 0
        assert request_credits(f"/{entity}", {**free, "per_page": 11}) == 10
        assert request_credits(f"/{entity}", free) == 10  # no page size said: OpenAlex's 25
    for other in ("domains", "fields", "subfields", "keywords", "awards"):
        assert request_credits(f"/{other}/1") == 1 and request_credits(f"/{other}", {"search": "x"}) == 1, other


# Each explorer call's credits by kind, written out: (list with a query, filters only, get, autocomplete, find).
ACTION_CREDITS = {**{name: (10, 1, 0, 0, None) for name in ("author", "source", "institution", "publisher", "funder")},
                  "work": (10, 1, 0, 0, 10), "topic": (10, 1, 0, None, None), "domain": (1, 1, 1, None, None),
                  "field": (1, 1, 1, None, None), "subfield": (1, 1, 1, 0, None)}


def test_each_explorer_call_costs_what_its_request_costs_and_both_doors_say_so():
    from litsearch.cli.entity import costs_in_words
    from litsearch.mcp_server.entity_words import cost

    assert set(ACTION_CREDITS) == set(KINDS)
    for name, credits in ACTION_CREDITS.items():
        kind = KINDS[name]
        actions = ("search", "list", "get", "autocomplete", "find")
        assert [action_credits(kind.path, action) if action in kind.actions or action in ("search", "list")
                else None for action in actions] == list(credits), name
        words = costs_in_words(kind)
        said = {0: "free", 1: "1 credit", 10: "10 credits"}
        assert f"a list with a query {said[credits[0]]}, a list with filters only {said[credits[1]]}, " \
               f"a get {said[credits[2]]}" in words, (name, words)
        assert ("an autocomplete free" in words) == (credits[3] == 0), (name, words)
        assert ("a find (semantic search) 10 credits" in words) == (credits[4] == 10), (name, words)
        assert cost(kind, "get") == (" Free of OpenAlex credits." if credits[2] == 0
                                     else f" Costs {credits[2]} of OpenAlex's daily credits."), name


@pytest.mark.parametrize("raw,cleaned,notes", [
    (None, None, []), ("", "", []), ("type:article", "type:article", []),
    ("title.search:plain,doi:10.1/a?b", "title.search:plain,doi:10.1/a?b", []),  # ? outside a search is left alone
    ("title.search:machine learn*,publication_year:2020", "title.search:machine learn,publication_year:2020",
     ["title.search: searched for 'machine learn' (OpenAlex takes no ? * ~ there)"]),
    ("display_name.search:*?,type:x", "type:x", ["display_name.search: left out, nothing but ? * ~ to search for"]),
    ("x:(a,b)?,title.search:y*", "x:(a,b)?,title.search:y",  # a comma inside brackets is no separator
     ["title.search: searched for 'y' (OpenAlex takes no ? * ~ there)"]),
    (" Title.Search :x~", " Title.Search :x", ["Title.Search: searched for 'x' (OpenAlex takes no ? * ~ there)"]),
])
def test_a_raw_filters_search_values_lose_their_wildcards_with_a_note(raw, cleaned, notes):
    said: list[str] = []
    assert searchable_filter(raw, said) == cleaned and said == notes
