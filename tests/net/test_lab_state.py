"""A lab on one key (issue 33): the pace, a 429's wait, OpenAlex's daily budget and the response
cache shared by machines through a real Redis (tests/redis_support.py), and what happens when
Redis is unreachable, killed or slow.

A "machine" here is an HttpClient with its own pace book and its own pace folder (what another
computer would have), sharing only the Redis URL.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from dataclasses import replace

import httpx
import pytest

from fake_server import Answer, FakeServer
from litsearch.runtime.settings import settings_from_env
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PaceBook, PacePolicy
from litsearch.net.shared_pace import SharedPace
from litsearch.net.shared_state import SharedState
from redis_support import RedisServer, free_port
from redis_support import _fresh_links, redis_server  # noqa: F401  (fixtures)

KEY = "s2-lab-key-0123456789abcdef"
OTHER_KEY = "s2-other-key-fedcba9876543210"
PASSWORD = "redis-pass-7c1d9e"
INTERVAL = 0.3
POLICY = PacePolicy(min_interval=INTERVAL, max_in_flight=1)


def lab_settings(url: str, key: str | None = KEY, **extra: str):
    env = {"LITSEARCH_SHARED_STATE": url, **extra}
    if key:
        env["SEMANTIC_SCHOLAR_API_KEY"] = key
    return settings_from_env(env)


def machine(settings, folder, transport=None, cache=None) -> HttpClient:
    """One machine: its own pace book and pace folder; the lab only through the settings."""
    return HttpClient(settings, policies={"semantic_scholar": POLICY}, pace_book=PaceBook(),
                      shared_pace=SharedPace(folder), transport=transport, cache=cache)


def lost_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "shared state lost" in line]


# ---------------------------------------------------------------- names: never the key


def test_a_key_is_named_by_a_salted_hash_and_nothing_secret_reaches_redis(tmp_path):
    with RedisServer(password=PASSWORD) as lab, RedisServer() as other_lab:
        async def names(url: str) -> list[str]:
            first, second = SharedState(url), SharedState(url)
            try:
                return [await first.name("semantic_scholar", KEY), await second.name("semantic_scholar", KEY),
                        await first.name("semantic_scholar", OTHER_KEY), await first.name("semantic_scholar", None)]
            finally:
                await first.aclose()
                await second.aclose()

        same, again, other, keyless = asyncio.run(names(lab.url))
        elsewhere = asyncio.run(names(other_lab.url))[0]

        async def one_request(url: str) -> None:
            async with machine(lab_settings(lab.url), tmp_path / "a") as http:
                await http.session("semantic_scholar", budget=10).get(url)

        with FakeServer() as server:
            server.script("/p", Answer(200, "{}"))
            asyncio.run(one_request(server.url + "/p"))
        stored = lab.dump()
    assert same == again != other  # one key, one name, on every machine; another key, another name
    assert keyless == "semantic_scholar:no-key"
    assert same != elsewhere  # salted per lab: a name cannot be matched across labs
    plain_hash = hashlib.sha256(KEY.encode()).hexdigest()
    for secret in (KEY, plain_hash[:16], PASSWORD):
        assert secret.encode() not in stored and secret not in same
    assert b"lit-search:pace:" + same.encode() + b":next" in stored.split(b"\n")


# ---------------------------------------------------------------- the pace across machines


class LateTransport(httpx.AsyncHTTPTransport):
    """Holds a request back before its headers leave (a slow connect, a descheduled machine)
    and notes when its headers began and finished leaving."""

    def __init__(self, delay: float, sends: list, name: str, entered: threading.Event | None = None):
        super().__init__()
        self.delay, self.sends, self.name, self.entered = delay, sends, name, entered

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.entered is not None:
            self.entered.set()  # the lab's turn is held from here until the headers leave
        await asyncio.sleep(self.delay)
        original = request.extensions.get("trace")
        began: list[float] = []

        async def trace(event: str, info) -> None:
            if event.endswith("send_request_headers.started"):
                began.append(time.time())
            if event.endswith("send_request_headers.complete"):
                self.sends.append((self.name, began[-1], time.time()))
            if original is not None:
                await original(event, info)

        request.extensions["trace"] = trace
        return await super().handle_async_request(request)


def test_two_machines_on_one_key_keep_its_pace_even_when_one_sends_late(redis_server, tmp_path):
    sends: list = []
    settings = lab_settings(redis_server.url)
    late_holds_the_turn = threading.Event()

    def run_machine(url: str, name: str, delay: float, after: threading.Event | None) -> None:
        if after is not None:
            after.wait(20)
        entered = late_holds_the_turn if name == "late" else None

        async def go() -> None:
            async with machine(settings, tmp_path / name, transport=LateTransport(delay, sends, name, entered)) as http:
                await http.session("semantic_scholar", budget=20).get(url)

        asyncio.run(go())

    with FakeServer() as server:
        server.script("/p", Answer(200, "{}"))
        threads = [threading.Thread(target=run_machine, args=(server.url + "/p", "late", INTERVAL + 0.2, None)),
                   threading.Thread(target=run_machine, args=(server.url + "/p", "prompt", 0.0, late_holds_the_turn))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert [name for name, _, _ in sends] == ["late", "prompt"]
    (_, _, late_left), (_, prompt_began, _) = sends
    assert prompt_began - late_left >= INTERVAL  # the lab's turn was held until the late headers left


def test_the_pace_is_per_key_and_a_429_holds_every_machine_on_that_key(redis_server, tmp_path):
    async def go() -> tuple[float, float, float, float]:
        async with machine(lab_settings(redis_server.url), tmp_path / "a") as a, \
                machine(lab_settings(redis_server.url), tmp_path / "b") as b, \
                machine(lab_settings(redis_server.url, OTHER_KEY), tmp_path / "c") as c:
            hold = await a.pace_keeper.try_turn("semantic_scholar")
            await a.pace_keeper.started("semantic_scholar", 2.0, hold)  # machine a sent; next in 2 s

            async def wait_of(http: HttpClient) -> float:
                held = await http.pace_keeper.try_turn("semantic_scholar")
                try:
                    return await http.pace_keeper.wait_before_start("semantic_scholar", held)
                finally:
                    await http.pace_keeper.release(held)

            same_key, other_key = await wait_of(b), await wait_of(c)
            await a.note_rate_limited("semantic_scholar", 30.0, None)  # a 429 told machine a to wait 30 s
            told, other_after = await wait_of(b), await wait_of(c)
            return same_key, other_key, told, other_after

    same_key, other_key, told, other_after = asyncio.run(go())
    assert 1.0 < same_key <= 2.0 and other_key == 0.0
    assert 25.0 < told <= 30.0 and other_after == 0.0


def test_a_429_with_retry_after_delays_the_other_machines_request(redis_server, tmp_path):
    first = threading.Event()
    hold_seen: list[bool] = []

    def answer(request) -> Answer:
        if not first.is_set():
            first.set()
            return Answer(429, '{"message": "Too Many Requests"}', headers={"Retry-After": "2"})
        return Answer(200, "{}")

    def held_for_a_while() -> bool:
        """The told machine wrote the 429's wait to the lab (a booking over a second ahead)."""
        now_seconds, now_micro = (int(part) for part in redis_server.command("TIME"))
        now = now_seconds * 1000 + now_micro // 1000
        return any(int(redis_server.command("GET", key) or 0) > now + 1000
                   for key in redis_server.keys("lit-search:pace:semantic_scholar:*:next"))

    def run_machine(url: str, name: str, after_the_hold: bool) -> None:
        if after_the_hold:
            first.wait(20)
            deadline = time.monotonic() + 20
            while not (seen := held_for_a_while()) and time.monotonic() < deadline:
                time.sleep(0.01)
            hold_seen.append(seen)

        async def go() -> None:
            async with machine(lab_settings(redis_server.url), tmp_path / name) as http:
                await http.session("semantic_scholar", budget=20).get(url)

        asyncio.run(go())

    with FakeServer() as server:
        server.route("/p", answer)
        threads = [threading.Thread(target=run_machine, args=(server.url + "/p", "told", False)),
                   threading.Thread(target=run_machine, args=(server.url + "/p", "other", True))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(40)
        arrivals = sorted(request.time for request in server.requests)
    assert hold_seen == [True]  # the told machine wrote the wait to the lab before the other asked
    assert len(arrivals) == 3  # the 429, then both machines once
    assert arrivals[1] - arrivals[0] >= 1.9  # the other machine was not told, yet it waited too


def test_publishers_open_copies_keep_this_machines_pace_and_apis_the_labs(redis_server, tmp_path):
    async def go() -> list[str]:
        places = []
        async with machine(lab_settings(redis_server.url), tmp_path / "m") as http:
            for provider in ("open_access", "arxiv"):
                held = await http.pace_keeper.try_turn(provider)
                places.append(held.place)
                await http.pace_keeper.release(held)
        return places

    assert asyncio.run(go()) == ["machine", "lab"]


# ---------------------------------------------------------------- failure costs speed, never correctness


def test_redis_unreachable_at_start_says_one_line_and_paces_this_machine(tmp_path, capsys):
    url = f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0"  # nothing listens there

    async def go(server_url: str) -> list[int]:
        statuses = []
        for run in range(2):  # two commands' clients, one process
            async with machine(lab_settings(url), tmp_path / "m") as http:
                session = http.session("semantic_scholar", budget=20)
                statuses += [(await session.get(server_url)).status for _ in range(2)]
        return statuses

    with FakeServer() as server:
        server.script("/p", Answer(200, "{}"))
        statuses = asyncio.run(go(server.url + "/p"))
    err = capsys.readouterr().err
    assert statuses == [200] * 4
    assert len(lost_lines(err)) == 1, err
    assert f"redis://127.0.0.1:{url.rsplit(':', 1)[1]}" in lost_lines(err)[0] and PASSWORD not in err
    assert (tmp_path / "m" / "semantic_scholar.next").exists()  # the machine's own pace took over


def test_redis_killed_mid_run_says_one_line_and_every_request_completes(tmp_path, capsys):
    lab = RedisServer().start()
    try:
        async def go(server_url: str) -> list[int]:
            async with machine(lab_settings(lab.url), tmp_path / "m") as http:
                session = http.session("semantic_scholar", budget=20)
                statuses = [(await session.get(server_url)).status for _ in range(2)]
                lab.kill()
                statuses += [(await session.get(server_url)).status for _ in range(3)]
                return statuses

        with FakeServer() as server:
            server.script("/p", Answer(200, "{}"))
            statuses = asyncio.run(go(server.url + "/p"))
    finally:
        lab.stop()
    err = capsys.readouterr().err
    assert statuses == [200] * 5
    assert len(lost_lines(err)) == 1, err


def test_a_slow_redis_costs_at_most_its_timeout_once(redis_server, tmp_path, capsys):
    async def go(server_url: str) -> tuple[list[int], float]:
        async with machine(lab_settings(redis_server.url), tmp_path / "m") as http:
            session = http.session("semantic_scholar", budget=20)
            statuses = [(await session.get(server_url)).status]
            redis_server.command("CLIENT", "PAUSE", "20000", "WRITE")  # every script waits 20 s
            started = time.monotonic()
            statuses += [(await session.get(server_url)).status for _ in range(2)]
            return statuses, time.monotonic() - started

    with FakeServer() as server:
        server.script("/p", Answer(200, "{}"))
        statuses, seconds = asyncio.run(go(server.url + "/p"))
    redis_server.command("CLIENT", "UNPAUSE")
    err = capsys.readouterr().err
    assert statuses == [200] * 3
    assert len(lost_lines(err)) == 1 and "no answer in time" in err, err
    assert seconds < 10  # one call's bound and the pace, never Redis's 20 s pause (nor the 20 s budget)


def test_a_lost_link_is_tried_again_later_and_says_when_it_is_back(redis_server, capsys):
    now = [1000.0]
    said: list[str] = []

    async def go() -> tuple[bool, bool, bool]:
        state = SharedState(redis_server.url, clock=lambda: now[0], warn=said.append)
        try:
            await state.run(lambda client: client.ping())
            redis_server.command("CLIENT", "PAUSE", "20000", "WRITE")
            with pytest.raises(Exception):
                await state.run(lambda client: client.set("lit-search:probe", "1"))
            redis_server.command("CLIENT", "UNPAUSE")
            lost = not state.usable
            now[0] += 30
            still_lost = not state.usable
            now[0] += 31
            await state.run(lambda client: client.ping())
            return lost, still_lost, state.usable
        finally:
            await state.aclose()

    lost, still_lost, back = asyncio.run(go())
    assert lost and still_lost and back
    assert len(said) == 2 and "shared state lost" in said[0] and "reached again" in said[1]


# ---------------------------------------------------------------- OpenAlex's daily budget


def test_a_spent_daily_budget_seen_by_one_machine_stops_the_others_before_any_request(
        redis_server, tmp_path, monkeypatch):
    from litsearch.core.errors import ProviderError
    from litsearch.providers.openalex_budget import budgeted_get

    spent = Answer(429, '{"error": "Rate limit exceeded"}', headers={
        "X-RateLimit-Limit-USD": "1", "X-RateLimit-Remaining-USD": "0", "Retry-After": "40000",
        "X-RateLimit-Reset": "40000"})
    with FakeServer() as server:
        server.script("/openalex/works", spent)
        settings = lab_settings(redis_server.url, OPENALEX_API_KEY="oa-lab-key-123456789",
                                LITSEARCH_OPENALEX_URL=server.url + "/openalex")

        async def ask(folder: str) -> str:
            monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path / folder))
            async with HttpClient(settings) as http:
                session = http.session("openalex", budget=10)
                with pytest.raises(ProviderError) as failed:
                    await budgeted_get(session, session.url("/works"), params={"search": "x"})
                return str(failed.value)

        told = asyncio.run(ask("machine-a"))
        asked_before = len(server.requests)
        other = asyncio.run(ask("machine-b"))
    assert asked_before == 1 and len(server.requests) == 1  # machine b sent nothing
    assert "OpenAlex skipped: today's allowance" in told and "OpenAlex skipped: today's allowance" in other
    assert (tmp_path / "machine-b" / "budget" / "openalex.json").exists()  # b remembers it too
    assert b"oa-lab-key-123456789" not in redis_server.dump()


