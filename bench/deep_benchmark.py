"""Deep search against one-shot search, on judged collections with a simulated judge.

Each collection of ../shared/benchmarks/ranking (CACM with its real citation links; the eleven
systematic reviews under ``reviews/``, each served with the other reviews' records as
distractors, with synthetic in-review citation links) is served by the project's fake
providers (tests/fake_collection.py: search in each API's format, each provider holding its own
80 % share; tests/fake_collection_graph.py: references and citing papers, Semantic Scholar's
recommendations and OpenAlex's semantic search, answering by a tf-idf similarity of their own,
and Europe PMC's citation lists). A simulated judge stands in for the model (tests/deep_world.py):
"relevant" with probability 0.8 for a document judged relevant for the query, 0.03 otherwise.

Per collection it prints, averaged over its queries: recall (relevant documents the judge
confirmed, over all relevant documents) after 50, 100 and 200 judged and at the stop; the
one-shot search read by the same judge (its first 50 and 100 rows); BM25 over the whole
collection, first 100 read by the judge (the ceiling of any one-shot ranking); a naive loop of
today's commands (search, then ``snowball`` from each batch's confirmed papers) at 100 judged;
the most the judge can confirm in 100; rounds, requests per provider, stop reasons and how often
"saturated" was right (the judge had confirmed ≥ 0.9 of the relevant documents it could
confirm among those some provider holds; also against going on to the budget, and how many of
the wrong ones could not have been right, as even the budget confirmed less than 0.9 of them).
``--dump FILE`` appends each session's judged order, verdicts and checks as a JSON line, for
bench/deep_stop_study.py to replay other stop rules on.

The session runs in-process through the same functions as ``lit-search deep`` (deep/rounds.py),
with pacing off (the figures are recall and requests, not time; bench/search_benchmark.py
measures pacing). Budget: ``max(300, 3 × relevant)`` judged per query, as the issue states.

    .venv/bin/python bench/deep_benchmark.py                       # CACM and every review (~8 min with --no-naive)
    .venv/bin/python bench/deep_benchmark.py cacm --queries 16
    .venv/bin/python bench/deep_benchmark.py cacm --only 6,28 --seed 7          # the queries a change touches
    .venv/bin/python bench/deep_benchmark.py reviews/cohen_NSAIDS --hit 0.9 --false-alarm 0.01
    .venv/bin/python bench/deep_benchmark.py --no-naive --seed 7 --dump /tmp/seed7.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests"), str(REPO / "bench")]

from deep_world import Judge, World, judge_batch, load_world  # noqa: E402
# A query longer than the command takes (CISI's run to 2,083 characters) is passed as the
# relevance benchmark passes it: a topic and variants split at sentence ends.
from relevance_benchmark import topic_and_variants  # noqa: E402

RANKING = Path(os.environ.get("LITSEARCH_SHARED_DIR", REPO.parent / "shared")) / "benchmarks" / "ranking"
REVIEWS = sorted(f"reviews/{p.name}" for p in (RANKING / "reviews").iterdir() if p.is_dir()) \
    if (RANKING / "reviews").is_dir() else []
COLLECTIONS = ["cacm", *REVIEWS]
CHECKPOINTS = (50, 100, 200)


def unpaced_client(settings):
    from litsearch.core.services import PacePolicy
    from litsearch.net.http import HttpClient
    from litsearch.providers import registry

    policies = {name: PacePolicy(0.0, 8, retries=0) for name in registry.providers()}
    # A lane's pace (OpenAlex's semantic search) is its own: off too, or every round waits on it.
    policies.update({f"{name}.{lane.name}": PacePolicy(0.0, 8, retries=0)
                     for name in registry.providers() for lane in registry.service(name).lanes})
    return HttpClient(settings, policies=policies)


async def deep_session(world: World, query_id: str, text: str, judge: Judge, max_judged: int,
                       batch: int = 20, pool_at: int = 100) -> dict:
    """One session run to its budget (or until nothing is left): the order papers were judged,
    and where the saturation rule, checked after every batch with the default options, would
    have stopped it (the order before a stop does not depend on the stop, so one run gives both
    the figures at the stop and what going on to the budget would have found)."""
    from dataclasses import replace

    from litsearch.core.filters import Filters
    from litsearch.deep.rounds import Timing, expand, judge as record, start
    from litsearch.deep.session import Options
    from litsearch.deep.score import next_order
    from litsearch.deep.stop import pending_chases, saturation
    from litsearch.runtime.settings import settings_from_env

    settings = settings_from_env(world.env)
    rule = Options(batch=batch, max_judged=max_judged)
    order: list[str | None] = []
    own, stop_at = [], None
    checks: list[dict[str, int]] = []  # after each batch: papers judged so far, relevant papers still to chase
    pool: list[str | None] = []  # the relevant documents among the unjudged candidates, in the order the
    # session would show them, once ``pool_at`` papers are judged (where the misses were: --misses)
    async with unpaced_client(settings) as http:
        topic, *variants = topic_and_variants(text)
        session = await start(http, topic, variants, Filters(), replace(rule, stop_window=10**3 - 1, stop_yield=0))
        while not session.done:
            record(session, judge_batch(world, judge, session, order), [])
            checks.append({"judged": len(order), "pending": pending_chases(session)})
            if stop_at is None:
                session.options, running = rule, session.options
                if saturation(session)[0]:
                    stop_at = len(order)
                session.options = running
            if not session.done:
                timing = Timing()
                await expand(http, session, timing)
                own.append(timing.own_seconds)
                if len(order) == pool_at:
                    pool = [doc if doc in judge.relevant else None
                            for doc in (world.doc_id(c.paper) for c in next_order(session))]
        requests = dict(http.request_counts)
    return {"order": order, "stop_at": stop_at, "end": session.stop_reason,
            "rounds": len(session.rounds), "requests": requests, "own_seconds": max(own or [0.0]),
            "candidates": len(session.candidates), "checks": checks, "pool": pool}


async def one_shot(world: World, text: str) -> list[str | None]:
    """Today's search of the topic alone, as `lit-search search` runs it (none of the queries a
    session adds, such as a topic's sentences searched one by one): its rows in order."""
    from litsearch.core.filters import Filters
    from litsearch.runtime.settings import settings_from_env
    from litsearch.search.options import MAX_FETCH, checked_options
    from litsearch.search.pipeline import run_search

    settings = settings_from_env(world.env)
    topic, *variants = topic_and_variants(text)
    async with unpaced_client(settings) as http:
        result = await run_search(checked_options(topic, variants=variants, limit=MAX_FETCH, filters=Filters(),
                                                  verify=False), settings, http=http)
    return [world.doc_id(item.paper) for item in result.results]


