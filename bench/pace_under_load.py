#!/usr/bin/env python3
"""Can two lit-search processes start requests of one API closer than its pace allows when the
machine is loaded? (issue 20, item 8)

Starts WORKERS processes that each send REQUESTS requests of one provider (PubMed's pace,
1/3 s apart) through the real HTTP layer to a loopback server, while BURNERS processes keep
every core busy. Each worker notes, on the wall clock, when each request's headers started
and finished leaving (httpx's trace). The script prints the smallest gap between one request's
headers leaving and the next request's headers starting, across all processes, next to the
pace; a gap under the pace is a lost claim. A server-side gap is printed too (the loopback
server's own clock, which load also delays, so it is the weaker measure).

Run: .venv/bin/python bench/pace_under_load.py [--workers 4] [--requests 6] [--burners 4]

--lab (issue 33): a lab on one key. MACHINES processes (each its own data folder, as its own
computer) run SEARCHES searches each on one Semantic Scholar key against the fake APIs, whose
Semantic Scholar enforces 1 request/s per key (tests/fake_rate_limit.py): through a real Redis
(LITSEARCH_SHARED_STATE; Debian's redis-server on a free loopback port), without it, and with
the Redis killed after a third of the requests. It prints, for each, the requests over the
limit and the time the key was busy (first arrival to last, plus one second) against the ideal
(requests / 1 per second), and the wall time from the start signal to the last process's end.

Run: .venv/bin/python bench/pace_under_load.py --lab [--machines 8] [--searches 3]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

PROVIDER = "pubmed"


def burn(stop_at: float) -> None:
    while time.time() < stop_at:
        sum(i * i for i in range(10_000))


def worker(url: str, data: str, requests: int, out: str) -> None:
    import asyncio

    import httpx

    os.environ["LITSEARCH_CACHE_DIR"] = data
    from litsearch.net.http import HttpClient
    from litsearch.runtime.settings import settings_from_env

    sends: list[tuple[float, float]] = []

    class Traced(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request):
            original = request.extensions.get("trace")
            started: list[float] = []

            async def trace(event: str, info) -> None:
                if event.endswith("send_request_headers.started"):
                    started.append(time.time())
                if event.endswith("send_request_headers.complete"):
                    sends.append((started[-1] if started else time.time(), time.time()))
                if original is not None:
                    await original(event, info)

            request.extensions["trace"] = trace
            return await super().handle_async_request(request)

    async def go() -> None:
        settings = settings_from_env({"LITSEARCH_PUBMED_URL": url, "LITSEARCH_PROVIDER_BUDGET": "120"})
        async with HttpClient(settings, transport=Traced()) as http:
            session = http.session(PROVIDER, budget=120)
            await asyncio.gather(*(session.get(f"{url}/esearch.fcgi") for _ in range(requests)))

    asyncio.run(go())
    Path(out).write_text(json.dumps(sends))


def lab(machines: int, searches: int) -> None:
    from lab_run import run_lab
    from redis_support import RedisServer

    print(f"{machines} machines x {searches} searches on one Semantic Scholar key; the fake allows 1 request/s "
          f"per key; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    ideal = machines * searches
    with RedisServer() as server:
        runs = [("through Redis", run_lab(machines, searches, server.url))]
    runs.append(("without LITSEARCH_SHARED_STATE", run_lab(machines, searches)))
    with RedisServer() as server:
        runs.append(("Redis killed after a third", run_lab(machines, searches, server.url, kill=server.kill,
                                                           kill_after=max(1, ideal // 3))))
    for name, run in runs:
        searches_done = sum(1 for out in run.stdout for line in out.splitlines()
                            if line.startswith("{") and '"errors": []' in line)
        lost = sum(1 for err in run.stderr if "shared state lost" in err)
        print(f"{name}: {run.limit.served} served, {run.limit.violations} over the limit (429); key busy "
              f"{run.limit.busy_seconds():.1f} s for an ideal {ideal} s ({run.limit.busy_seconds() / ideal - 1:+.0%}); "
              f"wall {run.wall_seconds:.1f} s; searches with every paper: {searches_done}/{ideal}; "
              f"processes saying the lab was lost: {lost}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--requests", type=int, default=6)
    parser.add_argument("--burners", type=int, default=4)
    parser.add_argument("--lab", action="store_true", help="a lab on one key, through Redis (issue 33)")
    parser.add_argument("--machines", type=int, default=8)
    parser.add_argument("--searches", type=int, default=3)
    args = parser.parse_args()
    if args.lab:
        lab(args.machines, args.searches)
        return

    from fake_server import Answer, FakeServer
    from litsearch.net.pacing import paced_interval
    from litsearch.providers.base import get_provider
    from litsearch.runtime.settings import settings_from_env

    declared = get_provider(PROVIDER).pace_policy(settings_from_env({})).min_interval
    folder = tempfile.mkdtemp(prefix="pace-under-load-")
    context = multiprocessing.get_context("spawn")
    with FakeServer() as server:
        server.script("/eutils", Answer(200, '{"esearchresult": {"idlist": [], "count": "0"}}'))
        burners = [context.Process(target=burn, args=(time.time() + 60,)) for _ in range(args.burners)]
        for process in burners:
            process.start()
        outs = [os.path.join(folder, f"worker-{n}.json") for n in range(args.workers)]
        workers = [context.Process(target=worker, args=(server.url + "/eutils", os.path.join(folder, "data"),
                                                           args.requests, out)) for out in outs]
        for process in workers:
            process.start()
        for process in workers:
            process.join(120)
        for process in burners:
            process.terminate()
        arrivals = sorted(r.time for r in server.requests)
    sends = sorted(tuple(pair) for out in outs for pair in json.loads(Path(out).read_text()))
    after_previous = [b[0] - a[1] for a, b in zip(sends, sends[1:])]
    start_gaps = [b[0] - a[0] for a, b in zip(sends, sends[1:])]
    server_gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    print(f"{args.workers} processes x {args.requests} requests, {args.burners} CPU burners, "
          f"{os.cpu_count()} cores; pace {declared:.3f} s (kept: {paced_interval(declared):.3f} s)")
    print(f"requests sent: {len(sends)}; smallest gap, previous headers sent -> next headers started: "
          f"{min(after_previous):.3f} s; start to start: {min(start_gaps):.3f} s; "
          f"under the pace: {sum(1 for gap in start_gaps if gap < declared)}")
    print(f"server clock: smallest gap {min(server_gaps):.3f} s; under the pace: "
          f"{sum(1 for gap in server_gaps if gap < declared)}")


if __name__ == "__main__":
    main()
