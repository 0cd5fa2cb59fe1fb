"""The HTTP layer against the loopback fake server: retries, Retry-After, timeouts,
budgets, size caps, identity, redaction, and pacing measured from request timestamps."""

from __future__ import annotations

import asyncio
import socket
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from fake_server import Answer, FakeServer
from litsearch import __version__
from litsearch.core.config import Settings
from litsearch.net.http import HttpClient, parse_retry_after
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.runtime.settings import settings_from_env

FAST = {name: PacePolicy(min_interval=0.0, max_in_flight=4) for name in
        ("semantic_scholar", "openalex", "pubmed", "arxiv", "crossref", "unpaywall")}


class RecordingSleep:
    """Replaces asyncio.sleep: records each wait and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def settings(**overrides) -> Settings:
    env = {"LITSEARCH_EMAIL": "tester@example.org"}
    base = settings_from_env(env)
    values = {**base.__dict__, **overrides}
    return Settings(**values)


async def fetch(server_url: str, *, sleep=None, policies=FAST, cfg=None, provider="openalex",
                path="/works", budget=None):
    cfg = cfg or settings()
    kwargs = {"sleep": sleep} if sleep else {}
    async with HttpClient(cfg, policies=policies, **kwargs) as http:
        session = http.session(provider, budget=budget)
        return await session.get(server_url + path), session


def test_429_with_retry_after_seconds_then_success():
    sleep = RecordingSleep()
    with FakeServer() as server:
        server.script("/works", Answer(429, '{"error":"slow down"}', headers={"Retry-After": "2"}),
                      Answer(200, '{"results": []}'))
        response, session = asyncio.run(fetch(server.url, sleep=sleep))
    assert response.status == 200
    assert sleep.waits == [2.0]
    assert len(server.requests) == 2 and session.requests_sent == 2


def test_429_with_retry_after_http_date_is_honoured():
    sleep = RecordingSleep()
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=4), usegmt=True)
    with FakeServer() as server:
        server.script("/works", Answer(429, "", headers={"Retry-After": when}), Answer(200, "{}"))
        response, _ = asyncio.run(fetch(server.url, sleep=sleep))
    assert response.status == 200
    assert len(sleep.waits) == 1 and 2.0 <= sleep.waits[0] <= 4.0


def test_retry_after_beyond_budget_gives_up_at_once():
    sleep = RecordingSleep()
    with FakeServer() as server:
        server.script("/works", Answer(429, '{"message":"Too Many Requests"}', headers={"Retry-After": "3600"}))
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, sleep=sleep, budget=20))
    assert sleep.waits == [] and len(server.requests) == 1  # the injected sleep: no wait at all, on any machine
    assert "3600 s" in str(info.value) and "budget" in str(info.value)


def test_503_then_success_backs_off():
    sleep = RecordingSleep()
    with FakeServer() as server:
        server.script("/works", Answer(503, "Service Unavailable", content_type="text/plain"), Answer(200, "{}"))
        response, _ = asyncio.run(fetch(server.url, sleep=sleep))
    assert response.status == 200
    assert len(sleep.waits) == 1 and 1.0 <= sleep.waits[0] <= 1.25


@pytest.mark.parametrize("status", [500, 502, 503])
def test_persistent_5xx_stops_after_two_retries(status):
    sleep = RecordingSleep()
    with FakeServer() as server:
        server.script("/works", Answer(status, "broken", content_type="text/plain"))
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, sleep=sleep))
    assert len(server.requests) == 3
    assert f"HTTP {status}" in str(info.value) and "after 3 attempts" in str(info.value)
    assert [round(w) for w in sleep.waits] == [1, 2]


def test_4xx_is_not_retried_and_reason_is_one_line():
    with FakeServer() as server:
        server.script("/works", Answer(400, '{"error": "Invalid query",\n "message": "bad filter"}'))
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, sleep=RecordingSleep()))
    assert len(server.requests) == 1
    assert "\n" not in str(info.value) and "HTTP 400" in str(info.value)


def test_hang_past_read_timeout_is_retried_then_reported():
    cfg = settings(read_timeout=0.3)
    with FakeServer() as server:
        server.script("/works", Answer(hang=True))
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, sleep=RecordingSleep(), cfg=cfg))
        elapsed = time.monotonic() - started
    assert "read timeout after 0.3 s" in str(info.value)
    assert len(server.requests) == 3
    # Bounded against the broken case (the 30 s default read timeout, three times), not against
    # the machine's speed: 0.9 s of timeouts may take several seconds on a loaded machine.
    assert elapsed < 20


def test_hang_is_cut_by_the_provider_budget():
    cfg = settings(read_timeout=30.0, provider_budget=0.5)
    with FakeServer() as server:
        server.script("/works", Answer(hang=True))
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, cfg=cfg))
        elapsed = time.monotonic() - started
    assert "budget" in str(info.value)
    assert elapsed < 20  # the 30 s read timeout would have run out first without the 0.5 s budget


def test_connection_refused_is_a_clear_failure():
    # Bound but never listening: refused, and no parallel test can take the port meanwhile.
    with socket.socket() as holder, pytest.raises(ProviderError) as info:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        asyncio.run(fetch(f"http://127.0.0.1:{port}", sleep=RecordingSleep()))
    assert "connection" in str(info.value)


def test_body_cut_mid_way_is_a_failure_not_a_partial_answer():
    with FakeServer() as server:
        server.script("/works", Answer(200, '{"results": [' + '{"id": 1},' * 200 + "]}", cut_body=True))
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, sleep=RecordingSleep()))
    assert "closed" in str(info.value) or "connection" in str(info.value)


def test_oversized_body_is_not_read():
    cfg = settings(max_response_bytes=1000)
    with FakeServer() as server:
        server.script("/works", Answer(200, "x" * 5000))
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, cfg=cfg))
    assert "cap" in str(info.value)
    assert len(server.requests) == 1


def test_user_agent_names_the_tool_version_and_contact():
    with FakeServer() as server:
        server.script("/works", Answer(200, "{}"))
        asyncio.run(fetch(server.url))
    agent = server.requests[0].headers["user-agent"]
    assert f"lit-search/{__version__}" in agent and "mailto:tester@example.org" in agent


def test_secret_echoed_in_an_error_body_is_redacted():
    cfg = settings_from_env({"OPENALEX_API_KEY": "sentinel-key-123456"})
    with FakeServer() as server:
        server.script("/works", Answer(401, '{"error": "invalid api_key sentinel-key-123456"}'))
        with pytest.raises(ProviderError) as info:
            asyncio.run(fetch(server.url, cfg=cfg))
    assert "sentinel-key-123456" not in str(info.value)
    assert "[redacted]" in str(info.value)


def test_parse_retry_after_forms():
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Thu, 01 Jan 2026 00:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 31 Dec 2025 23:59:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


# --- pacing, measured from the fake server's request timestamps -------------------

async def _concurrent_gets(url: str, provider: str, count: int, policies=None) -> None:
    async with HttpClient(settings(), policies=policies) as http:
        session = http.session(provider, budget=60)
        await asyncio.gather(*(session.get(url + "/p") for _ in range(count)))


def _gaps(server: FakeServer) -> list[float]:
    times = sorted(r.time for r in server.requests)
    return [b - a for a, b in zip(times, times[1:])]


@pytest.mark.realtime
def test_semantic_scholar_never_exceeds_one_request_per_second_under_10_concurrent_calls():
    with FakeServer() as server:
        server.script("/p", Answer(200, "{}"))
        asyncio.run(_concurrent_gets(server.url, "semantic_scholar", 10))
    gaps = _gaps(server)
    assert len(server.requests) == 10
    assert min(gaps) >= 1.0, gaps


@pytest.mark.realtime
def test_arxiv_requests_start_at_least_three_seconds_apart_one_at_a_time():
    with FakeServer() as server:
        server.script("/p", Answer(200, "<feed/>", content_type="application/atom+xml", delay=0.2))
        asyncio.run(_concurrent_gets(server.url, "arxiv", 2))
    assert len(server.requests) == 2
    assert _gaps(server)[0] >= 3.0


@pytest.mark.realtime
def test_pacing_holds_across_sessions_and_clients_in_one_process():
    # Two separate clients (as two searches in one process) share one provider's pace.
    policies = {"openalex": PacePolicy(min_interval=0.2, max_in_flight=5)}

    async def two_clients(url: str) -> None:
        await asyncio.gather(_concurrent_gets(url, "openalex", 3, policies),
                             _concurrent_gets(url, "openalex", 3, policies))

    with FakeServer() as server:
        server.script("/p", Answer(200, "{}"))
        asyncio.run(two_clients(server.url))
    assert len(server.requests) == 6
    assert min(_gaps(server)) >= 0.2


@pytest.mark.realtime
def test_in_flight_limit_is_respected():
    policies = {"crossref": PacePolicy(min_interval=0.0, max_in_flight=2)}
    with FakeServer() as server:
        server.script("/p", Answer(200, "{}", delay=0.3))
        started = time.monotonic()
        asyncio.run(_concurrent_gets(server.url, "crossref", 4, policies))
        elapsed = time.monotonic() - started
    # 4 requests of 0.3 s, 2 at a time: two rounds.
    assert 0.55 <= elapsed < 3.0
