"""Open copies come from public addresses only (net/addresses.py): which addresses are
public, how a host name is judged, and the HTTP layer's refusal, with a configured API's
origin trusted as configured."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from litsearch.core.config import Settings
from litsearch.core.errors import ProviderError
from litsearch.net.addresses import is_public, local_address_of
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy

from fake_server import Answer, FakeServer


@pytest.mark.parametrize("address, public", [
    ("127.0.0.1", False), ("127.8.9.10", False), ("::1", False), ("0.0.0.0", False), ("::", False),
    ("10.0.0.5", False), ("172.16.3.4", False), ("192.168.1.1", False), ("100.64.0.1", False),
    ("169.254.169.254", False),  # cloud metadata services
    ("fe80::1%eth0", False), ("fc00::1", False), ("::ffff:127.0.0.1", False), ("::ffff:10.1.2.3", False),
    ("224.0.0.1", False), ("240.0.0.1", False),
    ("8.8.8.8", True), ("193.62.193.80", True), ("2a00:1450:4001:80b::200e", True), ("::ffff:8.8.8.8", True),
])
def test_which_addresses_are_public(address, public):
    assert is_public(address) is public


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/paper.pdf", "127.0.0.1"),
    ("http://[::1]/x", "::1"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
    ("https://8.8.8.8/x", None),
    ("http://localhost:9/x", "127.0.0.1"),  # a name is judged by what it resolves to
    ("https://no-such-host.invalid/x", None),  # unresolvable: the connection reports it
])
def test_a_hosts_addresses_are_judged(url, local):
    found = asyncio.run(local_address_of(httpx.URL(url)))
    assert found == local or (local == "127.0.0.1" and found == "::1")


def _fetch(settings: Settings, url: str) -> str:
    async def go():
        async with HttpClient(settings, policies={"unpaywall": PacePolicy(0, 1)}) as http:
            session = http.session("unpaywall")
            try:
                fetched = await session.get(url, other_origins=True, retries=0)
                return fetched.content.decode()
            except ProviderError as error:
                return f"refused: {error}"
    return asyncio.run(go())


def test_an_open_copy_on_this_machine_is_refused_unless_its_origin_is_a_configured_api():
    with FakeServer() as copy, FakeServer() as api:
        copy.route("/paper.pdf", lambda request: Answer(200, "the text", content_type="text/plain"))
        elsewhere = Settings(base_urls={"unpaywall": api.url})
        refused = _fetch(elsewhere, copy.url + "/paper.pdf")
        assert refused.startswith("refused:") and "is a private or local address (127.0.0.1)" in refused
        assert copy.requests == []
        trusted = Settings(base_urls={"unpaywall": copy.url + "/v2"})  # the same origin as a configured API
        assert _fetch(trusted, copy.url + "/paper.pdf") == "the text"


def test_a_redirect_from_a_public_copy_to_this_machine_is_refused(monkeypatch):
    """Each hop is judged: a copy at a (stood-in) public host that redirects to 127.0.0.1."""
    import litsearch.net.http as http_module

    with FakeServer() as public, FakeServer() as local:
        local.route("/", lambda request: Answer(200, "secret", content_type="text/plain"))
        public.route("/moved", lambda request: Answer(302, "", headers={"Location": local.url + "/admin"}))
        public_port = httpx.URL(public.url).port

        async def only_the_local_one(url):
            return None if url.port == public_port else "127.0.0.1"
        monkeypatch.setattr(http_module, "local_address_of", only_the_local_one)
        refused = _fetch(Settings(base_urls={}), public.url + "/moved")
        assert "is a private or local address (127.0.0.1)" in refused
        assert [request.path for request in public.requests] == ["/moved"] and local.requests == []
