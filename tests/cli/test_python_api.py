"""The Python API: importable functions with the documented signatures, returning plain dicts."""

from __future__ import annotations

import asyncio
import inspect
import json

import pytest

import fake_apis
from fake_server import FakeServer
from litsearch.api import (LitSearchError, crossref, literature_search, openalex, pubmed_search,
                           semantic_scholar, unpaywall)


@pytest.fixture
def apis(monkeypatch):
    with FakeServer() as server:
        for name, value in {**fake_apis.install(server), "LITSEARCH_EMAIL": "api@example.org"}.items():
            monkeypatch.setenv(name, value)
        yield server


def test_signatures_are_as_documented():
    assert str(inspect.signature(literature_search)) == (
        "(query: 'str', max_results: 'int' = 10, providers: 'str' = '', date_from: 'str' = '', "
        "date_to: 'str' = '', journal: 'str' = '', author: 'str' = '', include_abstract: 'bool' = True) -> 'dict'")
    assert list(inspect.signature(pubmed_search).parameters) == ["query", "max_results"]
    assert list(inspect.signature(openalex.search_papers).parameters) == ["keywords", "limit"]
    assert list(inspect.signature(semantic_scholar.search_papers).parameters) == ["query", "limit"]
    assert list(inspect.signature(semantic_scholar.get_paper_details).parameters) == ["paper_id"]
    assert list(inspect.signature(crossref.verify_doi).parameters)[0] == "doi"
    assert list(inspect.signature(crossref.search_works).parameters) == ["query", "limit"]
    assert list(inspect.signature(unpaywall.get_open_access_url).parameters) == ["doi"]


def test_literature_search_returns_the_cli_json_schema(apis):
    result = literature_search("CRISPR off-target effects", max_results=5,
                               providers="semantic_scholar,openalex,pubmed,arxiv")
    json.dumps(result)  # plain data
    assert set(result) >= {"query", "total_count", "results", "providers_searched", "errors", "search_time_ms"}
    assert len(result["results"]) == 5
    assert result["results"][0]["citation_uri"].startswith("https://")


def test_literature_search_filters(apis):
    result = literature_search("CRISPR", max_results=20, providers="openalex,pubmed", date_from="2020",
                               journal="Frontiers in Bioengineering", include_abstract=False)
    assert [r["title"] for r in result["results"]] == ["Off-target effects in CRISPR/Cas9 gene editing"]
    assert result["results"][0]["abstract"] is None
    assert "from_publication_date:2020-01-01" in apis.requests_to("/openalex/works")[0].param("filter")
    literature_search("CRISPR", providers="pubmed", date_from="2019-03-01", date_to="2021")
    esearch = apis.requests_to("/eutils/esearch.fcgi")[-1]
    assert (esearch.param("mindate"), esearch.param("maxdate")) == ("2019/03/01", "2021/12/31")


def test_pubmed_search_uses_pubmed_only(apis):
    result = pubmed_search("CRISPR off-target", max_results=3)
    assert result["providers_searched"] == ["pubmed"]
    assert all(set(r["provider_scores"]) == {"pubmed"} for r in result["results"])


def test_provider_functions(apis):
    papers = openalex.search_papers("CRISPR", 3)
    assert len(papers) == 3 and papers[0]["provider"] == "openalex"
    assert semantic_scholar.search_papers("CRISPR", 2)[0]["provider"] == "semantic_scholar"
    details = semantic_scholar.get_paper_details("DOI:10.1038/nbt.2647")
    assert details["title"] == "DNA targeting specificity of RNA-guided Cas9 nucleases"
    with pytest.raises(LitSearchError, match="not found"):
        semantic_scholar.get_paper_details("DOI:10.9999/none")
    assert crossref.verify_doi("10.1038/nbt.2647", "DNA targeting specificity of RNA-guided Cas9 nucleases",
                               2013)["verified"] is True
    assert crossref.verify_doi("10.48550/arXiv.1706.03762")["verified"] is None
    assert crossref.search_works("anything", 5) == []  # the fake Crossref corpus has no search hits
    oa = unpaywall.get_open_access_url("10.1038/nbt.2647")
    assert oa["is_pdf"] is True and oa["url"].endswith("pdf=render")
    assert unpaywall.get_open_access_url("10.9999/unknown") is None


