"""Citing papers beyond one page (issue 20, item 3): a well-cited paper's most cited citers are
shown whichever provider answers, and every output says what the list covers. The fake graph
pages Semantic Scholar's /citations as the API does (offset, limit up to 1,000, "next") in its
own order, and sorts OpenAlex's cites: list on the server (cited_by_count:desc, meta.count)."""

from __future__ import annotations

import asyncio

import pytest

from cli.test_paper_network_cli import OA, S2, CitationGraphAPI, make
from fake_server import FakeServer
from litsearch.graph.bundle import fetch_paper_bundle
from litsearch.graph.citing import citing_cap
from litsearch.graph.limits import MAX_CITING_PER_SEED
from litsearch.graph.network import build_network
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.render.network import network_markdown, network_payload
from litsearch.render.paper import paper_markdown, paper_payload
from litsearch.runtime.settings import settings_from_env

CITERS = 1_250  # more than one Semantic Scholar page of 1,000
FAMOUS = 5  # the most cited citers, listed last in Semantic Scholar's order


def _graph() -> list[dict]:
    seed = make("popular", "A popular method everyone builds on", 2015, CITERS, doi="10.5555/popular")
    # Semantic Scholar's order is not by citations: the famous citers come after the first page.
    citers = [make(f"c{n}", f"Follow-up study number {n} of the popular method", 2016 + n % 8, n % 40,
                   doi=f"10.5555/citer.{n}", refs=["popular"], authors=[f"Writer Number{n}"])
              for n in range(CITERS - FAMOUS)]
    famous = [make(f"f{n}", f"Landmark extension number {n} of the popular method", 2018, 50_000 - n,
                   doi=f"10.5555/famous.{n}", refs=["popular"], authors=[f"Famous Author{n}"])
              for n in range(FAMOUS)]
    return [seed, *citers, *famous]


GRAPH = _graph()


@pytest.fixture(scope="module")
def served():
    with FakeServer() as server:
        api = CitationGraphAPI(GRAPH)
        env = api.install(server)
        yield server, env, api


def _bundle(env: dict[str, str]):
    settings = settings_from_env({**env, "LITSEARCH_EMAIL": "t@example.org"})
    unpaced = {name: PacePolicy(0.0, 5, retries=0) for name in (S2, OA, "pubmed", "crossref")}

    async def go():
        async with HttpClient(settings, policies=unpaced) as http:
            return await fetch_paper_bundle(http, "10.5555/popular")
    return asyncio.run(go())


def _citation_requests(server, since: int):
    recent = server.requests[since:]
    s2 = [r for r in recent if r.path.endswith("/citations")]
    openalex = [r for r in recent if (r.param("filter") or "").startswith("cites:")]
    return s2, openalex


def test_a_long_list_adds_openalexs_most_cited_and_says_so(served):
    server, env, api = served
    api.down = set()
    before = len(server.requests)
    bundle = _bundle(env)
    s2_pages, openalex_pages = _citation_requests(server, before)
    assert [(r.param("offset"), r.param("limit")) for r in s2_pages] == [("0", "1000")]  # one page, not all
    [most_cited] = openalex_pages
    assert most_cited.param("sort") == "cited_by_count:desc" and most_cited.param("per_page") == "100"
    titles = [paper.title for paper in bundle.citations[:FAMOUS]]
    assert titles == [f"Landmark extension number {n} of the popular method" for n in range(FAMOUS)]
    assert bundle.citations_sources == [S2, OA] and not bundle.citations_complete
    assert bundle.citations_coverage == ("the first 1,000 Semantic Scholar lists (in its order, not by citations) "
                                         "and the 100 most cited of 1,250 in OpenAlex (sorted by citations)")
    # S2's page plus those of OpenAlex's 100 it lacked (one record each: merged by DOI).
    assert 1_000 + FAMOUS <= len(bundle.citations) <= 1_100
    assert len({paper.doi for paper in bundle.citations}) == len(bundle.citations)
    markdown = paper_markdown(bundle, 10)
    assert f"The 10 most cited of the {len(bundle.citations):,} fetched from Semantic Scholar and OpenAlex." in markdown
    assert f"Citing papers fetched: {bundle.citations_coverage}." in markdown
    payload = paper_payload(bundle)
    assert payload["citations_coverage"] == bundle.citations_coverage and payload["citations_complete"] is False


def test_without_openalex_semantic_scholar_is_paged_to_the_end(served):
    server, env, api = served
    api.down = {OA}
    try:
        before = len(server.requests)
        bundle = _bundle(env)
    finally:
        api.down = set()
    s2_pages, _ = _citation_requests(server, before)
    assert [r.param("offset") for r in s2_pages] == ["0", "1000"] and CITERS < citing_cap()
    assert bundle.citations_complete and bundle.citations_coverage == "all 1,250 citing papers Semantic Scholar lists"
    assert bundle.citations[0].title == "Landmark extension number 0 of the popular method"


def test_without_semantic_scholar_openalex_gives_the_most_cited(served):
    server, env, api = served
    api.down = {S2}
    try:
        bundle = _bundle(env)
    finally:
        api.down = set()
    assert bundle.citations_from == OA and bundle.citations_sources == [OA]
    assert bundle.citations_coverage == "the 100 most cited of 1,250 in OpenAlex (sorted by citations)"
    assert [p.title for p in bundle.citations[:FAMOUS]] == [
        f"Landmark extension number {n} of the popular method" for n in range(FAMOUS)]


def test_the_network_draws_the_most_cited_citers_and_states_the_coverage(served):
    _, env, _ = served
    settings = settings_from_env({**env, "LITSEARCH_EMAIL": "t@example.org"})
    unpaced = {name: PacePolicy(0.0, 5, retries=0) for name in (S2, OA, "pubmed", "crossref")}

    async def go():
        async with HttpClient(settings, policies=unpaced) as http:
            return await build_network(http, ["10.5555/popular"])
    network = asyncio.run(go())
    assert len(network.nodes) == 1 + MAX_CITING_PER_SEED
    drawn = {paper.title for paper in network.nodes.values()}
    assert {f"Landmark extension number {n} of the popular method" for n in range(FAMOUS)} <= drawn
    [coverage] = network.citing_coverage
    assert "the 100 most cited of 1,0" in coverage and "100 most cited of 1,250 in OpenAlex" in coverage
    assert network_payload(network)["citing_coverage"] == [coverage]
    assert "citing papers of " in network_markdown(network)
