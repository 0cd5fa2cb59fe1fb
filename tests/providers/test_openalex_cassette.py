"""OpenAlex HTTP flow: replayed from tests/cassettes/openalex, and checked against a mock
transport for what goes on the wire."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from cassettes_support import cassette_vcr
from litsearch.core.config import Settings
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.providers import openalex
from litsearch.runtime.settings import settings_from_env

NO_PACING = {"openalex": PacePolicy(min_interval=0, max_in_flight=1, retries=0)}


async def _search(settings: Settings, query: str, limit: int, transport=None):
    async with HttpClient(settings, transport=transport, policies=NO_PACING) as http:
        return (await openalex.search(http.session(openalex.NAME), query, limit)).records


def search_with_cassette(env: dict[str, str]):
    with cassette_vcr().use_cassette("openalex/search_attention.yaml") as cassette:
        papers = asyncio.run(_search(settings_from_env(env), "attention is all you need", 10))
    assert cassette.play_count == 1
    return papers


def search_with_mock(handler, env: dict[str, str], query: str = "q", limit: int = 10):
    return asyncio.run(_search(settings_from_env(env), query, limit, httpx.MockTransport(handler)))


# ---------------------------------------------------------------- replayed flow

def test_search_replays_and_parses_the_page():
    papers = search_with_cassette({"LITSEARCH_EMAIL": "test@example.org"})
    assert [paper.rank for paper in papers] == [1, 2, 3]
    transformer, flies, speech = papers

    assert transformer.title == "Attention Is All You Need"
    assert transformer.openalex_id == "W2626778328"
    assert transformer.doi == "10.48550/arxiv.1706.03762"
    assert transformer.arxiv_id == "1706.03762"
    assert transformer.score == pytest.approx(2815.4102)
    assert transformer.oa_url == "https://arxiv.org/pdf/1706.03762"
    assert transformer.abstract == "Attention alone, without recurrence, is enough for translation."
    assert transformer.authors == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]
    assert transformer.publication_types == ["preprint"]

    assert flies.title == "Visual attention in Drosophila is all you need for course control"
    assert flies.doi == "10.1016/j.cub.2021.02.041"  # sent upper-case in the doi field
    assert flies.pmid == "33740426"
    assert flies.external_ids["pmcid"] == "PMC8159932"
    assert flies.journal == "Current Biology"
    assert (flies.volume, flies.issue, flies.pages) == ("31", "10", "2105-2116")
    assert flies.authors == ["Maria Rossi", "Kim, J."]  # raw name when display_name is null
    assert flies.oa_url == "https://www.cell.com/current-biology/fulltext/S0960-9822(21)00250-1"

    assert speech.abstract is None  # abstract_inverted_index is null
    assert speech.arxiv_id == "2010.13154"  # from the arXiv location, version dropped
    assert speech.doi == "10.1109/icassp39728.2021.9413901"
    assert speech.oa_url is None
    assert speech.pages == "21-25"


def test_search_replays_with_a_key_too():
    # api_key and mailto are dropped by the cassette config before matching.
    papers = search_with_cassette({"OPENALEX_API_KEY": "oa-key-456", "LITSEARCH_EMAIL": "me@example.org"})
    assert len(papers) == 3


# ---------------------------------------------------------------- what goes on the wire

def capture_into(requests: list[httpx.Request]):
    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"meta": {"count": 0}, "results": []})
    return handler


def test_api_key_and_mailto_are_sent_when_configured():
    requests: list[httpx.Request] = []
    search_with_mock(capture_into(requests), {"OPENALEX_API_KEY": "oa-key-456", "LITSEARCH_EMAIL": "me@example.org"})
    params = requests[0].url.params
    assert params["api_key"] == "oa-key-456"
    assert params["mailto"] == "me@example.org"


def test_no_identity_parameters_without_settings():
    requests: list[httpx.Request] = []
    search_with_mock(capture_into(requests), {})
    params = requests[0].url.params
    assert "api_key" not in params and "mailto" not in params


def test_search_parameters_on_the_wire():
    requests: list[httpx.Request] = []
    query = openalex.combine_queries(["heart failure", '"ejection fraction" AND sglt2'])
    search_with_mock(capture_into(requests), {}, query=query, limit=500)
    request = requests[0]
    assert (request.url.host, request.url.path) == ("api.openalex.org", "/works")
    params = request.url.params
    assert params["search"] == '(heart failure) OR ("ejection fraction" and sglt2)'
    assert params["per_page"] == "100"
    assert set(params["select"].split(",")) >= {"id", "doi", "display_name", "relevance_score",
                                                 "abstract_inverted_index", "locations"}


def test_html_answer_with_status_200_is_an_error():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<!doctype html><title>Maintenance</title>",
                              headers={"content-type": "text/html"})

    with pytest.raises(ProviderError, match="HTML page"):
        search_with_mock(handler, {})
