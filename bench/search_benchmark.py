"""How close is a search to what the network allows?

Runs the real `lit-search` command against the project's fake APIs (tests/fake_apis.py) on
loopback, with each API's real latency added to every answer and the real pacing limits in
force: Semantic Scholar 600 ms, OpenAlex 400 ms, PubMed 250 ms per call at 3/s, arXiv 900 ms,
Crossref 500 ms, Unpaywall 200 ms, Europe PMC 700 ms (assumed). One search: 5 variants, the
providers the topic brings (5), default options
(20 rows, DOI checks and open-access lookups on). Prints, over several runs:

- the median wall time, and the time from process start to the first request;
- the floor: start-up (the time to the first request) + the slowest provider's unavoidable
  chain of requests (its latencies and its pace) + one enrichment round trip;
- the ratio wall / floor, and any pacing violation seen by the server (two requests to one
  API closer than its declared interval);
- the requests each API was sent (median over the runs) beside the fewest the search needs
  (NEEDED: one call each, two for PubMed's esearch then efetch, one Crossref batch for the 20
  rows), and the ratio of all requests to that floor; Unpaywall is asked once per row without a
  free link, which depends on the rows, so it has no fixed floor;
- the floor of the HTTP stack itself: the time to the first request of a program that does
  nothing but import asyncio and httpx and send one GET with httpx's default client (and, for
  scale, the same with asyncio's own streams), run right before each search so that both see
  the same machine; the start-up above reads as that floor + lit-search's own part;
- merge + rank + render time for 1,400 real records (4 x 100 plus a 1,000-record bulk
  answer, from ../shared/fixtures), relevance scoring included, and the peak memory of that step.

    .venv/bin/python bench/search_benchmark.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]

import fake_apis  # noqa: E402
from fake_server import FakeServer  # noqa: E402

# Europe PMC publishes no latency figure: 0.7 s is assumed for a core page of 100, below arXiv's
# 0.9 s, so the slowest chain stays arXiv's or PubMed's.
LATENCY = {"/s2/": 0.6, "/openalex/": 0.4, "/eutils/": 0.25, "/europepmc/": 0.7, "/arxiv/": 0.9, "/crossref/": 0.5,
           "/unpaywall/": 0.2}
ROUTES = {"/s2/": "semantic_scholar", "/openalex/": "openalex", "/eutils/": "pubmed", "/europepmc/": "europepmc",
          "/arxiv/": "arxiv", "/crossref/": "crossref", "/unpaywall/": "unpaywall"}
TOPIC = "CRISPR deep learning off-target prediction"
VARIANTS = ["Cas9 guide design neural network", "off-target cleavage machine learning",
            "sgRNA specificity model", "genome editing deep learning"]
# The slowest provider's unavoidable chain: arXiv answers one combined query in 0.9 s; PubMed
# needs esearch then efetch, the second no sooner than 1/3 s after the first started; Europe PMC
# answers its one page in 0.7 s.
CHAIN = max(0.6, 0.4, max(0.25, 1 / 3) + 0.25, 0.7, 0.9)
ENRICHMENT_ROUND = 0.5  # Crossref's batch (the slower of the two lookups run at once)
# The fewest requests the search needs from each API: one page each (the topic's hits fit in a
# page of 100), PubMed's esearch then efetch, one Crossref batch of the 20 rows' DOIs.
NEEDED = {"semantic_scholar": 1, "openalex": 1, "pubmed": 2, "europepmc": 1, "arxiv": 1, "crossref": 1}


def with_latency(responder, seconds: float):
    def answer(request):
        response = responder(request)
        response.delay = seconds
        return response
    return answer


def command() -> list[str]:
    script = Path(sys.executable).parent / "lit-search"
    return [str(script)] if script.exists() else [sys.executable, "-m", "litsearch"]


def requests_per_api(server: FakeServer) -> dict[str, int]:
    return {name: sum(1 for request in server.requests if request.path.startswith(prefix))
            for prefix, name in ROUTES.items()}


def one_run(server: FakeServer, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, seconds from process start to the first request)."""
    server.requests.clear()
    args = [TOPIC, *[part for variant in VARIANTS for part in ("--variant", variant)]]
    started = time.monotonic()
    proc = subprocess.run(command() + args, env=env, capture_output=True, text=True, timeout=120)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"lit-search failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    first = min(request.time for request in server.requests)
    return wall, first - started


