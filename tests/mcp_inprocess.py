"""The MCP server in this test process, driven by the SDK's own client over its in-memory
transport: the same tools, schemas, validation and results as `lit-search mcp`, without a
process to start (the stdio tests start the real command where the door itself is tested)."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any

import fake_apis
from fake_server import FakeServer
from fault_support import SHORT_SETTINGS

KEY_VARIABLES = ("SEMANTIC_SCHOLAR_API_KEY", "NCBI_API_KEY", "OPENALEX_API_KEY", "TAVILY_API_KEY")


def use_fakes(monkeypatch, server: FakeServer, tmp_path, overrides: dict | None = None, **extra: str) -> None:
    """The environment a server reads: the fake APIs' URLs, short settings, a private data folder."""
    from litsearch.net.pacing import PROCESS_PACE_BOOK

    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    env = {**SHORT_SETTINGS, **fake_apis.install(server, overrides), "LITSEARCH_CACHE_DIR": str(tmp_path / "data"),
           **extra}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    PROCESS_PACE_BOOK.clear()


@asynccontextmanager
async def in_process(max_chars: int | None = None):
    """A client connected to a server built from the current environment."""
    from mcp import Client

    from litsearch.runtime.settings import settings_from_env
    from litsearch.mcp_server.paging import DEFAULT_MAX_CHARS
    from litsearch.mcp_server.server import build_server

    server = build_server(settings_from_env(), max_chars or DEFAULT_MAX_CHARS)
    async with Client(server) as client:
        yield client


def run(coroutine) -> Any:
    return asyncio.run(coroutine)


def text_of(result) -> str:
    return result.content[0].text
