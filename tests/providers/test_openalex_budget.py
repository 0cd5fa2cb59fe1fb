"""OpenAlex's daily allowance and page sizes (issue 20, items 4 and 5), against the fake API
speaking OpenAlex's real budget headers (../shared/reference/apis-more.md section 6): a spent
allowance is remembered until midnight UTC, so later runs skip OpenAlex at once with one
line naming OPENALEX_API_KEY; doctor shows what is left; a 403 is "not allowed", not a rate
limit; every list asks for 100 rows, the size that costs the same."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

import fake_apis
from command import command_env, command_runner
from fake_server import Answer, FakeServer
from litsearch.net.daily_budget import BudgetState, next_utc_midnight, read_budget, remember_budget
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import openalex
from litsearch.runtime.settings import settings_from_env

TOPIC = "CRISPR off-target effects"
WORKS = "/openalex/works"


@pytest.fixture
def world(tmp_path):
    """(run, server, env): the real command against the fake APIs, one data folder for every run."""
    with FakeServer() as server:
        env = command_env(fake_apis.install(server), LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                          LITSEARCH_EMAIL="budget@example.org", LITSEARCH_BACKOFF="0.05")
        env.pop("OPENALEX_API_KEY", None)
        yield command_runner(env, tmp_path, in_process=True), server, env  # tests/command.py


def _without_time(text: str) -> str:
    return re.sub(r"in \d+ h \d+ min", "in …", text)


def _error(payload: dict) -> str:
    return {e["provider"]: e["message"] for e in payload["errors"]}.get("openalex", "")


def test_a_spent_allowance_is_remembered_and_later_runs_skip_openalex_at_once(world, tmp_path):
    run, server, env = world
    server.route(WORKS, lambda request: fake_apis.openalex_budget_spent())
    search = [TOPIC, "--providers", "semantic_scholar,openalex", "--no-verify", "--no-cache", "--format", "json"]
    first = json.loads(run(search).stdout)
    message = _error(first)
    assert message.startswith("OpenAlex skipped: today's allowance ($0.1/day) is spent until midnight UTC, in 9 h")
    assert "set OPENALEX_API_KEY" in message and "\n" not in message
    assert len(server.requests_to(WORKS)) == 1  # the budget's 429 is not retried
    assert first["results"]  # Semantic Scholar still answered

    later = run(search)  # another process: nothing sent to OpenAlex
    assert len(server.requests_to(WORKS)) == 1
    assert _without_time(_error(json.loads(later.stdout))) == _without_time(message)
    markdown = run(search[:-2])
    footer = [line for line in markdown.stdout.splitlines() if line.startswith("- openalex: failed")]
    assert len(footer) == 1 and "OPENALEX\\_API\\_KEY" in footer[0]
    assert len(server.requests_to(WORKS)) == 1

    doctor = json.loads(run(["doctor", "--format", "json"]).stdout)
    budget = {p["name"]: p for p in doctor["providers"]}["openalex"]["budget"]
    assert budget["exhausted"] is True and budget["remaining_usd"] == 0 and budget["limit_usd"] == 0.1
    assert "is spent until midnight UTC" in run(["doctor"]).stdout

    # Another account (a key set now) has its own allowance: OpenAlex is asked again.
    keyed = command_runner({**env, "OPENALEX_API_KEY": "oa-test-key-123"}, tmp_path, in_process=True)
    server.route(WORKS, fake_apis._with_headers(fake_apis.openalex_works, fake_apis.OPENALEX_LIMIT_HEADERS))
    assert _error(json.loads(keyed(search).stdout)) == ""
    assert len(server.requests_to(WORKS)) == 2


def test_the_per_second_limit_is_waited_out_and_not_remembered(world):
    run, server, _ = world
    server.route(WORKS, fake_apis._scripted([fake_apis.OPENALEX_PER_SECOND_429, None], fake_apis.openalex_works))
    payload = json.loads(run([TOPIC, "--providers", "openalex", "--no-verify", "--format", "json"]).stdout)
    assert payload["errors"] == [] and payload["results"]
    first, second = server.requests_to(WORKS)[:2]
    assert second.time - first.time >= 1.0  # Retry-After honoured
    budget = {p["name"]: p for p in json.loads(run(["doctor", "--format", "json"]).stdout)["providers"]}
    assert budget["openalex"]["budget"] is None  # a burst's amounts are not the day's (test_openalex_429.py)


def test_a_403_is_named_not_allowed_and_not_retried(world):
    run, server, _ = world
    server.route(WORKS, lambda request: fake_apis.OPENALEX_FORBIDDEN)
    payload = json.loads(run([TOPIC, "--providers", "semantic_scholar,openalex", "--no-verify",
                              "--format", "json"]).stdout)
    message = _error(payload)
    assert message.startswith("HTTP 403 not allowed: OpenAlex refuses this request to this account or plan")
    assert "Plan upgrade required" in message and "not a rate limit, so it was not retried" in message
    assert "rate limited" not in message and "OPENALEX_API_KEY" not in message
    assert len(server.requests_to(WORKS)) == 1


def test_doctor_check_shows_what_is_left_today(world):
    run, _, _ = world
    report = json.loads(run(["doctor", "--check", "--format", "json"]).stdout)
    budget = {p["name"]: p for p in report["providers"]}["openalex"]["budget"]
    assert budget["remaining_usd"] == 0.9412 and budget["limit_usd"] == 1 and budget["exhausted"] is False
    text = run(["doctor"]).stdout  # remembered from the check's answer
    assert "- today's allowance: $0.9412 of $1 left today" in text


def test_the_memory_lasts_until_midnight_utc_and_belongs_to_one_account(tmp_path):
    now = 1_790_000_000.0  # some afternoon, UTC
    midnight = next_utc_midnight(now)
    assert 0 < midnight - now <= 86_400 and midnight % 86_400 == 0
    state = BudgetState("openalex", "no key", 0.0, 0.1, True, midnight, now)
    remember_budget(state, folder=tmp_path)
    assert read_budget("openalex", "no key", folder=tmp_path, wall=lambda: now + 60) == state
    assert read_budget("openalex", "key abc", folder=tmp_path, wall=lambda: now + 60) is None
    assert read_budget("openalex", "no key", folder=tmp_path, wall=lambda: midnight) is None  # renewed
    (tmp_path / "budget" / "openalex.json").write_text("{not json")
    assert read_budget("openalex", "no key", folder=tmp_path, wall=lambda: now) is None


def test_every_openalex_list_asks_for_the_page_that_costs_the_same(tmp_path):
    """Item 4: search with 100 wanted asks per_page=100; the cited-by list asks 100 (sorted by
    citations on the server); id lookups send 100 ids per OR-filter call."""
    with FakeServer() as server:
        env = fake_apis.install(server)
        settings = settings_from_env({**env, "LITSEARCH_EMAIL": "t@example.org"})

        async def go():
            async with HttpClient(settings, policies={"openalex": PacePolicy(0.0, 5, retries=0)}) as http:
                session = http.session("openalex")
                await openalex.search(session, "crispr", 100)
                await openalex.fetch_citing(session, "W2022234560")
                await openalex.fetch_works(session, [f"W{n}" for n in range(150)])

        asyncio.run(go())
    search, citing, first_batch, second_batch = server.requests_to(WORKS)
    assert search.param("per_page") == "100"
    assert citing.param("per_page") == "100" and citing.param("sort") == "cited_by_count:desc"
    assert first_batch.param("filter").count("|") == 99 and first_batch.param("per_page") == "100"
    assert second_batch.param("filter").count("|") == 49
