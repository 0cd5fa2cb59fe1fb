#!/usr/bin/env python3
"""Measure the pace each provider is really called at, from a loopback server's clock.

For every provider, fires N concurrent requests through the real HTTP layer (with the
provider's declared policy) and prints the smallest and mean gap between request
arrivals next to the declared interval. Run: .venv/bin/python bench/pacing_benchmark.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from fake_server import Answer, FakeServer  # noqa: E402
from litsearch.net.http import HttpClient  # noqa: E402
from litsearch.providers.base import pace_policies  # noqa: E402
from litsearch.runtime.settings import settings_from_env  # noqa: E402

CALLS = {"semantic_scholar": 10, "arxiv": 4, "pubmed": 12, "openalex": 20, "crossref": 12, "unpaywall": 20}


async def fire(url: str, provider: str, count: int) -> None:
    async with HttpClient(settings_from_env({})) as http:
        session = http.session(provider, budget=120)
        await asyncio.gather(*(session.get(f"{url}/{provider}") for _ in range(count)))


def main() -> None:
    policies = pace_policies(settings_from_env({}))
    print(f"{'provider':<18}{'calls':>6}{'declared s':>12}{'min gap s':>11}{'mean gap s':>12}")
    for provider, count in CALLS.items():
        with FakeServer() as server:
            server.script(f"/{provider}", Answer(200, "{}"))
            asyncio.run(fire(server.url, provider, count))
            times = sorted(r.time for r in server.requests)
        gaps = [b - a for a, b in zip(times, times[1:])]
        declared = policies[provider].min_interval
        print(f"{provider:<18}{count:>6}{declared:>12.3f}{min(gaps):>11.3f}{sum(gaps) / len(gaps):>12.3f}")


if __name__ == "__main__":
    main()
