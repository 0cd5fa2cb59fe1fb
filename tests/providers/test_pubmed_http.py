"""PubMed's requests, checked on an httpx.MockTransport: two calls per search (esearch, then
efetch for the whole records), identity parameters, the GET/POST switch for long id lists,
and what happens when efetch fails."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs

import httpx
import pytest

from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.providers import pubmed
from litsearch.runtime.settings import settings_from_env


async def records_of(answer):
    """A provider search's records (the rest of its ProviderAnswer aside)."""
    return (await answer).records

# No pacing and no retries, so failures surface at once.
POLICIES = {"pubmed": PacePolicy(min_interval=0, max_in_flight=3, retries=0)}


def esearch_body(ids: list[str]) -> str:
    return json.dumps({"header": {"type": "esearch"},
                       "esearchresult": {"count": str(len(ids)), "idlist": ids}})


def efetch_body(ids: list[str]) -> str:
    articles = "".join(
        f"<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><Journal><Title>Journal of Tests</Title>"
        f"<JournalIssue><Volume>9</Volume><PubDate><Year>2021</Year><Month>May</Month><Day>1</Day></PubDate>"
        f"</JournalIssue></Journal><ArticleTitle>Fetched title {pmid}.</ArticleTitle>"
        f"<Abstract><AbstractText>Abstract of {pmid}.</AbstractText></Abstract>"
        f"<AuthorList><Author><LastName>Roe</LastName><ForeName>Rita</ForeName></Author></AuthorList>"
        f"<PublicationTypeList><PublicationType>Journal Article</PublicationType></PublicationTypeList>"
        f"</Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType=\"doi\">10.5555/{pmid}"
        f"</ArticleId><ArticleId IdType=\"pmc\">PMC{pmid}</ArticleId></ArticleIdList></PubmedData>"
        f"</PubmedArticle>" for pmid in ids)
    return f'<?xml version="1.0" ?><PubmedArticleSet>{articles}</PubmedArticleSet>'


class FakeEutils:
    """Answers esearch/efetch from the ids asked for; records each request."""

    def __init__(self, ids: list[str], fail: dict[str, httpx.Response] | None = None):
        self.ids = ids
        self.fail = fail or {}
        self.requests: list[httpx.Request] = []

    def params(self, request: httpx.Request) -> dict[str, str]:
        if request.method == "POST":
            form = parse_qs(request.content.decode(), keep_blank_values=True)
            return {key: values[0] for key, values in form.items()}
        return dict(request.url.params)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        endpoint = request.url.path.rsplit("/", 1)[-1]
        if endpoint in self.fail:
            return self.fail[endpoint]
        params = self.params(request)
        if endpoint == "esearch.fcgi":
            return httpx.Response(200, text=esearch_body(self.ids), headers={"content-type": "application/json"})
        ids = params["id"].split(",")
        if endpoint == "efetch.fcgi":
            return httpx.Response(200, text=efetch_body(ids), headers={"content-type": "text/xml"})
        return httpx.Response(404, text="no such endpoint")


def run(fake: FakeEutils, coroutine_factory, env: dict[str, str] | None = None):
    settings = settings_from_env(env if env is not None else {"LITSEARCH_EMAIL": "dev@example.org"})

    async def go():
        async with HttpClient(settings, transport=httpx.MockTransport(fake), policies=POLICIES) as http:
            return await coroutine_factory(http.session("pubmed"))

    return asyncio.run(go())


def test_every_request_carries_tool_email_and_api_key():
    fake = FakeEutils(["101", "102"])
    env = {"LITSEARCH_EMAIL": "dev@example.org", "NCBI_API_KEY": "k3y-for-tests"}
    records = run(fake, lambda s: records_of(pubmed.search(s, "sleep apnea", 2)), env)
    assert [r.pmid for r in records] == ["101", "102"]
    # Two calls: esearch for the ids, efetch for the whole records (no esummary).
    assert [r.url.path.rsplit("/", 1)[-1] for r in fake.requests] == ["esearch.fcgi", "efetch.fcgi"]
    for request in fake.requests:
        assert request.method == "GET"
        params = fake.params(request)
        assert params["tool"] == "lit-search"
        assert params["email"] == "dev@example.org"
        assert params["api_key"] == "k3y-for-tests"
        assert params["db"] == "pubmed"
    search_params = fake.params(fake.requests[0])
    assert search_params["term"] == "sleep apnea"
    assert (search_params["retmode"], search_params["retmax"], search_params["sort"]) == ("json", "2", "relevance")


