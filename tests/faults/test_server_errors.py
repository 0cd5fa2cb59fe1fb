"""Fault family: server errors (5xx), for every provider."""

import pytest

from fake_server import Answer, FakeServer
from fault_support import FIRST_ROUTE, PROVIDERS, check_contract, run_fault


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


@pytest.mark.parametrize("status", [500, 502, 503])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_5xx_once_then_success(provider, status, server, monkeypatch, capsys):
    fault = Answer(status, "<html><body>Bad Gateway</body></html>", content_type="text/html")
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault, None]})
    check_contract(md, js, payload, failed=None)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_persistent_5xx_fails_that_provider_only(provider, server, monkeypatch, capsys):
    fault = Answer(503, "Service Unavailable", content_type="text/plain")
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault]})
    check_contract(md, js, payload, failed=provider, reason="HTTP 503")
    # 3 attempts in each of the 2 runs; arXiv's 3 s pace leaves room for only 2 in a 6 s budget.
    assert len(server.requests_to(FIRST_ROUTE[provider])) == (4 if provider == "arxiv" else 6)
