"""Issue 33's Done-when, run for real: 8 machines (processes with their own data folders) on one
Semantic Scholar key, 3 searches each, against a fake that enforces Semantic Scholar's 1
request/s per key (tests/fake_rate_limit.py), with and without the lab's Redis, and with the
Redis killed in the middle. The verdicts are counted from the fake's recorded arrivals, never
timed: the wall-time figure is bench/pace_under_load.py --lab's."""

from __future__ import annotations

import json

import pytest

from lab_run import run_lab
from redis_support import RedisServer, require_redis_server
from redis_support import _fresh_links  # noqa: F401  (fixture)

pytestmark = pytest.mark.realtime  # eight processes sharing a pace: run apart from the parallel pass


def searches_done(run) -> list[dict]:
    return [json.loads(line) for out in run.stdout for line in out.splitlines() if line.startswith("{")]


def test_eight_machines_on_one_key_never_pass_its_limit_through_the_labs_redis():
    with RedisServer() as lab:
        run = run_lab(8, 3, lab.url)
    assert run.limit.violations == 0, run.limit.arrivals
    assert run.limit.served == run.requests == 24  # one search request each, none refused, none repeated
    assert run.exit_codes == [0] * 8, run.stderr
    done = searches_done(run)
    assert len(done) == 24 and all(search["papers"] and not search["errors"] for search in done)
    assert not any(err.strip() for err in run.stderr)  # nothing to say: no line, no warning


def test_without_the_shared_state_the_same_machines_break_the_keys_limit():
    require_redis_server()  # the same conditions as the lab run above, so the pair stands or skips together
    run = run_lab(8, 1)
    assert run.limit.violations > 0  # why the feature exists: each machine paces only itself


def test_killing_redis_mid_run_costs_speed_never_a_search():
    with RedisServer() as lab:
        run = run_lab(8, 2, lab.url, kill=lab.kill, kill_after=5)
    done = searches_done(run)
    assert run.exit_codes == [0] * 8, run.stderr
    assert len(done) == 16 and all(search["papers"] and not search["errors"] for search in done), done
    told = run.machines_asking_after_kill()
    assert told  # the kill fell in the middle of the run
    for machine, err in enumerate(run.stderr):  # a machine that asked Redis again said so, once
        lines = [line for line in err.splitlines() if line.strip()]
        assert all("shared state lost (redis://127.0.0.1:" in line for line in lines), err
        assert len(lines) == (1 if machine in told else len(lines)) <= 1, (machine, err)
