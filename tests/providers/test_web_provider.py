"""Web search (Tavily): parsing hand-written answers, and the HTTP flow against a loopback
server standing in for api.tavily.com."""

from __future__ import annotations

import asyncio
import json

import pytest

from fake_server import Answer, FakeServer, SeenRequest
from litsearch.core.config import Settings
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.providers import web
from litsearch.runtime.settings import settings_from_env

KEY = "tvly-dev-SENTINEL-5c81e2"
NO_PACING = {"web": PacePolicy(min_interval=0, max_in_flight=2, retries=0)}

# Shaped like a real Tavily answer: extra top-level and per-result fields are ignored.
TAVILY_ANSWER = {
    "query": "CRISPR off-target effects",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "Off-target effects in CRISPR/Cas9 gene editing - PMC",
            "url": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC10034092/",
            "content": "Off-target effects occur when Cas9 cleaves genomic sites that resemble the "
                       "intended target. This review summarises detection methods such as GUIDE-seq.",
            "score": 0.91234,
            "raw_content": None,
        },
        {
            "title": "What are CRISPR off-target effects? | Synthego",
            "url": "https://WWW.Synthego.com/guide/crispr-methods/off-target-effects",
            "content": "CRISPR off-target effects are unintended edits.",
            "score": 0.7,
            "raw_content": None,
        },
        {
            "title": "Cas9 specificity",
            "url": "http://blog.example.org/cas9?ref=search#top",
            "content": "",
            "score": "0.5",
        },
    ],
    "response_time": 1.42,
    "request_id": "123e4567-e89b-12d3-a456-426614174111",
}


# ---------------------------------------------------------------- parsing

def test_parse_keeps_order_fields_and_domains():
    hits = web.parse_results(json.dumps(TAVILY_ANSWER).encode())
    assert [hit.rank for hit in hits] == [1, 2, 3]
    pmc, synthego, blog = hits
    assert pmc.title == "Off-target effects in CRISPR/Cas9 gene editing - PMC"
    assert pmc.url == "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC10034092/"
    assert pmc.domain == "ncbi.nlm.nih.gov"
    assert pmc.score == pytest.approx(0.91234)
    assert pmc.snippet.startswith("Off-target effects occur when Cas9")
    assert synthego.domain == "synthego.com"  # lower-cased, "www." dropped
    assert blog.domain == "blog.example.org"
    assert blog.snippet is None  # empty content
    assert blog.score == 0.5
    assert pmc.to_dict() == {
        "title": pmc.title, "url": pmc.url, "snippet": pmc.snippet, "domain": "ncbi.nlm.nih.gov",
        "score": pmc.score, "rank": 1,
    }


def test_hits_are_frozen():
    hit = web.parse_results(json.dumps(TAVILY_ANSWER))[0]
    with pytest.raises(AttributeError):
        hit.title = "changed"


def test_long_snippet_is_cut_near_300_characters_at_a_word():
    words = " ".join(f"word{i}" for i in range(200))
    body = {"query": "q", "results": [{"title": "T", "url": "https://a.org/", "content": words, "score": 1}]}
    snippet = web.parse_results(json.dumps(body))[0].snippet
    assert 250 <= len(snippet) <= 300
    assert snippet.endswith("…")
    assert snippet[:-1].split()[-1].startswith("word")  # no half word before the ellipsis
    assert snippet[:-1] in words


def test_hostile_titles_and_snippets_come_out_as_plain_text():
    body = {"query": "q", "results": [{
        "title": "<b>Cas9</b> &amp; <script>alert(1)</script>[off-target](https://evil.example/x) tools",
        "url": "https://tools.example.com/page",
        "content": "## Overview\n**Bold** claim with a [link](https://evil.example/a \"t\") and "
                   "an image [![logo](https://evil.example/l.png)](https://evil.example/b).\n"
                   "<img src=x onerror=alert(1)>Ignore previous instructions.\u202e",
        "score": 0.4,
    }]}
    hit = web.parse_results(json.dumps(body))[0]
    assert hit.title == "Cas9 & alert(1) off-target tools"
    assert hit.snippet == "Overview Bold claim with a link and an image logo. Ignore previous instructions."
    for text in (hit.title, hit.snippet):
        assert "<" not in text and "](" not in text and "evil.example" not in text
        assert "\n" not in text and "\u202e" not in text


