"""The real Claude Code CLI, from a fresh HOME, with the plugin installed the way the README says
(issue 13, item 3): `claude plugin marketplace add <checkout>`, `claude plugin install
lit-search@lit-search`, then `claude -p "/lit-search <topic>"` against the scripted stand-in for the
model's API (../shared/tools/scripted_model.py), with every provider pointed at the fake APIs and a
`python3` that has no packages (a researcher's system Python). The skill's launcher must build its
private environment, run the search through it, and the ranked table must come back to the model.

Skipped without the shared scripted model (../shared is optional), and without the `claude` CLI
unless LITSEARCH_REQUIRE_VALIDATORS=1 (CI), where a missing CLI fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import skip_without_shared

import fake_apis
from conftest import REPO, SHARED
from fake_server import FakeServer
from plugin_support import clean_env, pip_cache, python_without_packages

REQUIRE = os.environ.get("LITSEARCH_REQUIRE_VALIDATORS") == "1"
TABLE_HEADER = "| # | Authors | Title | Year | Venue | Cites | DOI | OA |"
SETUP_LINE = "lit-search: first run: installing lit-search"
TOPIC = "CRISPR off-target effects"


def _required(path: Path | None, what: str) -> Path:
    if path and path.exists():
        return path
    if REQUIRE:
        pytest.fail(f"{what} is required (LITSEARCH_REQUIRE_VALIDATORS=1) but missing")
    pytest.skip(f"{what} not available")


def _claude() -> Path:
    local = REPO / ".ci" / "node" / "node_modules" / ".bin" / "claude"
    found = shutil.which("claude")
    return _required(local if local.exists() else Path(found) if found else None, "the claude CLI")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the scripted model exited at start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the scripted model did not start listening")


def _tool_results(log: Path) -> list[str]:
    """The text of every tool result Claude Code sent back to the model."""
    texts = []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            body = json.loads(json.loads(line)["body"])
        except (ValueError, KeyError):
            continue
        for message in body.get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") != "tool_result":
                    continue
                inner = block.get("content")
                if isinstance(inner, str):
                    texts.append(inner)
                else:
                    texts.extend(part.get("text", "") for part in inner or [] if isinstance(part, dict))
    return texts


def test_slash_command_runs_through_the_installed_plugin_from_a_fresh_home(tmp_path, tmp_path_factory):
    claude = _claude()
    model = SHARED / "tools" / "scripted_model.py"
    if not model.exists():  # ../shared is optional everywhere: its tests skip cleanly without it
        skip_without_shared(f"the scripted model is not available: {model}")
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    python_without_packages(bin_dir)
    env = clean_env(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{clean_env()['PATH']}",
                    XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"),
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                    PIP_CACHE_DIR=pip_cache(tmp_path_factory))
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR"):
        env.pop(variable, None)

    def claude_run(*args: str, extra: dict[str, str] | None = None, timeout: float = 180):
        return subprocess.run([str(claude), *args], cwd=home, env={**env, **(extra or {})},
                              capture_output=True, text=True, timeout=timeout)

    # The README's two install commands, verbatim but for the checkout's path.
    added = claude_run("plugin", "marketplace", "add", str(REPO))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude_run("plugin", "install", "lit-search@lit-search")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = claude_run("plugin", "list")
    assert "lit-search@lit-search" in listed.stdout, listed.stdout + listed.stderr

    port = _free_port()
    log = tmp_path / "model.jsonl"
    model_process = subprocess.Popen([sys.executable, str(model), str(port), str(log)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, model_process)
        with FakeServer() as server:
            run = claude_run(
                "-p", f"/lit-search {TOPIC}", "--allowedTools", "Bash",
                extra={**fake_apis.install(server), "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
                       "ANTHROPIC_API_KEY": "sk-test", "LITSEARCH_CACHE_DIR": str(tmp_path / "data")},
                timeout=900)
    finally:
        model_process.terminate()
        model_process.wait(timeout=10)
    assert run.returncode == 0, run.stdout + run.stderr

    command = Path(f"{log}.command").read_text(encoding="utf-8")
    assert "/.claude/skills/lit-search/scripts/lit_search.py" in command, command
    assert TOPIC in command

    results = "\n".join(_tool_results(log))
    assert SETUP_LINE in results, results[:2000]  # the launcher built the private environment
    assert TABLE_HEADER in results, results[:2000]
    assert "DNA targeting specificity" in results
    markers = list((tmp_path / "data").glob("*/lit-search-environment.json"))
    assert len(markers) == 1, "the bootstrapped environment lives in the data folder"
    assert json.loads(markers[0].read_text(encoding="utf-8"))["pins"]
