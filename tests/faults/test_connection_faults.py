"""Fault family: the connection itself (refused, hanging, cut mid-body), for every provider."""

import socket

import pytest

import fake_apis
from fake_server import Answer, FakeServer
from fault_support import FIRST_ROUTE, HANG, PROVIDERS, check_contract, run_fault

BASE_URL_VARIABLE = {
    "semantic_scholar": "LITSEARCH_SEMANTIC_SCHOLAR_URL", "openalex": "LITSEARCH_OPENALEX_URL",
    "pubmed": "LITSEARCH_PUBMED_URL", "arxiv": "LITSEARCH_ARXIV_URL",
}


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


@pytest.fixture
def closed_port():
    """A port that refuses connections for the whole test.

    The socket stays bound but never listens: the kernel refuses connections to it and no
    other test (another xdist worker's fake server) can take the port meanwhile."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_connection_refused(provider, server, monkeypatch, capsys, closed_port):
    refused = {BASE_URL_VARIABLE[provider]: f"http://127.0.0.1:{closed_port}"}
    md, js, payload = run_fault(monkeypatch, capsys, server, {}, extra_env=refused)
    check_contract(md, js, payload, failed=provider, reason="connection refused")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_hang_past_the_read_timeout(provider, server, monkeypatch, capsys):
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [Answer(hang=True)]},
                                extra_env=HANG)
    message = {e["provider"]: e["message"] for e in payload["errors"]}[provider]
    check_contract(md, js, payload, failed=provider)
    assert "read timeout" in message or "budget" in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_connection_closed_mid_body(provider, server, monkeypatch, capsys):
    whole = fake_apis.arxiv_query if provider == "arxiv" else None
    body = '{"data": [' + '{"title": "x"},' * 500 + "]}" if whole is None else "<feed>" + "<entry/>" * 500
    fault = Answer(200, body, cut_body=True)
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault]})
    check_contract(md, js, payload, failed=provider, reason="closed before the full answer")
