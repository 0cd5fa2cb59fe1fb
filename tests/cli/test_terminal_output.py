"""What a person sees when stdout is a terminal (issues 13 and 21): a view sized to the
terminal, no Markdown escapes, every paper's title and year, the retraction marker; and what a
pipe gets: the Markdown table exactly as before the view existed.

tests/data/terminal/gastric_organoid.md is the Markdown the search below printed before issue
21 (timings written "T s"); regenerate it with ``python3 tests/cli/test_terminal_output.py``
only after a deliberate change to the Markdown."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fake_apis  # noqa: E402
from command import lit_search_command  # noqa: E402
from conftest import DATA, REPO  # noqa: E402
from fake_server import FakeServer  # noqa: E402

from litsearch.render.terminal import text_width  # noqa: E402
from scratch import scratch_folder  # noqa: E402

WIDTH = 100
GASTRIC = ["gastric organoid stem cells", "--limit", "8", "--no-cache"]  # the fake APIs add a retracted paper
GOLDEN = DATA / "terminal" / "gastric_organoid.md"
TIMING = re.compile(r"\b\d+\.\d s\b")
ESCAPE_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def clean_env(env_extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LITSEARCH_", "OPENALEX", "NCBI", "SEMANTIC", "COLUMNS", "LINES"))}
    env.update({"PYTHONPATH": str(REPO / "src"), **env_extra})
    return env


def piped(args: list[str], env_extra: dict[str, str]) -> tuple[str, str]:
    proc = subprocess.run(lit_search_command() + args, capture_output=True, text=True, env=clean_env(env_extra),
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def on_terminal(args: list[str], env_extra: dict[str, str], width: int = WIDTH) -> tuple[str, str]:
    """stdout in a pseudo-terminal ``width`` columns wide; stderr piped."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, width, 0, 0))
    proc = subprocess.Popen(lit_search_command() + args, stdout=follower, stderr=subprocess.PIPE,
                            env=clean_env(env_extra))
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
    assert proc.returncode == 0, err
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n"), err.decode("utf-8")


@pytest.fixture(scope="module")
def env():
    with FakeServer() as server:
        yield fake_apis.install(server)  # no LITSEARCH_EMAIL: Unpaywall is skipped


def test_a_terminal_gets_a_view_sized_to_it(env, tmp_path):
    shown, errors = on_terminal(GASTRIC, {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)})
    lines = ESCAPE_SEQUENCE.sub("", shown).splitlines()
    assert max(text_width(line) for line in lines) <= WIDTH, [line for line in lines if text_width(line) > WIDTH]
    assert "\\" not in shown and "| # |" not in shown and "](" not in shown  # no Markdown at all
    papers = json.loads(piped(GASTRIC + ["--format", "json"], {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)})[0])
    flat = " ".join(" ".join(lines).split())
    assert len(papers["results"]) == 8
    for position, paper in enumerate(papers["results"], start=1):
        title = " ".join(paper["title"].split())
        assert f"{position}. " in flat and title in flat, title
        assert f"· {paper['year']} ·" in flat, paper["year"]
    [retracted] = [line for line in lines if "RETRACTED" in line and re.match(r"\s*\d+\. ", line)]
    assert retracted.split(". ", 1)[1].startswith("⚠ RETRACTED — Gastric organoids")
    assert "(correction published)" in flat
    # the footer: failures and skips a line each, the rest one summary line, the email named once
    assert "Searched Semantic Scholar (8), OpenAlex (9), PubMed (3)" in flat
    assert flat.count("LITSEARCH_EMAIL") == 1 and "Not set: LITSEARCH_EMAIL" in flat
    assert "Unpaywall skipped" not in errors and "providers:" not in errors


def test_a_pipe_gets_the_markdown_of_before_byte_for_byte(env, tmp_path):
    # The golden file is what the command printed before the terminal view existed (commit
    # 1d35fb5), when the order was today's --sort impact; regenerated once since, when Europe PMC
    # joined the biomedical auto choice (issue 22: its records merged in, its footer line).
    markdown, _ = piped(GASTRIC + ["--sort", "impact"], {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)})
    assert TIMING.sub("T s", markdown) == GOLDEN.read_text(encoding="utf-8")
    forced, _ = on_terminal(GASTRIC + ["--sort", "impact", "--format", "markdown"],
                            {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)})
    assert TIMING.sub("T s", forced) == TIMING.sub("T s", markdown)  # --format markdown: the same anywhere
    table, _ = piped(GASTRIC + ["--format", "table"], {**env, "LITSEARCH_CACHE_DIR": str(tmp_path), "COLUMNS": "60"})
    assert table.startswith("Literature search: gastric organoid stem cells\n") and "| # |" not in table
    assert max(text_width(line) for line in table.splitlines()) <= 60


