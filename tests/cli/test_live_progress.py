"""Live progress (issue 13, item 8): on a terminal, one status line per provider rewritten as
each answers, then the enrichment; nothing on stderr when it is not a terminal or with -q;
stdout the same either way."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

import fake_apis
from command import lit_search_command
from conftest import REPO
from fake_server import FakeServer
from terminal_support import run_with_terminal_stderr, screen

SLOW = {"/openalex/": 0.4, "/arxiv/": 0.9}


def slowed(responder, seconds):
    def answer(request):
        response = responder(request)
        response.delay = seconds
        return response
    return answer


@pytest.fixture
def env():
    with FakeServer() as server:
        env = fake_apis.install(server)
        for path, responder in list(server._routes.items()):
            for prefix, seconds in SLOW.items():
                if path.startswith(prefix):
                    server.route(path, slowed(responder, seconds))
        yield {**{k: v for k, v in os.environ.items() if not k.startswith("LITSEARCH_")}, **env,
               "PYTHONPATH": str(REPO / "src"), "LITSEARCH_EMAIL": "live@example.org"}


ARGS = ["CRISPR deep learning", "--providers", "openalex,arxiv", "--limit", "3", "--no-cache"]


def test_a_terminal_sees_one_live_line_per_provider_then_the_enrichment(env):
    out, raw, _ = run_with_terminal_stderr(ARGS, env)
    assert raw.index("openalex") < raw.index("searching…")  # every provider listed as it starts
    assert raw.count("searching…") == 2 and "\x1b[" in raw  # lines rewritten in place
    final = screen(raw)
    # The seconds are whatever the machine's load made them: the lines' shape is what is checked.
    assert any(re.fullmatch(r"lit-search: openalex +\d+ results in \d+\.\d s", line) for line in final), final
    assert any(re.fullmatch(r"lit-search: arxiv +\d+ results? in \d+\.\d s", line) for line in final), final
    assert any(line.startswith("lit-search: enrichment") and "done in" in line for line in final), final
    assert "| # | Authors | Title | Year | Venue | Cites | DOI | OA |" in out


def test_no_live_lines_when_stderr_is_not_a_terminal_or_with_quiet(env):
    piped = subprocess.run(lit_search_command() + ARGS, capture_output=True, text=True, env=env, timeout=60)
    assert "searching…" not in piped.stderr and "\x1b" not in piped.stderr
    _, raw, _ = run_with_terminal_stderr(ARGS + ["-q"], env)
    assert raw == ""


def test_stdout_is_the_same_with_or_without_the_live_lines(env):
    out, _, _ = run_with_terminal_stderr(ARGS, env)
    piped = subprocess.run(lit_search_command() + ARGS, capture_output=True, text=True, env=env, timeout=60)
    times = re.compile(r"\d+\.\d s")
    assert times.sub("T", out) == times.sub("T", piped.stdout)


class Outcome:
    def __init__(self, provider, error=None, records=(), seconds=0.3):
        self.provider, self.error, self.records, self.seconds = provider, error, list(records), seconds
        self.cached, self.requests = 0, 1


@pytest.mark.parametrize("columns", [24, 40, 60, 80, 200])
def test_no_status_line_wraps_whatever_the_width(columns):
    """A line as wide as the terminal wraps, and the next rewrite (so many lines up) lands on its
    tail: each line is cut to the width less one column, asked again at every write."""
    import io

    from litsearch.cli.progress import LiveStatus
    from litsearch.render.terminal import text_width

    stream = io.StringIO()
    live = LiveStatus(stream, clock=lambda: 0.0, width=lambda: columns)
    live.started(["semantic_scholar", "openalex", "europepmc"])
    live.finished(Outcome("openalex", records=[None] * 25))
    live.finished(Outcome("semantic_scholar", error="HTTP 429 rate limited: " + "a long reason, " * 20))
    live.enriching(20)
    live.enriched(None)
    drawn = re.split(r"\x1b\[\d*[ABK]|\r|\n", stream.getvalue())
    assert all(text_width(line) <= max(20, columns - 1) for line in drawn), drawn
    assert any(line.startswith("lit-search: openalex") for line in drawn)
    assert screen(stream.getvalue())[1].startswith("lit-search: openalex")  # rewritten on its own line
