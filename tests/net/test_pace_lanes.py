"""A service's lanes (core/services.py Service.lanes): an endpoint with a pace of its own, kept
on top of the service's. OpenAlex declares one for semantic search, which allows one request a
second (help.openalex.org/api/semantic-search) while the rest of OpenAlex goes ten times as
fast. The HTTP layer picks the lane from the request (its ``search.semantic``), so every
sender is paced by it: the explorer's work_find and deep search's semantic step alike.
Checked on a virtual clock: no timing luck involved."""

from __future__ import annotations

import asyncio
import heapq

import httpx
import pytest

from litsearch.runtime.settings import settings_from_env
from litsearch.net.http import HttpClient
from litsearch.providers.openalex_declaration import SEMANTIC_LANE, SERVICE


class VirtualTime:
    """A clock that moves only when every task is waiting: then to the earliest wake-up asked
    for (a discrete-event clock), so concurrent sleepers do not add up."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waiting: list[tuple[float, int, asyncio.Future]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (self.now + max(seconds, 0.0), id(future), future))
        await future

    async def run(self, work) -> None:
        task = asyncio.ensure_future(work)
        while not task.done():
            for _ in range(50):  # let every task run until it waits
                await asyncio.sleep(0)
            if self.waiting and not task.done():
                self.now, _, future = heapq.heappop(self.waiting)
                future.set_result(None)
        await task


def arrivals(plan: list[str], send=None) -> list[tuple[str, float]]:
    """Send one request per entry of ``plan`` at once ("semantic" asks search.semantic, "plain"
    does not), and return when each arrived, on the virtual clock. ``send(session, kind, n)``:
    how a request is sent (default: a plain GET with the parameter)."""
    time = VirtualTime()
    seen: list[tuple[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(("semantic" if "search.semantic" in request.url.params else "plain", time.now))
        return httpx.Response(200, json={"results": []})

    async def go() -> None:
        async with HttpClient(settings_from_env({}), transport=httpx.MockTransport(handler), clock=time.clock,
                              sleep=time.sleep) as http:
            async def one(kind: str, position: int):
                session = http.session("openalex", budget=60)
                if send is not None:
                    return await send(session, kind, position)
                asked = "search.semantic" if kind == "semantic" else "search"
                return await session.get(session.url("/works"), params={asked: f"text {position}"})

            await asyncio.gather(*(one(kind, position) for position, kind in enumerate(plan)))

    asyncio.run(time.run(go()))
    return seen


def test_the_semantic_lane_keeps_a_second_between_its_requests_and_slows_nothing_else():
    seen = arrivals(["semantic", "plain", "semantic", "plain", "semantic", "plain"])
    semantic = [t for kind, t in seen if kind == "semantic"]
    plain = [t for kind, t in seen if kind == "plain"]
    assert len(semantic) == len(plain) == 3
    assert all(later - earlier >= 1.0 for earlier, later in zip(semantic, semantic[1:]))
    assert max(plain) - min(t for _, t in seen) < 0.5  # the plain requests went at OpenAlex's own pace
    every = sorted(t for _, t in seen)
    assert all(later - earlier >= SERVICE.pace.min_interval for earlier, later in zip(every, every[1:]))


def test_every_sender_of_a_semantic_search_goes_through_the_lane():
    """The senders of search.semantic in the package: the explorer's find_works and deep
    search's fetch_semantic, neither told about the lane; and the parameter written into the URL."""
    from litsearch.providers.openalex_entities import find_works
    from litsearch.providers.openalex_links import fetch_semantic

    senders = {
        "find_works": lambda session, n: find_works(session, f"text {n}", limit=5),
        "fetch_semantic": lambda session, n: fetch_semantic(session, f"text {n}", 5),
        "in the URL": lambda session, n: session.get(session.url(f"/works?search.semantic=text+{n}")),
    }
    for name, sender in senders.items():
        async def send(session, kind, n, sender=sender):
            if kind == "semantic":
                return await sender(session, n)
            return await session.get(session.url("/works"), params={"filter": f"publication_year:{2000 + n}"})

        seen = arrivals(["semantic", "plain", "semantic", "semantic"], send)
        semantic = [t for kind, t in seen if kind == "semantic"]
        assert len(semantic) == 3, name
        assert all(later - earlier >= 1.0 for earlier, later in zip(semantic, semantic[1:])), (name, seen)


def test_the_lane_is_chosen_by_the_declared_parameter_only():
    settings = settings_from_env({})

    async def lanes():
        async with HttpClient(settings) as http:
            base = "https://api.openalex.org/works"
            return [http.lane("openalex", base, {"search.semantic": "x"}),
                    http.lane("openalex", base, [("search.semantic", "x"), ("per_page", 5)]),
                    http.lane("openalex", base + "?search.semantic=x", None),
                    http.lane("openalex", base, {"search": "x", "filter": "title.search:semantic"}),
                    http.lane("openalex", base, None),
                    http.lane("crossref", "https://api.crossref.org/works", {"search.semantic": "x"})]

    assert asyncio.run(lanes()) == ["openalex.semantic"] * 3 + [None] * 3
    assert SERVICE.lane_of({"search.semantic", "per_page"}) == SEMANTIC_LANE and SERVICE.lane_of({"search"}) is None


def test_a_lane_is_declared_data_and_an_undeclared_one_is_refused():
    assert SERVICE.lane(SEMANTIC_LANE).min_interval == 1.0 and SERVICE.lane(SEMANTIC_LANE).max_in_flight == 1
    assert settings_from_env({}).pace("openalex", SEMANTIC_LANE) == SERVICE.lane(SEMANTIC_LANE)

    async def go():
        async with HttpClient(settings_from_env({})) as http:
            http.policy("openalex.nonesuch")

    with pytest.raises(KeyError):
        asyncio.run(go())