async def naive_loop(world: World, text: str, judge: Judge, budget: int, batch: int = 20) -> list[str | None]:
    """Today's commands by hand: search; then snowball from each batch's confirmed papers; the
    next batch is the newest snowball's best unjudged rows, then the search's next rows."""
    from litsearch.runtime.settings import settings_from_env
    from litsearch.core.identifiers import PaperRef
    from litsearch.graph.snowball import snowball
    from litsearch.search.options import SearchOptions
    from litsearch.search.pipeline import run_search

    settings = settings_from_env(world.env)
    order: list[str | None] = []
    seen: set[str] = set()
    async with unpaced_client(settings) as http:
        topic, *variants = topic_and_variants(text)
        result = await run_search(SearchOptions(topic=topic, variants=variants, limit=100, verify=False,
                                                find_open_access=False), settings, http=http)
        search_rows = [item.paper for item in result.results]
        queue: list = []
        while len(order) < budget:
            chosen = []
            for paper in queue + search_rows:
                key = (paper.doi or paper.title).lower()
                if key not in seen and len(chosen) < batch:
                    seen.add(key)
                    chosen.append(paper)
            if not chosen:
                break
            confirmed = []
            for paper in chosen:
                doc = world.doc_id(paper)
                order.append(doc)
                if judge.says_relevant(doc) and paper.doi:
                    confirmed.append(paper)
            if confirmed:
                refs = [(p.doi, PaperRef("doi", p.doi)) for p in confirmed]
                found = await snowball(http, refs, "both", text)
                queue = [item.paper for item in found.results]
    return order[:budget]


def citation_links(collection) -> dict[str, set[str]]:
    """Document id -> the ids it cites or is cited by, from the collection's ``references``."""
    links: dict[str, set[str]] = {}
    for doc in collection.docs:
        for ref in doc.get("references") or ():
            links.setdefault(str(doc["id"]), set()).add(str(ref))
            links.setdefault(str(ref), set()).add(str(doc["id"]))
    return links


