"""A 429 from OpenAlex is the day's allowance spent or a burst of the per-second rate, told apart
by what it says (issue 31, item 8): its body's words and retryAfter, its Retry-After, its
X-RateLimit-* amounts. A spent day is remembered, nothing more is sent, and the message names
OPENALEX_API_KEY; a burst is retried with backoff within the provider's time budget, and its
amounts (the proxy's per-second 429 says $0 left whatever is left) are never remembered as the
day's. Every shape on one table, on an injected clock: no real waiting."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

import fake_apis
from fake_server import Answer, FakeServer
from fault_support import check_contract, run_fault
from litsearch.runtime.settings import settings_from_env
from litsearch.core.errors import ProviderError
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import openalex
from litsearch.providers.openalex_budget import SPENT, remembered

BASE = "http://openalex.test"
WORKS = json.dumps({"meta": {"count": 1}, "results": [{"id": "https://openalex.org/W1", "title": "A work",
                                                       "display_name": "A work", "publication_year": 2020}]})
MONEY_LEFT = {"X-RateLimit-Limit-USD": "1", "X-RateLimit-Remaining-USD": "0.5", "X-RateLimit-Reset": "35000"}
NOTHING_LEFT = {"X-RateLimit-Limit-USD": "0.1", "X-RateLimit-Remaining-USD": "0", "X-RateLimit-Remaining": "0",
                "X-RateLimit-Prepaid-Remaining-USD": "0", "X-RateLimit-Reset": "35000"}
DAY_BODY = json.dumps({"error": "Rate limit exceeded", "message": "Insufficient budget. This request costs $0.001 but "
                       "you only have $0 remaining. Resets at midnight UTC.", "retryAfter": 35000})

# shape -> (the 429, "burst" or "day")
SHAPES = {
    "proxy per-second, Retry-After 1": (fake_apis.openalex_per_second_429(), "burst"),
    "proxy per-second, no Retry-After (fault_429_no_retry_after)": (fake_apis.FAULT_429_NO_RETRY_AFTER, "burst"),
    "proxy per-second amounts, no body, no Retry-After": (fake_apis.openalex_per_second_429(False, False), "day"),
    "per-second words alone": (Answer(429, json.dumps({"message": "10 requests per second. Please slow down."})),
                               "burst"),
    "bare, money left": (Answer(429, "", headers=MONEY_LEFT), "burst"),
    "bare, prepaid credit left": (Answer(429, "", headers={**NOTHING_LEFT, "X-RateLimit-Prepaid-Remaining-USD": "2"}),
                                  "burst"),
    "bare, nothing said": (Answer(429, ""), "burst"),
    "bare, Retry-After 1 and nothing left": (Answer(429, "", headers={**NOTHING_LEFT, "Retry-After": "1"}), "burst"),
    "proxy daily, Retry-After to midnight": (fake_apis.openalex_budget_spent(), "day"),
    "proxy daily words, no Retry-After": (Answer(429, DAY_BODY, headers=NOTHING_LEFT), "day"),
    "daily amounts alone": (Answer(429, "", headers=NOTHING_LEFT), "day"),
    "less left than the search costs": (Answer(429, "", headers={**MONEY_LEFT, "X-RateLimit-Remaining-USD": "0.0005",
                                                                 "X-RateLimit-Cost-Required-USD": "0.001"}), "day"),
    "Retry-After until the reset, near midnight": (Answer(429, "", headers={"Retry-After": "1800",
                                                                            "X-RateLimit-Reset": "1830"}), "day"),
}
SECONDS_LEFT = 6.0


class Script:
    """Answers in turn (the last repeats), on a clock that moves only when the client sleeps."""

    def __init__(self, *answers: Answer):
        self.answers = list(answers)
        self.seen: list[httpx.Request] = []
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return httpx.Response(answer.status, headers=answer.headers, content=answer.body.encode()
                              if isinstance(answer.body, str) else answer.body)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def search(script: Script, key: str | None = None):
    env = {"LITSEARCH_OPENALEX_URL": BASE, "LITSEARCH_PROVIDER_BUDGET": str(SECONDS_LEFT), "LITSEARCH_BACKOFF": "0.5",
           **({"OPENALEX_API_KEY": key} if key else {})}
    settings = settings_from_env(env)

    async def go():
        async with HttpClient(settings, transport=httpx.MockTransport(script), clock=lambda: script.now,
                              sleep=script.sleep, policies={"openalex": PacePolicy(0.0, 5, retries=2)}) as http:
            return await openalex.search(http.session("openalex"), "turing patterns", 10)

    return settings, asyncio.run(go())


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_429_is_told_apart_by_what_it_says(shape):
    fault, kind = SHAPES[shape]
    script = Script(fault, Answer(200, WORKS, headers=MONEY_LEFT))
    if kind == "burst":
        settings, answer = search(script)
        assert [paper.title for paper in answer.records] == ["A work"]
        assert len(script.seen) == 2 and len(script.slept) == 1
        asked = {"Retry-After 1": 1.0, "fault_429": 0.04, "no body": None}
        wait = next((value for word, value in asked.items() if word in shape), None)
        assert script.slept[0] == (wait if wait is not None else 0.5)  # as asked, else the first backoff
        state = remembered(settings)
        assert state is not None and not state.exhausted and state.remaining_usd == 0.5  # the success's amounts
        return
    with pytest.raises(ProviderError) as failure:
        search(script)
    message = str(failure.value)
    assert message.startswith(SPENT) and "set OPENALEX_API_KEY" in message, message
    assert len(script.seen) == 1 and script.slept == []  # the day is not waited for, nor asked again
    settings = settings_from_env({"LITSEARCH_OPENALEX_URL": BASE})
    assert remembered(settings).exhausted
    again = Script(Answer(200, WORKS))
    with pytest.raises(ProviderError, match="allowance"):
        search(again)
    assert again.seen == []  # a spent day costs no request at all


def test_a_burst_that_lasts_fails_after_its_tries_and_is_not_remembered():
    script = Script(fake_apis.FAULT_429_NO_RETRY_AFTER)
    with pytest.raises(ProviderError) as failure:
        search(script)
    message = str(failure.value)
    assert message.startswith("HTTP 429 rate limited: Rate limit exceeded: 10 requests per second")
    assert message.endswith("after 3 attempts (a burst, not the daily allowance)") and SPENT not in message
    assert len(script.seen) == 3 and script.slept == [0.04, 0.04]
    assert remembered(settings_from_env({"LITSEARCH_OPENALEX_URL": BASE})) is None


def test_a_burst_backs_off_more_each_time_within_the_budget():
    script = Script(Answer(429, ""), Answer(429, ""), Answer(200, WORKS))
    _, answer = search(script)
    assert answer.records and script.slept == [0.5, 1.0]
    slow = Script(Answer(429, "", headers={"Retry-After": "30"}))
    with pytest.raises(ProviderError, match=r"a burst, not the daily allowance\); server asked to wait 30 s "
                                            r"\(Retry-After\), more than the 6 s left"):
        search(slow)
    assert len(slow.seen) == 1 and slow.slept == []


def test_the_search_keeps_openalex_through_fault_429_no_retry_after(monkeypatch, capsys):
    """The issue's example through the real command: OpenAlex's results survive the 429."""
    with FakeServer() as server:
        md, js, payload = run_fault(monkeypatch, capsys, server,
                                    {"/openalex/works": [fake_apis.FAULT_429_NO_RETRY_AFTER, None]})
    check_contract(md, js, payload, failed=None)
    assert any("openalex" in result["provider_scores"] for result in payload["results"])
