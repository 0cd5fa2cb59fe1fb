"""Semantic Scholar HTTP flow: replayed from tests/cassettes/semantic_scholar, and checked
against a mock transport for what goes on the wire."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from cassettes_support import cassette_vcr
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.providers import semantic_scholar as s2
from litsearch.runtime.settings import settings_from_env


async def records_of(answer):
    """A provider search's records (the rest of its ProviderAnswer aside)."""
    return (await answer).records

NO_PACING = {"semantic_scholar": PacePolicy(min_interval=0, max_in_flight=1, retries=0)}


def run_with_cassette(cassette: str, call, env: dict[str, str] | None = None):
    """Run ``call(session)`` against a cassette; every recorded interaction must be used."""
    settings = settings_from_env(env or {"LITSEARCH_EMAIL": "test@example.org"})

    async def flow():
        async with HttpClient(settings, policies=NO_PACING) as http:
            return await call(http.session(s2.NAME))

    with cassette_vcr().use_cassette(cassette) as recorded:
        result = asyncio.run(flow())
    return result, recorded


def run_with_mock(handler, env: dict[str, str]):
    settings = settings_from_env(env)

    async def flow():
        async with HttpClient(settings, transport=httpx.MockTransport(handler), policies=NO_PACING) as http:
            return (await s2.search(http.session(s2.NAME), "self-attention in long-term forecasting", 250)).records

    return asyncio.run(flow())


# ---------------------------------------------------------------- replayed flows

def test_search_replays_and_parses_the_page():
    papers, cassette = run_with_cassette(
        "semantic_scholar/search_attention.yaml",
        lambda session: records_of(s2.search(session, "attention is all you need", 10)))
    assert cassette.play_count == 1
    assert [paper.rank for paper in papers] == [1, 2, 3]

    vaswani, speech, promoters = papers
    assert vaswani.title == "Attention is All you Need"
    assert vaswani.arxiv_id == "1706.03762"
    assert vaswani.doi is None
    assert vaswani.oa_url is None  # openAccessPdf is null
    assert vaswani.tldr == "An architecture built only on attention replaces recurrent layers for sequence transduction."
    assert vaswani.authors == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]
    assert vaswani.external_ids["CorpusId"] == "13756489"

    assert speech.doi == "10.1109/icassp39728.2021.9413901"
    assert speech.arxiv_id == "2010.13154"
    assert speech.abstract is None and speech.tldr is None
    assert speech.oa_url == "https://arxiv.org/pdf/2010.13154"
    assert speech.pages == "21-25"

    assert promoters.title == "Multi-head attention maps of Escherichia coli promoter sequences"
    assert promoters.abstract == ("Attention weights of a transformer trained on E. coli promoters "
                                  "line up with known sigma-factor binding boxes.")
    assert promoters.journal == "Bioinformatics"  # venue is "" so journal.name is used
    assert promoters.pmid == "33560299"
    assert promoters.oa_url is None  # openAccessPdf.url is ""
    assert promoters.publication_date is None


def test_search_with_an_api_key_still_replays():
    # The key travels in a header the cassette config filters; matching ignores headers.
    papers, _ = run_with_cassette(
        "semantic_scholar/search_attention.yaml",
        lambda session: records_of(s2.search(session, "attention is all you need", 10)),
        env={"SEMANTIC_SCHOLAR_API_KEY": "secret-key-123"})
    assert len(papers) == 3


def test_get_paper_details_by_bare_doi_and_arxiv_id():
    async def both(session):
        return (await s2.get_paper_details(session, "https://doi.org/10.1109/ICASSP39728.2021.9413901"),
                await s2.get_paper_details(session, "1706.03762v7"))

    (speech, vaswani), cassette = run_with_cassette("semantic_scholar/paper_details.yaml", both)
    assert cassette.play_count == 2
    assert speech.title == "Attention Is All You Need In Speech Separation"
    assert speech.doi == "10.1109/icassp39728.2021.9413901"
    assert speech.rank is None
    assert vaswani.arxiv_id == "1706.03762"
    assert vaswani.tldr == "Attention alone is enough for translation."