def declared_pace() -> dict[str, float]:
    """Seconds between request starts that each API's provider declares (a contact email set)."""
    from litsearch.providers.base import pace_policies
    from litsearch.runtime.settings import settings_from_env

    policies = pace_policies(settings_from_env({"LITSEARCH_EMAIL": "bench@example.org"}))
    return {prefix: policies[name].min_interval for prefix, name in ROUTES.items()}


def empty_the_cache(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM cache")


def pacing_violations(server: FakeServer) -> list[str]:
    found = []
    for prefix, interval in declared_pace().items():
        times = sorted(request.time for request in server.requests if request.path.startswith(prefix))
        for earlier, later in zip(times, times[1:]):
            if later - earlier < interval - 0.005:  # 5 ms for the server's own clock reading
                found.append(f"{prefix.strip('/')}: {later - earlier:.3f} s < {interval:.3f} s")
    return found


# The least any program on this stack does before its first request: one GET, nothing else,
# with the client lit-search uses (httpx's defaults build the verified TLS context up front,
# about 20 ms of loading the certificate bundle, as every real https request needs).
HTTPX_ONE_GET = """
import asyncio, sys
import httpx
async def main():
    async with httpx.AsyncClient() as client:  # as lit-search's: verified TLS context, proxies from the environment
        await client.get(sys.argv[1])
asyncio.run(main())
"""
STREAMS_ONE_GET = """
import asyncio, sys
from urllib.parse import urlsplit
async def main():
    url = urlsplit(sys.argv[1])
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    writer.write(f"GET {url.path} HTTP/1.1\\r\\nHost: {url.netloc}\\r\\nConnection: close\\r\\n\\r\\n".encode())
    await writer.drain()
    await reader.read()
    writer.close()
asyncio.run(main())
"""


STACK_PROGRAMS = {"httpx on asyncio": HTTPX_ONE_GET, "asyncio streams": STREAMS_ONE_GET}


def first_request_of(server: FakeServer, command_line: list[str], env: dict[str, str]) -> float:
    """Seconds from starting ``command_line`` to the server's first request from it."""
    server.requests.clear()
    started = time.monotonic()
    subprocess.run(command_line, env=env, capture_output=True, check=True, timeout=60)
    return min(request.time for request in server.requests) - started


def search_figures(runs: int) -> None:
    with FakeServer() as server:
        env = fake_apis.install(server)
        for path, responder in list(server._routes.items()):
            prefix = next((p for p in LATENCY if path.startswith(p)), None)
            if prefix:
                server.route(path, with_latency(responder, LATENCY[prefix]))
        # As a user runs it: compiled modules cached (PYTHONDONTWRITEBYTECODE off), and the
        # data file there, with the response cache on but holding no answer for this search
        # (emptied between runs, so every answer is fetched).
        folder = tempfile.mkdtemp()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "OPENALEX", "NCBI",
                                                                            "SEMANTIC", "PYTHONDONTWRITEBYTECODE"))},
               **env, "LITSEARCH_EMAIL": "bench@example.org", "LITSEARCH_CACHE_DIR": folder,
               "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}  # the fakes are local
        server.route("/floor", lambda request: fake_apis.Answer(200, b"{}"))
        one_run(server, env)  # warm file and bytecode caches, create the data file
        results, violations = [], []
        sent: list[dict[str, int]] = []
        stack: dict[str, list[float]] = {name: [] for name in STACK_PROGRAMS}
        for _ in range(runs):
            # arXiv's pace holds across processes (3 s between requests, the warm-up run's too):
            # start each run on a fresh slot, as a researcher's next search would be.
            time.sleep(3.1)
            # The stack's floor, measured right before each search so both see the same machine.
            for name, program in STACK_PROGRAMS.items():
                stack[name].append(first_request_of(server, [sys.executable, "-c", program, server.url + "/floor"],
                                                    env))
            empty_the_cache(Path(folder) / "lit-search.sqlite3")
            results.append(one_run(server, env))
            violations += pacing_violations(server)
            sent.append(requests_per_api(server))
    walls, firsts = [wall for wall, _ in results], [first for _, first in results]
    wall, first = statistics.median(walls), statistics.median(firsts)
    floor = first + CHAIN + ENRICHMENT_ROUND
    print(f"search: {runs} runs, 5 variants, the automatic providers, default options")
    print(f"  median wall time          {wall:.3f} s   (runs: {', '.join(f'{w:.2f}' for w in walls)})")
    print(f"  time to first request     {first:.3f} s   (median; runs: {', '.join(f'{f:.3f}' for f in firsts)})")
    print(f"  floor                     {floor:.3f} s   (start-up {first:.3f} + slowest chain {CHAIN:.3f} "
          f"+ enrichment round {ENRICHMENT_ROUND:.3f})")
    print(f"  ratio wall / floor        {wall / floor:.2f}")
    print(f"  pacing violations         {len(violations)}" + (f": {violations}" if violations else ""))
    median_sent = {name: statistics.median(run[name] for run in sent) for name in ROUTES.values()}
    print("  requests per API          " + ", ".join(
        f"{name} {median_sent[name]:g}" + (f" (needs {NEEDED[name]})" if name in NEEDED else " (one per row "
                                           "without a free link)") for name in ROUTES.values() if median_sent[name]))
    floored = [name for name in NEEDED if median_sent[name]]
    total, needed = sum(median_sent[name] for name in floored), sum(NEEDED[name] for name in floored)
    print(f"  requests / floor          {total:g} / {needed} = {total / needed:.2f}   (the APIs with a fixed floor)")
    for name, times in stack.items():
        print(f"  one GET, {name:<16} {statistics.median(times):.3f} s   (time to first request, median; "
              f"run before each search)")