def test_works_inside_a_running_event_loop(apis):
    async def notebook_cell():
        return openalex.search_papers("CRISPR", 1)

    assert len(asyncio.run(notebook_cell())) == 1


@pytest.mark.parametrize("kwargs", [{"query": " "}, {"query": "x", "max_results": 0},
                                    {"query": "x", "providers": "google"}, {"query": "x", "date_from": "20x0"}])
def test_bad_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        literature_search(**kwargs)


@pytest.mark.parametrize("kwargs,words", [
    # named by this function's own arguments (it said "since takes a date", or failed inside:
    # "invalid literal for int()", "'float' object has no attribute 'strip'")
    ({"date_from": "05"}, "date_from takes YYYY or YYYY-MM-DD, not '05'"),
    ({"date_to": "2020-13"}, "date_to takes YYYY or YYYY-MM-DD, not '2020-13'"),
    ({"date_from": 2005.0}, "date_from takes YYYY or YYYY-MM-DD, not 2005.0"),
    ({"max_results": "five"}, "max_results takes a whole number, not 'five'"),
    ({"max_results": 2.5}, "max_results takes a whole number, not 2.5"),
])
def test_bad_arguments_are_named_as_this_function_names_them(kwargs, words):
    with pytest.raises(ValueError) as refused:
        literature_search("CRISPR", **kwargs)
    assert str(refused.value) == words


def test_without_an_email_everything_works_and_unpaywall_is_skipped_said_once(apis, monkeypatch):
    # Issue 21: the documented example raised ProviderError at the Unpaywall call.
    import warnings

    from litsearch.api import unpaywall as api_unpaywall

    monkeypatch.delenv("LITSEARCH_EMAIL")
    monkeypatch.setattr(api_unpaywall, "_said", [])
    result = literature_search("CRISPR off-target effects", max_results=3)
    assert result["results"] and result["notes"].count(api_unpaywall.NO_EMAIL) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert unpaywall.get_open_access_url("10.1038/nbt.2647") is None
        assert unpaywall.get_open_access_url("10.3389/fbioe.2023.1143157") is None
    assert [str(w.message) for w in caught] == [api_unpaywall.NO_EMAIL]
    assert not [r for r in apis.requests if "/unpaywall" in r.path]  # nothing sent without an email


def test_search_returns_the_result_the_command_renders(apis, tmp_path, monkeypatch):
    from litsearch.api import render, search
    from litsearch.runtime.results import render_result
    from litsearch.search.pipeline import SearchResult

    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path))
    result = search("CRISPR off-target effects", variants=["Cas9 specificity"], providers=["openalex", "pubmed"],
                    limit=3, year="2013-", verify=False, cache="off")
    assert isinstance(result, SearchResult)
    assert [o.provider for o in result.outcomes] == ["openalex", "pubmed"]
    # in a notebook, the result and a row in a line each (the generated repr was every provider
    # record: 270,000 characters for one search); both types are the API's own names
    import litsearch.api as api

    assert api.SearchResult is SearchResult and isinstance(result.results[0], api.RankedPaper)
    assert len(repr(result)) < 200 and "'CRISPR off-target effects'" in repr(result)
    assert len(repr(result.results[0])) < 200 and "RankedPaper" in repr(result.results[0])
    assert all(item.paper.year >= 2013 for item in result.results[:3])
    assert result.filter_report[0].startswith("year 2013")
    # The command's own renderers: the same text lit-search prints for these rows.
    assert render(result, "bibtex", limit=3) == render_result(result, 3, "bibtex", include_abstracts=True)
    assert json.loads(render(result, "json", limit=3))["total_count"] == result.total_count
    assert render(result, "csv", limit=3).startswith("ID,ENTRYTYPE,title")


@pytest.mark.parametrize("arguments,words", [
    ({"topic": " "}, "the topic is empty"),
    ({"topic": "x", "limit": 0}, "limit must be between 1 and 100"),
    ({"topic": "x", "providers": "nosuch"}, "unknown provider(s): nosuch"),
    ({"topic": "x", "sort": "random"}, "sort must be one of"),
    ({"topic": "x", "year": "20x0"}, "year"),
    ({"topic": "x", "cache": "sometimes"}, "cache must be one of"),
])
def test_search_refuses_what_the_command_refuses(arguments, words):
    from litsearch.api import search

    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        search(**arguments)