# ---------------------------------------------------------------- the response cache


def _cache(folder, settings):
    from litsearch.library.store import Store
    from litsearch.net.cache import ResponseCache

    store = Store.open(folder / "lit-search.sqlite3", redact=settings.redact)
    return store, ResponseCache(store, "normal", max_bytes=settings.cache_max_bytes)


def test_an_answer_one_machine_fetched_is_served_to_another_from_the_lab(redis_server, tmp_path):
    settings = replace(lab_settings(redis_server.url), secrets=(KEY,))
    body = json.dumps({"data": [{"title": f"echoed {KEY}"}]})

    async def get(folder: str, url: str) -> tuple[str, int, int]:
        store, cache = _cache(tmp_path / folder, settings)
        try:
            async with machine(settings, tmp_path / folder, cache=cache) as http:
                session = http.session("semantic_scholar", budget=10)
                answer = await session.get(url, params={"query": "lab", "api_key": KEY})
                return answer.text, session.cache_hits, cache.lab_hits.get("semantic_scholar", 0)
        finally:
            store.close()

    with FakeServer() as server:
        server.script("/p", Answer(200, body))
        first = asyncio.run(get("a", server.url + "/p"))
        second = asyncio.run(get("b", server.url + "/p"))
        third = asyncio.run(get("b", server.url + "/p"))  # b keeps it too (for --offline away from the lab)
        requests = len(server.requests)
    assert requests == 1
    assert first[1:] == (0, 0) and second[1:] == (1, 1) and third[1:] == (1, 0)
    assert "[redacted]" in second[0] and KEY not in second[0]
    assert KEY.encode() not in redis_server.dump()


