"""The fake server times a request when its bytes arrive, not when a handler thread reads them:
the pace tests compare these times, and on a loaded machine a handler can run 0.1 s late."""

from __future__ import annotations

import socket
import time

import pytest

from fake_server import SO_TIMESTAMPNS, Answer, FakeServer


@pytest.mark.skipif(SO_TIMESTAMPNS is None, reason="the kernel's receive times are read on Linux only")
def test_a_request_is_timed_when_it_arrived_not_when_the_server_got_round_to_it():
    server = FakeServer()
    server.route("/x", lambda _request: Answer(200, "{}"))
    host, port = server._httpd.server_address[:2]
    # The kernel accepts the connection and keeps the request; nothing of the server runs yet.
    with socket.create_connection((host, port), timeout=60) as client:
        before = time.monotonic()
        client.sendall(b"GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        after = time.monotonic()
        time.sleep(0.3)
        with server:
            answer = _answer(client)
    assert answer.startswith(b"HTTP/1.1 200")
    [seen] = server.requests
    # Loopback stamps a request as it is sent, so its time lies between the two readings around
    # sendall (1 ms for turning the kernel's wall-clock stamp into monotonic time).
    assert before - 0.001 <= seen.time <= after + 0.001


@pytest.mark.skipif(SO_TIMESTAMPNS is None, reason="the kernel's receive times are read on Linux only")
def test_keep_alive_requests_are_each_timed_by_their_own_bytes():
    with FakeServer() as server:
        server.route("/x", lambda _request: Answer(200, "{}"))
        host, port = server._httpd.server_address[:2]
        with socket.create_connection((host, port), timeout=60) as client:
            sent = []
            for _ in range(3):
                sent.append(time.monotonic())
                client.sendall(b"GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
                assert _answer(client).startswith(b"HTTP/1.1 200")
                time.sleep(0.05)
    times = [request.time for request in server.requests]
    assert times == sorted(times) and len(times) == 3
    assert all(earlier - 0.001 <= seen for earlier, seen in zip(sent, times))
    assert all(seen <= later for seen, later in zip(times, sent[1:]))



def _answer(client: socket.socket) -> bytes:
    """The whole answer (its headers and its body ``{}`` may come in separate reads)."""
    answer = b""
    while not answer.endswith(b"\r\n\r\n{}"):
        more = client.recv(1024)
        assert more, answer
        answer += more
    return answer


def test_a_client_hanging_up_mid_answer_prints_nothing(capsys):
    """A client that gives up while the fake still writes (a timeout, a killed process) is the
    client's business: the stdlib server's traceback on stderr had landed in a test's stderr."""
    import socket
    import time

    from fake_server import Answer, FakeServer

    with FakeServer() as server:
        server.route("/", lambda _request: Answer(200, b"x" * 8_000_000, delay=0.2))
        host, port = server.url.split("//")[1].split(":")
        client = socket.create_connection((host, int(port.split("/")[0])))
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.sendall(b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        client.close()  # a reset before the answer: the fake's write fails
        other = socket.create_connection((host, int(port.split("/")[0])))
        other.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        other.sendall(b"GET /x HTTP/1.1\r\nHost:")
        time.sleep(0.2)
        other.close()  # a reset mid-request: the fake's read fails
        time.sleep(1.0)
    assert capsys.readouterr().err == ""