def start_up_figure(runs: int) -> None:
    times = []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run(command() + ["--help"], capture_output=True, check=True, env=env)
        times.append(time.monotonic() - started)
    print(f"  lit-search --help         {statistics.median(times):.3f} s   (median of {runs})")


def pipeline_figures() -> None:
    from litsearch.providers import openalex, semantic_scholar
    from litsearch.render.table import render_markdown
    from litsearch.search.pipeline import ProviderOutcome, SearchResult, merge_and_rank

    bodies = REPO.parent / "shared" / "fixtures"
    pages = [
        ("semantic_scholar", semantic_scholar.parse_search, "semantic_scholar/bodies/s2d__search_turing_title_100recs__00_200.json"),
        ("openalex", openalex.parse_works, "openalex/bodies/openalexPro__works_filter_title_and_abstract_search_biodiversity_AND_finance_200results_LARGE__00_200.json"),
        ("pubmed", semantic_scholar.parse_search, "semantic_scholar/bodies/s2d__search_kubernetes_title_100recs__00_200.json"),
        ("arxiv", semantic_scholar.parse_search, "semantic_scholar/bodies/s2d__search_turing_offset0_and_offset100__01_200.json"),
        ("semantic_scholar", semantic_scholar.parse_bulk, "semantic_scholar/bodies/s2d__search_bulk_kubernetes_1000recs__00_200.json"),
    ]
    if not bodies.is_dir():
        print("merge + rank + render: needs ../shared/fixtures")
        return
    outcomes = []
    for provider, parse, name in pages:
        records = list(parse((bodies / name).read_bytes()))[: 1000 if "bulk" in name else 100]
        outcomes.append(ProviderOutcome(provider, "query", "search", records=records))
    count = sum(len(o.records) for o in outcomes)
    queries = ["turing test", "kubernetes", "biodiversity finance"]

    def merge_rank_render() -> tuple[list, str]:
        ranked = merge_and_rank(outcomes, "relevance", queries)
        result = SearchResult(query="q", variants=[], outcomes=outcomes, results=ranked, provider_reason=None,
                              search_time_ms=0)
        return ranked, render_markdown(result, 20)

    merge_rank_render()  # once to load the merge engine and the stemmer, as a search has by then
    times = []
    for _ in range(5):
        started = time.perf_counter()
        ranked, text = merge_rank_render()
        times.append(time.perf_counter() - started)
    # Memory in a pass of its own: tracemalloc slows every allocation, so it is never on while timing.
    tracemalloc.start()
    merge_rank_render()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"merge + rank + render: {count:,} records -> {len(ranked):,} papers, {len(text):,} characters "
          f"in {statistics.median(times):.3f} s (median of 5; the lexical scorer included), "
          f"peak {peak / 2**20:.1f} MiB (tracemalloc)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    search_figures(args.runs)
    start_up_figure(args.runs)
    pipeline_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
