"""A researcher behind an institutional proxy: lit-search sends through the proxy the
environment names (HTTP_PROXY / HTTPS_PROXY / ALL_PROXY), and goes direct for hosts in
NO_PROXY, as curl, pip and every httpx client do."""

from __future__ import annotations

import fake_apis
from command import command_env, command_runner
from fake_server import FakeServer

UNREACHABLE = "http://api.lit-search-test.invalid"  # never resolves: only a proxy can answer for it
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


SEARCH = ["CRISPR off-target effects", "--providers", "openalex,pubmed", "--limit", "3", "--format", "json"]


def search(tmp_path, *settings: dict[str, str]) -> None:
    """A search in an environment with no proxy variable but those in ``settings``."""
    env = {name: value for name, value in command_env(LITSEARCH_CACHE_DIR=str(tmp_path / "data")).items()
           if name.upper() not in PROXY_VARIABLES}
    for group in settings:
        env.update(group)
    command_runner(env, tmp_path)(SEARCH)


def test_requests_go_through_the_proxy_the_environment_names(tmp_path):
    with FakeServer() as proxy:
        direct = fake_apis.install(proxy)
        # The APIs' own addresses cannot be reached; the proxy answers for them.
        search(tmp_path, {name: url.replace(proxy.url, UNREACHABLE) for name, url in direct.items()},
               {"HTTP_PROXY": proxy.url})
        assert proxy.requests_to("/openalex/works") and proxy.requests_to("/eutils/esearch.fcgi")
        assert {request.headers.get("host") for request in proxy.requests} == {"api.lit-search-test.invalid"}


def test_hosts_in_no_proxy_are_reached_directly(tmp_path):
    with FakeServer() as server:
        search(tmp_path, fake_apis.install(server), {"HTTP_PROXY": UNREACHABLE, "NO_PROXY": "127.0.0.1,localhost"})
        assert server.requests_to("/openalex/works")
