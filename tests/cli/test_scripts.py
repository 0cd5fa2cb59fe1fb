"""The per-provider helper scripts, run as a user would, against the fake APIs.

The base-URL variables must redirect every request: the fake server sees them all,
and nothing else is reachable here anyway.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import fake_apis
from fake_server import Answer, FakeServer

from conftest import REPO  # noqa: E402
PROVIDERS = ("semantic_scholar", "openalex", "pubmed", "arxiv")
ROUTES = {"semantic_scholar": "/s2/", "openalex": "/openalex/", "pubmed": "/eutils/", "arxiv": "/arxiv/"}


def run_script(provider: str, args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITSEARCH_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, str(REPO / "scripts" / f"{provider}.py"), *args],
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def apis():
    with FakeServer() as server:
        yield server, fake_apis.install(server)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_script_prints_normalized_records_from_the_fake_api(apis, provider):
    server, env = apis
    proc = run_script(provider, ["CRISPR off-target", "--limit", "10"], env)
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    expected = fake_apis._papers_for(provider, "CRISPR off-target")
    assert len(records) == len(expected)
    by_title = {r["title"].rstrip("."): r for r in records}
    for paper in expected:
        title = paper.get("s2_title", paper["title"]) if provider == "semantic_scholar" else paper["title"]
        title = title.replace("<i>", "").replace("</i>", "").rstrip(".")
        record = by_title[title]
        assert record["provider"] == provider
        assert record["year"] == paper["year"]
        assert paper["authors"][0].split()[-1] in record["authors"][0]
        if paper.get("doi") and provider != "arxiv" and paper.get(f"{provider}_doi", "x") is not None:
            assert record["doi"] == paper["doi"].lower()
        if paper.get("arxiv") and provider in ("semantic_scholar", "arxiv", "openalex"):
            if provider != "openalex" or "arxiv" in (paper.get("openalex_doi") or ""):
                assert record["arxiv_id"] == paper["arxiv"]
        if paper.get("pmid") and provider in ("pubmed", "openalex"):
            assert record["pmid"] == paper["pmid"]
        if paper.get("abstract"):
            assert record["abstract"] and paper["abstract"].split()[2] in record["abstract"]
        assert [r["rank"] for r in records] == list(range(1, len(records) + 1))
    # Every request went to the fake server, under the provider's own base path.
    assert server.requests and all(r.path.startswith(ROUTES[provider]) for r in server.requests)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_script_help_documents_every_option(provider):
    proc = run_script(provider, ["--help"], {})
    assert proc.returncode == 0
    for word in ("query", "--limit", "LITSEARCH_EMAIL", "Exit codes"):
        assert word in proc.stdout


@pytest.mark.parametrize("provider", PROVIDERS)
def test_script_failure_is_one_line_on_stderr(apis, provider):
    server, _ = apis
    route = {"semantic_scholar": "/s2/graph/v1/paper/search", "openalex": "/openalex/works",
             "pubmed": "/eutils/esearch.fcgi", "arxiv": "/arxiv/query"}[provider]
    env = fake_apis.install(server, {route: [Answer(403, '{"error": "forbidden"}')]})
    proc = run_script(provider, ["anything"], env)
    assert proc.returncode == 3
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{provider}: HTTP 403")


@pytest.mark.parametrize("args", [["   "], ["q", "--limit", "0"], ["q", "--limit", "x"]])
def test_script_usage_errors_exit_2(args):
    proc = run_script("openalex", args, {})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_bad_base_url_is_a_clear_error():
    proc = run_script("arxiv", ["q"], {"LITSEARCH_ARXIV_URL": "ftp://example.org"})
    assert proc.returncode == 2
    assert "LITSEARCH_ARXIV_URL must be an http(s) URL" in proc.stderr


def test_the_europe_pmc_script_prints_its_records_from_its_fake(apis):
    server, env = apis
    proc = run_script("europepmc", ["CRISPR off-target", "--limit", "10"], env)
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert {r["provider"] for r in records} == {"europepmc"} and len(records) == 4
    assert "Research Square (preprint)" in {r["journal"] for r in records}
    assert server.requests and all(r.path.startswith("/europepmc/search") for r in server.requests)
    assert "LITSEARCH_EUROPEPMC_URL" in run_script("europepmc", ["--help"], {}).stdout