def test_the_lab_cache_keeps_its_size_cap_and_lifetimes_with_writers_racing(redis_server):
    from litsearch.net.http import FetchedResponse
    from litsearch.net.lab_cache import CACHE, LabCache

    answer = FetchedResponse(200, {"content-type": "application/json"}, b'{"x": "' + b"y" * 1000 + b'"}', "http://h/p")

    async def go() -> tuple[list, int, int, object, object]:
        states = [SharedState(redis_server.url, call_timeout=5.0) for _ in range(2)]
        caches = [LabCache(state, max_bytes=20_000) for state in states]
        try:
            await asyncio.gather(*(caches[n % 2].put("openalex", f"k{n}", answer, 3600) for n in range(60)))
            await caches[0].put("openalex", "short", answer, 0.05)
            await asyncio.sleep(0.2)
            expired = await caches[1].get("openalex", "short")
            stale = await caches[1].get("openalex", "short", allow_stale=True)
            total = await caches[0].size()
            sizes = await states[0].run(lambda client: client.hgetall(CACHE + "sizes"))
            present = await states[0].run(lambda client: client.keys(CACHE + "openalex:*"))
            return sorted(sizes.values()), total, len(present), expired, stale
        finally:
            for state in states:
                await state.aclose()

    sizes, total, present, expired, stale = asyncio.run(go())
    assert total <= 20_000 and total == sum(int(size) for size in sizes)  # the books add up, under the cap
    assert present == len(sizes) < 61  # the oldest went; what is counted is what is there
    assert expired is None and stale is not None and stale.stale  # --offline may still use an expired answer


