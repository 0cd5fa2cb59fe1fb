"""Eight processes share one store at once: nothing fails, nothing is lost, the file stays sound.

Each worker is a separate Python process (as separate lit-search runs would be). They start
together on a fresh file, so they also race to create the schema, and each reopens the store
half-way, so opening also happens while others write.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

from litsearch.core.config import DB_FILENAME
from litsearch.library.store import Store

from conftest import REPO  # noqa: E402
WORKERS = 8
CACHE_ENTRIES = 50  # per worker, each under its own key
SHARED_CACHE_ENTRIES = 5  # the same keys written by every worker
OWN_PAPERS = 10  # per worker
SHARED_PAPERS = 10  # the same papers saved by every worker, with overlapping identifiers

WORKER = r"""
import json, sys, time
from pathlib import Path
from litsearch.net.http import FetchedResponse
from litsearch.library.store import Store
from litsearch.net.cache_keys import cache_key
from litsearch.net.response_store import ResponseStore

path, worker, workers, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
CACHE_ENTRIES, SHARED_CACHE, OWN, SHARED = (int(v) for v in sys.argv[5:9])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.002)

latencies = []
def timed(call, *args, **kwargs):
    start = time.perf_counter()
    result = call(*args, **kwargs)
    latencies.append(time.perf_counter() - start)
    return result

def key(tag):
    return cache_key("GET", "https://api.openalex.org/works", {"search": tag, "api_key": "SECRET"})

def body(value):
    return FetchedResponse(200, {"content-type": "application/json"}, json.dumps(value).encode(),
                           "https://api.openalex.org/works?api_key=SECRET")

def shared_paper(i):
    # Even workers know the DOI and PMID, odd ones the PMID and arXiv id: every save must
    # land on the same library paper, linked through the PMID.
    ids = {"doi": f"10.9999/shared-{i}", "pmid": str(1000 + i)} if worker % 2 == 0 else \
          {"pmid": str(1000 + i), "arxiv_id": f"2101.{10000 + i}"}
    return {**ids, "title": f"Shared paper {i}", "year": 2021, "citation_count": worker}

