"""The Europe PMC provider against the loopback fake (tests/fake_europepmc.py) over real HTTP:
records overlapping the other fakes' corpus, cursorMark paging, SRC:PPR preprints, the retracted
paper's notice, the preprint<->published link next to PubMed's record, and faults."""

from __future__ import annotations

import asyncio
import json

import pytest

import fake_apis
import fake_europepmc
from fake_server import Answer, FakeServer, SeenRequest
from litsearch.core.config import Settings
from litsearch.runtime.settings import declared_services
from litsearch.core.errors import ProviderError
from litsearch.core.filters import build_filters
from litsearch.dedupe.clusters import merge_records
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import europepmc
from litsearch.providers.pubmed_parse import parse_efetch

FAST = PacePolicy(min_interval=0, max_in_flight=2, retries=0)


@pytest.fixture(scope="module")
def shared_server():
    with FakeServer() as fake:  # one server for the module: each shutdown costs half a second
        yield fake


@pytest.fixture
def server(shared_server):
    shared_server.requests.clear()
    fake_europepmc.install(shared_server)  # undo the last test's overrides
    return shared_server


def search(server, query, limit=10, filters=None, overrides=None, policy=FAST, **options):
    env = fake_europepmc.install(server, overrides)
    settings = Settings(services=declared_services(), base_urls={"europepmc": env["LITSEARCH_EUROPEPMC_URL"]}, email="dev@example.org",
                        backoff_seconds=0.01, read_timeout=5)

    async def go():
        async with HttpClient(settings, policies={"europepmc": policy}) as http:
            return await europepmc.search(http.session("europepmc"), query, limit, filters, **options)

    return asyncio.run(go())


def seen(path: str, **params: str) -> SeenRequest:
    """A request as the fake server hands it to a route."""
    return SeenRequest(0.0, "GET", path, {name: [value] for name, value in params.items()}, {}, b"")


def by_key(key: str) -> dict:
    return next(p for p in fake_europepmc.papers() if p["key"] == key)


def test_records_share_ids_with_the_other_fakes(server):
    answer = search(server, "crispr off-target")
    corpus = {p["key"]: p for p in fake_apis.CORPUS}
    records = {paper.external_ids["europepmc"]: paper for paper in answer.records}
    assert set(records) == {"MED:23873081", "MED:36970624", "PPR:PPR571234", "PPR:PPR602468"}
    crispr = records["MED:23873081"]
    assert (crispr.doi, crispr.pmid) == (corpus["crispr"]["doi"], corpus["crispr"]["pmid"])
    assert crispr.oa_url == "https://europepmc.org/articles/PMC3969858?pdf=render"
    assert crispr.abstract.startswith("Background: The Streptococcus pyogenes Cas9 nuclease")
    assert crispr.authors == corpus["crispr"]["authors"]
    assert [paper.rank for paper in answer.records] == [1, 2, 3, 4]


def test_paging_by_cursor_mark_gathers_every_page(server):
    answer = search(server, "crispr off-target", limit=10, page_size=1)
    requests = server.requests_to(fake_europepmc.SEARCH_ROUTE)
    assert len(requests) == 4  # four papers, one per page; the last page names no next cursor
    cursors = [request.param("cursorMark") for request in requests]
    assert cursors[0] == "*" and len(set(cursors)) == 4
    assert all(fake_europepmc.offset_of(cursor) == number for number, cursor in enumerate(cursors))
    assert all(request.param("pageSize") == "1" and request.param("resultType") == "core" for request in requests)
    assert len(answer.records) == 4


def test_preprints_only_and_none(server):
    only = search(server, "crispr off-target", preprints=True)
    assert [paper.journal for paper in only.records] == ["bioRxiv (preprint)", "Research Square (preprint)"]
    assert all("preprint" in [kind.lower() for kind in paper.publication_types] for paper in only.records)
    none = search(server, "crispr off-target", preprints=False)
    assert [paper.external_ids["europepmc"] for paper in none.records] == ["MED:23873081", "MED:36970624"]
    assert "NOT SRC:PPR" in server.requests[-1].param("query")


