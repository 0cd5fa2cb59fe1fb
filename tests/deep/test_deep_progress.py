"""A deep step's live status on a terminal: a round asks several providers for up to half a
minute at their pace, and a terminal that shows nothing meanwhile looks stuck. One line, rewritten
in place (requests so far per provider, seconds), then a closing line; nothing when stderr is not
a terminal or with -q; stdout the same either way."""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from command import command_env, lit_search_command  # noqa: E402
from deep_world import World  # noqa: E402
from small_world import small_world  # noqa: E402
from terminal_support import run_with_terminal_stderr, screen  # noqa: E402

from litsearch.cli.progress import StepStatus, followed  # noqa: E402


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Http:
    def __init__(self, **counts: int):
        self.request_counts = dict(counts)


def test_the_line_counts_this_steps_requests_per_provider_and_closes_with_the_total():
    clock, stream = Clock(), io.StringIO()
    http = Http(semantic_scholar=4)  # sent before the step: not this step's
    status = StepStatus("deep next", stream=stream, clock=clock, width=lambda: 200)

    async def step():
        for provider in ("openalex", "semantic_scholar", "openalex"):
            await asyncio.sleep(0)
            http.request_counts[provider] = http.request_counts.get(provider, 0) + 1
            clock.now += 2.5
        return "the session"

    assert asyncio.run(followed(http, status, step())) == "the session"
    drawn = screen(stream.getvalue())
    assert drawn == ["lit-search: deep next         3 requests in 7.5 s (OpenAlex 2, Semantic Scholar 1)"], drawn
    assert stream.getvalue().endswith("\n")
    assert "so far" in stream.getvalue()  # drawn while the step ran, then replaced


def test_no_status_and_the_same_result_when_not_followed():
    async def step():
        return 7

    assert asyncio.run(followed(Http(), None, step())) == 7


@pytest.mark.parametrize("columns", [24, 50, 80])
def test_the_line_never_wraps(columns):
    stream = io.StringIO()
    status = StepStatus("deep start", stream=stream, clock=Clock(), width=lambda: columns)
    status.show(status.text({name: 12 for name in ("semantic_scholar", "openalex", "europepmc", "pubmed")}))
    assert all(len(line) < columns for line in screen(stream.getvalue()))


@pytest.fixture(scope="module")
def world():
    with World(small_world(), share=1.0) as served:
        yield served


def test_a_terminal_sees_the_steps_status_and_stdout_is_unchanged(world, tmp_path):
    env = command_env(world.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    start = ["deep", "start", "coral reef bleaching", "--batch", "3", "--format", "json", "--no-cache"]
    out, raw, code = run_with_terminal_stderr(start + ["--session", "a.json"], env, cwd=tmp_path, timeout=300)
    assert code == 0, raw
    shown = screen(raw)
    # The seconds are whatever the machine's load made them, and the line is cut to the width:
    # its shape is what is checked.
    assert any(re.match(r"lit-search: deep start +\d+ requests? in \d+\.\d s \(", line) for line in shown), shown
    assert json.loads(out)["batch"]
    nexts = ["deep", "next", "a.json", "--relevant", "1", "--format", "json", "--no-cache"]
    out, raw, code = run_with_terminal_stderr(nexts, env, cwd=tmp_path, timeout=300)
    assert code == 0 and any(line.startswith("lit-search: deep next") for line in screen(raw)), raw
    _, quiet, code = run_with_terminal_stderr(start + ["--session", "b.json", "-q"], env, cwd=tmp_path, timeout=300)
    assert code == 0 and quiet == ""
    # stdout is the product, the same whether stderr is a terminal or not
    on_terminal = json.loads(run_with_terminal_stderr(start + ["--session", "c.json"], env, cwd=tmp_path)[0])
    piped = subprocess.run(lit_search_command() + start + ["--session", "d.json"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert on_terminal["batch"] == json.loads(piped.stdout)["batch"]
    assert "requests" not in piped.stderr and "\x1b" not in piped.stderr  # no status line into a pipe
