"""Parsers in a child process (fulltext/isolated.py, issue 31): what the child answers is what
the parser gives in-process; a parse past its budget, or cancelled, has its process killed (not
a thread left burning a core); the child carries its own limits (CPU seconds, address space),
and running out of memory is one line, not a crash."""

from __future__ import annotations

import asyncio
import multiprocessing
import signal
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

JATS = (b'<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta><title-group><article-title>'
        b'A Title</article-title></title-group><permissions><license xlink:href="https://creativecommons.org/'
        b'licenses/by/4.0/">CC BY</license></permissions></article-meta></front><body><sec><title>Intro</title>'
        b'<p>Body text.</p></sec></body></article>')
WORDS = "This paragraph is part of the article's own text and long enough to count. " * 12


@pytest.fixture
def children(monkeypatch):
    """The child processes parse_isolated starts, to look at after the call."""
    made = []
    real = isolated._context

    class Recording:
        def __init__(self, context):
            self.context = context

        def Pipe(self, *args, **kwargs):
            return self.context.Pipe(*args, **kwargs)

        def Process(self, *args, **kwargs):
            made.append(self.context.Process(*args, **kwargs))
            return made[-1]
    monkeypatch.setattr(isolated, "_context", lambda: Recording(real()))
    return made


@pytest.mark.parametrize("kind, data, parse", [
    ("jats", JATS, lambda data: parse_jats(data)),
    ("html", ARTICLE_PAGE.format(intro=WORDS, methods=WORDS, discussion=WORDS).encode(),
     lambda data: parse_article_page(data.decode())),
    ("pdf", make_pdf(PDF_PAPER_LINES), lambda data: parse_pdf(data)),
])
def test_the_childs_document_is_the_parsers(kind, data, parse, children):
    parsed = asyncio.run(parse_isolated(kind, data, 60, content_type="text/html; charset=utf-8"))
    assert parsed.document.to_dict() == parse(data).to_dict()
    assert children[0].exitcode == 0
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
def test_bytes_that_are_no_such_document_are_a_value_error(kind, data, words):
    with pytest.raises(ValueError, match=words):
        asyncio.run(parse_isolated(kind, data, 60))


def test_a_parse_past_its_budget_is_stopped_and_its_process_killed(children):
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"reading the PDF's text took longer than 2 s \(its time budget\)"):
        asyncio.run(parse_isolated("pdf", busy_pdf(), 0.1))  # given at least MIN_SECONDS
    assert time.monotonic() - started < 60
    [child] = children
    assert child.exitcode == -signal.SIGKILL and multiprocessing.active_children() == []


def test_a_cancelled_parse_has_its_process_killed(children):
    async def go():
        task = asyncio.create_task(parse_isolated("pdf", busy_pdf(), 300))
        while not children or children[0].pid is None or not Path(f"/proc/{children[0].pid}").exists():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(go())
    assert children[0].exitcode == -signal.SIGKILL and multiprocessing.active_children() == []


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads a process's limits from /proc")
def test_the_child_carries_its_own_limits(children):
    """CPU seconds a little past its budget (it stops even if nobody is left to kill it) and the
    address space, as /proc shows them while it runs."""
    limits = {}

    async def go():
        task = asyncio.create_task(parse_isolated("pdf", busy_pdf(), 5))
        while not children or children[0].pid is None:
            await asyncio.sleep(0.05)
        path = Path(f"/proc/{children[0].pid}/limits")
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


def test_running_out_of_memory_is_one_line(children, monkeypatch):
    monkeypatch.setattr(isolated, "MEMORY_BYTES", 64 * 1024 * 1024)
    big = ("<article><body>" + ("<sec><title>S</title><p>" + "x " * 500 + "</p></sec>") * 20_000
           + "</body></article>").encode()
    with pytest.raises(ProviderError) as failure:
        asyncio.run(parse_isolated("jats", big, 60))
    assert "64 MB" in str(failure.value) and "\n" not in str(failure.value)
    assert children[0].exitcode is not None and multiprocessing.active_children() == []
