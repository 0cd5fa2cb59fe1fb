"""Every parser of third-party text (JATS, LaTeXML, publisher HTML, PDF) runs in a child process
under one time and memory budget, so a document built to keep a parser busy costs its budget
and nothing after it.

A thread cannot be stopped: a PDF that keeps pypdf busy past its budget would go on burning a
core in a long-lived server (the MCP server) after the call has failed. A child process is
killed when the budget runs out, or when the call is cancelled; it also carries limits of its
own (CPU seconds, address space), so it stops even if nobody is left to kill it. The event loop
only waits: the child starts in a worker thread and its answer is read when it is there.

The children are forked from a small server process (``forkserver``, Python's own) that has
the parsers loaded, so a parse starts in milliseconds, and never from a process with threads;
where there is no forkserver (Windows), they are spawned.

``parse_isolated(kind, data, seconds)`` returns a ``Parsed`` (the document, or why there is
none, and for a publisher page the PDF it links to); ``ValueError`` for bytes that are no
document of that kind; ``ProviderError`` when the budget runs out or the child fails.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import multiprocessing
from dataclasses import dataclass
from typing import Any

from ..core.errors import ProviderError
from .document import FullText, NoFullText

KINDS = {"jats": "the JATS XML", "latexml": "the LaTeXML page", "html": "the web page", "pdf": "the PDF's text"}
MIN_SECONDS = 2.0  # a parse is given at least this, whatever is left of the fetch's budget
MEMORY_BYTES = 2 * 1024 ** 3  # the child's address space: a decompression bomb inside a PDF stops here
# What the forkserver imports once, so that each child starts with the parsers loaded.
PRELOADED = [__name__, "litsearch.fulltext.jats", "litsearch.fulltext.latexml", "litsearch.fulltext.htmlpage",
             "litsearch.fulltext.pdf", "defusedxml.ElementTree", "pypdf"]
_WAITERS = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="lit-search-parse")


@dataclass
class Parsed:
    """A child's answer: the document, or ``none`` (why the copy holds no text to read); a
    publisher page without the article may name its PDF (``pdf_url``), a JATS file states its
    ``license``."""

    document: FullText | None = None
    none: str | None = None
    pdf_url: str | None = None
    license: str | None = None


async def parse_isolated(kind: str, data: bytes, seconds: float, *, content_type: str = "",
                         url: str = "") -> Parsed:
    """``data`` parsed as ``kind`` (one of KINDS) in a child process given ``seconds`` (at least
    MIN_SECONDS); see the module docstring."""
    budget = max(seconds, MIN_SECONDS)
    context = _context()
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=child_main, args=(sending, kind, data, content_type, url, budget, MEMORY_BYTES),
                            name=f"lit-search-parse-{kind}", daemon=True)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    reading: concurrent.futures.Future | None = None
    try:
        await asyncio.wrap_future(_WAITERS.submit(child.start))
        sending.close()
        if await _readable(receiving, deadline - loop.time()):
            reading = _WAITERS.submit(_receive, receiving)
            try:
                answer = await asyncio.wait_for(asyncio.wrap_future(reading), max(deadline - loop.time(), 0.1))
            except asyncio.TimeoutError:
                answer = "timeout"
        else:
            answer = "timeout"
    finally:
        _stop(child, reading)
        receiving.close()
    if answer == "timeout":
        raise ProviderError(f"reading {KINDS[kind]} took longer than {budget:.0f} s (its time budget); stopped")
    return _outcome(kind, answer, child.exitcode)


def _context() -> Any:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOADED)
        return context
    return multiprocessing.get_context("spawn")


async def _readable(connection: Any, seconds: float) -> bool:
    """Whether the child's answer starts arriving within ``seconds``; the loop only watches the pipe."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[bool] = loop.create_future()
    try:
        loop.add_reader(connection.fileno(), lambda: ready.done() or ready.set_result(True))
    except NotImplementedError:  # a loop that cannot watch a pipe (Windows): a thread waits instead
        return await asyncio.wrap_future(_WAITERS.submit(connection.poll, max(seconds, 0)))
    try:
        return await asyncio.wait_for(ready, max(seconds, 0))
    except asyncio.TimeoutError:
        return False
    finally:
        loop.remove_reader(connection.fileno())