def test_without_email_or_key_only_tool_is_sent():
    fake = FakeEutils(["101"])
    run(fake, lambda s: records_of(pubmed.search(s, "x", 1)), env={})
    for request in fake.requests:
        params = fake.params(request)
        assert params["tool"] == "lit-search"
        assert "email" not in params and "api_key" not in params


def test_limit_is_capped_at_100():
    fake = FakeEutils([])
    assert run(fake, lambda s: records_of(pubmed.search(s, "x", 500))) == []
    assert fake.params(fake.requests[0])["retmax"] == "100"
    assert len(fake.requests) == 1


def test_long_id_lists_switch_to_post():
    ids = [str(500000 + n) for n in range(201)]
    fake = FakeEutils(ids)
    records, _notes = run(fake, lambda s: pubmed.fetch_records(s, ids))
    assert len(records) == 201
    assert [r.rank for r in records[:3]] == [1, 2, 3]
    assert {r.method for r in fake.requests} == {"POST"}
    for request in fake.requests:
        form = fake.params(request)
        assert form["id"].split(",") == ids
        assert form["tool"] == "lit-search" and form["email"] == "dev@example.org"
        assert not request.url.query  # everything travels in the form body


def test_two_hundred_ids_still_use_get():
    ids = [str(600000 + n) for n in range(200)]
    fake = FakeEutils(ids)
    run(fake, lambda s: pubmed.fetch_records(s, ids))
    assert {r.method for r in fake.requests} == {"GET"}


def search_with_notes(session, query, limit):
    """pubmed.search's records and its notes (partial failures)."""
    async def go():
        answer = await pubmed.search(session, query, limit)
        return answer.records, answer.notes
    return go()


def test_efetch_failure_fails_the_provider():
    # efetch is the one source of records: without it there is nothing to show.
    fake = FakeEutils(["101", "102"], fail={"efetch.fcgi": httpx.Response(503, text="Service unavailable")})
    with pytest.raises(ProviderError, match="HTTP 503"):
        run(fake, lambda s: records_of(pubmed.search(s, "x", 2)))


def test_malformed_efetch_xml_fails_the_provider():
    bad = httpx.Response(200, text="<PubmedArticleSet><PubmedArticle>", headers={"content-type": "text/xml"})
    fake = FakeEutils(["101"], fail={"efetch.fcgi": bad})
    with pytest.raises(ProviderError, match="malformed XML"):
        run(fake, lambda s: records_of(pubmed.search(s, "x", 1)))


def test_efetch_gives_the_whole_record():
    fake = FakeEutils(["101", "102"])
    records = run(fake, lambda s: records_of(pubmed.search(s, "x", 2)))
    record = records[0]
    assert (record.title, record.abstract, record.authors) == ("Fetched title 101.", "Abstract of 101.", ["Rita Roe"])
    assert (record.year, record.publication_date, record.journal, record.volume) == (
        2021, "2021-05-01", "Journal of Tests", "9")
    assert record.doi == "10.5555/101" and record.external_ids["pmcid"] == "PMC101"
    assert record.publication_types == ["Journal Article"]


def test_esearch_rate_limit_json_raises():
    answer = httpx.Response(200, text='{"error":"API rate limit exceeded","count":"11"}',
                            headers={"content-type": "application/json"})
    fake = FakeEutils(["101"], fail={"esearch.fcgi": answer})
    with pytest.raises(ProviderError, match="API rate limit exceeded"):
        run(fake, lambda s: records_of(pubmed.search(s, "x", 1)))
    assert len(fake.requests) == 1


def test_records_keep_esearch_order():
    fake = FakeEutils(["303", "101", "202"])
    records = run(fake, lambda s: records_of(pubmed.search(s, "x", 3)))
    assert [(r.pmid, r.rank) for r in records] == [("303", 1), ("101", 2), ("202", 3)]
    assert records[0].title == "Fetched title 303."
    assert records[0].abstract == "Abstract of 303."
    assert records[0].score is None


def test_an_untitled_article_uses_its_vernacular_title():
    body = ('<?xml version="1.0" ?><PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>101</PMID><Article>'
            "<ArticleTitle>[Not Available].</ArticleTitle><VernacularTitle>Titre original.</VernacularTitle>"
            "</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")
    answer = httpx.Response(200, text=body, headers={"content-type": "text/xml"})
    fake = FakeEutils(["101"], fail={"efetch.fcgi": answer})
    (record,) = run(fake, lambda s: records_of(pubmed.search(s, "x", 1)))
    assert record.title == "Titre original."
