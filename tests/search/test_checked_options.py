"""checked_options: the one way from a front end's arguments to SearchOptions (the command line,
a search record, the MCP tool and the Python API call it), each check in each front end's words."""

from __future__ import annotations

import pytest

from litsearch.core.errors import UsageError
from litsearch.core.filters import Filters
from litsearch.search.options import (
    COMMAND_LINE,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_VARIANTS,
    MCP_TOOL,
    PYTHON,
    SEARCH_RECORD,
    checked_options,
)

LONG = "x" * (MAX_QUERY_CHARS + 1)


def test_the_arguments_become_the_options():
    options = checked_options("  <i>CRISPR</i>  off-target ", variants=["Cas9 specificity", "sgRNA design"],
                              providers="pubmed,openalex", limit=MAX_LIMIT, sort="year",
                              filters={"year": "2020-", "open_access": True}, verify=False, exclude_retracted=True,
                              rerank="none")
    assert options.topic == "CRISPR off-target"
    assert options.variants == ["Cas9 specificity", "sgRNA design"]
    assert options.providers == ["openalex", "pubmed"]  # the registry's order
    assert (options.limit, options.sort, options.verify, options.find_open_access, options.exclude_retracted,
            options.rerank) == (MAX_LIMIT, "year", False, False, True, "none")
    assert (options.filters.year_from, options.filters.open_access) == (2020, True)


def test_the_defaults():
    options = checked_options("topic")
    assert (options.variants, options.providers, options.limit, options.sort) == ([], None, 20, "relevance")
    assert (options.verify, options.find_open_access, options.exclude_retracted, options.rerank) == \
        (True, True, False, None)
    assert options.filters == Filters()


@pytest.mark.parametrize("providers", [None, "auto", " AUTO ", [], ()])
def test_the_automatic_choice(providers):
    assert checked_options("topic", providers=providers).providers is None


@pytest.mark.parametrize("providers", [["arxiv", "pubmed"], ("arxiv", "pubmed"), "arxiv, pubmed", "pubmed,arxiv"])
def test_providers_as_a_list_or_a_comma_list(providers):
    assert checked_options("topic", providers=providers).providers == ["pubmed", "arxiv"]


def test_built_filters_are_taken_as_they_are():
    built = Filters(min_citations=7)
    assert checked_options("topic", filters=built).filters is built


@pytest.mark.parametrize("names,arguments,message", [
    # the topic and the variants
    (PYTHON, {"topic": " "}, "the topic is empty"),
    (SEARCH_RECORD, {"topic": "<b></b>"}, "the recorded topic is empty"),
    (PYTHON, {"topic": LONG}, f"the topic is {MAX_QUERY_CHARS + 1:,} characters; the limit is {MAX_QUERY_CHARS:,}"),
    (COMMAND_LINE, {"variants": ["ok", " "]}, "--variant 2 is empty"),
    (MCP_TOOL, {"variants": [LONG]}, "variant 1 is 1,001 characters"),
    (SEARCH_RECORD, {"variants": ["", "b"]}, "recorded variant 1 is empty"),
    (COMMAND_LINE, {"variants": ["v"] * (MAX_VARIANTS + 1)}, f"{MAX_VARIANTS + 1} variants given; the limit is 8"),
    (SEARCH_RECORD, {"variants": ["v"] * 20}, "20 recorded variants; the limit is 8"),
    # the limit and the sort
    (COMMAND_LINE, {"limit": 0}, "--limit must be between 1 and 100, not 0"),
    (PYTHON, {"limit": MAX_LIMIT + 1}, "limit must be between 1 and 100, not 101"),
    (SEARCH_RECORD, {"limit": -5}, "the recorded limit must be between 1 and 100, not -5"),
    (PYTHON, {"sort": "random"}, "sort must be one of relevance, impact, citations, year, not 'random'"),
    (SEARCH_RECORD, {"sort": 3}, "the recorded sort must be one of relevance, impact, citations, year, not '3'"),
    (PYTHON, {"rerank": "deep"}, "rerank must be one of semantic, none, not 'deep'"),
    (SEARCH_RECORD, {"rerank": 1}, "the recorded rerank must be one of semantic, none, not '1'"),
    # the providers
    (PYTHON, {"providers": "google"}, "unknown provider(s): google (choose from"),
    (COMMAND_LINE, {"providers": ""}, "--providers needs at least one provider name"),
    (MCP_TOOL, {"providers": ["web"]}, "--providers web needs at least one scholarly provider beside it"),
    # the filters, in each front end's spelling
    (COMMAND_LINE, {"filters": {"min_citations": 5, "citations": "10-"}},
     "--citations '10-' and --min-citations 5 disagree"),
    (MCP_TOOL, {"filters": {"min_citations": 5, "citations": "10-"}},
     "filters.citations '10-' and filters.min_citations 5 disagree"),
    (PYTHON, {"filters": {"year": "20x0"}}, "year"),
    # a filter's own message, by the name each door gives the filter (it said "min-citations"
    # and "type" in Python, whose arguments are min_citations and types)
    (PYTHON, {"filters": {"min_citations": -1}}, "min_citations cannot be negative"),
    (MCP_TOOL, {"filters": {"min_citations": -1}}, "filters.min_citations cannot be negative"),
    (PYTHON, {"filters": {"types": ["reviw"]}}, "types takes article, review"),
    (MCP_TOOL, {"filters": {"types": ["reviw"]}}, "filters.type takes article, review"),
    (COMMAND_LINE, {"filters": {"institution": "ETH"}, "providers": "pubmed"},
     "only OpenAlex can apply the institution filter; add openalex to the providers"),
])
def test_each_check_in_each_front_ends_words(names, arguments, message):
    arguments = {"topic": "topic", **arguments}
    with pytest.raises(UsageError) as refused:
        checked_options(arguments.pop("topic"), names=names, **arguments)
    assert message in str(refused.value)


