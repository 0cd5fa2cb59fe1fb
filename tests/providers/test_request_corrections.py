"""Requests checked against the APIs' documentation (issue 13, item 9): the exact request each
provider sends. PubMed author terms and OpenAlex name resolution are in core/test_filters.py."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

import fake_apis
from fake_server import Answer, FakeServer
from fault_support import run_cli
from litsearch.core.filters import build_filters
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import arxiv, crossref, semantic_scholar
from litsearch.runtime.settings import settings_from_env


# ---------------------------------------------------------------- Semantic Scholar bulk syntax

@pytest.mark.parametrize("variant, group", [
    ("CRISPR AND Cas9", "CRISPR + Cas9"),
    ("gene OR genome editing", "gene | genome editing"),
    ("off-target NOT plants", "off target -plants"),
    ("AND leading OR operators", "leading | operators"),
    ("trailing operator AND", "trailing operator"),
    ("lower and or not stay words", "lower and or not stay words"),
])
def test_boolean_words_become_bulk_syntax(variant, group):
    assert semantic_scholar.bulk_group(variant) == group


def test_the_bulk_request_carries_the_mapped_query():
    with FakeServer() as server:
        env = fake_apis.install(server)

        async def go():
            settings = settings_from_env(env)
            async with HttpClient(settings, policies={"semantic_scholar": PacePolicy(0, 1)}) as http:
                query = semantic_scholar.combine_queries(["CRISPR AND Cas9", "gene NOT plants"])
                return await semantic_scholar.search_bulk(http.session("semantic_scholar"), query, 10)

        asyncio.run(go())
        (request,) = server.requests_to("/s2/graph/v1/paper/search/bulk")
    assert request.param("query") == "(CRISPR + Cas9) | (gene -plants)"


def test_paper_batch_sends_at_most_500_ids_per_call():
    seen: list[tuple[str, list[str]]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        ids = json.loads(request.content)["ids"]
        fields = request.url.params["fields"]
        seen.append((fields, ids))
        if fields == "referenceCount":
            return httpx.Response(200, json=[{"paperId": i, "referenceCount": 5} for i in ids])
        return httpx.Response(200, json=[{"paperId": i, "references": [{"paperId": "x"}] * 5} for i in ids])

    async def go():
        async with HttpClient(settings_from_env({}), transport=httpx.MockTransport(handler),
                              policies={"semantic_scholar": PacePolicy(0, 1)}) as http:
            return await semantic_scholar.fetch_reference_ids(http.session("semantic_scholar"),
                                                              [f"CorpusId:{n}" for n in range(1200)])

    answers = asyncio.run(go())
    assert [(fields, len(ids)) for fields, ids in seen] == [("referenceCount", 500), ("referenceCount", 500),
                                                            ("referenceCount", 200)] + [
        ("paperId,references.paperId,references.externalIds", n) for n in (500, 500, 200)]
    assert len(answers) == 1200 and all(len(references) == 5 for references in answers)


# ---------------------------------------------------------------- Crossref pools

def test_crossref_paces_by_pool():
    public = crossref.PROVIDER.pace_policy(settings_from_env({}))
    polite = crossref.PROVIDER.pace_policy(settings_from_env({"LITSEARCH_EMAIL": "me@example.org"}))
    assert (public.min_interval, public.max_in_flight) == (1.0, 1)  # public pool since 1 Dec 2025
    assert (polite.min_interval, polite.max_in_flight) == (pytest.approx(1 / 3), 3)


# ---------------------------------------------------------------- arXiv date clause

FEED = """<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns="http://www.w3.org/2005/Atom">
  <opensearch:totalResults>1</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex>
  <entry><id>https://arxiv.org/abs/2201.99999v1</id><title>A Title</title>
    <published>2022-01-05T10:00:00Z</published><summary>Text.</summary>
    <author><name>Some One</name></author></entry>
