"""Fault family: empty result sets, per provider and everywhere at once."""

import pytest

from fake_server import FakeServer
from fault_support import PROVIDERS, run_fault
import fake_apis


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_provider_with_no_results_is_not_an_error(provider, server, monkeypatch, capsys):
    empty = {
        "semantic_scholar": fake_apis.Answer(200, '{"total": 0, "offset": 0}'),
        "openalex": fake_apis.Answer(200, '{"meta": {"count": 0}, "results": []}'),
        "pubmed": fake_apis.Answer(200, '{"esearchresult": {"count": "0", "idlist": []}}'),
        "arxiv": fake_apis.Answer(200, fake_apis.arxiv_query(fake_apis.SeenRequest(
            0, "GET", "/arxiv/query", {"search_query": [fake_apis.EMPTY_TRIGGER]}, {}, b"")).body,
            content_type="application/atom+xml"),
    }[provider]
    route = {"semantic_scholar": "/s2/graph/v1/paper/search", "openalex": "/openalex/works",
             "pubmed": "/eutils/esearch.fcgi", "arxiv": "/arxiv/query"}[provider]
    md, js, payload = run_fault(monkeypatch, capsys, server, {route: [empty]})
    assert payload["errors"] == []
    assert f"- {provider}: searched, 0 results" in md.stdout
    assert md.exit_code == 0 and js.exit_code == 0


def test_nothing_found_anywhere_exits_0_with_a_hint(server, monkeypatch, capsys):
    md, js, payload = run_fault(monkeypatch, capsys, server, {}, topic=f"{fake_apis.EMPTY_TRIGGER} topic")
    assert md.exit_code == 0 and js.exit_code == 0
    assert payload["total_count"] == 0 and payload["results"] == [] and payload["errors"] == []
    assert "No papers found" in md.stdout
