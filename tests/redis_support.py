"""A real Redis for the lab tests: Debian's ``redis-server``, started on a free loopback port in a
throwaway folder, never saving to disk, stopped (or killed, when a test asks) at the end.

Without ``redis-server`` on PATH the tests skip with the reason; in CI
(``LITSEARCH_REQUIRE_VALIDATORS=1``, where ``.ci/run`` installs it) they fail instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from scratch import scratch_folder  # noqa: E402

REQUIRED = os.environ.get("LITSEARCH_REQUIRE_VALIDATORS") == "1"
START_SECONDS = 30.0  # generous: a loaded machine starts processes slowly


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def require_redis_server() -> str:
    """The path of ``redis-server``, or skip (fail in CI) saying why."""
    found = shutil.which("redis-server")
    if found:
        return found
    reason = "redis-server is not installed (Debian: apt-get install redis-server); the lab tests need a real Redis"
    if REQUIRED:
        pytest.fail(f"{reason} (LITSEARCH_REQUIRE_VALIDATORS=1: .ci/run installs it)")
    pytest.skip(reason)


class RedisServer:
    """One redis-server on 127.0.0.1:<free port>; ``url`` points lit-search at it."""

    def __init__(self, password: str | None = None):
        self.binary = require_redis_server()
        self.password = password
        self.port = free_port()
        self.folder = Path(scratch_folder(prefix="litsearch-redis-"))
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", str(self.folder), "--daemonize", "no", "--loglevel", "warning"]
        if self.password:
            args += ["--requirepass", self.password]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server ended at start (exit {self.process.returncode})")
            if self.command("PING"):
                return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer within 30 s")

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, socket_timeout=5,
                           socket_connect_timeout=2)

    def command(self, *words: str):
        """One command's reply, or None when the server cannot be reached."""
        import redis

        client = self.client()
        try:
            return client.execute_command(*words)
        except (redis.ConnectionError, redis.TimeoutError):
            return None
        finally:
            client.close()

    def keys(self, pattern: str = "*") -> list[str]:
        """Every key name (KEYS is fine on a test server)."""
        return sorted(key.decode() for key in self.command("KEYS", pattern) or [])

    def dump(self) -> bytes:
        """Every key and value (strings, hashes, sorted sets), as bytes to search for secrets."""
        client = self.client()
        found = []
        try:
            for key in client.keys("*"):
                kind = client.type(key)
                found.append(key)
                if kind == b"string":
                    found.append(client.get(key) or b"")
                elif kind == b"hash":
                    found.extend(part for pair in client.hgetall(key).items() for part in pair)
                elif kind == b"zset":
                    found.extend(member for member, _ in client.zrange(key, 0, -1, withscores=True))
        finally:
            client.close()
        return b"\n".join(found)

    def kill(self) -> None:
        """SIGKILL, as a crash or a pulled cable would end it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "RedisServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def redis_server():
    """A started Redis, stopped after the test."""
    with RedisServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh_links():
    """Each test sees the lab links as new (lost links and salts are remembered per process)."""
    from litsearch.net.shared_state import forget_links

    forget_links()
    yield
    forget_links()
