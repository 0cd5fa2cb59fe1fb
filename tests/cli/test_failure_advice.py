"""Failures that say what fixes them (issue 13, item 6): a rate limit or refusal that a key
would lift names the variable in plain words, in the footer and in JSON ``errors``; OpenAlex's
low daily allowance is reported once."""

from __future__ import annotations

import json

import pytest

import fake_apis
from fake_server import Answer, FakeServer
from fault_support import run_cli

S2_429 = Answer(429, json.dumps({"message": "Too Many Requests. Please wait and try again or apply for a key for "
                                            "higher rate limits. https://www.semanticscholar.org/product/api#api-key-form",
                                 "code": "429"}))


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def run(monkeypatch, capsys, server, routes, providers, *extra_env):
    env = fake_apis.install(server, routes)
    for item in extra_env:
        env.update(item)
    common = ["CRISPR off-target effects", "--providers", providers, "--no-verify"]
    markdown = run_cli(monkeypatch, capsys, env, common)
    as_json = run_cli(monkeypatch, capsys, env, common + ["--format", "json"])
    return markdown, json.loads(as_json.stdout)


def footer_line(markdown, provider):
    return next(line for line in markdown.stdout.splitlines() if line.startswith(f"- {provider}: failed"))


def test_semantic_scholar_429_without_a_key_names_the_variable(monkeypatch, capsys, server):
    markdown, payload = run(monkeypatch, capsys, server, {"/s2/graph/v1/paper/search": [S2_429]},
                            "semantic_scholar,openalex")
    [error] = payload["errors"]
    assert error["provider"] == "semantic_scholar"
    assert error["message"].startswith("HTTP 429 rate limited: ") and "SEMANTIC_SCHOLAR_API_KEY" in error["message"]
    assert "dedicated 1 request/s" in error["message"]
    line = footer_line(markdown, "semantic_scholar")
    assert "SEMANTIC" in line and "{" not in line and "\"code\"" not in line  # no raw JSON
    assert "semanticscholar[.]org" not in line and "https" not in line  # no mangled link


def test_with_the_key_set_the_advice_is_not_given(monkeypatch, capsys, server):
    _, payload = run(monkeypatch, capsys, server, {"/s2/graph/v1/paper/search": [S2_429]},
                     "semantic_scholar,openalex", {"SEMANTIC_SCHOLAR_API_KEY": "s2-test-key-000"})
    [error] = payload["errors"]
    assert "SEMANTIC_SCHOLAR_API_KEY" not in error["message"]
    assert error["message"].startswith("HTTP 429 rate limited: Too Many Requests")


@pytest.mark.parametrize("status", [401, 403, 429])
def test_openalex_refusals_name_its_key(monkeypatch, capsys, server, status):
    body = json.dumps({"error": "Unauthorized", "message": "API key required"})
    _, payload = run(monkeypatch, capsys, server, {"/openalex/works": [Answer(status, body)]},
                     "semantic_scholar,openalex")
    [error] = payload["errors"]
    assert error["provider"] == "openalex" and "OPENALEX_API_KEY" in error["message"]


def test_ncbi_429_names_its_key(monkeypatch, capsys, server):
    body = json.dumps({"error": "API rate limit exceeded", "count": "11"})
    _, payload = run(monkeypatch, capsys, server, {"/eutils/esearch.fcgi": [Answer(429, body)]},
                     "semantic_scholar,pubmed")
    [error] = payload["errors"]
    assert error["provider"] == "pubmed" and "NCBI_API_KEY" in error["message"] and "10/s" in error["message"]


def test_a_low_openalex_allowance_is_reported_once(monkeypatch, capsys, server):
    def low_budget(request):
        answer = fake_apis.openalex_works(request)
        answer.headers.update({"X-RateLimit-Remaining-USD": "0.0005", "X-RateLimit-Limit-USD": "0.01"})
        return answer

    markdown, payload = run(monkeypatch, capsys, server, {"/openalex/works": low_budget}, "openalex")
    notes = [w["message"] for w in payload["warnings"] if w["provider"] == "openalex"]
    assert len(notes) == 1 and "$0.0005 of $0.01 of today's OpenAlex allowance is left" in notes[0]
    assert "OPENALEX_API_KEY" in notes[0]
    assert markdown.stdout.count("allowance is left") == 1
