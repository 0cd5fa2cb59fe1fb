"""The real Claude Code CLI in a fresh HOME, for the tests of the Claude Code door.

``ClaudeHome`` is a new user's machine: a HOME of its own, a ``python3`` with no packages (a
researcher's system Python), the plugin installed with the README's two commands, and
``claude`` run there. ``scripted_model`` serves ../shared/tools/scripted_model.py on loopback in
place of the model's API. Skipped without the scripted model or the CLI, except where
LITSEARCH_REQUIRE_VALIDATORS=1 (CI) makes a missing one a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import REPO, SHARED, skip_without_shared
from plugin_support import clean_env, pip_cache, python_without_packages

REQUIRE = os.environ.get("LITSEARCH_REQUIRE_VALIDATORS") == "1"
TABLE_HEADER = "| # | Authors | Title | Year | Venue | Cites | DOI | OA |"
SETUP_LINE = "lit-search: first run: installing lit-search"
WAITING_LINE = "lit-search: waiting for another lit-search to finish setting up"
TOOL = "mcp__plugin_lit-search_lit-search__paper_search"
TOPIC = "CRISPR off-target effects"
ASK = {"FAKE_TOOL": r"mcp__.*__paper_search$", "FAKE_TOOL_INPUT": json.dumps({"topic": TOPIC, "limit": 5})}
BUILD_SECONDS = 900  # a real pip install on a loaded 2-core machine


def claude_cli() -> Path:
    local = REPO / ".ci" / "node" / "node_modules" / ".bin" / "claude"
    found = local if local.exists() else (Path(shutil.which("claude")) if shutil.which("claude") else None)
    if found:
        return found
    if REQUIRE:
        pytest.fail("the claude CLI is required (LITSEARCH_REQUIRE_VALIDATORS=1) but missing")
    pytest.skip("the claude CLI is not available")


def scripted_model_path() -> Path:
    model = SHARED / "tools" / "scripted_model.py"
    if not model.exists():
        skip_without_shared(f"the scripted model is not available: {model}")
    return model


class ClaudeHome:
    """A fresh HOME with the lit-search plugin installed from this checkout."""

    def __init__(self, tmp_path: Path, tmp_path_factory, **variables: str):
        self.claude, self.model = claude_cli(), scripted_model_path()
        self.home = tmp_path / "home"
        self.home.mkdir()
        python_without_packages(tmp_path / "bin")
        self.env = clean_env(HOME=str(self.home), PATH=f"{tmp_path / 'bin'}{os.pathsep}{clean_env()['PATH']}",
                             XDG_CONFIG_HOME=str(self.home / ".config"),
                             XDG_DATA_HOME=str(self.home / ".local" / "share"),
                             CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                             PIP_CACHE_DIR=pip_cache(tmp_path_factory), **variables)
        for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "MCP_TIMEOUT",
                         "MCP_CONNECT_TIMEOUT_MS", "MCP_CONNECTION_NONBLOCKING"):
            self.env.pop(variable, None)
        self.tmp_path = tmp_path

    @property
    def environments(self) -> Path:
        """Where the launcher keeps its environments: lit-search's data folder, by default."""
        return self.home / ".local" / "share" / "lit-search" / "environments"

    def run(self, *args: str, extra: dict[str, str] | None = None, timeout: float = BUILD_SECONDS):
        return subprocess.run([str(self.claude), *args], cwd=self.home, env={**self.env, **(extra or {})},
                              capture_output=True, text=True, timeout=timeout)

    def start(self, *args: str, extra: dict[str, str] | None = None) -> subprocess.Popen:
        return subprocess.Popen([str(self.claude), *args], cwd=self.home, env={**self.env, **(extra or {})},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def install_plugin(self) -> None:
        """The README's two commands, verbatim but for the checkout's path."""
        for args in (("plugin", "marketplace", "add", str(REPO)), ("plugin", "install", "lit-search@lit-search")):
            done = self.run(*args, timeout=300)
            assert done.returncode == 0, done.stdout + done.stderr

    @contextmanager
    def scripted_model(self, name: str, **variables: str):
        """(the variables pointing claude at the scripted model, its request log)."""
        port, log = free_port(), self.tmp_path / f"{name}.jsonl"
        process = subprocess.Popen([sys.executable, str(self.model), str(port), str(log)],
                                   env={**os.environ, **variables},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(port, process)
            yield {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": "sk-test"}, log
        finally:
            process.terminate()
            process.wait(timeout=30)

    def ask_for_the_tool(self, name: str, prompt: str, extra: dict[str, str]) -> tuple:
        """``claude -p PROMPT`` with the scripted model calling paper_search: (the run, the model's
        request log, Claude Code's debug log). Claude Code sends its first request after at
        most 5 s, with the MCP servers connected by then; on a machine loaded far beyond its
        cores its own start can pass that, and its debug log then says "not ready after".
        Only that is tried again (twice at most): a server that failed to connect is not."""
        for attempt in range(3):
            debug = self.tmp_path / f"{name}-{attempt}.debug"
            with self.scripted_model(f"{name}-{attempt}", **ASK) as (model, log):
                run = self.run("-p", prompt, "--allowedTools", TOOL, "--debug-file", str(debug),
                               extra={**extra, **model})
            bodies = requests(log)
            if bodies and TOOL in offered_tools(bodies[0]):
                break
            said = debug.read_text(encoding="utf-8", errors="replace") if debug.exists() else ""
            if "not ready after" not in said or "Connection failed" in said:
                break
        return run, log, debug

    def needs_auth_cache(self) -> Path:
        return self.home / ".claude" / "mcp-needs-auth-cache.json"

    def environment_folders(self) -> list[str]:
        return sorted(path.name for path in self.environments.iterdir()) if self.environments.exists() else []

    def wait_until_built(self) -> None:
        """Until one environment is there and nothing is being built (the background build)."""
        deadline = time.monotonic() + BUILD_SECONDS
        while time.monotonic() < deadline:
            names = self.environment_folders()
            if len(names) == 1 and (self.environments / names[0] / "lit-search-environment.json").exists():
                return
            time.sleep(1)
        raise AssertionError(f"the environment was not built in {BUILD_SECONDS} s: {self.environment_folders()}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen, seconds: float = 60.0) -> None:
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


def requests(log: Path) -> list[dict]:
    """Every request body Claude Code sent the model."""
    bodies = []
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        try:
            body = json.loads(json.loads(line)["body"])
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(body, dict) and body.get("messages"):
            bodies.append(body)
    return bodies


def offered_tools(body: dict) -> set[str]:
    return {tool.get("name", "") for tool in body.get("tools", []) if isinstance(tool, dict)}


def tool_results(log: Path) -> list[str]:
    """The text of every tool result Claude Code sent back to the model."""
    texts = []
    for body in requests(log):
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


def kill_tree(pid: int) -> None:
    """SIGKILL a process and every descendant (a build in a session of its own included). A pid is
    killed again only while it names the same process (its start time in /proc unchanged): on a
    busy machine a dead one's pid is soon reused, by a process of another test."""
    def stats() -> dict[int, tuple[int, str]]:
        found = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                found[int(stat.parent.name)] = (int(fields[1]), fields[19])  # parent, start time
            except (OSError, IndexError, ValueError):
                continue
        return found

    doomed: dict[int, str] = {}  # pid -> its start time
    for _ in range(3):  # again: a process may have started a child before it was killed
        now = stats()
        children: dict[int, list[int]] = {}
        for child, (parent, _started) in now.items():
            children.setdefault(parent, []).append(child)
        if pid in now:
            doomed.setdefault(pid, now[pid][1])
        queue = [p for p, started in doomed.items() if now.get(p, (0, None))[1] == started]
        while queue:
            current = queue.pop()
            for child in children.get(current, []):
                if child not in doomed:
                    doomed[child] = now[child][1]
                    queue.append(child)
        for victim, started in doomed.items():
            if now.get(victim, (0, None))[1] != started:
                continue  # gone, or its pid now names another process
            try:
                os.kill(victim, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)