@pytest.mark.parametrize("args", [["--abstracts"], ["--providers", "openalex,arxiv", "--author", "Hinton"]])
def test_abstracts_and_missing_keys_in_the_view(env, tmp_path, args):
    query = ["CRISPR off-target effects", "--limit", "5", "--no-cache"]
    shown, errors = on_terminal(query + args, {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)}, width=72)
    lines = shown.splitlines()
    assert max(text_width(line) for line in lines) <= 72
    if "--abstracts" in args:
        first_block = shown.split("\n\n")[1]
        assert "│ BACKGROUND: Off-target effects remain a major concern" in first_block  # under its own row
        assert "Abstracts (│) are quoted from the sources" in shown
    else:  # no OpenAlex key: the author filter was applied after fetching; said once, with the variable
        assert " ".join(shown.split()).count("OPENALEX_API_KEY") == 1 and "Not set: OPENALEX_API_KEY" in shown
        assert "OPENALEX_API_KEY" not in errors  # not repeated on stderr


@pytest.mark.parametrize("command", [["paper", "10.1038/nbt.2647"], ["library", "list"]])
def test_paper_and_library_have_the_view_too(env, tmp_path, command):
    extra = {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)}
    piped(["CRISPR off-target effects", "--limit", "3", "--save", "-q"], extra)
    shown, _ = on_terminal(command, extra, width=64)
    assert max(text_width(line) for line in shown.splitlines()) <= 64 and "\\" not in shown and "**" not in shown
    assert "Off-target effects in CRISPR/Cas9 gene editing" in shown
    markdown, _ = piped(command, extra)
    assert "| # |" in markdown or "**" in markdown


def test_the_terminal_view_is_refused_for_a_file(env, tmp_path):
    proc = subprocess.run(lit_search_command() + ["x", "--format", "table", "-o", str(tmp_path / "x.md")],
                          capture_output=True, text=True, env=clean_env(env), timeout=60)
    assert proc.returncode == 2 and "--format table is the view for reading in a terminal" in proc.stderr
    assert not (tmp_path / "x.md").exists()


def test_json_keeps_the_provider_choice_on_stderr(env, tmp_path):
    _, errors = piped(["CRISPR off-target effects", "--format", "json"], {**env, "LITSEARCH_CACHE_DIR": str(tmp_path)})
    assert "providers: semantic_scholar and openalex cover every field" in errors


@pytest.mark.parametrize("args,code,lines", [(["doctor"], 2, 1), (["--help"], 0, 0)])
def test_a_reader_that_goes_away_costs_one_line_and_the_documented_exit_code(args, code, lines):
    # `lit-search … | head`, or `| dot` where dot is missing. With stdout buffered (as in any
    # shell; the test environment may set PYTHONUNBUFFERED), Python's last flush used to add
    # "Exception ignored … BrokenPipeError" and exit 120.
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITSEARCH_") and k != "PYTHONUNBUFFERED"}
    with subprocess.Popen(lit_search_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env) as proc:  # `with`: both pipes closed, whatever the asserts say
        proc.stdout.close()  # before the command has started writing
        stderr = proc.stderr.read().decode("utf-8")
        code_seen = proc.wait(timeout=60)
    assert code_seen == code, stderr
    assert "Exception ignored" not in stderr and "Traceback" not in stderr
    assert stderr.count("\n") == lines, stderr
    if lines:
        assert stderr == "lit-search doctor: error: cannot write the output: Broken pipe\n"


if __name__ == "__main__":
    with FakeServer() as server:
        import tempfile

        printed, _ = piped(GASTRIC + ["--sort", "impact"],
                           {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": scratch_folder()})
    GOLDEN.write_text(TIMING.sub("T s", printed), encoding="utf-8")
    print(f"{GOLDEN.relative_to(REPO)} regenerated")
