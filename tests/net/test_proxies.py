"""A researcher behind an institutional proxy: lit-search sends through the proxy the
environment names (HTTP_PROXY / HTTPS_PROXY / ALL_PROXY), and goes direct for hosts in
NO_PROXY, as curl, pip and every httpx client do."""

from __future__ import annotations

import os
import subprocess

import fake_apis
from command import lit_search_command
from fake_server import FakeServer

UNREACHABLE = "http://api.lit-search-test.invalid"  # never resolves: only a proxy can answer for it
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def run(env: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(lit_search_command() + ["CRISPR off-target effects", "--providers", "openalex,pubmed",
                                                  "--limit", "3", "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)


def clean_environment(tmp_path) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items()
               if not k.startswith("LITSEARCH_") and k.upper() not in PROXY_VARIABLES},
            "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}


def test_requests_go_through_the_proxy_the_environment_names(tmp_path):
    with FakeServer() as proxy:
        direct = fake_apis.install(proxy)
        # The APIs' own addresses cannot be reached; the proxy answers for them.
        env = {**clean_environment(tmp_path), **{name: url.replace(proxy.url, UNREACHABLE)
                                                 for name, url in direct.items()},
               "HTTP_PROXY": proxy.url}
        finished = run(env, tmp_path)
        assert finished.returncode == 0, finished.stderr
        assert "Traceback" not in finished.stderr
        assert proxy.requests_to("/openalex/works") and proxy.requests_to("/eutils/esearch.fcgi")
        assert {request.headers.get("host") for request in proxy.requests} == {"api.lit-search-test.invalid"}


def test_hosts_in_no_proxy_are_reached_directly(tmp_path):
    with FakeServer() as server:
        env = {**clean_environment(tmp_path), **fake_apis.install(server),
               "HTTP_PROXY": UNREACHABLE, "NO_PROXY": "127.0.0.1,localhost"}
        finished = run(env, tmp_path)
        assert finished.returncode == 0, finished.stderr
        assert server.requests_to("/openalex/works")
