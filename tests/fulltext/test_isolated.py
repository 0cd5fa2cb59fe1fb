"""Parsers in a child process (fulltext/isolated.py and parse_child.py, issue 31): what the
child answers is what the parser gives in-process; a parse past its budget, or cancelled, has its
process killed (not a thread left burning a core); the child carries its own limits (CPU
seconds, address space), and running out of memory is one line, not a crash; the program that
called lit-search is never run again in a child (Python's forkserver and spawn re-run the
caller's main script), and the parse server ends with its caller."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fake_fulltext import ARTICLE_PAGE, LANDING_PAGE, PDF_PAPER_LINES
from litsearch.core.errors import ProviderError
from litsearch.fulltext import isolated
from litsearch.fulltext.htmlpage import parse_article_page
from litsearch.fulltext.isolated import parse_isolated
from litsearch.fulltext.jats import parse_jats
from litsearch.fulltext.pdf import parse_pdf
from pdf_maker import busy_pdf, make_pdf
from process_watch import HAS_PROC, watch_until_gone

JATS = (b'<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta><title-group><article-title>'
        b'A Title</article-title></title-group><permissions><license xlink:href="https://creativecommons.org/'
        b'licenses/by/4.0/">CC BY</license></permissions></article-meta></front><body><sec><title>Intro</title>'
        b'<p>Body text.</p></sec></body></article>')
WORDS = "This paragraph is part of the article's own text and long enough to count. " * 12


@pytest.fixture(params=["server", "own process"] if isolated.FORKS else ["own process"])
def route(request, monkeypatch):
    """Both ways a child is started: forked by the parse server, or (no fork: Windows) a process of its own."""
    monkeypatch.setattr(isolated, "FORKS", request.param == "server")
    return request.param


@pytest.fixture
def children(monkeypatch):
    """The process ids of the children parse_isolated starts."""
    pids: list[int] = []
    monkeypatch.setattr(isolated, "_started", pids.append)
    return pids


@pytest.mark.parametrize("kind, data, parse", [
    ("jats", JATS, lambda data: parse_jats(data)),
    ("html", ARTICLE_PAGE.format(intro=WORDS, methods=WORDS, discussion=WORDS).encode(),
     lambda data: parse_article_page(data.decode())),
    ("pdf", make_pdf(PDF_PAPER_LINES), lambda data: parse_pdf(data)),
])
def test_the_childs_document_is_the_parsers(kind, data, parse, children, route):
    parsed = asyncio.run(parse_isolated(kind, data, 60, content_type="text/html; charset=utf-8"))
    assert parsed.document.to_dict() == parse(data).to_dict()
    if HAS_PROC:
        watch_until_gone(children[0])
    if kind == "jats":
        assert parsed.license.startswith("CC BY 4.0")


def test_a_page_without_the_article_names_its_pdf():
    parsed = asyncio.run(parse_isolated("html", LANDING_PAGE.encode(), 60, url="https://publisher.example/a/1"))
    assert parsed.document is None and "landing page" in parsed.none
    assert parsed.pdf_url and parsed.pdf_url.startswith("https://publisher.example/")


@pytest.mark.parametrize("kind, data, words", [
    ("jats", b"<html>not jats</html>", "not JATS XML"),
    ("jats", b"<article><body><p>never closed", "not well-formed XML"),
    ("pdf", b"<html>a login page</html>", "not a PDF"),
])
def test_bytes_that_are_no_such_document_are_a_value_error(kind, data, words, route):
    with pytest.raises(ValueError, match=words):
        asyncio.run(parse_isolated(kind, data, 60))


@pytest.mark.skipif(not HAS_PROC, reason="reads a process's CPU time from /proc")
def test_a_parse_past_its_budget_is_stopped_and_its_process_killed(children, route):
    """Killed at the budget: gone before it has used the CPU seconds of its own limit (budget + 2),
    where it would have stopped by itself."""
    with pytest.raises(ProviderError, match=r"reading the PDF's text took longer than 2 s \(its time budget\)"):
        asyncio.run(parse_isolated("pdf", busy_pdf(), 0.1))  # given at least MIN_SECONDS
    [child] = children
    assert watch_until_gone(child) < 3.5


@pytest.mark.skipif(not HAS_PROC, reason="reads a process's CPU time from /proc")
def test_a_cancelled_parse_has_its_process_killed(children, route):
    """Its budget (300 s) and its CPU limit are far away: only the kill ends it within GONE_WITHIN."""
    async def go():
        task = asyncio.create_task(parse_isolated("pdf", busy_pdf(), 300))
        while not children:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(go())
    watch_until_gone(children[0])


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads a process's limits from /proc")
def test_the_child_carries_its_own_limits(children, route):
    """CPU seconds a little past its budget (it stops even if nobody is left to kill it) and the
    address space, as /proc shows them while it runs."""
    limits = {}

    async def go():
        task = asyncio.create_task(parse_isolated("pdf", busy_pdf(), 5))
        while not children:
            await asyncio.sleep(0.05)
        path = Path(f"/proc/{children[0]}/limits")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "cpu" not in limits:
            text = path.read_text() if path.exists() else ""
            for line in text.splitlines():
                if line.startswith("Max cpu time") and line.split()[3] != "unlimited":
                    limits["cpu"] = int(line.split()[3])
                if line.startswith("Max address space"):
                    limits["memory"] = line.split()[3]
            await asyncio.sleep(0.05)
        with pytest.raises(ProviderError):
            await task
    asyncio.run(go())
    assert limits["cpu"] == 7 and limits["memory"] == str(isolated.MEMORY_BYTES), limits


def test_running_out_of_memory_is_one_line(children, monkeypatch, route):
    monkeypatch.setattr(isolated, "MEMORY_BYTES", 64 * 1024 * 1024)
    big = ("<article><body>" + ("<sec><title>S</title><p>" + "x " * 500 + "</p></sec>") * 20_000
           + "</body></article>").encode()
    with pytest.raises(ProviderError) as failure:
        asyncio.run(parse_isolated("jats", big, 60))
    assert "64 MB" in str(failure.value) and "\n" not in str(failure.value)
    if HAS_PROC:
        watch_until_gone(children[0])


CALLER = """
import asyncio, os, sys
from litsearch.fulltext import isolated

