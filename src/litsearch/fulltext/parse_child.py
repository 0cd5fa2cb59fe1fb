"""The children's side of isolated.py: a parse server, and the parse each child does.

The server is a process of lit-search's own (started with ``python -c``, never from the user's
program), so that nothing of the program that called lit-search runs again in it: Python's
``forkserver`` and ``spawn`` prepare every child by re-running the caller's main script, which
re-ran a researcher's script (``read_paper`` at its top level) inside each parse and broke it.
The server has the parsers loaded and is single-threaded, so ``os.fork`` starts a child in
milliseconds, safely. It reads fixed-size records from its control socket: ``parse`` (with
the child's socket passed as a file descriptor) forks a child; ``kill`` kills that child if it
still runs (the server reaps its own children, so a number never names another process). When
the control socket closes (the caller is gone), the server kills its children and ends.

A child reads one request from its socket, limits itself (CPU seconds, address space), parses,
and writes its process id and one answer, JSON (plain data: the caller never unpickles what a
parser of third-party bytes produced). Where there is no fork, ``python -c ... --one`` does the
same for one request on its standard input and output.
"""

from __future__ import annotations

import json
import math
import os
import select
import signal
import socket
import struct
import sys
from typing import Any, BinaryIO

from .document import NoFullText

RECORD = struct.Struct("!cq")  # b"p" (parse, with a descriptor) or b"k" (kill), and the parse's number
HEADER = struct.Struct("!I")  # the request's JSON header length; the document's bytes follow it
PID = struct.Struct("!q")
LENGTH = struct.Struct("!Q")
READY = b"r"  # the server's first byte: its parsers are loaded
PARSERS = ("litsearch.fulltext.jats", "litsearch.fulltext.latexml", "litsearch.fulltext.htmlpage",
           "litsearch.fulltext.pdf", "defusedxml.ElementTree", "pypdf")


# ---------------------------------------------------------------- the server

def serve(control_fd: int) -> None:
    """The server's loop (see the module docstring); returns when the control socket closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle; it ends us by closing
    _preload()
    control = socket.socket(fileno=control_fd)
    control.sendall(READY)
    children: dict[int, int] = {}  # parse number -> pid, until reaped
    pending, descriptors = b"", []
    while True:
        readable, _, _ = select.select([control], [], [], 0.2 if children else None)
        _reap(children)
        if not readable:
            continue
        try:
            data, fds, _flags, _address = socket.recv_fds(control, 4096, 64)
        except OSError:  # the caller is gone
            data, fds = b"", []
        if not data:
            break
        pending += data
        descriptors += fds
        while len(pending) >= RECORD.size:
            op, number = RECORD.unpack(pending[:RECORD.size])
            pending = pending[RECORD.size:]
            if op == b"p" and descriptors:
                _fork_child(number, descriptors.pop(0), control, descriptors, children)
            elif op == b"k" and number in children:
                _kill(children[number])
    for pid in children.values():
        _kill(pid)
    _reap(children)


def _preload() -> None:
    import importlib
    for name in PARSERS:
        try:
            importlib.import_module(name)
        except ImportError:  # the parse that needs it says so
            pass


def _fork_child(number: int, fd: int, control: socket.socket, others: list[int], children: dict[int, int]) -> None:
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            control.close()
            for other in others:
                os.close(other)
            with socket.socket(fileno=fd) as connection:
                with connection.makefile("rb") as reader, connection.makefile("wb") as writer:
                    answer_request(reader, writer)
            status = 0
        finally:
            os._exit(status)
    os.close(fd)
    children[number] = pid


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _reap(children: dict[int, int]) -> None:
    numbers = {pid: number for number, pid in children.items()}
    while numbers:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        children.pop(numbers.pop(pid, -1), None)


def one() -> None:
    """One request on standard input, its answer on standard output (where there is no fork)."""
    answer_request(sys.stdin.buffer, sys.stdout.buffer)


# ---------------------------------------------------------------- a child's parse

def answer_request(reader: BinaryIO, writer: BinaryIO) -> None:
    """Writes this process's id, reads the request, limits itself, parses, writes the answer:
    (status, value, extra: a dict of Parsed's other fields) as JSON, after its length."""
    writer.write(PID.pack(os.getpid()))
    writer.flush()
    header = json.loads(_read_exactly(reader, HEADER.unpack(_read_exactly(reader, HEADER.size))[0]))
    data = _read_exactly(reader, header["size"])
    _limit_self(header["seconds"], header["memory"])
    try:
        answer = _parse(header["kind"], data, header["content_type"], header["url"])
        payload = json.dumps(answer).encode()
    except MemoryError:
        payload = json.dumps(["memory", "", {}]).encode()
    except Exception as error:  # a parser's bug: its type and message, for "internal error"
        payload = json.dumps(["bug", f"{type(error).__name__}: {' '.join(str(error).split())[:300]}", {}]).encode()
    writer.write(LENGTH.pack(len(payload)) + payload)
    writer.flush()


def request_bytes(kind: str, data: bytes, content_type: str, url: str, seconds: float, memory: int) -> bytes:
    """What a child reads (the caller's side of answer_request)."""
    header = json.dumps({"kind": kind, "content_type": content_type, "url": url, "seconds": seconds,
                         "memory": memory, "size": len(data)}).encode()
    return HEADER.pack(len(header)) + header + data


def _read_exactly(reader: BinaryIO, size: int) -> bytes:
    data = reader.read(size)
    if len(data) != size:
        raise EOFError("the request ended early")
    return data


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
    """CPU seconds a little past the budget (the caller has it killed at the budget; this stops
    it even when nobody is left to), and the address space."""
    try:
        import resource
    except ImportError:  # Windows: the caller's kill is the bound
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
