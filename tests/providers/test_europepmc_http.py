"""Europe PMC's requests, checked on an httpx.MockTransport: the /search parameters (format,
resultType, pageSize, cursorMark, email, no sort), cursorMark paging replayed from the real
recorded 10-page chain, where paging stops, filters and variants in the query, failures, and
the provider's declaration."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import unquote

import httpx
import pytest

from conftest import shared_file
from litsearch.core.config import Settings
from litsearch.core.errors import ProviderError
from litsearch.core.filters import build_filters
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import europepmc
from litsearch.providers.base import SearchRequest
from litsearch.runtime.settings import declared_services, settings_from_env

BASE = "https://www.ebi.ac.uk/europepmc/webservices/rest"
# No pacing and no retries, so failures surface at once.
POLICIES = {"europepmc": PacePolicy(min_interval=0, max_in_flight=2, retries=0)}


def settings(email: str | None = "dev@example.org", base: str = BASE) -> Settings:
    return Settings(services=declared_services(), base_urls={"europepmc": base}, email=email)


def page(results: list[dict], cursor: str | None = None, asked: str = "%2A", hits: int | None = None) -> dict:
    body = {"version": "6.9", "hitCount": len(results) if hits is None else hits,
            "request": {"cursorMark": asked}, "resultList": {"result": results}}
    if cursor:
        body["nextCursorMark"] = cursor
    return body


def result(number: int) -> dict:
    return {"id": str(number), "source": "MED", "pmid": str(number), "title": f"Paper {number}",
            "doi": f"10.5555/{number}"}


class FakeEuropePMC:
    """Answers /search from ``pages`` keyed by the cursorMark asked; records each request."""

    def __init__(self, pages: dict[str, dict] | None = None, answer: httpx.Response | None = None):
        self.pages = pages or {"*": page([result(1), result(2)])}
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.answer is not None:
            return self.answer
        if request.url.path != "/europepmc/webservices/rest/search":
            return httpx.Response(404, text="no such endpoint")
        body = self.pages.get(request.url.params.get("cursorMark", ""))
        if body is None:
            return httpx.Response(500, text="unknown cursor")
        return httpx.Response(200, json=body)

    def params(self, number: int = 0) -> dict[str, str]:
        return dict(self.requests[number].url.params)


def run(fake: FakeEuropePMC, call, config: Settings | None = None):
    async def go():
        async with HttpClient(config or settings(), transport=httpx.MockTransport(fake), policies=POLICIES) as http:
            outcome = await call(http.session("europepmc"))
            return outcome, http.sent

    return asyncio.run(go())


def search(fake, query="crispr off-target", limit=10, filters=None, config=None, **options):
    answer, _sent = run(fake, lambda s: europepmc.search(s, query, limit, filters, **options), config)
    return answer


# ---------------------------------------------------------------- one page

def test_a_search_sends_europe_pmcs_parameters():
    fake = FakeEuropePMC()
    answer = search(fake, limit=10)
    assert [paper.pmid for paper in answer.records] == ["1", "2"]
    assert [paper.rank for paper in answer.records] == [1, 2]
    assert answer.ranked and answer.native_filters == frozenset() and answer.notes == []
    (request,) = fake.requests
    assert request.method == "GET"
    assert str(request.url).startswith(BASE + "/search?")
    assert fake.params() == {"query": "crispr off-target", "format": "json", "resultType": "core",
                             "pageSize": "10", "cursorMark": "*", "email": "dev@example.org"}
    assert "sort" not in fake.params()  # relevance is the API's default order


def test_without_a_contact_email_none_is_sent():
    fake = FakeEuropePMC()
    search(fake, config=settings(email=None))
    assert "email" not in fake.params()


def test_the_contact_email_is_redacted_in_the_request_log():
    fake = FakeEuropePMC()
    _answer, sent = run(fake, lambda s: europepmc.search(s, "x", 5))
    assert sent[0]["params"]["email"] == "[redacted]"
    assert sent[0]["url"] == BASE + "/search"


def test_an_overridden_base_url_is_used():
    fake = FakeEuropePMC()
    search(fake, config=settings(base="http://127.0.0.1:9/europepmc/webservices/rest"))
    assert str(fake.requests[0].url).startswith("http://127.0.0.1:9/europepmc/webservices/rest/search?")


@pytest.mark.parametrize("limit, page_size", [(1, "1"), (100, "100"), (1000, "250"), (5000, "250")])
def test_page_size_follows_the_limit_within_the_cap(limit, page_size):
    fake = FakeEuropePMC()
    search(fake, limit=limit)
    assert fake.params()["pageSize"] == page_size


@pytest.mark.parametrize("query, limit", [("", 10), ("   ", 10), ("crispr", 0)])
def test_nothing_to_ask_sends_nothing(query, limit):
    fake = FakeEuropePMC()
    assert search(fake, query=query, limit=limit).records == []
    assert fake.requests == []


# ---------------------------------------------------------------- paging

def recorded_chain() -> list[dict]:
    return json.loads(shared_file(
        "europepmc/pyeuropepmc__search_query_cancer_cursor_chain_10pages_x100.json").read_bytes())


def test_paging_follows_the_recorded_cursor_chain():
    chain = recorded_chain()
    # Each recorded page answers the cursor that asked for it (echoed URL-encoded in the page).
    pages = {"*": chain[0], **{unquote(body["request"]["cursorMark"]): body for body in chain[1:]}}
    fake = FakeEuropePMC(pages)
    answer = search(fake, "cancer", limit=250, page_size=100)
    assert len(fake.requests) == 3
    assert [fake.params(n)["cursorMark"] for n in range(3)] == [
        "*", chain[0]["nextCursorMark"], chain[1]["nextCursorMark"]]
    # Sent as returned, encoded once on the wire ("==" as %3D%3D, never %253D).
    assert "%253D" not in str(fake.requests[1].url) and "%3D%3D" in str(fake.requests[1].url)
    assert len(answer.records) == 250
    assert [paper.rank for paper in answer.records] == list(range(1, 251))
    recorded_ids = [f"{r['source']}:{r['id']}" for body in chain[:3] for r in body["resultList"]["result"]][:250]
    assert [paper.external_ids["europepmc"] for paper in answer.records] == recorded_ids


def test_paging_stops_where_the_answer_ends():
    fake = FakeEuropePMC({"*": page([result(1), result(2)], cursor="c2", hits=3),
                          "c2": page([result(3)], asked="c2", hits=3)})
    answer = search(fake, limit=10, page_size=2)
    assert [paper.pmid for paper in answer.records] == ["1", "2", "3"]
    assert len(fake.requests) == 2  # page 2 has no nextCursorMark: the end


def test_no_page_is_asked_after_every_hit_was_listed():
    # The real API returns a nextCursorMark on its last page too: 18 hits, pages of 100, one request.
    fake = FakeEuropePMC({"*": page([result(n) for n in range(1, 19)], cursor="AoIIP+", hits=18)})
    answer = search(fake, limit=100, page_size=100)
    assert len(answer.records) == 18 and len(fake.requests) == 1


def test_no_page_is_asked_after_a_short_one():
    # A page shorter than the size asked is the last, whatever hitCount says.
    fake = FakeEuropePMC({"*": page([result(1), result(2)], cursor="c2", hits=2),
                          "c2": page([result(3)], cursor="c3", asked="c2", hits=50)})
    answer = search(fake, limit=10, page_size=2)
    assert len(answer.records) == 2 and len(fake.requests) == 1  # hitCount 2 reached
    fake = FakeEuropePMC({"*": page([result(1)], cursor="c2", hits=50), "c2": page([result(2)], asked="c2", hits=50)})
    answer = search(fake, limit=10, page_size=2)
    assert len(answer.records) == 1 and len(fake.requests) == 1  # one result asked two: the last page


def test_paging_never_asks_the_same_cursor_twice():
    # A server that keeps returning one cursor for ever must not keep lit-search asking.
    fake = FakeEuropePMC({"*": page([result(1)], cursor="loop", hits=10),
                          "loop": page([result(2)], cursor="loop", hits=10)})
    answer = search(fake, limit=10, page_size=1)
    assert [paper.pmid for paper in answer.records] == ["1", "2"]
    assert len(fake.requests) == 2


def test_paging_stops_at_the_limit_and_drops_repeats():
    fake = FakeEuropePMC({"*": page([result(1), result(2)], cursor="c2", hits=6),
                          "c2": page([result(2), result(3)], cursor="c3", asked="c2", hits=6),
                          "c3": page([result(4), result(5)], cursor="c4", asked="c3", hits=6)})
    answer = search(fake, limit=3, page_size=2)
    assert [paper.pmid for paper in answer.records] == ["1", "2", "3"]
    assert len(fake.requests) == 2


def test_unreadable_records_are_noted():
    fake = FakeEuropePMC({"*": page([result(1), {"id": "2", "source": "MED", "title": ["not", "text"],
                                                 "authorList": {"author": [None]}}, result(3)])})
    answer = search(fake)
    assert [paper.pmid for paper in answer.records] == ["1", "3"]


# ---------------------------------------------------------------- query and filters

def test_variants_are_joined_with_or():
    assert europepmc.PROVIDER.combine_queries(["CRISPR off-target", "Cas9 specificity"]) == \
        "(CRISPR off-target) OR (Cas9 specificity)"
    fake = FakeEuropePMC()
    request = SearchRequest(query=europepmc.combine_queries(["a b", "c[tiab]"]), limit=5, combined=True)
    run(fake, lambda s: europepmc.PROVIDER.search(s, request))
    assert fake.params()["query"] == "(a b) OR (c)"


@pytest.mark.parametrize("variant, cleaned", [
    ("CRISPR off-target", "CRISPR off-target"),
    ('crispr[tiab] AND "off target', "crispr AND off target"),  # PubMed tag, unbalanced quote
    ("COVID-19: long-term outcomes?", "COVID-19 long-term outcomes"),  # prose colon, wildcard
    ("-aardvark +cats", "aardvark cats"),  # Lucene's exclude/require signs
    ("x AND NOT y", "x AND NOT y"),
    ("AND x OR", "x"),  # operators with nothing on one side
    ("(a OR b", "a OR b"),  # unbalanced parenthesis
    ("TITLE:cancer AND PUB_YEAR:[2019 TO 2020]", "TITLE:cancer AND PUB_YEAR:[2019 TO 2020]"),
    ("a {b} ^c ~d !e && f || g", "a b c d e f g"),
    ('"gene drive" (mosquito OR malaria)', '"gene drive" (mosquito OR malaria)'),
])
def test_variants_keep_europe_pmc_syntax_and_lose_the_rest(variant, cleaned):
    assert europepmc.clean_variant(variant) == cleaned


@pytest.mark.parametrize("name, term", [
    ("Jennifer Doudna", 'AUTH:"Doudna J"'), ("Doudna, Jennifer", 'AUTH:"Doudna J"'),
    ("J.A. Doudna", 'AUTH:"Doudna JA"'), ("Doudna", 'AUTH:"Doudna"'),
    ("van Beethoven, Ludwig", 'AUTH:"van Beethoven L"'), ("Ludwig van Beethoven", 'AUTH:"Ludwig van Beethoven"'),
    ('"', ""), (", J", ""),
])
def test_author_names_in_europe_pmcs_form(name, term):
    assert europepmc.author_term(name) == term


def test_a_date_range_within_years_uses_the_first_publication_date():
    query, native = europepmc.build_query("crispr", build_filters(since="2020-03-01", until="2020-06-30"))
    assert query == "(crispr) AND FIRST_PDATE:[2020-03-01 TO 2020-06-30]" and native == {"date"}
    query, _ = europepmc.build_query("crispr", build_filters(year="2019-"))
    assert query == "(crispr) AND PUB_YEAR:[2019 TO 3000]"


def test_filters_travel_in_the_query():
    filters = build_filters(year="2019-2024", venue="Nature Biotechnology", author="Jennifer Doudna",
                            open_access=True, types=["review"], min_citations=5)
    fake = FakeEuropePMC()
    answer = search(fake, "crispr", filters=filters)
    assert fake.params()["query"] == ('(crispr) AND PUB_YEAR:[2019 TO 2024] AND AUTH:"Doudna J" '
                                      'AND JOURNAL:"Nature Biotechnology" AND OPEN_ACCESS:y AND PUB_TYPE:review')
    # Citation counts are no Europe PMC field: checked after fetching.
    assert answer.native_filters == frozenset({"date", "venue", "author", "open_access", "type"})


@pytest.mark.parametrize("preprints, clause", [(True, " AND SRC:PPR"), (False, " NOT SRC:PPR"), (None, "")])
def test_the_preprints_choice_is_a_source_clause(preprints, clause):
    fake = FakeEuropePMC()
    search(fake, "crispr", preprints=preprints)
    assert fake.params()["query"] == ("(crispr)" + clause if clause else "crispr")


# ---------------------------------------------------------------- failures

@pytest.mark.parametrize("answer, message", [
    (httpx.Response(500, text="<html>Internal error</html>"), "500"),
    (httpx.Response(200, text="<html><body>maintenance</body></html>"), "HTML page"),
    (httpx.Response(200, text='<?xml version="1.0"?><responseWrapper/>'), "XML"),
    (httpx.Response(200, json={"errMsg": "Syntax error in query"}), "Syntax error in query"),
])
def test_failures_are_provider_errors(answer, message):
    with pytest.raises(ProviderError, match=message):
        search(FakeEuropePMC(answer=answer))


# ---------------------------------------------------------------- the declaration

def test_the_provider_declares_itself():
    from litsearch.core.services import FULL_TEXT, OR_QUERIES, SEARCH
    from litsearch.providers import registry

    provider = europepmc.PROVIDER
    declared = provider.service
    assert declared is registry.service("europepmc") and "europepmc" in registry.searchable()
    assert (provider.name, provider.label) == ("europepmc", "Europe PMC")
    assert declared.base_url == BASE and declared.url_variable == "LITSEARCH_EUROPEPMC_URL"
    assert declared.key is None and not declared.email.required and declared.email.parameter == "email"
    assert provider.pace_policy(settings()) == PacePolicy(min_interval=0.2, max_in_flight=2)
    assert {SEARCH, OR_QUERIES, FULL_TEXT} <= declared.capabilities
    # The settings read the override from the declaration, as for every provider.
    assert settings_from_env({"LITSEARCH_EUROPEPMC_URL": "http://127.0.0.1:9/epmc/"}).base_urls["europepmc"] == \
        "http://127.0.0.1:9/epmc"


def test_the_probe_is_one_cheap_id_lookup():
    fake = FakeEuropePMC(answer=httpx.Response(503, text="down"))
    response, _sent = run(fake, lambda s: europepmc.PROVIDER.probe(s))
    assert response.status == 503  # the status is what doctor --check reports
    params = fake.params()
    assert params["query"] == 'DOI:"10.1038/nbt.2647"'
    assert (params["resultType"], params["pageSize"], params["format"]) == ("idlist", "1", "json")