</feed>"""


def test_a_failing_date_clause_is_retried_once_without_it_and_checked_locally():
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        query = request.url.params["search_query"]
        sent.append(query)
        if "submittedDate" in query:
            return httpx.Response(503, text="Service Unavailable")
        return httpx.Response(200, text=FEED, headers={"content-type": "application/atom+xml"})

    async def go():
        async with HttpClient(settings_from_env({}), transport=httpx.MockTransport(handler),
                              policies={"arxiv": PacePolicy(0, 1, retries=0)}) as http:
            return await arxiv.search(http.session("arxiv"), "graph networks", 10, build_filters(year="2020-2023"))

    answer = asyncio.run(go())
    assert sent == ["((all:graph AND all:networks)) AND submittedDate:[202001010000 TO 202312312359]",
                    "(all:graph AND all:networks)"]
    assert "date" not in answer.native_filters  # so the pipeline checks the year after fetching
    assert [r.arxiv_id for r in answer.records] == ["2201.99999"]
    assert "the date filter failed at arXiv (HTTP 503)" in answer.notes[0]


def test_other_arxiv_failures_are_not_retried_without_the_date():
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.params["search_query"])
        return httpx.Response(403, text="Forbidden")

    async def go():
        async with HttpClient(settings_from_env({}), transport=httpx.MockTransport(handler),
                              policies={"arxiv": PacePolicy(0, 1, retries=0)}) as http:
            return await arxiv.search(http.session("arxiv"), "graph", 10, build_filters(year="2020"))

    with pytest.raises(Exception, match="HTTP 403"):
        asyncio.run(go())
    assert len(sent) == 1


def test_the_date_retry_end_to_end_filters_the_year(monkeypatch, capsys):
    with FakeServer() as server:
        failing = Answer(503, "busy", content_type="text/plain")
        env = fake_apis.install(server, {"/arxiv/query": lambda request: failing
                                         if "submittedDate" in (request.param("search_query") or "")
                                         else fake_apis.arxiv_query(request)})
        run = run_cli(monkeypatch, capsys, env, ["attention transformer", "--providers", "arxiv", "--year", "2017",
                                                 "--format", "json", "--no-verify"])
    payload = json.loads(run.stdout)
    assert run.exit_code == 0 and payload["errors"] == []
    assert payload["results"] and all(r["year"] == 2017 for r in payload["results"])
    assert payload["filters"] == ["year 2017: no provider applies it itself; applied after fetching for arxiv"]


# ---------------------------------------------------------------- /paper/batch sized by what it asks (issue 20, item 6)

def _library_of_reviews(count: int, references_each: int) -> dict[str, dict]:
    """Papers S2 knows, each citing ``references_each`` others (a library of reviews)."""
    return {f"CorpusId:{n}": {"s2": f"{n:040x}", "refs": [{"paperId": f"{n:020x}{r:020x}", "externalIds": {}}
                                                          for r in range(references_each)]}
            for n in range(count)}


def _batch_server(server: FakeServer, library: dict[str, dict]) -> dict[str, str]:
    env = fake_apis.install(server)
    server.route("/s2/graph/v1/paper/batch",
                 fake_apis.s2_batch_for(library.get, lambda paper: paper["refs"]))
    return env


def test_linking_100_papers_with_many_references_stays_under_the_nested_cap():
    """100 saved papers of 120 references each: 12,000 nested references, more than one call
    may carry (9,999). Today's 100-id call is refused; sized batches carry them all."""
    library = _library_of_reviews(100, 120)
    with FakeServer() as server:
        env = _batch_server(server, library)

        async def go():
            async with HttpClient(settings_from_env(env), policies={"semantic_scholar": PacePolicy(0, 1)}) as http:
                return await semantic_scholar.fetch_reference_ids(http.session("semantic_scholar"), list(library))

        answers = asyncio.run(go())
        calls = server.requests_to("/s2/graph/v1/paper/batch")
    assert [len(ids) for ids in answers] == [120] * 100 and answers.notes == []
    counts, *reference_calls = calls
    assert counts.param("fields") == "referenceCount" and len(json.loads(counts.body)["ids"]) == 100
    sizes = [len(json.loads(call.body)["ids"]) for call in reference_calls]
    assert sum(sizes) == 100 and all(size * 120 <= 9_999 for size in sizes) and len(sizes) == 2


def test_batches_skip_unknown_papers_and_papers_citing_nothing():
    library = {"CorpusId:1": {"s2": "a" * 40, "refs": []},
               "CorpusId:2": {"s2": "b" * 40, "refs": [{"paperId": "c" * 40, "externalIds": {"DOI": "10.1/x"}}]}}
    with FakeServer() as server:
        env = _batch_server(server, library)

        async def go():
            async with HttpClient(settings_from_env(env), policies={"semantic_scholar": PacePolicy(0, 1)}) as http:
                return await semantic_scholar.fetch_reference_ids(http.session("semantic_scholar"),
                                                                  ["CorpusId:1", "CorpusId:9", "CorpusId:2"])

        answers = asyncio.run(go())
        _, only = server.requests_to("/s2/graph/v1/paper/batch")
    assert answers == [[], [], [{"paperId": "c" * 40, "externalIds": {"DOI": "10.1/x"}}]]
    assert json.loads(only.body)["ids"] == ["CorpusId:2"]


def test_sized_batches_respect_the_cap_and_the_id_limit():
    from litsearch.providers.semantic_scholar_batch import sized_batches

    assert sized_batches([5000, 5000, 10, None, 0, 20_000, 1]) == [[0], [1, 2], [5], [6]]
    assert [len(batch) for batch in sized_batches([1] * 1200)] == [500, 500, 200]


def test_the_key_advice_says_what_is_true_now():
    """Semantic Scholar keys are no longer "free on request": free email domains and
    third-party apps are not approved (issue 20, item 6)."""
    advice = semantic_scholar.PROVIDER.key_benefit
    assert "free on request" not in advice
    assert "SEMANTIC_SCHOLAR_API_KEY" in advice and "not approved for free email addresses" in advice