started = time.perf_counter()
seen_others = 0
own_ids, shared_ids = [], []
for half in (0, 1):
    with timed(Store.open, path, redact=lambda text: text.replace("SECRET", "[redacted]")) as store:
        for i in range(half * CACHE_ENTRIES // 2, (half + 1) * CACHE_ENTRIES // 2):
            timed(ResponseStore(store).put, "openalex", key(f"w{worker}-{i}"), body([worker, i]), ttl_seconds=3600)
            mine = timed(ResponseStore(store).get, "openalex", key(f"w{worker}-{i}"))
            assert json.loads(mine.content) == [worker, i], mine
            other = (worker + 1 + i) % workers
            theirs = timed(ResponseStore(store).get, "openalex", key(f"w{other}-{i}"))
            if theirs is not None:
                assert json.loads(theirs.content) == [other, i]
                seen_others += 1
        for i in range(half * OWN // 2, (half + 1) * OWN // 2):
            own_ids += timed(store.save_papers, [{"doi": f"10.9999/w{worker}-{i}", "title": f"Paper {worker}.{i}",
                                                  "authors": [f"Author {worker}"], "year": 2020}])
            shared_ids += timed(store.save_papers, [shared_paper(i)])
        timed(store.list_papers)
with Store.open(path) as store:
    for i in range(SHARED_CACHE):
        timed(ResponseStore(store).put, "crossref", key(f"shared-{i}"), body(["shared", i, worker]), ttl_seconds=3600)
    timed(store.add_citations, [(own_ids[i], own_ids[i + 1]) for i in range(OWN - 1)])
    timed(store.add_citations, [(own_ids[0], shared_ids[worker % SHARED])])
    timed(store.add_citations, [(shared_ids[i], shared_ids[(i + 1) % SHARED]) for i in range(SHARED)])
    neighbour = store.get_paper(f"10.9999/w{(worker + 1) % workers}-0")  # saved yet, or not
    assert neighbour is None or neighbour["authors"] == [f"Author {(worker + 1) % workers}"]
print(json.dumps({"worker": worker, "seconds": time.perf_counter() - started, "calls": len(latencies),
                  "max_call": max(latencies), "seen_others": seen_others, "own_ids": own_ids,
                  "shared_ids": shared_ids, "saw_neighbour": neighbour is not None}))
"""


def test_eight_processes_share_one_store_without_loss(tmp_path):
    path = tmp_path / "store" / DB_FILENAME
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    counts = [str(n) for n in (CACHE_ENTRIES, SHARED_CACHE_ENTRIES, OWN_PAPERS, SHARED_PAPERS)]
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(w), str(WORKERS), str(go), *counts],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
               for w in range(WORKERS)]
    try:
        for worker in workers:  # every process imported and waiting: start them together
            assert worker.stdout.readline().strip() == "ready"
        started = time.perf_counter()
        go.touch()
        outputs = [worker.communicate(timeout=60) for worker in workers]
        wall = time.perf_counter() - started
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    for worker, (out, err) in zip(workers, outputs):
        assert worker.returncode == 0, err
        assert "Traceback" not in err and "Warning" not in err, err
    reports = [json.loads(out) for out, _ in outputs]

    # Every shared paper has one library id, the same in every process.
    shared_ids = {tuple(report["shared_ids"]) for report in reports}
    assert len(shared_ids) == 1 and len(set(next(iter(shared_ids)))) == SHARED_PAPERS
    own = [i for report in reports for i in report["own_ids"]]
    assert len(set(own)) == WORKERS * OWN_PAPERS and not set(own) & set(next(iter(shared_ids)))

    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("SELECT count(*) FROM cache WHERE provider = 'openalex'").fetchone()[0] == \
            WORKERS * CACHE_ENTRIES
        assert db.execute("SELECT count(*) FROM cache WHERE provider = 'crossref'").fetchone()[0] == \
            SHARED_CACHE_ENTRIES
        assert db.execute("SELECT count(*) FROM cache WHERE url LIKE '%SECRET%'").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM papers").fetchone()[0] == WORKERS * OWN_PAPERS + SHARED_PAPERS
        # chains inside each worker's papers + one link per worker to a shared paper + the shared ring
        assert db.execute("SELECT count(*) FROM citations").fetchone()[0] == \
            WORKERS * (OWN_PAPERS - 1) + WORKERS + SHARED_PAPERS
    finally:
        db.close()

    with Store.open(path) as store:
        for i in range(SHARED_PAPERS):
            paper = store.get_paper(f"PMID:{1000 + i}")
            assert store.library_identifiers()[paper["library_id"]] == {
                "arxiv_id": [f"2101.{10000 + i}"], "doi": [f"10.9999/shared-{i}"], "pmid": [str(1000 + i)]}
            assert paper["citation_count"] == WORKERS - 1  # the highest any worker saved

    calls = sum(report["calls"] for report in reports)
    print(f"\n{WORKERS} processes, {calls} store calls in {wall:.2f} s "
          f"({calls / wall:.0f} calls/s); slowest call {max(r['max_call'] for r in reports) * 1000:.0f} ms; "
          f"entries of other processes read: {sum(r['seen_others'] for r in reports)} cached, "
          f"{sum(r['saw_neighbour'] for r in reports)} papers")
    # A lock waited out ends a worker in an error (the busy timeout is 15 s), asserted above: the
    # time only says the eight finished, with room for a loaded 2-core machine.
    assert wall < 50


OPEN_RACE = r"""
import multiprocessing, os, sys, tempfile, time
from pathlib import Path
from litsearch.library.store import Store

def open_when_told(path, go, answers):
    while not os.path.exists(go):
        time.sleep(0.0005)
    try:
        with Store.open(path) as store:
            store.list_papers()
        answers.put("ok")
    except Exception as error:
        answers.put(str(error))

if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    rounds, processes, folder = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    failures = []
    for round_ in range(rounds):
        path, go = folder / f"{round_}.sqlite3", folder / f"go-{round_}"
        answers = multiprocessing.Queue()
        started = [multiprocessing.Process(target=open_when_told, args=(str(path), str(go), answers))
                   for _ in range(processes)]
        for process in started:
            process.start()
        time.sleep(0.05)
        go.touch()
        failures += [answer for answer in (answers.get(timeout=60) for _ in started) if answer != "ok"]
        for process in started:
            process.join()
    print(len(failures), failures[:1])
"""


def test_processes_opening_a_new_file_at_the_same_moment_all_succeed(tmp_path):
    """SQLite answers "busy" at once (without waiting) when a new file is switched to WAL
    while another process opens it. Before opening retried such answers, this failed
    16 of 800 opens here; the concurrency test above failed in CI the same way."""
    finished = subprocess.run([sys.executable, "-c", OPEN_RACE, "40", str(WORKERS), str(tmp_path)],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("0 "), finished.stdout