# ---------------------------------------------------------------- doctor


def test_doctor_shows_the_lab_without_its_password_and_check_tests_it(tmp_path, monkeypatch, capsys):
    from litsearch.cli.doctor import doctor_command
    from litsearch.net.lab_report import lab_report
    from litsearch.render.doctor import doctor_markdown

    with RedisServer(password=PASSWORD) as lab:
        monkeypatch.setenv("LITSEARCH_SHARED_STATE", lab.url)
        monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path / "data"))
        doctor_command(["--format", "json"])
        shown = json.loads(capsys.readouterr().out)["shared_state"]
        checked = asyncio.run(lab_report(lab.url, lambda text: text, deep=True))
        wrong = asyncio.run(lab_report(lab.url.replace(PASSWORD, "not-the-password"), lambda text: text))
        leftovers = lab.keys("lit-search:doctor*") + lab.keys("lit-search:pace:doctor*")
    port = lab.port
    assert shown["set"] and shown["reachable"] and shown["url"] == f"redis://127.0.0.1:{port}/0"
    assert shown["latency_ms"] is not None and not shown["checked"]
    assert checked["scripts"] and checked["writes"] and checked["server"].startswith("Redis ")
    assert checked["cache_bytes"] == 0 and leftovers == []  # the check cleans up after itself
    assert not wrong["reachable"] and wrong["error"]
    line = next(line for line in doctor_markdown({**_empty_report(), "shared_state": {**shown, **checked,
                                                                                      "checked": True}}).splitlines()
                if line.startswith("- shared state"))
    assert "ran the pace script; a write was read back" in line and PASSWORD not in line
    down = doctor_markdown({**_empty_report(), "shared_state": {"set": True, **wrong}})
    assert "**unreachable**" in down and "not-the-password" not in down


