"""A loopback HTTP server for tests: scripted answers per path, every request logged.

Used for HTTP-layer faults (429, 5xx, hangs, cut bodies) and, with the fake APIs in
``fake_apis.py``, for end-to-end runs of the real command in a subprocess.
Only ever binds 127.0.0.1; every wait is bounded so a test can never hang forever.
"""

from __future__ import annotations

import io
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, urlsplit

MAX_HANG_SECONDS = 30.0
# The kernel's receive time of a request's bytes (Linux: SO_TIMESTAMPNS), so that a request's
# ``time`` is when it arrived, not when a handler thread of this server, on a loaded machine,
# got round to it: tests of a client's pace compare these times, and a server thread held up
# for 0.1 s made two well-paced requests look 0.23 s apart instead of 1/3 s.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35) if sys.platform.startswith("linux") else None


@dataclass
class Answer:
    """One scripted response. ``delay`` waits before the headers; ``hang`` never answers
    (until the client gives up or MAX_HANG_SECONDS); ``cut_body`` sends part of the body
    then closes the connection; ``raw`` is sent byte for byte instead of a response."""

    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay: float = 0.0
    hang: bool = False
    cut_body: bool = False
    raw: bytes | None = None  # sent as it is (status line, headers, body), then the connection closes


@dataclass
class SeenRequest:
    time: float
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    raw_query: str = ""

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


Responder = Callable[[SeenRequest], Answer]


class _StampedReader(io.RawIOBase):
    """A connection's reading end that keeps the kernel's receive time of the first bytes read
    since ``mark()``, on the monotonic clock. An HTTP/1.1 client sends a request only after the
    previous answer, so those bytes are the next request's; without a stamp, ``None``."""

    def __init__(self, sock: socket.socket):
        self.sock, self.first = sock, None

    def readable(self) -> bool:
        return True

    def mark(self) -> None:
        self.first = None

    def readinto(self, buffer) -> int:
        size, ancillary, _flags, _address = self.sock.recvmsg_into([buffer], socket.CMSG_SPACE(16))
        if size and self.first is None:
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", data[:16])
                    self.first = on_the_monotonic_clock(seconds + nanoseconds / 1e9)
        return size


def on_the_monotonic_clock(wall: float) -> float:
    """A time.time() instant on time.monotonic()'s clock: the two clocks read back to back,
    again if this thread was held up between the reads (a loaded machine)."""
    for _ in range(20):
        before = time.monotonic()
        now = time.time()
        after = time.monotonic()
        if after - before < 0.001:
            break
    return (before + after) / 2 - (now - wall)


class _Server(ThreadingHTTPServer):
    """The stdlib's server, quiet when a client hangs up mid-answer (a timeout, an abandoned
    retry, a process killed): that is the client's business, and the stdlib's report of it, a
    traceback between two lines of dashes on stderr, landed in the stderr a test was reading
    (tests/semantic/test_install.py, under load). Any other error is still reported."""

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FakeServer:
    def __init__(self) -> None:
        self.requests: list[SeenRequest] = []
        self._routes: dict[str, Responder] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def setup(self) -> None:
                super().setup()
                if SO_TIMESTAMPNS is not None:
                    self.rfile.close()
                    self.rfile = io.BufferedReader(_StampedReader(self.connection))

            def stamped(self) -> _StampedReader | None:
                raw = getattr(self.rfile, "raw", None)
                return raw if isinstance(raw, _StampedReader) else None

            def handle_one_request(self) -> None:
                if (reader := self.stamped()) is not None:
                    reader.mark()
                super().handle_one_request()

            def arrived(self) -> float:
                reader = self.stamped()
                stamp = reader.first if reader is not None else None
                return stamp if stamp is not None else time.monotonic()

            def do_GET(self) -> None:
                server._handle(self, "GET")

            def do_POST(self) -> None:
                server._handle(self, "POST")

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        if SO_TIMESTAMPNS is not None:
            try:  # accepted connections inherit it; set before any bytes arrive, so none lacks a stamp
                self._httpd.socket.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            except OSError:
                pass
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, path: str, responder: Responder) -> None:
        """Answer requests whose path starts with ``path`` (longest prefix wins)."""
        self._routes[path] = responder

    def script(self, path: str, *answers: Answer) -> None:
        """Answer successive requests to ``path`` with ``answers`` in turn; the last one repeats."""
        queue = list(answers)

        def responder(_: SeenRequest) -> Answer:
            with self._lock:
                return queue.pop(0) if len(queue) > 1 else queue[0]

        self.route(path, responder)

    def requests_to(self, path: str) -> list[SeenRequest]:
        return [r for r in self.requests if r.path.startswith(path)]

    def __enter__(self) -> "FakeServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        query = parse_qs(parts.query, keep_blank_values=True)
        if method == "POST" and "form-urlencoded" in handler.headers.get("content-type", ""):
            for name, values in parse_qs(body.decode(), keep_blank_values=True).items():
                query.setdefault(name, []).extend(values)
        seen = SeenRequest(handler.arrived(), method, parts.path, query,
                           {k.lower(): v for k, v in handler.headers.items()}, body, parts.query)
        with self._lock:
            self.requests.append(seen)
        routes = sorted((p for p in self._routes if parts.path.startswith(p)), key=len, reverse=True)
        answer = self._routes[routes[0]](seen) if routes else Answer(404, '{"error":"no route"}')
        self._send(handler, answer)

    def _send(self, handler: BaseHTTPRequestHandler, answer: Answer) -> None:
        if answer.hang:
            self._stop.wait(MAX_HANG_SECONDS)
            handler.close_connection = True
            return
        if answer.delay:
            self._stop.wait(min(answer.delay, MAX_HANG_SECONDS))
        if answer.raw is not None:  # broken HTTP: whatever the test wrote, byte for byte
            try:
                handler.wfile.write(answer.raw)
                handler.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            handler.close_connection = True
            return
        body = answer.body.encode() if isinstance(answer.body, str) else answer.body
        try:
            handler.send_response(answer.status)
            handler.send_header("Content-Type", answer.content_type)
            handler.send_header("Content-Length", str(len(body)))
            for name, value in answer.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            if answer.cut_body:
                handler.wfile.write(body[: max(1, len(body) // 2)])
                handler.wfile.flush()
                handler.close_connection = True
                return
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True


def serve_until_interrupted(install: Callable[["FakeServer"], dict[str, str]]) -> None:
    """Run a fake from the command line (``python3 tests/fake_apis.py``): mount it with
    ``install``, print the ``export`` lines that point lit-search at it, serve until Ctrl-C."""
    with FakeServer() as fake:
        for name, value in install(fake).items():
            print(f"export {name}={value}")
        print("# serving; Ctrl-C to stop", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
