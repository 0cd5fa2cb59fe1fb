"""Live progress (issue 13, item 8): on a terminal, one status line per provider rewritten as
each answers, then the enrichment; nothing on stderr when it is not a terminal or with -q;
stdout the same either way."""

from __future__ import annotations

import os
import pty
import re
import subprocess

import pytest

import fake_apis
from command import lit_search_command
from conftest import REPO
from fake_server import FakeServer

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


def run_with_terminal_stderr(args, env):
    leader, follower = pty.openpty()
    proc = subprocess.Popen(lit_search_command() + args, stdout=subprocess.PIPE, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    out, _ = proc.communicate(timeout=60)
    os.close(leader)
    return out.decode(), b"".join(chunks).decode()


def screen(raw: str) -> list[str]:
    """What the terminal shows at the end: the lines after cursor moves and line clears."""
    lines, row = [""], 0
    for token in re.findall(r"\x1b\[(\d+)([AB])|\x1b\[K|(\r\n|\n)|(\r)|([^\x1b\r\n]+)", raw):
        count, move, newline, carriage, text = token
        if move == "A":
            row -= int(count)
        elif move == "B":
            row += int(count)
        elif newline:
            row += 1
        elif text:
            while len(lines) <= row:
                lines.append("")
            lines[row] = lines[row] + text if not carriage else text
        if carriage or move:
            while len(lines) <= row:
                lines.append("")
            lines[row] = "" if carriage else lines[row]
    return [line for line in lines if line]


def test_a_terminal_sees_one_live_line_per_provider_then_the_enrichment(env):
    out, raw = run_with_terminal_stderr(ARGS, env)
    assert raw.index("openalex") < raw.index("searching…")  # every provider listed as it starts
    assert raw.count("searching…") == 2 and "\x1b[" in raw  # lines rewritten in place
    final = screen(raw)
    assert any(re.fullmatch(r"lit-search: openalex +\d+ results in 0\.\d s", line) for line in final), final
    assert any(re.fullmatch(r"lit-search: arxiv +\d+ results? in [01]\.\d s", line) for line in final), final
    assert any(line.startswith("lit-search: enrichment") and "done in" in line for line in final), final
    assert "| # | Authors | Title | Year | Venue | Cites | DOI | OA |" in out


def test_no_live_lines_when_stderr_is_not_a_terminal_or_with_quiet(env):
    piped = subprocess.run(lit_search_command() + ARGS, capture_output=True, text=True, env=env, timeout=60)
    assert "searching…" not in piped.stderr and "\x1b" not in piped.stderr
    _, raw = run_with_terminal_stderr(ARGS + ["-q"], env)
    assert raw == ""


def test_stdout_is_the_same_with_or_without_the_live_lines(env):
    out, _ = run_with_terminal_stderr(ARGS, env)
    piped = subprocess.run(lit_search_command() + ARGS, capture_output=True, text=True, env=env, timeout=60)
    times = re.compile(r"\d+\.\d s")
    assert times.sub("T", out) == times.sub("T", piped.stdout)