def _empty_report() -> dict:
    return {"version": "0", "python": "3", "executable": "python", "contact_email_set": False, "proxies": {},
            "data_folder": {"path": "/d", "exists": False, "bytes": 0, "database_bytes": 0, "cache_bytes": 0,
                            "cache_max_bytes": 1, "variable": "LITSEARCH_CACHE_DIR"},
            "providers": []}


def test_a_shared_state_that_is_no_redis_address_is_one_line_naming_the_variable(monkeypatch):
    from litsearch.core.environment import EnvironmentProblem

    for value in ("http://host:6379", "redis://", "redis://host:99999/0", "redis://host:6379/zero",
                  f"redis://:{PASSWORD}@host:6379/0 extra"):
        with pytest.raises(EnvironmentProblem) as problem:
            settings_from_env({"LITSEARCH_SHARED_STATE": value})
        assert str(problem.value).startswith("LITSEARCH_SHARED_STATE ") and PASSWORD not in str(problem.value)
    settings = settings_from_env({"LITSEARCH_SHARED_STATE": f"rediss://lab:{PASSWORD}@redis.lab.example:6380/3"})
    assert settings.redact(f"auth {PASSWORD}") == "auth [redacted]" and PASSWORD not in repr(settings)
    from litsearch.core.environment import shown_shared_state

    assert shown_shared_state(settings.shared_state) == "rediss://redis.lab.example:6380/3"