def where_missed(run: dict, findable: set[str], links: dict[str, set[str]], at: int = 100) -> Counter:
    """Where the findable papers not confirmed within ``at`` judged were at that point (``run["pool"]``
    is the relevant documents among the unjudged candidates, in the order the session would show them)."""
    if len(run["order"]) <= at:  # the session ended before: nothing was left to show
        return Counter()
    confirmed = {doc for doc in run["order"][:at] if doc in findable}
    place = {doc: i for i, doc in enumerate(run["pool"]) if doc is not None}
    counts = Counter(findable=len(findable))
    for doc in findable - confirmed:
        counts["missed"] += 1
        rank = place.get(doc)
        if rank is None:
            counts["absent"] += 1
            counts["absent, linked"] += bool(links.get(doc, set()) & confirmed)
        else:
            counts["next batch" if rank < 20 else "first 100" if rank < 100 else "below"] += 1
    return counts


def recall_at(order: list[str | None], judge: Judge, k: int) -> float:
    confirmed = {doc for doc in order[:k] if doc in judge.relevant and judge.says_relevant(doc)}
    return len(confirmed) / len(judge.relevant)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collections", nargs="*", default=COLLECTIONS, help="which (default: CACM and every review)")
    parser.add_argument("--queries", type=int, default=0, help="only the first N judged queries of each")
    parser.add_argument("--only", default="", help="only these query ids (comma-separated), to compare a change "
                        "on the queries it touches")
    parser.add_argument("--hit", type=float, default=0.8, help="the judge's chance to confirm a relevant paper")
    parser.add_argument("--false-alarm", type=float, default=0.03, help="its chance to call another relevant")
    parser.add_argument("--seed", type=int, default=2026, help="the judge's seed")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive loop (the slowest part)")
    parser.add_argument("--misses", action="store_true", help="also print where the confirmable papers some "
                        "provider holds that were not confirmed within 100 judged were then: next in the order, "
                        "further down, or not among the candidates at all (and whether a citation links them to a "
                        "confirmed paper)")
    parser.add_argument("--dump", type=Path, help="append one JSON line per session (the judged order, the "
                        "judge's verdicts, the findable papers, the checks after each batch) to study stop rules")
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":
        # The fake providers order some answers by string hashes: with the hash seed fixed, the
        # same code and judge give the same figures from one run to the next.
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    if not RANKING.is_dir():
        print(f"needs the judged collections in {RANKING}")
        return 1
    from relevance_benchmark import Bm25

    print(f"deep search vs one-shot; judge: hit {args.hit}, false alarm {args.false_alarm}, seed {args.seed}")
    print("recall = relevant documents the judge confirmed / all relevant; 'stop' where the default stop rule "
          "fired (else the budget or the end); 'budget': going on to max(300, 3 x relevant) judged; "
          "saturated (right strict / right vs budget / could not be right): >= 0.9 of the confirmable relevant "
          "papers some provider holds / of what going on to the budget confirmed / sessions where even the "
          "budget confirmed less than 0.9 of the held ones")
    header = (f"{'collection':<30}{'q':>3} | {'deep@50':>7} {'@100':>5} {'@200':>5} {'@stop':>6} {'judged':>6} "
              f"{'@budget':>7} | {'1shot@50':>8} {'@100':>5} | {'BM25@100':>8} | {'naive@100':>9} | "
              f"{'max@100':>7} {'held':>5} | {'stops (right)':<28} {'rounds':>6} {'own s':>5}")
    print(header)
    for name in args.collections:
        collection = load_world(RANKING, name)
        queries = dict(list(collection.queries.items())[: args.queries or None])
        if args.only:
            queries = {key: text for key, text in queries.items() if key in args.only.split(",")}
        bm25 = Bm25([f"{doc['title']} {doc.get('abstract') or ''}" for doc in collection.docs])
        ids = [str(doc["id"]) for doc in collection.docs]
        rows: dict[str, list[float]] = {}
        stops: Counter = Counter()
        right = Counter()
        requests: Counter = Counter()
        misses: Counter = Counter()
        links = citation_links(collection)
        started = time.monotonic()
        with World(collection) as world:
            for qid, text in queries.items():
                relevant = set(collection.qrels[qid])
                judge = Judge(relevant, qid, seed=args.seed, hit=args.hit, false_alarm=args.false_alarm)
                budget = max(300, 3 * len(relevant))
                run = asyncio.run(deep_session(world, qid, text, judge, budget))
                order = run["order"]
                stopped = order[: run["stop_at"]] if run["stop_at"] else order
                findable = world.findable(judge.confirmable())
                reason = "saturated" if run["stop_at"] else run["end"]
                stops[reason] += 1
                if reason == "saturated":
                    at_stop, at_end = len(findable & set(stopped)), len(findable & set(order))
                    right["strict"] += bool(findable) and at_stop >= 0.9 * len(findable)
                    right["budget"] += at_stop >= 0.9 * at_end
                    # No stop before the budget could have been right: even the whole budget
                    # confirmed less than 0.9 of the held papers (the rest no round reached).
                    right["unreachable"] += not (bool(findable) and at_end >= 0.9 * len(findable))
                requests.update(run["requests"])
                misses.update(where_missed(run, findable, links))
                if args.dump:
                    with args.dump.open("a") as dump:
                        dump.write(json.dumps({
                            "collection": name, "query": qid, "relevant": len(relevant), "budget": budget,
                            "order": order, "said": [judge.says_relevant(doc) for doc in order],
                            "findable": sorted(findable), "checks": run["checks"], "stop_at": run["stop_at"],
                            "end": run["end"]}) + "\n")
                anchor = [ids[p] for p in bm25.rank(text, depth=100)]
                values = {f"deep@{k}": recall_at(order, judge, k) for k in CHECKPOINTS}
                values["deep@stop"] = recall_at(order, judge, len(stopped))
                values["judged"] = len(stopped)
                values["deep@budget"] = recall_at(order, judge, len(order))
                values["findable"] = len(findable) / len(relevant)
                search_order = asyncio.run(one_shot(world, text))
                values["1shot@50"] = recall_at(search_order, judge, 50)
                values["1shot@100"] = recall_at(search_order, judge, 100)
                values["bm25@100"] = recall_at(anchor, judge, 100)
                values["max@100"] = min(len(judge.confirmable()), 100) / len(relevant)
                values["rounds"] = run["rounds"]
                values["own"] = run["own_seconds"]
                if not args.no_naive:
                    values["naive@100"] = recall_at(asyncio.run(naive_loop(world, text, judge, 100)), judge, 100)
                for key, value in values.items():
                    rows.setdefault(key, []).append(value)
        mean = {key: statistics.mean(values) for key, values in rows.items()}
        stop_text = ", ".join(f"{reason} {count}" + (f" ({right['strict']}/{right['budget']}/{right['unreachable']})"
                                                     if reason == "saturated" else "")
                              for reason, count in sorted(stops.items()))
        naive = f"{mean['naive@100']:>9.3f}" if "naive@100" in mean else f"{'-':>9}"
        print(f"{name:<30}{len(queries):>3} | {mean['deep@50']:>7.3f} {mean['deep@100']:>5.3f} "
              f"{mean['deep@200']:>5.3f} {mean['deep@stop']:>6.3f} {mean['judged']:>6.0f} {mean['deep@budget']:>7.3f} | "
              f"{mean['1shot@50']:>8.3f} {mean['1shot@100']:>5.3f} | {mean['bm25@100']:>8.3f} | {naive} | "
              f"{mean['max@100']:>7.3f} {mean['findable']:>5.2f} | {stop_text:<28} {mean['rounds']:>6.1f} "
              f"{max(rows['own']):>5.2f}"
              f"   [{time.monotonic() - started:.0f} s; requests/query: "
              + ", ".join(f"{p} {n / len(queries):.0f}" for p, n in requests.most_common()) + "]", flush=True)
        if args.misses:
            print(f"{'':<33}missed at 100 judged: {misses['missed']} of {misses['findable']} confirmable held papers; "
                  f"then in the next batch {misses['next batch']}, further in the first 100 of the order "
                  f"{misses['first 100']}, below {misses['below']}; not among the candidates {misses['absent']} "
                  f"({misses['absent, linked']} linked by a citation to a paper confirmed by then)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
