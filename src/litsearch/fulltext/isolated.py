"""Every parser of third-party text (JATS, LaTeXML, publisher HTML, PDF) runs in a child process
under one time and memory budget, so a document built to keep a parser busy costs its budget
and nothing after it.

A thread cannot be stopped: a PDF that keeps pypdf busy past its budget would go on burning a
core in a long-lived server (the MCP server) after the call has failed. A child process is
killed when the budget runs out, or when the call is cancelled; it also carries limits of its
own (CPU seconds, address space), so it stops even if nobody is left to kill it. The event loop
only waits: it watches the child's socket, and decodes the answer in a worker thread.

The children are forked by a parse server of lit-search's own (parse_child.py), started once
per process with ``python -c``, the parsers loaded: a parse starts in milliseconds, and nothing
of the program that called lit-search is run again in a child (Python's own ``forkserver`` and
``spawn`` re-run the caller's main script in every child). Where there is no fork (Windows),
each parse is a ``python -c`` process of its own.

``parse_isolated(kind, data, seconds)`` returns a ``Parsed`` (the document, or why there is
none, and for a publisher page the PDF it links to); ``ValueError`` for bytes that are no
document of that kind; ``ProviderError`` when the budget runs out or the child fails.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any, Callable

from ..core.errors import ProviderError
from .document import FullText
from .parse_child import LENGTH, PID, READY, RECORD, request_bytes

KINDS = {"jats": "the JATS XML", "latexml": "the LaTeXML page", "html": "the web page", "pdf": "the PDF's text"}
MIN_SECONDS = 2.0  # a parse is given at least this, whatever is left of the fetch's budget
MEMORY_BYTES = 2 * 1024 ** 3  # the child's address space: a decompression bomb inside a PDF stops here
START_SECONDS = 60.0  # the parse server's own start (an interpreter and the parsers' imports) on a loaded machine
_WAITERS = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="lit-search-parse")
# Where the child's code is imported from: this lit-search, whatever the child's sys.path says.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from litsearch.fulltext import parse_child; "
         "parse_child.serve(int(sys.argv[2])) if sys.argv[2:] else parse_child.one()")
FORKS = hasattr(os, "fork") and hasattr(socket, "send_fds")


def _started(pid: int) -> None:
    """Told each child's process id as it starts (tests look at the child through it)."""


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
    request = request_bytes(kind, data, content_type, url, budget, MEMORY_BYTES)
    if FORKS:
        answer = await _through_server(request, budget)
    else:
        answer = await _in_own_process(request, budget)
    if answer == "timeout":
        raise ProviderError(f"reading {KINDS[kind]} took longer than {budget:.0f} s (its time budget); stopped")
    return _outcome(kind, await asyncio.wrap_future(_WAITERS.submit(_decoded_answer, answer)))


async def _through_server(request: bytes, budget: float) -> bytes | str:
    """The request sent to a child of the parse server; its raw answer, or "timeout"."""
    server = await asyncio.wrap_future(_WAITERS.submit(_ParseServer.running))
    ours, theirs = socket.socketpair()
    number = None
    finished = False
    try:
        try:
            number = server.start_child(theirs)
        except OSError:  # the server ended between its check and this parse: the next parse starts another
            raise ProviderError("the process that reads full texts ended; try again") from None
        theirs.close()
        ours.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            answer = await asyncio.wait_for(_exchange(loop, ours, request), budget)
        except asyncio.TimeoutError:
            answer = "timeout"
        finished = answer != "timeout"
        return answer
    finally:
        if number is not None and not finished:  # past the budget, cancelled, or failed: the child goes
            server.kill_child(number)
        theirs.close()
        ours.close()