with open(sys.argv[1], "a") as runs:  # the caller's own work, at the top level, unguarded
    runs.write(str(os.getpid()) + "\\n")
print(asyncio.run(isolated.parse_isolated("jats", {jats!r}, 60)).document.sections[0].heading, flush=True)
print(isolated._ParseServer._current.process.pid, flush=True)
"""


@pytest.mark.parametrize("how", ["a script", "python -m"])
def test_the_callers_program_is_never_run_again_in_a_child(tmp_path, how):
    """A researcher's script calling lit-search at its top level (no ``if __name__ ==
    '__main__'``), run as a file or with -m, runs once: Python's forkserver re-ran it in every
    child, where it broke the read. Its parse server ends with it."""
    (tmp_path / "my_review.py").write_text(CALLER.format(jats=JATS))
    runs = tmp_path / "runs.txt"
    command = [sys.executable, "my_review.py"] if how == "a script" else [sys.executable, "-m", "my_review"]
    done = subprocess.run([*command, str(runs)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(isolated.__file__).parents[2])})
    assert done.returncode == 0, done.stderr
    heading, server = done.stdout.split()
    assert heading == "Intro" and done.stderr == ""
    assert len(runs.read_text().split()) == 1
    if HAS_PROC:
        watch_until_gone(int(server))


@pytest.mark.skipif(not (isolated.FORKS and HAS_PROC), reason="the parse server forks; /proc shows its children")
def test_the_server_kills_its_children_when_its_caller_is_gone(tmp_path):
    """A caller that dies mid-parse (no clean-up of its own) leaves no parse running: the server
    sees its socket close, kills the child and ends."""
    script = textwrap.dedent(f"""
        import asyncio, os, sys
        sys.path.insert(0, {str(Path(__file__).parents[1])!r})
        from litsearch.fulltext import isolated
        from pdf_maker import busy_pdf

        async def main():
            started = asyncio.get_running_loop().create_future()
            isolated._started = started.set_result
            asyncio.ensure_future(isolated.parse_isolated("pdf", busy_pdf(), 300))
            child = await started
            print(isolated._ParseServer._current.process.pid, child, flush=True)
            os._exit(0)
        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    server, child = (int(pid) for pid in done.stdout.split())
    watch_until_gone(child)
    watch_until_gone(server)


@pytest.mark.skipif(not isolated.FORKS, reason="the parse server forks")
def test_a_parse_server_that_died_is_started_again(children):
    asyncio.run(parse_isolated("jats", JATS, 60))
    first = isolated._ParseServer._current.process
    os.kill(first.pid, signal.SIGKILL)
    first.wait(30)
    assert asyncio.run(parse_isolated("jats", JATS, 60)).document.sections[0].heading == "Intro"
    assert isolated._ParseServer._current.process.pid != first.pid


@pytest.mark.parametrize("raw", [
    b"", b"\0" * 8, b"\0" * 8 + b"\0\0\0\0\0\0\0\x09" + b'["docum',  # cut short: killed while writing
    b"\0" * 8 + b"\0\0\0\0\0\0\0\x05" + b"12345", b"\0" * 8 + b"\0\0\0\0\0\0\0\x02" + b"{}",
])
def test_an_answer_that_is_not_whole_is_no_answer(raw):
    """What a child wrote is read as JSON (never unpickled: it parsed a stranger's bytes), and only
    when it is whole: anything else is 'stopped without an answer', one line."""
    with pytest.raises(ProviderError, match="stopped without an answer") as failure:
        isolated._outcome("pdf", isolated._decoded_answer(raw))
    assert "\n" not in str(failure.value)
