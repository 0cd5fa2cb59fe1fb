"""A loopback HTTP server for tests: scripted answers per path, every request logged.

Used for HTTP-layer faults (429, 5xx, hangs, cut bodies) and, with the fake APIs in
``fake_apis.py``, for end-to-end runs of the real command in a subprocess.
Only ever binds 127.0.0.1; every wait is bounded so a test can never hang forever.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, urlsplit

MAX_HANG_SECONDS = 30.0


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

            def do_GET(self) -> None:
                server._handle(self, "GET")

            def do_POST(self) -> None:
                server._handle(self, "POST")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
        seen = SeenRequest(time.monotonic(), method, parts.path, query,
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