async def _exchange(loop: asyncio.AbstractEventLoop, connection: socket.socket, request: bytes) -> bytes:
    """The child's process id read, the request sent, its answer read to the end."""
    received = bytearray()
    while len(received) < PID.size:
        try:
            chunk = await loop.sock_recv(connection, 65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return bytes(received)
        received += chunk
    _started(PID.unpack(bytes(received[:PID.size]))[0])
    try:
        await loop.sock_sendall(connection, request)
    except OSError:  # the child is gone already: what it said, if anything, is its answer
        pass
    try:
        while chunk := await loop.sock_recv(connection, 1 << 20):
            received += chunk
    except ConnectionResetError:  # the child was killed before it read all of the request
        pass
    return bytes(received)


async def _in_own_process(request: bytes, budget: float) -> bytes | str:
    """Where there is no fork: one ``python -c`` process for this parse, killed past the budget."""
    child = await asyncio.wrap_future(_WAITERS.submit(
        subprocess.Popen, [sys.executable, "-c", _BOOT, _PACKAGE_ROOT], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
    _started(child.pid)
    talking = _WAITERS.submit(child.communicate, request, budget)
    try:
        output, _ = await asyncio.wrap_future(talking)
        return output
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        if child.poll() is None:
            child.kill()
        _WAITERS.submit(child.wait)


def _decoded_answer(raw: bytes) -> Any:
    """The child's answer (after its process id) as plain data; None when it ended without one
    (killed, out of memory, a crash)."""
    body = raw[PID.size:]
    if len(body) < LENGTH.size:
        return None
    size = LENGTH.unpack(body[:LENGTH.size])[0]
    if len(body) != LENGTH.size + size:
        return None
    try:
        answer = json.loads(body[LENGTH.size:])
    except ValueError:
        return None
    return tuple(answer) if isinstance(answer, list) and len(answer) == 3 else None


def _outcome(kind: str, answer: Any) -> Parsed:
    if not isinstance(answer, tuple):
        raise ProviderError(f"reading {KINDS[kind]} stopped without an answer: it needed more than the "
                            f"parser's budget of {MEMORY_BYTES // 1024 ** 2:,} MB memory, or the parser failed")
    status, value, extra = answer
    extra = {key: extra[key] for key in ("pdf_url", "license") if isinstance(extra, dict) and key in extra}
    if status == "document":
        return Parsed(document=FullText.from_dict(value), **extra)
    if status == "none":
        return Parsed(none=str(value), **extra)
    if status == "invalid":
        raise ValueError(str(value))
    if status == "memory":
        raise ProviderError(f"reading {KINDS[kind]} needed more than {MEMORY_BYTES // 1024 ** 2:,} MB of memory; "
                            "stopped")
    raise RuntimeError(str(value))  # a bug in a parser: "internal error", as it would be in-process


class _ParseServer:
    """This process's parse server: started on first use, again if it has died or this process
    is a fork of the one that started it; it ends when this process does (its socket closes)."""

    _current: "_ParseServer | None" = None
    _starting = threading.Lock()

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.numbers = count(1)
        self.sending = threading.Lock()
        self.control, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen([sys.executable, "-c", _BOOT, _PACKAGE_ROOT, str(theirs.fileno())],
                                            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError as error:
            self.control.close()
            raise ProviderError(f"could not start the process that reads full texts ({error.strerror or error})")
        finally:
            theirs.close()
        self.control.settimeout(START_SECONDS)
        try:
            ready = self.control.recv(1) == READY
        except OSError:
            ready = False
        if not ready:
            self.close()
            raise ProviderError("the process that reads full texts did not start (it could not load its parsers)")
        self.control.settimeout(None)

    @classmethod
    def running(cls) -> "_ParseServer":
        with cls._starting:
            server = cls._current
            if server is None or server.owner != os.getpid() or server.process.poll() is not None:
                if server is not None and server.owner == os.getpid():
                    server.close()
                server = cls._current = cls()
                atexit.register(server.close)
            return server

    def start_child(self, connection: socket.socket) -> int:
        number = next(self.numbers)
        self._send(RECORD.pack(b"p", number), [connection.fileno()])
        return number

    def kill_child(self, number: int) -> None:
        try:
            self._send(RECORD.pack(b"k", number), [])
        except OSError:  # the server is gone, and its children with it
            pass

    def _send(self, record: bytes, fds: list[int]) -> None:
        with self.sending:
            if fds:
                socket.send_fds(self.control, [record], fds)
            else:
                self.control.sendall(record)

    def close(self) -> None:
        """The control socket closed (the server kills its children and ends), and the server reaped."""
        self.control.close()
        if self.owner != os.getpid():
            return
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