def test_the_limit_at_its_bounds():
    assert checked_options("t", limit=1).limit == 1
    assert checked_options("t", limit=MAX_LIMIT).limit == MAX_LIMIT
    assert len(checked_options("t", variants=["v"] * MAX_VARIANTS).variants) == MAX_VARIANTS
    assert checked_options("y" * MAX_QUERY_CHARS).topic == "y" * MAX_QUERY_CHARS


def test_the_checks_run_in_order_the_first_problem_is_said():
    with pytest.raises(UsageError, match="the topic is empty"):
        checked_options("", limit=0, sort="random", providers="google")
    with pytest.raises(UsageError, match="limit must be"):
        checked_options("t", limit=0, sort="random", providers="google")
    with pytest.raises(UsageError, match="sort must be"):
        checked_options("t", sort="random", providers="google")


@pytest.mark.parametrize("arguments,message", [
    # a Python caller's values of the wrong kind: refused naming the argument, never iterated or
    # read as true (variants=5 was "'int' object is not iterable"; preprints="no" searched preprints only)
    ({"topic": 5}, "the topic is text, not int"),
    ({"variants": 5}, "variants takes a phrasing or a list of them, not int"),
    ({"variants": [b"x"]}, "variant 1 is text, not bytes"),
    ({"limit": "10"}, "limit takes a whole number, not str '10'"),
    ({"limit": 10.0}, "limit takes a whole number, not float 10.0"),
    ({"limit": True}, "limit takes a whole number, not bool True"),
    ({"filters": {"preprints": "no"}}, "preprints is True or False, not str 'no'"),
    ({"filters": {"open_access": 1}}, "open_access is True or False, not int 1"),
    ({"filters": {"min_citations": "5"}}, "min_citations takes a whole number, not str '5'"),
    ({"filters": {"types": ["review", 3]}}, "types takes names as text"),
    ({"filters": {"venue": ["Nature"]}}, "venue takes text, not list"),
    ({"filters": {"country": 33}}, "country takes a name or a list of names, not int"),
])
def test_a_value_of_the_wrong_kind_is_named(arguments, message):
    arguments = {"topic": "topic", **arguments}
    with pytest.raises(UsageError) as refused:
        checked_options(arguments.pop("topic"), names=PYTHON, **arguments)
    assert message in str(refused.value)


def test_one_value_where_a_list_is_taken_is_a_list_of_one():
    """One variant, one type, one country, given as a string (iterated, each was its letters:
    variants="reef" searched "r", "e", "f"); a year as a number."""
    assert checked_options("coral", variants="reef bleaching").variants == ["reef bleaching"]
    listed = checked_options("coral", filters={"types": ["review"], "country": ["FR"], "year": "2005"}).filters
    single = checked_options("coral", filters={"types": "review", "country": "FR", "year": 2005}).filters
    assert single == listed
