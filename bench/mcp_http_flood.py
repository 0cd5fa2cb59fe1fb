#!/usr/bin/env python3
"""Can one client crowd the others out of `lit-search mcp --http`? (issue 31, item 5)

Serves the HTTP transport in this process (uvicorn on a free loopback port, against the fake
APIs), then, as one client holding the token: sends INITIALIZES `initialize` requests one after
the other, and opens CONNECTIONS connections that never send a byte. It prints the session
table's size and the server's memory after each, and whether another client can still call a
tool (and how long that took).

Run: .venv/bin/python bench/mcp_http_flood.py [--initializes 10000] [--connections 1100]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

TOKEN = "bench-token-0123456789abcdef"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood",
                                                                                             "version": "1"}}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "authorization": f"Bearer {TOKEN}"}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def call_a_tool(url: str) -> float:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def go() -> float:
        started = time.monotonic()
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                result = await client.call_tool("topic_list", {"query": "crispr"})
        assert not result.is_error
        return time.monotonic() - started

    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--initializes", type=int, default=10_000)
    parser.add_argument("--connections", type=int, default=1_100)
    args = parser.parse_args()

    import httpx

    import fake_apis
    from fake_server import FakeServer
    from litsearch.runtime.settings import settings_from_env
    from litsearch.mcp_server.http_serving import HttpOptions, _raise_descriptor_limit, uvicorn_server
    from litsearch.mcp_server.server import build_server
    from litsearch.mcp_server.tokens import Token, TokenTable

    _raise_descriptor_limit()
    with FakeServer() as fake, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        env = {**fake_apis.install(fake), "LITSEARCH_CACHE_DIR": tempfile.mkdtemp(prefix="mcp-flood-")}
        mcp_server = build_server(settings_from_env(env))
        # No request budget: the flood is to reach the session table, not the budget.
        server = uvicorn_server(mcp_server, HttpOptions("127.0.0.1", port, TokenTable([Token("local", TOKEN)]),
                                                        requests_per_hour=0))
        logging.getLogger("litsearch.mcp.calls").setLevel(logging.WARNING)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        table = mcp_server.session_manager._server_instances
        print(f"before: {len(table)} sessions, {rss_mb():.0f} MB; a tool call took {call_a_tool(url):.2f} s")
        started, refused = time.monotonic(), 0
        with httpx.Client(timeout=60) as client:
            for _ in range(args.initializes):
                refused += client.post(url, json=INITIALIZE, headers=HEADERS).status_code != 200
        print(f"after {args.initializes:,} initialize from one client in {time.monotonic() - started:.0f} s "
              f"({refused} refused): {len(table)} sessions, {rss_mb():.0f} MB; another client's tool call took "
              f"{call_a_tool(url):.2f} s")
        idle = []
        for _ in range(args.connections):
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError as error:
                print(f"connection {len(idle) + 1} failed: {error}")
                break
        time.sleep(1)
        print(f"with {len(idle):,} connections that never send a byte: a tool call took {call_a_tool(url):.2f} s")
        for connection in idle:
            connection.close()
        server.should_exit = True
        thread.join(15)


if __name__ == "__main__":
    main()