def _receive(connection: Any) -> Any:
    try:
        return connection.recv()
    except (EOFError, OSError):
        return None  # the child ended without an answer (killed, out of memory, a crash)


def _stop(child: Any, reading: concurrent.futures.Future | None) -> None:
    """The child killed if it still runs (one that has answered is given a moment to end on its
    own), and reaped; a thread still reading its pipe is let finish (it does at once once the
    child is gone) before the pipe is closed."""
    if child.pid is None:
        return
    if reading is not None and reading.done():
        child.join(2)
    if child.exitcode is None:
        child.kill()
    child.join(5)
    if reading is not None:
        try:
            reading.result(timeout=5)
        except Exception:  # nothing to report: the outcome was decided already
            pass


def _outcome(kind: str, answer: Any, exitcode: int | None) -> Parsed:
    if not isinstance(answer, tuple):
        how = f"signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit code {exitcode}"
        raise ProviderError(f"reading {KINDS[kind]} stopped without an answer ({how}): it needed more than the "
                            f"parser's budget of {MEMORY_BYTES // 1024 ** 2:,} MB memory, or the parser failed")
    status, value, extra = answer
    if status == "document":
        return Parsed(document=FullText.from_dict(value), **extra)
    if status == "none":
        return Parsed(none=value, **extra)
    if status == "invalid":
        raise ValueError(value)
    if status == "memory":
        raise ProviderError(f"reading {KINDS[kind]} needed more than {MEMORY_BYTES // 1024 ** 2:,} MB of memory; "
                            "stopped")
    raise RuntimeError(value)  # a bug in a parser: "internal error", as it would be in-process


# ---------------------------------------------------------------- the child's side

def child_main(sending: Any, kind: str, data: bytes, content_type: str, url: str, seconds: float,
               memory: int) -> None:
    """Runs in the child: its own limits first, then the parse; one answer on the pipe,
    (status, value, extra: a dict of Parsed's other fields) with plain data only."""
    _limit_self(seconds, memory)
    try:
        answer = _parse(kind, data, content_type, url)
    except MemoryError:
        answer = ("memory", "", {})
    except Exception as error:  # a parser's bug: its type and message, for "internal error"
        answer = ("bug", f"{type(error).__name__}: {' '.join(str(error).split())[:300]}", {})
    try:
        sending.send(answer)
    except MemoryError:
        sending.send(("memory", "", {}))
    finally:
        sending.close()


def _parse(kind: str, data: bytes, content_type: str, url: str) -> tuple[str, Any, dict[str, Any]]:
    from .htmlpage import parse_article_page, pdf_link
    from .jats import jats_license, parse_jats
    from .latexml import parse_latexml
    from .pdf import parse_pdf

    try:
        if kind == "jats":
            document = parse_jats(data)
            return "document", document.to_dict(), {"license": jats_license(data)}
        if kind == "pdf":
            return "document", parse_pdf(data).to_dict(), {}
        text = decoded(data, content_type)
        if kind == "latexml":
            return "document", parse_latexml(text).to_dict(), {}
        try:
            return "document", parse_article_page(text).to_dict(), {}
        except NoFullText as none:
            return "none", str(none), {"pdf_url": pdf_link(text, url)}
    except NoFullText as none:
        return "none", str(none), {}
    except ValueError as invalid:
        return "invalid", str(invalid), {}


def _limit_self(seconds: float, memory: int) -> None:
    """CPU seconds a little past the budget (the parent kills the child at the budget; this
    stops it even when the parent is gone), and the address space."""
    try:
        import resource
    except ImportError:  # Windows: the parent's kill is the bound
        return
    cpu = math.ceil(seconds) + 2
    for limit, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, memory)):
        try:
            soft, hard = resource.getrlimit(limit)
            wanted = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(limit, (wanted, hard))
        except (ValueError, OSError):
            continue


def decoded(data: bytes, content_type: str) -> str:
    """A page's bytes as text, in the charset its Content-Type names (UTF-8 otherwise)."""
    charset = ""
    if "charset=" in content_type:
        charset = content_type.split("charset=", 1)[1].split(";")[0].strip().strip('"')
    try:
        return data.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return data.decode("utf-8", errors="replace")