def test_type_preprint_and_open_access_filters(server):
    answer = search(server, "crispr", filters=build_filters(types=["preprint"], open_access=True))
    assert {paper.external_ids["ppr"] for paper in answer.records} == {"PPR571234", "PPR602468"}
    assert answer.native_filters == frozenset({"type", "open_access"})
    years = search(server, "crispr", filters=build_filters(year="2023-2024"))
    assert sorted(paper.year for paper in years.records) == [2023, 2023]


def test_the_retracted_paper_carries_pubmeds_notice(server):
    answer = search(server, "gastric organoid stem cells")
    retracted = next(paper for paper in answer.records if paper.pmid == "31000001")
    assert retracted.retracted is True
    assert [(u["type"], u["notice_doi"], u["notice_pmid"]) for u in retracted.updates] == [
        ("retraction", "10.5555/jfg.2021.0045", "34000002")]


def test_europe_pmc_and_pubmed_records_of_one_paper_merge(server):
    answer = search(server, "crispr off-target")
    efetch = fake_apis.pubmed_efetch(seen("/eutils/efetch.fcgi", id="23873081,36970624"))
    pubmed_records = list(parse_efetch(efetch.body).values())
    merged = merge_records([*answer.records, *pubmed_records])
    by_pmid = {paper.pmid: paper for paper in merged if paper.pmid}
    assert by_pmid["23873081"].provider == "merged" and by_pmid["36970624"].provider == "merged"
    # The preprint names the article it became: the PMID PubMed's record carries.
    preprint = next(paper for paper in answer.records if paper.external_ids.get("ppr") == "PPR571234")
    assert preprint.external_ids["published_pmid"] == "36970624"
    article = next(paper for paper in answer.records if paper.pmid == "36970624")
    assert article.external_ids["preprint_ppr"] == "PPR571234"


def test_lite_idlist_and_xml_forms():
    route = fake_europepmc.SEARCH_ROUTE
    lite = json.loads(fake_europepmc.search(seen(route, query="crispr", resultType="lite", format="json")).body)
    assert lite["resultList"]["result"][0]["pubType"] == "journal article"
    assert "abstractText" not in lite["resultList"]["result"][0]
    ids = json.loads(fake_europepmc.search(seen(route, query="crispr", resultType="idlist", format="json")).body)
    assert ids["resultList"]["result"][0] == {"id": "23873081", "source": "MED", "pmid": "23873081",
                                              "pmcid": "PMC3969858"}
    assert ids["request"]["cursorMark"] == "%2A"  # echoed URL-encoded, as the API does
    xml = fake_europepmc.search(seen(route, query="crispr"))  # the API's default format is XML
    assert xml.body.startswith("<?xml") and "<responseWrapper>" in xml.body


@pytest.mark.parametrize("fault, message", [
    ("server_error", "500"), ("blocked", "403"), ("maintenance_page", "HTML page"),
    ("no_result_list", "no resultList"),
])
def test_faults_fail_the_provider_with_one_line(server, fault, message):
    overrides = {fake_europepmc.SEARCH_ROUTE: [fake_europepmc.FAULTS[fault]]}
    with pytest.raises(ProviderError, match=message):
        search(server, "crispr", overrides=overrides)


def test_a_rate_limit_once_is_retried(server):
    overrides = {fake_europepmc.SEARCH_ROUTE: [fake_europepmc.FAULTS["rate_limited"], None]}
    answer = search(server, "crispr off-target", overrides=overrides,
                    policy=PacePolicy(min_interval=0, max_in_flight=2, retries=1))
    assert len(answer.records) == 4
    assert len(server.requests_to(fake_europepmc.SEARCH_ROUTE)) == 2


def test_a_bad_cursor_is_the_apis_error(server):
    overrides = {fake_europepmc.SEARCH_ROUTE: [Answer(200, json.dumps({"version": "6.9", "hitCount": 9,
                                                                       "nextCursorMark": "not-a-cursor",
                                                                       "resultList": {"result": [
                                                                           fake_europepmc.core_record(
                                                                               by_key("crispr"))]}})), None]}
    with pytest.raises(ProviderError, match="Invalid cursorMark"):
        search(server, "crispr", limit=5, page_size=1, overrides=overrides)
