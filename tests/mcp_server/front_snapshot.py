"""The answers the launcher's MCP front gives before the real server is up
(.claude/skills/lit-search/scripts/mcp_server.json), taken from the real server.

    .venv/bin/python tests/mcp_server/front_snapshot.py     # rewrite the file after changing a tool

The real ``lit-search mcp`` is started and asked, over stdio as a client would, ``initialize``
and every list its capabilities announce; the package version is left out (the front fills in
the version of the plugin it runs from), and the protocol versions are the SDK's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

from command import command_env, lit_search_command  # noqa: E402
from conftest import REPO  # noqa: E402

SNAPSHOT = REPO / ".claude" / "skills" / "lit-search" / "scripts" / "mcp_server.json"
LISTS = {"tools": "tools/list", "prompts": "prompts/list", "resources": "resources/list"}


def _exchange(messages: list[dict], env: dict[str, str]) -> dict:
    """Each request's result by id; the last message is a ping, answered once all the rest are."""
    lines = "".join(json.dumps(message) + "\n" for message in messages)
    server = subprocess.Popen([*lit_search_command(), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=env, text=True)
    answers: dict = {}
    try:
        server.stdin.write(lines)
        server.stdin.flush()
        for line in server.stdout:
            message = json.loads(line)
            if "id" in message:
                answers[message["id"]] = message.get("result", message.get("error"))
            if "last" in answers:
                break
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    return answers


def real_answers(env: dict[str, str] | None = None) -> dict:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    env = env or command_env()
    initialize = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
                  "params": {"protocolVersion": HANDSHAKE_PROTOCOL_VERSIONS[-1], "capabilities": {},
                             "clientInfo": {"name": "front-snapshot", "version": "1"}}}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    asked = [{"jsonrpc": "2.0", "id": method, "method": method} for method in LISTS.values()]
    asked.append({"jsonrpc": "2.0", "id": "resources/templates/list", "method": "resources/templates/list"})
    answers = _exchange([initialize, initialized, *asked, {"jsonrpc": "2.0", "id": "last", "method": "ping"}], env)
    result = dict(answers["init"])
    result.pop("protocolVersion")
    result["serverInfo"] = {k: v for k, v in result["serverInfo"].items() if k != "version"}
    capabilities = result["capabilities"]
    lists = {method: answers[method] for name, method in LISTS.items() if name in capabilities}
    if "resources" in capabilities:
        lists["resources/templates/list"] = answers["resources/templates/list"]
    return {"protocolVersions": list(HANDSHAKE_PROTOCOL_VERSIONS), "initialize": result, "answers": lists}


def render(snapshot: dict) -> str:
    return json.dumps(snapshot, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":
    SNAPSHOT.write_text(render(real_answers()), encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
