"""The fault catalogue of the hostile-network matrix: every way an answer can be wrong at the
HTTP level, as ``Answer``s for the loopback fake server (``fake_server.py``).

``catalogue(recorder_url)`` returns {name: Answer}. Redirect faults point at a second
server, the recorder, which must never receive anything: lit-search follows redirects only
within the configured origin (net/redirects.py).
"""

from __future__ import annotations

import gzip
import zlib

from fake_server import Answer

JSON = "application/json"


def _raw(head: str, body: bytes = b"") -> bytes:
    return head.replace("\n", "\r\n").encode("latin-1") + b"\r\n\r\n" + body


def catalogue(recorder_url: str) -> dict[str, Answer]:
    bomb = gzip.compress(b" " * (40 * 1024 * 1024), 9)  # 40 MB of JSON whitespace in ~40 KB
    return {
        "cross-origin redirect, query kept": Answer(
            302, "", headers={"Location": f"{recorder_url}/steal?api_key=kept&mailto=kept"}),
        "cross-origin 307": Answer(307, "", headers={"Location": f"{recorder_url}/steal"}),
        "cross-origin 308 to https": Answer(308, "", headers={"Location": "https://127.0.0.1:9/steal"}),
        "redirect loop": Answer(302, "", headers={"Location": "?loop=1"}),
        "corrupt gzip": Answer(raw=_raw(f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nContent-Encoding: gzip\n"
                                        "Content-Length: 24", b"\x1f\x8b\x08\x00not really gzip at all")),
        "corrupt deflate": Answer(raw=_raw(f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nContent-Encoding: deflate\n"
                                           "Content-Length: 16", b"definitely wrong")),
        "brotli nobody asked for": Answer(raw=_raw(f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nContent-Encoding: br\n"
                                                   "Content-Length: 8", b"\x8b\x03\x80{}\x03")),
        "decompression bomb": Answer(raw=_raw(f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nContent-Encoding: gzip\n"
                                              f"Content-Length: {len(bomb)}", bomb)),
        "gzip cut short": Answer(raw=_raw(f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nContent-Encoding: gzip\n"
                                          "Content-Length: 20", gzip.compress(b'{"data": []}' * 50)[:20])),
        "invalid chunking": Answer(raw=_raw(f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nTransfer-Encoding: chunked",
                                            b"zz\r\n{}\r\n0\r\n\r\n")),
        "connection reset": Answer(raw=b""),
        "truncated body": Answer(200, '{"data": [{"title": "Half a paper", "year": 20', cut_body=True),
        "200 KB header line": Answer(raw=_raw("HTTP/1.1 200 OK\nX-Padding: " + "a" * 200_000
                                              + f"\nContent-Type: {JSON}\nContent-Length: 2", b"{}")),
        "lying Content-Type (HTML as JSON)": Answer(200, "<html><body>Service unavailable</body></html>"),
        "lying Content-Type (JSON as HTML)": Answer(200, '{"data": "not what you think"}', content_type="text/html"),
        "top-level null": Answer(200, "null"),
        "top-level []": Answer(200, "[]"),
        "top-level number": Answer(200, "42"),
        "invalid UTF-8": Answer(200, b'{"data": [{"title": "\xff\xfe\xc0 broken", "paperId": "\xed\xa0\x80"}]}'),
        "deflate, valid but not JSON": Answer(raw=_raw(
            f"HTTP/1.1 200 OK\nContent-Type: {JSON}\nContent-Encoding: deflate\nContent-Length: "
            f"{len(zlib.compress(b'not json'))}", zlib.compress(b"not json"))),
    }


FAULTS = tuple(catalogue("http://127.0.0.1:1"))
