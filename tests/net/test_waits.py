"""Every wait a server can ask for is taken only within the time budget left (net/waits.py,
``ProviderSession.wait_as_asked``): Retry-After in seconds, as a date, as ``inf`` or a number
too large for a float, on a 429 and a 503. A longer wait is not waited at all: the request fails
at once, its reason naming the header and what was asked."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from fake_server import Answer, FakeServer
from litsearch.runtime.settings import settings_from_env
from litsearch.core.errors import ProviderError
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.net.waits import parse_retry_after, shown_wait

BUDGET = 20.0


class RecordingSleep:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def _in(seconds: float) -> str:
    return format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds), usegmt=True)


@pytest.mark.parametrize("value, seconds", [
    ("7", 7.0), ("0", 0.0), ("-5", 0.0), ("86400", 86400.0), ("inf", float("inf")), ("Infinity", float("inf")),
    ("1e999", float("inf")), ("nan", None), ("soon", None), ("", None), (None, None),
    ("Thu, 01 Jan 2026 00:00:30 GMT", 30.0), ("Fri, 31 Dec 9999 23:59:59 GMT", None),
])
def test_what_a_header_asks_for(value, seconds):
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    found = parse_retry_after(value, now=now)
    if value and value.startswith("Fri, 31 Dec 9999"):
        assert found is not None and found > 200 * 365 * 86400
    else:
        assert found == seconds


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("header", ["86400", "inf", "1e999", "far date", "year"])
def test_a_wait_past_the_budget_fails_at_once_with_the_reason(status, header):
    value = {"far date": _in(86400), "year": "Fri, 31 Dec 9999 23:59:59 GMT"}.get(header, header)
    sleep = RecordingSleep()

    async def go():
        async with HttpClient(settings_from_env({}), policies={"openalex": PacePolicy(0, 1)}, sleep=sleep) as http:
            return await http.session("openalex", budget=BUDGET).get(server.url + "/works")
    with FakeServer() as server:
        server.script("/works", Answer(status, "busy", content_type="text/plain", headers={"Retry-After": value}))
        with pytest.raises(ProviderError) as failure:
            asyncio.run(go())
    message = str(failure.value)
    assert f"HTTP {status}" in message and "(Retry-After), more than the" in message, message
    asked = {"86400": "asked to wait 86400 s", "inf": "asked to wait without end", "1e999": "asked to wait without end",
             "far date": "asked to wait 86", "year": "asked to wait "}[header]
    assert asked in message, message
    assert len(server.requests) == 1 and all(wait < BUDGET for wait in sleep.waits)


def test_a_wait_within_the_budget_is_waited():
    sleep = RecordingSleep()

    async def go():
        async with HttpClient(settings_from_env({}), policies={"openalex": PacePolicy(0, 1)}, sleep=sleep) as http:
            return await http.session("openalex", budget=BUDGET).get(server.url + "/works")
    with FakeServer() as server:
        server.script("/works", Answer(503, "", headers={"Retry-After": "3"}), Answer(200, "{}"))
        assert asyncio.run(go()).status == 200
    assert sleep.waits == [3.0]


def test_shown_waits():
    assert shown_wait(86400.0) == "86400 s" and shown_wait(float("inf")) == "without end"
