"""Open copies come from public addresses only (net/addresses.py): which addresses are
public, in every form an IPv6 address can carry an IPv4 one, how a host name is judged, and
which origins are spared the check (net/http.py ``trusted_origin``): only an origin the user
set in the environment, only for the service that owns it."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import httpx
import pytest

from litsearch.core.config import Settings
from litsearch.runtime.settings import declared_services, settings_from_env
from litsearch.core.errors import ProviderError
from litsearch.net.addresses import embedded_ipv4, is_public, local_address_of
from litsearch.net.http import HttpClient, trusted_origin
from litsearch.net.pacing import PacePolicy

from fake_server import Answer, FakeServer


@pytest.mark.parametrize("address, public", [
    ("127.0.0.1", False), ("127.8.9.10", False), ("::1", False), ("0.0.0.0", False), ("::", False),
    ("10.0.0.5", False), ("172.16.3.4", False), ("192.168.1.1", False), ("100.64.0.1", False),
    ("169.254.169.254", False),  # cloud metadata services
    ("fe80::1%eth0", False), ("fc00::1", False), ("::ffff:127.0.0.1", False), ("::ffff:10.1.2.3", False),
    ("224.0.0.1", False), ("240.0.0.1", False),
    ("8.8.8.8", True), ("193.62.193.80", True), ("2a00:1450:4001:80b::200e", True), ("::ffff:8.8.8.8", True),
    # The same hosts written by hand in the embedded forms (the table below builds every one).
    ("64:ff9b::7f00:1", False), ("64:ff9b::169.254.169.254", False), ("64:ff9b::8.8.8.8", True),
    ("64:ff9b:1::7f00:1", False), ("64:ff9b:1::a9fe:a9fe", False), ("64:ff9b:1::808:808", True),
    ("2002:7f00:1::", False), ("2002:a9fe:a9fe::1", False), ("2002:808:808::1", True),
    ("::127.0.0.1", False), ("::169.254.169.254", False), ("::8.8.8.8", True),
    ("::ffff:0:127.0.0.1", False), ("::ffff:0:8.8.8.8", True),
    # With a zone, as a resolver gives link-local addresses: judged by the address.
    ("::ffff:127.0.0.1%2", False), ("2a00:1450:4001:80b::200e%3", True), ("fe80::1%eth0", False),
    ("10.0.0.5%eth0", False), ("8.8.8.8%1", True),
])
def test_which_addresses_are_public(address, public):
    assert is_public(address) is public


# Every way an IPv6 address carries an IPv4 one, built here from the RFCs' layouts (RFC 4291
# mapped and compatible, RFC 2765 translated, RFC 6052 NAT64 at each prefix length, RFC 3056
# 6to4, RFC 4380 Teredo with its client address inverted).
def _v6(value: int) -> str:
    return str(ipaddress.IPv6Address(value))


def _nat64(prefix: str, length: int, v4: str) -> str:
    v4_bytes = ipaddress.IPv4Address(v4).packed
    address = bytearray(ipaddress.IPv6Address(prefix).packed)
    start = length // 8
    spots = [i for i in range(start, 16) if i != 8][:4]  # byte 8 (the "u" octet) stays zero
    for spot, byte in zip(spots, v4_bytes):
        address[spot] = byte
    return str(ipaddress.IPv6Address(bytes(address)))


EMBEDDINGS = {
    "IPv4-mapped": lambda v4: _v6(0xFFFF << 32 | int(ipaddress.IPv4Address(v4))),
    "IPv4-translated": lambda v4: _v6(0xFFFF << 48 | int(ipaddress.IPv4Address(v4))),
    "IPv4-compatible": lambda v4: _v6(int(ipaddress.IPv4Address(v4))),
    "NAT64 well-known /96": lambda v4: _nat64("64:ff9b::", 96, v4),
    "NAT64 local-use /96": lambda v4: _nat64("64:ff9b:1::", 96, v4),
    "NAT64 local-use /48": lambda v4: _nat64("64:ff9b:1::", 48, v4),
    "NAT64 local-use /56": lambda v4: _nat64("64:ff9b:1::", 56, v4),
    "NAT64 local-use /64": lambda v4: _nat64("64:ff9b:1::", 64, v4),
    "6to4": lambda v4: _v6(0x2002 << 112 | int(ipaddress.IPv4Address(v4)) << 80 | 1),
    "Teredo client": lambda v4: _v6(0x20010000 << 96 | int(ipaddress.IPv4Address("8.8.4.4")) << 64
                                   | (~int(ipaddress.IPv4Address(v4)) & 0xFFFFFFFF)),
    "Teredo server": lambda v4: _v6(0x20010000 << 96 | int(ipaddress.IPv4Address(v4)) << 64
                                   | (~int(ipaddress.IPv4Address("8.8.4.4")) & 0xFFFFFFFF)),
}
PRIVATE = ["127.0.0.1", "127.45.6.7", "169.254.169.254", "10.0.0.5", "172.16.3.4", "192.168.1.1", "100.64.0.1",
           "0.0.0.0", "0.1.2.3", "224.0.0.251", "255.255.255.255"]
PUBLIC = ["8.8.8.8", "193.62.193.80", "140.82.112.3"]


@pytest.mark.parametrize("form", list(EMBEDDINGS))
@pytest.mark.parametrize("v4", PRIVATE + PUBLIC)
def test_an_embedded_ipv4_address_is_judged_as_itself(form, v4):
    address = EMBEDDINGS[form](v4)
    assert is_public(address) is (v4 in PUBLIC), address


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/paper.pdf", "127.0.0.1"),
    ("http://[::1]/x", "::1"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
    ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "64:ff9b::a9fe:a9fe"),
    ("http://[2002:7f00:1::]:23119/api/", "2002:7f00:1::"),
    ("http://[::127.0.0.1]/x", "::127.0.0.1"),
    ("https://8.8.8.8/x", None),
    ("http://localhost:9/x", "127.0.0.1"),  # a name is judged by what it resolves to
    ("http://2130706433/x", "127.0.0.1"),  # 127.0.0.1 as one number, as resolvers read it
    ("http://0x7f000001/x", "127.0.0.1"),
    ("http://127.1/x", "127.0.0.1"),
    ("https://no-such-host.invalid/x", None),  # unresolvable: the connection reports it
])
def test_a_hosts_addresses_are_judged(url, local):
    found = asyncio.run(local_address_of(httpx.URL(url)))
    assert found == local or (local == "127.0.0.1" and found == "::1")


# ---------------------------------------------------------------- which origins are trusted

ZOTERO_DEFAULT = "http://127.0.0.1:23119"  # Zotero desktop's built-in address (no variable set)


def _settings(env: dict[str, str]) -> Settings:
    return settings_from_env(env)


@pytest.mark.parametrize("env, named_by, url, trusted", [
    # a built-in default is no choice of the user's, whoever names it
    ({}, "zotero_connector", ZOTERO_DEFAULT + "/api/users/0/items", False),
    ({}, "unpaywall", ZOTERO_DEFAULT + "/api/users/0/items", False),
    # the user's own origin is trusted for that service's own requests...
    ({"LITSEARCH_ARXIV_WEB_URL": "http://127.0.0.1:8001/arxiv"}, "arxiv_web", "http://127.0.0.1:8001/pdf/1", True),
    ({"LITSEARCH_UNPAYWALL_URL": "http://127.0.0.1:8002"}, "unpaywall", "http://127.0.0.1:8002/oa/x.pdf", True),
    # ...never for what another service names there
    ({"LITSEARCH_ZOTERO_CONNECTOR_URL": ZOTERO_DEFAULT}, "unpaywall", ZOTERO_DEFAULT + "/api/users/0/items", False),
    ({"LITSEARCH_ZOTERO_CONNECTOR_URL": ZOTERO_DEFAULT}, "open_access", ZOTERO_DEFAULT + "/x", False),
    ({"LITSEARCH_UNPAYWALL_URL": "http://127.0.0.1:8002"}, "arxiv_web", "http://127.0.0.1:8002/x", False),
    # and only on that very origin (scheme, host, port)
    ({"LITSEARCH_UNPAYWALL_URL": "http://127.0.0.1:8002"}, "unpaywall", "http://127.0.0.1:8003/x", False),
    ({"LITSEARCH_UNPAYWALL_URL": "http://127.0.0.1:8002"}, "unpaywall", "https://127.0.0.1:8002/x", False),
    ({"LITSEARCH_UNPAYWALL_URL": "http://127.0.0.1:8002"}, "unpaywall", "http://localhost:8002/x", False),
    # a service without a base URL of its own trusts nothing
    ({"LITSEARCH_UNPAYWALL_URL": "http://127.0.0.1:8002"}, "open_access", "http://127.0.0.1:8002/x", False),
])
def test_only_an_origin_the_user_set_is_trusted_and_only_for_its_service(env, named_by, url, trusted):
    found = trusted_origin(_settings(env), named_by, url)
    assert (found is not None) is trusted


def _fetch(settings: Settings, url: str, provider: str = "open_access", named_by: str | None = None) -> str:
    async def go():
        async with HttpClient(settings, policies={provider: PacePolicy(0, 1)}) as http:
            session = http.session(provider)
            try:
                fetched = await session.get(url, other_origins=True, retries=0, named_by=named_by)
                return fetched.content.decode()
            except ProviderError as error:
                return f"refused: {error}"
    return asyncio.run(go())


def test_a_built_in_default_origin_is_not_trusted():
    """Zotero desktop serves the whole library on 127.0.0.1:23119; Unpaywall naming it is
    refused before anything is sent (nothing listens there in the test: a connection attempt
    would fail differently)."""
    for named_by in ("unpaywall", "zotero_connector", None):
        refused = _fetch(_settings({}), ZOTERO_DEFAULT + "/api/users/0/items", named_by=named_by)
        assert "is a private or local address (127.0.0.1)" in refused, refused


def test_a_user_set_origin_is_not_trusted_for_what_a_third_party_names():
    with FakeServer() as zotero, FakeServer() as unpaywall:
        zotero.route("/", lambda request: Answer(200, "the user's whole library", content_type="text/plain"))
        settings = _settings({"LITSEARCH_ZOTERO_CONNECTOR_URL": zotero.url, "LITSEARCH_UNPAYWALL_URL": unpaywall.url})
        refused = _fetch(settings, zotero.url + "/api/users/0/items", named_by="unpaywall")
        assert "is a private or local address (127.0.0.1)" in refused
        assert zotero.requests == []


def test_an_open_copy_on_the_origin_of_the_service_that_named_it_is_read():
    """The user pointed Unpaywall at a local mirror (the test fakes do): what it names there is theirs."""
    with FakeServer() as mirror:
        mirror.route("/oa/paper.pdf", lambda request: Answer(200, "the text", content_type="text/plain"))
        settings = _settings({"LITSEARCH_UNPAYWALL_URL": mirror.url})
        assert _fetch(settings, mirror.url + "/oa/paper.pdf", named_by="unpaywall") == "the text"
        assert _fetch(settings, mirror.url + "/oa/paper.pdf").startswith("refused:")  # named by nobody
        assert [request.path for request in mirror.requests] == ["/oa/paper.pdf"]


def test_a_trusted_origin_redirecting_elsewhere_on_this_machine_is_refused():
    with FakeServer() as mirror, FakeServer() as local:
        local.route("/", lambda request: Answer(200, "secret", content_type="text/plain"))
        mirror.route("/oa/moved", lambda request: Answer(302, "", headers={"Location": local.url + "/admin"}))
        settings = _settings({"LITSEARCH_UNPAYWALL_URL": mirror.url})
        refused = _fetch(settings, mirror.url + "/oa/moved", named_by="unpaywall")
        assert "is a private or local address (127.0.0.1)" in refused
        assert local.requests == []


def test_a_redirect_from_a_public_copy_to_this_machine_is_refused(monkeypatch):
    """Each hop is judged: a copy at a (stood-in) public host that redirects to 127.0.0.1 (even
    to the origin the user set for the service that named the copy: the trust does not return)."""
    import litsearch.net.http as http_module

    with FakeServer() as public, FakeServer() as local:
        local.route("/", lambda request: Answer(200, "secret", content_type="text/plain"))
        public.route("/moved", lambda request: Answer(302, "", headers={"Location": local.url + "/admin"}))
        public_port = httpx.URL(public.url).port

        async def only_the_local_one(url):
            return None if url.port == public_port else "127.0.0.1"
        monkeypatch.setattr(http_module, "local_address_of", only_the_local_one)
        for settings in (Settings(services=declared_services(), base_urls={}), _settings({"LITSEARCH_UNPAYWALL_URL": local.url})):
            refused = _fetch(settings, public.url + "/moved", named_by="unpaywall")
            assert "is a private or local address (127.0.0.1)" in refused
        assert [request.path for request in public.requests] == ["/moved", "/moved"] and local.requests == []


# ---------------------------------------------------------------- what an IPv6 address carries, exactly

# RFC 6052 section 2.4's example, 192.0.2.33, in each layout of the local-use prefix 64:ff9b:1::/48,
# and the other embeddings. The prefix length is not in the address, so a local-use address
# carries the reading of every layout whose zero bits (the "u" octet, bits 64-71, and the
# suffix) it has; all of them are judged.
@pytest.mark.parametrize("address, carried", [
    ("64:ff9b:1:c000:2:2100::", ["192.0.2.33", "0.2.33.0", "2.33.0.0"]),  # /48
    ("64:ff9b:1:c0:0:221::", ["192.0.2.33", "0.2.33.0"]),  # /56
    ("64:ff9b:1:0:c0:2:2100:0", ["33.0.0.0", "192.0.2.33"]),  # /64
    ("64:ff9b:1::192.0.2.33", ["192.0.2.33"]),  # /96
    ("64:ff9b:1:c000:2:2100::1", ["0.0.0.1"]),  # a suffix bit set: only the /96 reading
    ("64:ff9b:1:c000:2:2100:8000:0", ["128.0.0.0", "2.33.0.128"]),  # the /64 layout still fits
    ("64:ff9b:1:c0:0:221:0:1", ["0.0.0.1"]),
    ("64:ff9b:1:0:c0:2:2100:1", ["33.0.0.1"]),
    ("64:ff9b::192.0.2.33", ["192.0.2.33"]),
    ("::ffff:192.0.2.33", ["192.0.2.33"]), ("::ffff:0:192.0.2.33", ["192.0.2.33"]),
    ("::192.0.2.33", ["192.0.2.33"]), ("::0.0.0.2", ["0.0.0.2"]),
    ("::1", []), ("::", []),  # IPv6's own loopback and unspecified addresses
    ("2002:c000:221::1", ["192.0.2.33"]),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", ["65.54.227.120", "192.0.2.45"]),  # RFC 4380's Teredo example
    ("2a00:1450:4001:80b::200e", []), ("fe80::1", []),
])
def test_every_ipv4_address_an_ipv6_address_carries(address, carried):
    assert [str(v4) for v4 in embedded_ipv4(ipaddress.IPv6Address(address))] == carried


@pytest.mark.parametrize("u_octet", [0x80, 0x01, 0xFF])
def test_a_local_use_address_with_a_u_octet_set_is_in_no_shorter_layout(u_octet):
    # 192.0.2.33 in the /48 layout, then a bit of the u octet set: no layout below /96 fits it,
    # and its /96 reading is 0.0.0.0, so it carries no public host.
    address = ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b:1:c000:2:2100::")) | u_octet << 56)
    assert not any(v4.is_global for v4 in embedded_ipv4(address))
    assert is_public(str(address)) is False


def test_the_ipv4_compatible_form_reaches_an_ipv4_host_however_small():
    # Python calls ::2 global, but as an IPv4-compatible address it is 0.0.0.2: no public host.
    assert is_public("::2") is False and is_public("::8.8.8.9") is True and is_public("::1") is False


def test_a_resolver_answer_that_is_no_address_is_passed_over(monkeypatch):
    answers = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("not an address", 0, 0, 0)),
               (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.8.8", 443)),
               (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", 443))]

    async def resolve(host, port, **kwargs):
        return answers

    async def judged():
        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", resolve)
        return await local_address_of(httpx.URL("https://copies.example/paper.pdf"))

    assert asyncio.run(judged()) == "10.0.0.5"
