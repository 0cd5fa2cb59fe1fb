"""Fault family: answers that arrive whole but are wrong, for every provider.

Truncated JSON, an HTML error page with status 200, malformed XML, an XML entity-expansion
bomb (must never expand) and a 20 MB body (must not be read past the 10 MB cap); for arXiv
also its HTTP-200 error entry and its plain-text "Rate exceeded.". A wrong body is never
turned into papers.
"""

import pytest

from fake_server import Answer, FakeServer
from fault_support import FIRST_ROUTE, PROVIDERS, check_contract, run_fault

HTML_PAGE = ("<!DOCTYPE html><html><head><title>Service temporarily unavailable</title></head>"
             "<body><h1>We'll be back soon</h1></body></html>")
BOMB = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % ("" if i == 1 else i - 1)) * 10}">' for i in range(1, 10))
        + ']><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>&lol9;</title></entry></feed>')
ARXIV_ERROR_FEED = (
    '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><title>ArXiv Query</title>'
    "<id>http://arxiv.org/api/x</id><opensearch:totalResults>1</opensearch:totalResults>"
    "<opensearch:startIndex>0</opensearch:startIndex><opensearch:itemsPerPage>1</opensearch:itemsPerPage>"
    "<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id><title>Error</title>"
    "<summary>incorrect id format for 1234</summary><updated>2026-01-01T00:00:00-05:00</updated>"
    '<link href="http://arxiv.org/api/errors#incorrect_id_format_for_1234" rel="alternate" type="text/html"/>'
    "<author><name>arXiv api core</name></author></entry></feed>")
TWENTY_MB = b"[" + b'{"title": "padding"},' * (20 * 1024 * 1024 // 21) + b"{}]"


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def xml_route(provider: str) -> str:
    # PubMed's XML comes from efetch, its one source of records (esearch gives only ids).
    return "/eutils/efetch.fcgi" if provider == "pubmed" else FIRST_ROUTE[provider]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_json(provider, server, monkeypatch, capsys):
    fault = Answer(200, '{"total": 3, "data": [{"paperId": "abc", "title": "Half', content_type="application/json")
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault]})
    check_contract(md, js, payload, failed=provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_html_error_page_with_status_200(provider, server, monkeypatch, capsys):
    fault = Answer(200, HTML_PAGE, content_type="text/html; charset=utf-8")
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault]})
    check_contract(md, js, payload, failed=provider)
    assert "We'll be back soon" not in js.stdout  # never shown as a paper


def _check_xml_fault(provider, md, js, payload):
    check_contract(md, js, payload, failed=provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_xml(provider, server, monkeypatch, capsys):
    fault = Answer(200, '<?xml version="1.0"?><PubmedArticleSet><PubmedArticle><unclosed>',
                   content_type="text/xml")
    md, js, payload = run_fault(monkeypatch, capsys, server, {xml_route(provider): [fault]})
    _check_xml_fault(provider, md, js, payload)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_entity_expansion_bomb_is_never_expanded(provider, server, monkeypatch, capsys):
    fault = Answer(200, BOMB, content_type="application/atom+xml")
    md, js, payload = run_fault(monkeypatch, capsys, server, {xml_route(provider): [fault]})
    _check_xml_fault(provider, md, js, payload)
    assert "lollollol" not in md.stdout + js.stdout  # within the contract's bound, never expanded


@pytest.mark.parametrize("provider", PROVIDERS)
def test_20_mb_body_is_not_read_past_the_cap(provider, server, monkeypatch, capsys):
    fault = Answer(200, TWENTY_MB, content_type="application/json")
    md, js, payload = run_fault(monkeypatch, capsys, server, {xml_route(provider): [fault]})
    check_contract(md, js, payload, failed=provider, reason="cap")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_arxiv_error_entry_with_http_200(provider, server, monkeypatch, capsys):
    # For arXiv this is its documented error form; for the others, a wrong body all the same.
    fault = Answer(200, ARXIV_ERROR_FEED, content_type="application/atom+xml")
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault]})
    check_contract(md, js, payload, failed=provider,
                   reason="incorrect id format" if provider == "arxiv" else None)
    assert not any(r["title"] == "Error" for r in payload["results"])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_plain_text_rate_exceeded(provider, server, monkeypatch, capsys):
    fault = Answer(200, "Rate exceeded.", content_type="text/plain")
    md, js, payload = run_fault(monkeypatch, capsys, server, {FIRST_ROUTE[provider]: [fault]})
    check_contract(md, js, payload, failed=provider, reason="rate exceeded" if provider == "arxiv" else None)