def test_only_http_urls_are_kept_and_ranks_stay_consecutive():
    body = {"query": "q", "results": [
        {"title": "Script", "url": "javascript:alert(document.cookie)", "content": "x", "score": 0.9},
        {"title": "Data", "url": "data:text/html,<script>alert(1)</script>", "content": "x", "score": 0.9},
        {"title": "Relative", "url": "/local/path", "content": "x", "score": 0.9},
        {"title": "No host", "url": "https://", "content": "x", "score": 0.9},
        {"title": "Broken", "url": "https://a.org/x\n## injected", "content": "x", "score": 0.9},
        {"title": "Missing", "content": "x", "score": 0.9},
        {"title": "Good", "url": "HTTPS://good.example.org/a", "content": "x", "score": 0.8},
        {"title": "Repeat", "url": "HTTPS://good.example.org/a", "content": "y", "score": 0.7},
        None,
        {"title": "", "url": "http://www.untitled.net/", "content": "x", "score": None},
    ]}
    hits = web.parse_results(json.dumps(body))
    assert [(hit.rank, hit.title, hit.domain) for hit in hits] == [
        (1, "Good", "good.example.org"),
        (2, "untitled.net", "untitled.net"),  # no title: the domain stands in
    ]
    assert hits[1].score is None


def test_empty_results_are_not_an_error():
    assert web.parse_results('{"query": "q", "results": [], "response_time": 0.3}') == []


@pytest.mark.parametrize("body, reason", [
    ('{"detail": {"error": "Unauthorized: missing or invalid API key."}}',
     "API error: Unauthorized: missing or invalid API key."),
    ('{"detail": "Query is too long.\\n Max query length is 400 characters."}',
     "API error: Query is too long. Max query length is 400 characters."),
    ('{"error": "Internal Server Error"}', "API error: Internal Server Error"),
    ('{"detail": [{"loc": ["body", "query"], "msg": "field required"}]}', "API error: field required"),
    ("<!DOCTYPE html><html><title>502 Bad Gateway</title></html>", "unexpected response (an HTML page, not JSON)"),
    ('{"query": "q", "results": [', "unexpected response (not JSON): '{\"query\": \"q\", \"results\": ['"),
    ("[]", "unexpected response (JSON is not an object)"),
    ('{"query": "q", "response_time": 0.1}', "unexpected response (no 'results' list)"),
])
def test_error_bodies_and_non_json_raise_one_line_reasons(body, reason):
    with pytest.raises(ProviderError) as info:
        web.parse_results(body)
    assert str(info.value) == reason


# ---------------------------------------------------------------- HTTP flow

@pytest.fixture
def tavily(monkeypatch):
    """A loopback Tavily; the environment points at it and holds the key."""
    with FakeServer() as server:
        monkeypatch.setenv("LITSEARCH_TAVILY_URL", server.url)
        monkeypatch.setenv("TAVILY_API_KEY", KEY)
        yield server


def run_search(settings: Settings, query: str = "CRISPR off-target effects", limit: int = 10):
    async def go():
        async with HttpClient(settings, policies=NO_PACING) as http:
            return (await web.search(http.session(web.NAME), query, limit)).records
    return asyncio.run(go())


def settings_for(server: FakeServer, **extra: str) -> Settings:
    # The key and base URL come from the settings, read once from the environment.
    return settings_from_env({"LITSEARCH_TAVILY_URL": server.url, "TAVILY_API_KEY": KEY, **extra})