def test_get_paper_details_not_found():
    with pytest.raises(ProviderError, match=r"^paper not found: 10\.1234/does-not-exist$"):
        run_with_cassette("semantic_scholar/paper_details.yaml",
                          lambda session: s2.get_paper_details(session, "10.1234/does-not-exist"))


def test_search_bulk_replays_and_cuts_to_the_limit():
    query = s2.combine_queries(["attention mechanism", "self-attention"])
    assert query == "(attention mechanism) | (self attention)"
    papers, cassette = run_with_cassette(
        "semantic_scholar/search_bulk_attention.yaml",
        lambda session: records_of(s2.search_bulk(session, query, 2)))
    assert cassette.play_count == 1
    assert [(paper.title, paper.citation_count, paper.rank) for paper in papers] == [
        ("Attention is All you Need", 98765, 1),
        ("Neural Machine Translation by Jointly Learning to Align and Translate", 27000, 2),
    ]


# ---------------------------------------------------------------- what goes on the wire

def capture_into(requests: list[httpx.Request]):
    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"total": 0, "offset": 0})
    return handler


def test_api_key_header_is_sent_when_configured():
    requests: list[httpx.Request] = []
    run_with_mock(capture_into(requests), {"SEMANTIC_SCHOLAR_API_KEY": "secret-key-123"})
    [request] = requests
    assert request.headers["x-api-key"] == "secret-key-123"
    assert "secret-key-123" not in str(request.url)


def test_no_api_key_header_without_a_key():
    requests: list[httpx.Request] = []
    run_with_mock(capture_into(requests), {})
    [request] = requests
    assert "x-api-key" not in request.headers


def test_search_parameters_on_the_wire():
    requests: list[httpx.Request] = []
    run_with_mock(capture_into(requests), {})
    [request] = requests
    assert request.url.host == "api.semanticscholar.org"
    assert request.url.path == "/graph/v1/paper/search"
    params = request.url.params
    assert params["query"] == "self attention in long term forecasting"  # hyphens split
    assert params["limit"] == "100"  # 250 asked, the endpoint caps pages at 100
    assert params["offset"] == "0"
    assert params["fields"] == s2.SEARCH_FIELDS
    assert s2.SEARCH_FIELDS == ("title,authors,year,venue,journal,externalIds,abstract,tldr,citationCount,"
                                "influentialCitationCount,openAccessPdf,publicationDate,publicationTypes,url")


def test_bulk_parameters_on_the_wire_leave_out_tldr():
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"total": 0, "token": None, "data": []})

    async def flow():
        settings = settings_from_env({})
        async with HttpClient(settings, transport=httpx.MockTransport(handler), policies=NO_PACING) as http:
            return (await s2.search_bulk(http.session(s2.NAME), '(a b) | (c)', 10)).records

    assert asyncio.run(flow()) == []
    params = requests[0].url.params
    assert requests[0].url.path == "/graph/v1/paper/search/bulk"
    assert params["query"] == "(a b) | (c)"
    assert params["sort"] == "citationCount:desc"
    assert "tldr" not in params["fields"].split(",")
    assert "limit" not in params


def test_paper_details_path_keeps_doi_slashes_and_encodes_the_rest():
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=json.dumps({"paperId": "x", "title": "T"}).encode())

    async def flow():
        async with HttpClient(settings_from_env({}), transport=httpx.MockTransport(handler),
                              policies=NO_PACING) as http:
            return await s2.get_paper_details(http.session(s2.NAME), "10.1002/(SICI)1097-0258#x")

    assert asyncio.run(flow()).title == "T"
    assert requests[0].url.raw_path.startswith(b"/graph/v1/paper/DOI:10.1002/%28sici%291097-0258%23x?")
