"""arXiv's request and its failure answers, checked on an httpx.MockTransport."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.providers import arxiv
from litsearch.runtime.settings import settings_from_env

POLICIES = {"arxiv": PacePolicy(min_interval=0, max_in_flight=1, retries=0)}

ONE_ENTRY = """<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <opensearch:totalResults>1</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex>
  <entry><id>https://arxiv.org/abs/2201.99999v1</id><title>A Title</title>
    <published>2022-01-05T10:00:00Z</published><summary>Text.</summary>
    <author><name>Some One</name></author><arxiv:primary_category term="cs.IR"/></entry>
</feed>"""

ERROR_FEED = """<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns="http://www.w3.org/2005/Atom">
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry><id>https://arxiv.org/api/errors#max_results_must_be_lower</id><title>Error</title>
    <summary>max_results must be less than 30000</summary><author><name>arXiv api core</name></author></entry>
</feed>"""


def run(handler, query: str, limit: int):
    requests: list[httpx.Request] = []

    def recording(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return handler(request)

    async def go():
        async with HttpClient(settings_from_env({}), transport=httpx.MockTransport(recording),
                              policies=POLICIES) as http:
            return (await arxiv.search(http.session("arxiv"), query, limit)).records

    return asyncio.run(go()), requests


def atom(text: str, status: int = 200):
    return lambda request: httpx.Response(status, text=text, headers={"content-type": "application/atom+xml"})


def test_request_parameters():
    records, requests = run(atom(ONE_ENTRY), 'graph "neural" networks', 500)
    assert [r.arxiv_id for r in records] == ["2201.99999"]
    (request,) = requests
    assert str(request.url).startswith("https://export.arxiv.org/api/query?")
    assert dict(request.url.params) == {
        "search_query": "(all:graph AND all:neural AND all:networks)",
        "start": "0",
        "max_results": "100",
        "sortBy": "relevance",
        "sortOrder": "descending",
    }


def test_error_feed_with_http_200_raises_its_summary():
    with pytest.raises(ProviderError, match="max_results must be less than 30000"):
        run(atom(ERROR_FEED), "x", 5)


def test_error_feed_with_http_400_raises_its_summary():
    with pytest.raises(ProviderError, match="max_results must be less than 30000"):
        run(atom(ERROR_FEED, status=400), "x", 5)


def test_http_400_without_an_error_entry_still_fails():
    with pytest.raises(ProviderError, match="HTTP 400"):
        run(atom(ONE_ENTRY, status=400), "x", 5)


def test_rate_exceeded_text_with_http_200_raises():
    handler = lambda request: httpx.Response(200, text="Rate exceeded.", headers={"content-type": "text/plain"})
    with pytest.raises(ProviderError, match="rate exceeded"):
        run(handler, "x", 5)


def test_query_without_searchable_words_sends_nothing():
    records, requests = run(atom(ONE_ENTRY), '"" ( ) :', 5)
    assert records == [] and requests == []


@pytest.mark.parametrize("query", [
    arxiv.combine_queries(["protein language model", "PLM scaling"]),
    "au:del_maestro AND ti:checkerboard",
])
def test_queries_in_arxiv_syntax_are_sent_unchanged(query):
    _, (request,) = run(atom(ONE_ENTRY), query, 5)
    assert request.url.params["search_query"] == query


def test_plain_words_that_merely_contain_a_colon_are_rebuilt():
    _, (request,) = run(atom(ONE_ENTRY), "ratio 3:1 mixtures", 5)
    assert request.url.params["search_query"] == "(all:ratio AND all:3 AND all:1 AND all:mixtures)"
