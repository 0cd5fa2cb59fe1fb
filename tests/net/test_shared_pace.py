"""Limits kept across processes (issue 13, item 7): lit-search processes on one machine share
each provider's pace and in-flight places through lock files beside the cache."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import fake_apis
from command import lit_search_command
from fake_server import FakeServer
from litsearch.net.shared_pace import BUSY, STALE_AFTER_SECONDS, SharedPace


class Wall:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_only_one_process_holds_the_turn_and_the_next_start_counts_from_the_last_real_one(tmp_path):
    wall = Wall()
    first, second = SharedPace(tmp_path, wall), SharedPace(tmp_path, wall)
    turn = first.try_turn("semantic_scholar")
    assert turn is not None and turn >= 0
    assert second.try_turn("semantic_scholar") == BUSY  # nobody starts while a start is under way
    assert second.try_turn("pubmed") not in (None, BUSY)  # another provider has its own turn
    wall.now += 2.0  # the request's headers left 2 s after the turn was taken (a slow connect)
    first.started("semantic_scholar", 1.0)
    first.release(turn)
    assert second.wait_before_start("semantic_scholar") == 1.0  # the interval counts from the real start
    wall.now += 0.4
    assert second.wait_before_start("semantic_scholar") == pytest.approx(0.6)
    wall.now += 0.6
    assert second.wait_before_start("semantic_scholar") == 0.0


def test_a_booking_from_another_clock_is_ignored_and_garbage_is_no_booking(tmp_path):
    wall = Wall()
    (tmp_path / "arxiv.next").write_text(repr(wall.now + STALE_AFTER_SECONDS + 1))
    assert SharedPace(tmp_path, wall).wait_before_start("arxiv") == 0.0
    (tmp_path / "openalex.next").write_text("not a time")
    assert SharedPace(tmp_path, wall).wait_before_start("openalex") == 0.0


def test_a_slowed_pace_is_shared_for_a_while(tmp_path):
    wall = Wall()
    first, second = SharedPace(tmp_path, wall), SharedPace(tmp_path, wall)
    assert second.slowed_interval("unpaywall") == 0.0
    first.slow_down("unpaywall", 0.4, memory=60)
    first.slow_down("unpaywall", 0.2, memory=60)  # a faster pace never replaces a slower one
    assert second.slowed_interval("unpaywall") == 0.4
    wall.now += 61
    assert second.slowed_interval("unpaywall") == 0.0


def test_in_flight_places_are_held_until_released_or_the_process_ends(tmp_path):
    first, second = SharedPace(tmp_path), SharedPace(tmp_path)
    held = first.try_flight("arxiv", 1)
    assert held is not None and held >= 0
    assert second.try_flight("arxiv", 1) == BUSY
    first.release(held)
    again = second.try_flight("arxiv", 1)
    assert again is not None and again >= 0
    second.release(again)
    # A process killed while holding a place gives it back: the kernel drops its locks.
    holder = subprocess.Popen(["python3", "-c", (
        "import fcntl, os, sys, time; d = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT);"
        "fcntl.flock(d, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"),
        str(tmp_path / "crossref.flight-0")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    assert first.try_flight("crossref", 1) == BUSY
    holder.kill()
    holder.wait()
    taken = first.try_flight("crossref", 1)
    assert taken is not None and taken >= 0
    first.release(taken)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_unwritable_data_folder_paces_per_process_only(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        pace = SharedPace(locked / "pace", Wall())
        assert pace.try_turn("openalex") is None and pace.wait_before_start("openalex") == 0.0
        assert pace.try_flight("openalex", 5) is None and not pace.usable
    finally:
        locked.chmod(0o700)


def test_an_unwritable_data_folder_never_fails_a_search_step(tmp_path):
    # A file where the folder should be: the folder cannot be made, whoever runs the test.
    blocker = tmp_path / "pace"
    blocker.write_text("")
    pace = SharedPace(blocker, Wall())
    assert pace.try_turn("openalex") is None and pace.wait_before_start("openalex") == 0.0
    pace.slow_down("openalex", 1.0, memory=60)
    assert pace.slowed_interval("openalex") == 0.0
    assert pace.try_flight("openalex", 5) is None and not pace.usable


def _starts(server: FakeServer, prefix: str) -> list[float]:
    return sorted(r.time for r in server.requests if r.path.startswith(prefix))


@pytest.mark.realtime
def test_four_processes_started_at_once_keep_every_pace_together(tmp_path):
    with FakeServer() as server:
        env = {**os.environ, **fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
        for name in ("SEMANTIC_SCHOLAR_API_KEY", "NCBI_API_KEY", "OPENALEX_API_KEY"):
            env.pop(name, None)
        command = [*lit_search_command(), "CRISPR off-target effects", "--providers",
                   "semantic_scholar,pubmed,arxiv", "--no-cache", "--no-verify", "--format", "json", "-q"]
        runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(4)]
        outcomes = [run.communicate(timeout=120) for run in runs]
    for run, (stdout, stderr) in zip(runs, outcomes):
        assert run.returncode == 0, stderr
        assert '"errors": []' in stdout, stderr
    for prefix, interval, count in (("/s2/", 1.0, 4), ("/eutils/", 1 / 3, 8), ("/arxiv/", 3.0, 4)):
        starts = _starts(server, prefix)
        assert len(starts) == count, (prefix, starts)
        gaps = [b - a for a, b in zip(starts, starts[1:])]
        assert min(gaps) >= interval, (prefix, gaps)


@pytest.mark.realtime
def test_back_to_back_runs_keep_the_pace_of_the_run_before(tmp_path):
    with FakeServer() as server:
        env = {**os.environ, **fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
        command = [*lit_search_command(), "CRISPR off-target effects", "--providers", "arxiv",
                   "--no-cache", "--no-verify", "--format", "json", "-q"]
        started = time.monotonic()
        for _ in range(2):
            run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
            assert run.returncode == 0, run.stderr
    first, second = _starts(server, "/arxiv/")
    assert second - first >= 3.0
    assert time.monotonic() - started < 15
    assert Path(tmp_path / "data" / "pace" / "arxiv.next").exists()