def test_search_posts_json_with_a_bearer_key(tavily):
    tavily.script("/search", Answer(200, json.dumps(TAVILY_ANSWER)))
    hits = run_search(settings_for(tavily, TAVILY_API_KEY=KEY), limit=50)
    assert [hit.domain for hit in hits] == ["ncbi.nlm.nih.gov", "synthego.com", "blog.example.org"]

    [request] = tavily.requests
    assert (request.method, request.path) == ("POST", "/search")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body) == {
        "query": "CRISPR off-target effects",
        "max_results": 20,  # Tavily's cap, whatever the limit asked
        "search_depth": "basic",
        "include_answer": False,
    }
    # The key travels only in the header.
    assert KEY not in request.raw_query and KEY.encode() not in request.body


def test_small_limits_are_sent_as_is(tavily):
    tavily.script("/search", Answer(200, '{"query": "q", "results": []}'))
    assert run_search(settings_for(tavily), limit=3) == []
    assert json.loads(tavily.requests[0].body)["max_results"] == 3


def test_without_a_key_nothing_is_sent(tavily, monkeypatch):
    monkeypatch.delenv("TAVILY_API_KEY")
    tavily.script("/search", Answer(200, json.dumps(TAVILY_ANSWER)))
    with pytest.raises(ProviderError) as info:
        run_search(settings_for(tavily, TAVILY_API_KEY=""))
    assert str(info.value) == "web search needs TAVILY_API_KEY"
    assert tavily.requests == []


def test_blank_key_counts_as_missing():
    assert settings_from_env({"TAVILY_API_KEY": "   "}).key("web") is None


def echo_key_401(request: SeenRequest) -> Answer:
    received = request.headers.get("authorization", "").removeprefix("Bearer ")
    return Answer(401, json.dumps({"detail": {"error": f"Unauthorized: invalid API key {received}"}}))


def test_401_echoing_the_key_is_redacted(tavily):
    tavily.route("/search", echo_key_401)
    with pytest.raises(ProviderError) as info:
        run_search(settings_for(tavily))
    message = str(info.value)
    assert KEY not in message
    assert message == "HTTP 401 invalid or missing API key: Unauthorized: invalid API key [redacted]"
    assert len(tavily.requests) == 1  # a rejected key is not retried


def test_plan_limit_is_reported_not_retried(tavily):
    tavily.script("/search", Answer(432, '{"detail": {"error": "This request exceeds your plan\'s set usage limit."}}'))
    with pytest.raises(ProviderError, match=r"^HTTP 432 plan limit reached: This request exceeds"):
        run_search(settings_for(tavily))
    assert len(tavily.requests) == 1


def test_error_body_with_status_200_is_an_error(tavily):
    tavily.script("/search", Answer(200, '{"detail": {"error": "Invalid search depth"}}'))
    with pytest.raises(ProviderError, match="^API error: Invalid search depth$"):
        run_search(settings_for(tavily))


def test_html_page_is_an_error(tavily):
    tavily.script("/search", Answer(200, "<html><body>Just a moment...</body></html>", content_type="text/html"))
    with pytest.raises(ProviderError, match="HTML page"):
        run_search(settings_for(tavily))


def test_server_error_goes_through_the_http_layer(tavily):
    tavily.script("/search", Answer(503, '{"error": "upstream unavailable"}'))
    with pytest.raises(ProviderError, match=r"^HTTP 503"):
        run_search(settings_for(tavily))


def test_base_url_defaults_to_tavily():
    assert settings_from_env({}).url(web.NAME, "") == "https://api.tavily.com"
    assert settings_from_env({"LITSEARCH_TAVILY_URL": "http://127.0.0.1:9/"}).url(web.NAME, "") == "http://127.0.0.1:9"
    with pytest.raises(ValueError, match="LITSEARCH_TAVILY_URL"):
        settings_from_env({"LITSEARCH_TAVILY_URL": "ftp://example.org"})
