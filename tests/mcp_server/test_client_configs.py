"""The client configuration snippets in docs/mcp.md: each parses in its client's format, has
the shape that client reads (mcpServers, or servers with a type for VS Code, or a TOML
mcp_servers table for Codex), and starts a working server exactly as configured (the path
pointed at this checkout, the command's interpreter this one)."""

from __future__ import annotations

import asyncio
import json
import re
import sys

import pytest

import fake_apis
from command import command_env
from conftest import REPO
from fake_server import FakeServer
from test_mcp_stdio import TOOLS

pytest.importorskip("mcp")
tomllib = pytest.importorskip("tomllib")

DOC = REPO / "docs" / "mcp.md"
CLIENTS = ("claude-desktop", "cursor", "codex", "gemini", "vscode")
SNIPPET = re.compile(r"<!-- client: ([a-z-]+) -->\n```(json|toml)\n(.*?)```", re.S)


def snippets() -> dict[str, tuple[str, str]]:
    return {client: (language, body) for client, language, body in SNIPPET.findall(DOC.read_text(encoding="utf-8"))}


def server_entry(client: str, language: str, body: str) -> dict:
    config = tomllib.loads(body) if language == "toml" else json.loads(body)
    if client == "codex":
        return config["mcp_servers"]["lit-search"]
    if client == "vscode":
        entry = config["servers"]["lit-search"]
        assert entry["type"] == "stdio"
        return entry
    return config["mcpServers"]["lit-search"]


def test_every_client_has_a_snippet():
    assert set(snippets()) == set(CLIENTS)


@pytest.mark.parametrize("client", CLIENTS)
def test_each_snippet_starts_a_working_server(client, tmp_path):
    from mcp import Client, StdioServerParameters

    language, body = snippets()[client]
    entry = server_entry(client, language, body)
    assert entry["command"] == "python3"
    args = [arg.replace("/path/to/lit-search", str(REPO)) for arg in entry["args"]]
    assert (REPO / args[0].removeprefix(str(REPO) + "/")).is_file() and args[1:] == ["mcp"]

    async def go():
        with FakeServer() as server:
            env = command_env(fake_apis.install(server), entry.get("env", {}),
                              LITSEARCH_CACHE_DIR=str(tmp_path / "data"))
            async with Client(StdioServerParameters(command=sys.executable, args=args, env=env)) as session:
                tools = (await session.list_tools()).tools
                return tools, await session.call_tool("topic_get", {"id": "T10211"})

    tools, answer = asyncio.run(go())
    assert len(tools) == len(TOOLS) and not answer.is_error


def test_the_plugin_declares_the_server_at_its_root():
    declared = json.loads((REPO / ".mcp.json").read_text(encoding="utf-8"))
    entry = declared["lit-search"]
    assert entry["command"] == "python3"
    assert entry["args"] == ["${CLAUDE_PLUGIN_ROOT}/.claude/skills/lit-search/scripts/lit_search.py", "mcp"]
