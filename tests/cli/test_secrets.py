"""Secrets: with sentinel values in every key variable, no key reaches stdout, stderr, logs
or a recorded cassette, even when the servers echo the keys back in their answers."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

import fake_apis
from cassettes_support import cassette_vcr
from fake_server import Answer, FakeServer, SeenRequest
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import openalex
from litsearch.runtime.settings import settings_from_env
from command import lit_search_command

from conftest import REPO  # noqa: E402
SENTINELS = {
    "SEMANTIC_SCHOLAR_API_KEY": "S2-SENTINEL-7f3a9c",
    "NCBI_API_KEY": "NCBI-SENTINEL-42b8e1",
    "OPENALEX_API_KEY": "OA-SENTINEL-9d0c55",
    "TAVILY_API_KEY": "TAVILY-SENTINEL-13aa07",
}


def echoing_s2(request: SeenRequest) -> Answer:
    """Semantic Scholar that puts the x-api-key it received into a title."""
    body = json.loads(fake_apis.s2_search(request).body)
    body["data"][0]["title"] = f"Echo {request.headers.get('x-api-key')} title"
    return Answer(200, json.dumps(body))


def echoing_openalex(request: SeenRequest) -> Answer:
    body = json.loads(fake_apis.openalex_works(request).body)
    body["results"][0]["abstract_inverted_index"] = {"key": [0], request.param("api_key") or "none": [1]}
    return Answer(200, json.dumps(body))


def echoing_efetch(request: SeenRequest) -> Answer:
    answer = fake_apis.pubmed_efetch(request)
    body = answer.body.replace("<ArticleTitle>", f"<ArticleTitle>Echoed {request.param('api_key')} ", 1)
    return Answer(200, body, content_type=answer.content_type)


def run_command(args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITSEARCH_")}
    env.update({"LITSEARCH_EMAIL": "secrets@example.org", **SENTINELS, **env_extra})
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def assert_no_sentinel(*texts: str) -> None:
    for text in texts:
        for value in SENTINELS.values():
            assert value not in text


@pytest.fixture
def echoing_server():
    with FakeServer() as server:
        env = fake_apis.install(server, {"/s2/graph/v1/paper/search": echoing_s2,
                                         "/openalex/works": echoing_openalex,
                                         "/eutils/efetch.fcgi": echoing_efetch})
        yield server, env


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_echoed_keys_never_reach_the_output(echoing_server, fmt):
    server, env = echoing_server
    proc = run_command(lit_search_command() + ["CRISPR off-target", "--providers", "semantic_scholar,openalex,pubmed,arxiv",
                                       "--format", fmt], env)
    assert proc.returncode == 0, proc.stderr
    # The keys really were sent (so the echo happened) ...
    assert server.requests_to("/s2/")[0].headers["x-api-key"] == SENTINELS["SEMANTIC_SCHOLAR_API_KEY"]
    assert server.requests_to("/openalex/")[0].param("api_key") == SENTINELS["OPENALEX_API_KEY"]
    assert server.requests_to("/eutils/efetch.fcgi")[0].param("api_key") == SENTINELS["NCBI_API_KEY"]
    # ... and were scrubbed from everything shown.
    assert_no_sentinel(proc.stdout, proc.stderr)
    assert "Echo [redacted] title" in proc.stdout


def test_keys_echoed_in_error_bodies_are_scrubbed(echoing_server):
    server, env = echoing_server
    leak = json.dumps({"error": f"invalid api_key {SENTINELS['OPENALEX_API_KEY']}"})
    env = fake_apis.install(server, {"/openalex/works": [Answer(401, leak)],
                                     "/s2/graph/v1/paper/search": [Answer(403, SENTINELS["SEMANTIC_SCHOLAR_API_KEY"],
                                                                          content_type="text/plain")]})
    proc = run_command(lit_search_command() + ["CRISPR", "--providers", "semantic_scholar,openalex,pubmed", "--format", "json"],
                       env)
    payload = json.loads(proc.stdout)
    assert {e["provider"] for e in payload["errors"]} == {"openalex", "semantic_scholar"}
    assert_no_sentinel(proc.stdout, proc.stderr)


@pytest.mark.parametrize("provider", ["semantic_scholar", "openalex", "pubmed"])
def test_helper_scripts_scrub_echoed_keys(echoing_server, provider):
    _, env = echoing_server
    proc = run_command([sys.executable, str(REPO / "scripts" / f"{provider}.py"), "CRISPR"], env)
    assert proc.returncode == 0, proc.stderr
    assert "[redacted]" in proc.stdout
    assert_no_sentinel(proc.stdout, proc.stderr)


def test_a_recorded_cassette_holds_no_key(echoing_server, tmp_path, monkeypatch):
    """Record (mode "all") through the project's VCR config: URL, headers and echoing body are scrubbed."""
    _, env = echoing_server
    for name, value in {**SENTINELS, "LITSEARCH_RECORD_MODE": "all", **env}.items():
        monkeypatch.setenv(name, value)
    recorder = cassette_vcr()
    recorder.cassette_library_dir = str(tmp_path)
    settings = settings_from_env()

    async def search():
        async with HttpClient(settings, policies={"openalex": PacePolicy(0, 1)}) as http:
            return (await openalex.search(http.session("openalex"), "CRISPR", 5)).records

    with recorder.use_cassette("secret_check.yaml"):
        records = asyncio.run(search())
    assert records
    cassette = (tmp_path / "secret_check.yaml").read_text()
    assert "interactions" in cassette and "/works" in cassette
    assert_no_sentinel(cassette)
