"""What a person sees when stdout is a terminal (issue 13, item 12): no Markdown escapes in
the table and footer, correct plurals, and the provider choice said once."""

from __future__ import annotations

import os
import pty
import subprocess

import pytest

import fake_apis
from command import lit_search_command
from conftest import REPO
from fake_server import FakeServer


def run_on(terminal: bool, args: list[str], env_extra: dict[str, str]) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "OPENALEX", "NCBI", "SEMANTIC"))}
    env.update({"PYTHONPATH": str(REPO / "src"), **env_extra})
    if not terminal:
        proc = subprocess.run(lit_search_command() + args, capture_output=True, text=True, env=env, timeout=60)
        return proc.stdout, proc.stderr
    leader, follower = pty.openpty()
    proc = subprocess.Popen(lit_search_command() + args, stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, err = proc.communicate(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n"), err.decode("utf-8")


@pytest.fixture
def env():
    with FakeServer() as server:
        yield fake_apis.install(server)  # no LITSEARCH_EMAIL: the footer says to set it


ARGS = ["CRISPR off-target effects", "--providers", "openalex,arxiv", "--limit", "3", "--no-cache"]


def test_a_terminal_gets_the_footer_without_markdown_escapes(env):
    piped, _ = run_on(False, ARGS, env)
    shown, errors = run_on(True, ARGS, env)
    assert "LITSEARCH\\_EMAIL" in piped  # inert Markdown for a renderer or a model
    assert "set LITSEARCH_EMAIL" in shown and "\\_" not in shown
    assert "| # | Authors | Title | Year | Venue | Cites | DOI | OA |" in shown
    assert "- arxiv: searched, 2 results (1 request," in shown  # singular where it is one
    assert "providers:" not in errors  # the footer already says which providers and why


def test_json_keeps_the_provider_choice_on_stderr(env):
    _, errors = run_on(False, ["CRISPR off-target effects", "--format", "json"], env)
    assert "providers: semantic_scholar and openalex cover every field" in errors


@pytest.mark.parametrize("args,code,lines", [(["doctor"], 2, 1), (["--help"], 0, 0)])
def test_a_reader_that_goes_away_costs_one_line_and_the_documented_exit_code(args, code, lines):
    # `lit-search … | head`, or `| dot` where dot is missing. With stdout buffered (as in any
    # shell; the test environment may set PYTHONUNBUFFERED), Python's last flush used to add
    # "Exception ignored … BrokenPipeError" and exit 120.
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITSEARCH_") and k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen(lit_search_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # before the command has started writing
    stderr = proc.stderr.read().decode("utf-8")
    assert proc.wait(timeout=60) == code, stderr
    assert "Exception ignored" not in stderr and "Traceback" not in stderr
    assert stderr.count("\n") == lines, stderr
    if lines:
        assert stderr == "lit-search doctor: error: cannot write the output: Broken pipe\n"
