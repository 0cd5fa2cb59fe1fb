"""The launcher's MCP front (.claude/skills/lit-search/scripts/mcp_front.py): the handshake and
the lists answered at once while the environment builds, a call before it is ready answered
with a tool error that says so, every message relayed unchanged once the real server is up,
and (tests/test_release.py) the shipped answers equal to the real server's.

Most tests run the front in this process, on pipes, against a scripted server (a few lines of
Python speaking JSON-RPC) and a build the test finishes when it wants; one runs the launcher
itself under a Python without packages, with an environment already in place, against the
real server and the fake APIs."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO

SCRIPTS = REPO / ".claude" / "skills" / "lit-search" / "scripts"
sys.path.insert(0, str(SCRIPTS))
import mcp_front  # noqa: E402

TOOLS = [{"name": "paper_search", "description": "search", "inputSchema": {"type": "object"}}]
SCRIPTED_SERVER = r'''
import json, sys
tools, log = json.loads(sys.argv[1]), open(sys.argv[2], "a")
for line in sys.stdin:
    log.write(line); log.flush()
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    reply = None
    if method == "initialize":
        reply = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                 "serverInfo": {"name": "scripted", "version": "1"}}
    elif method == "tools/list":
        reply = {"tools": tools}
    elif method == "tools/call" and message["params"]["name"] == "ask_client":
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "note"}}))
        print(json.dumps({"jsonrpc": "2.0", "id": "s-1", "method": "roots/list"}), flush=True)
        reply = {"content": [{"type": "text", "text": "asked"}]}
    elif method == "tools/call":
        reply = {"content": [{"type": "text", "text": "called " + message["params"]["name"]}]}
    if reply is not None and ident is not None:
        print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": reply}), flush=True)
'''


def snapshot(tools: list | None = None) -> dict:
    return {"protocolVersions": ["2024-11-05", "2025-06-18"],
            "initialize": {"capabilities": {"tools": {"listChanged": False}}, "serverInfo": {"name": "lit-search",
                                                                                            "version": "9.9"}},
            "answers": {"tools/list": {"tools": TOOLS if tools is None else tools}, "prompts/list": {"prompts": []}}}


class Backend:
    """A build the test finishes (finish), and a scripted server to start afterwards."""

    def __init__(self, command: list[str], ready: bool = False):
        self.command, self.ready, self.builds = command, ready, []

    def ready_command(self):
        return self.command if self.ready else None

    def server_environment(self):
        return {}

    def start_build(self, done):
        self.builds.append(done)

    def finish(self, failure: str | None = None) -> None:
        self.ready = failure is None
        threading.Thread(target=self.builds[-1], args=(failure,), daemon=True).start()


class Client:
    """The client's end of the front's stdin and stdout, the front running in a thread."""

    def __init__(self, backend: Backend, tools: list | None = None, wait_seconds: float = 60.0):
        to_front, self.front_in = os.pipe()
        from_front, self.front_out = os.pipe()
        self.writer = os.fdopen(self.front_in, "wb", buffering=0)
        self.logs, self.stopped, self.received = [], [], queue.Queue()
        self.front = mcp_front.Proxy(os.fdopen(to_front, "rb"), os.fdopen(self.front_out, "wb"), snapshot(tools),
                                     backend, wait_seconds=wait_seconds, log=self.logs.append,
                                     stop=self.stopped.append)
        self.result: list[int] = []
        self.thread = threading.Thread(target=lambda: self.result.append(self.front.run()), daemon=True)
        self.thread.start()
        reader = os.fdopen(from_front, "rb")
        threading.Thread(target=lambda: [self.received.put(json.loads(line)) for line in reader], daemon=True).start()

    def send(self, message: dict) -> None:
        self.writer.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def receive(self, timeout: float = 60) -> dict:
        return self.received.get(timeout=timeout)

    def answer_to(self, ident, timeout: float = 60) -> dict:
        while True:
            message = self.receive(timeout)
            if message.get("id") == ident:
                return message

    def waiting(self, count: int) -> None:
        """Until the front holds ``count`` messages for the server (it reads them in a thread)."""
        deadline = time.monotonic() + 60
        while len(self.front.pending) != count:
            assert time.monotonic() < deadline, self.front.pending
            time.sleep(0.01)

    def nothing_for(self, seconds: float) -> bool:
        try:
            self.received.get(timeout=seconds)
        except queue.Empty:
            return True
        return False

    def initialize(self, version: str = "2025-06-18") -> dict:
        self.send({"id": 0, "method": "initialize",
                   "params": {"protocolVersion": version, "capabilities": {"roots": {}},
                              "clientInfo": {"name": "test-client", "version": "1"}}})
        answer = self.answer_to(0)
        self.send({"method": "notifications/initialized"})
        return answer

    def close(self) -> None:
        self.writer.close()
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "the front did not end when its client went away"


@pytest.fixture
def scripted(tmp_path):
    """(a command starting the scripted server with ``tools``, its message log)."""
    script, log = tmp_path / "server.py", tmp_path / "server.log"
    script.write_text(SCRIPTED_SERVER, encoding="utf-8")

    def command(tools=TOOLS):
        return [sys.executable, str(script), json.dumps(tools), str(log)]

    return command, log


def logged(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


@pytest.mark.parametrize("asked, agreed", [("2025-06-18", "2025-06-18"), ("2024-11-05", "2024-11-05"),
                                           ("1999-01-01", "2025-06-18")])
def test_the_handshake_and_the_lists_are_answered_while_the_environment_builds(scripted, asked, agreed):
    command, _ = scripted
    backend = Backend(command())
    client = Client(backend)
    answer = client.initialize(asked)["result"]
    assert answer["protocolVersion"] == agreed
    assert answer["serverInfo"] == {"name": "lit-search", "version": "9.9"}
    assert answer["capabilities"] == {"tools": {"listChanged": False}}
    for ident, method, expected in [(1, "tools/list", {"tools": TOOLS}), (2, "prompts/list", {"prompts": []}),
                                    (3, "ping", {})]:
        client.send({"id": ident, "method": method})
        assert client.answer_to(ident)["result"] == expected
    assert len(backend.builds) == 1  # the build started at once, and nothing waited for it
    client.close()


def test_a_call_before_the_environment_is_ready_says_so_in_a_tool_error(scripted):
    command, log = scripted
    backend = Backend(command())
    client = Client(backend, wait_seconds=0.3)
    client.initialize()
    client.send({"id": 7, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    answer = client.answer_to(7)
    assert answer["result"] == {"content": [{"type": "text", "text": mcp_front.INSTALLING}], "isError": True}
    assert mcp_front.INSTALLING == "lit-search is installing its environment, once, about a minute; call again"
    client.send({"id": 8, "method": "completion/complete", "params": {}})  # not a tool: a JSON-RPC error
    assert client.answer_to(8)["error"] == {"code": -32603, "message": mcp_front.INSTALLING}

    backend.finish()  # ready: the next call reaches the server
    client.send({"id": 9, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    assert client.answer_to(9)["result"]["content"][0]["text"] == "called paper_search"
    client.close()
    assert [m["id"] for m in logged(log) if m.get("method") == "tools/call"] == [9]  # 7 was never sent


def test_a_call_waiting_when_the_build_ends_goes_to_the_server_after_the_replayed_handshake(scripted):
    command, log = scripted
    backend = Backend(command())
    client = Client(backend, wait_seconds=120)
    client.initialize("2024-11-05")
    client.send({"id": 5, "method": "tools/call", "params": {"name": "paper_search", "arguments": {"topic": "x"}}})
    client.send({"method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}})
    client.waiting(2)
    assert client.nothing_for(0.3)  # it waits for the build rather than failing
    backend.finish()
    assert client.answer_to(5)["result"]["content"][0]["text"] == "called paper_search"
    client.close()
    methods = [m.get("method") for m in logged(log)]
    # the client's own initialize parameters, then initialized, then what waited, in order
    assert methods[:4] == ["initialize", "notifications/initialized", "tools/call", "notifications/progress"]
    initialize = logged(log)[0]["params"]
    assert initialize["protocolVersion"] == "2024-11-05" and initialize["clientInfo"]["name"] == "test-client"


def test_a_failed_build_is_said_once_and_the_next_call_builds_again(scripted):
    command, _ = scripted
    backend = Backend(command())
    client = Client(backend, wait_seconds=120)
    client.initialize()
    client.send({"id": 1, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    client.waiting(1)
    backend.finish("cannot install lit-search's dependencies (no network or no package index?)")
    failed = client.answer_to(1)["result"]
    assert failed["isError"] is True
    assert failed["content"][0]["text"] == ("lit-search could not install its environment: cannot install "
                                            "lit-search's dependencies (no network or no package index?)")
    client.send({"id": 2, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    assert client.answer_to(2)["result"]["content"][0]["text"] == failed["content"][0]["text"]
    assert len(backend.builds) == 2  # that call started a second try
    client.send({"id": 21, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    client.waiting(1)
    assert len(backend.builds) == 2  # this one waits for that try
    backend.finish()
    assert client.answer_to(21)["result"]["content"][0]["text"] == "called paper_search"
    client.send({"id": 3, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    assert client.answer_to(3)["result"]["content"][0]["text"] == "called paper_search"
    client.close()


def test_a_cancelled_call_is_never_answered_nor_sent(scripted):
    command, log = scripted
    backend = Backend(command())
    client = Client(backend, wait_seconds=120)
    client.initialize()
    client.send({"id": 4, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    client.waiting(1)
    client.send({"method": "notifications/cancelled", "params": {"requestId": 4, "reason": "user"}})
    client.waiting(0)
    backend.finish()
    client.send({"id": 6, "method": "tools/call", "params": {"name": "other", "arguments": {}}})
    assert client.receive()["id"] == 6
    client.close()
    assert [m["id"] for m in logged(log) if m.get("method") == "tools/call"] == [6]


def test_once_ready_every_message_passes_unchanged_both_ways(scripted):
    command, log = scripted
    backend = Backend(command(), ready=True)  # built earlier: the server starts at once
    client = Client(backend)
    client.initialize()
    client.send({"id": 1, "method": "tools/call", "params": {"name": "ask_client", "arguments": {}}})
    seen = [client.receive() for _ in range(3)]
    assert {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "note"}} in seen
    assert {"jsonrpc": "2.0", "id": "s-1", "method": "roots/list"} in seen  # the server asks the client
    client.send({"id": "s-1", "result": {"roots": []}})  # ... and the answer reaches it
    client.send({"id": 2, "method": "tools/list"})
    assert client.answer_to(2)["result"] == {"tools": TOOLS}
    client.close()
    assert {"jsonrpc": "2.0", "id": "s-1", "result": {"roots": []}} in logged(log)
    assert backend.builds == []


def test_a_server_whose_tools_differ_from_the_shipped_list_asks_the_client_to_list_again(scripted):
    command, _ = scripted
    changed = [*TOOLS, {"name": "deep_search", "description": "new", "inputSchema": {"type": "object"}}]
    client = Client(Backend(command(changed), ready=True))
    client.initialize()
    assert client.receive() == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    client.send({"id": 3, "method": "tools/list"})
    assert client.answer_to(3)["result"] == {"tools": changed}
    client.close()


def test_a_server_that_stops_as_it_starts_ends_the_front_with_its_code(tmp_path):
    backend = Backend([sys.executable, "-c", "import sys; sys.exit(2)"], ready=True)
    client = Client(backend)
    client.initialize()
    client.send({"id": 1, "method": "tools/call", "params": {"name": "paper_search", "arguments": {}}})
    answer = client.answer_to(1)["result"]
    assert answer["isError"] and "stopped as it started (exit 2)" in answer["content"][0]["text"]
    client.close()
    assert client.result == [2]


def test_a_server_that_dies_later_stops_the_front(scripted):
    client = Client(Backend([sys.executable, "-c", "import sys; sys.stdin.readline(); "
                             "print('{\"jsonrpc\": \"2.0\", \"id\": \"lit-search-front-initialize\", \"result\": {}}',"
                             " flush=True); sys.stdin.readline(); sys.exit(3)"], ready=True))
    client.initialize()
    deadline = time.monotonic() + 60
    while not client.stopped and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.stopped == [3] and any("stopped (exit 3)" in line for line in client.logs)
    client.writer.close()


def test_a_client_that_leaves_during_the_build_leaves_the_build_alone(scripted):
    command, _ = scripted
    backend = Backend(command())
    client = Client(backend)
    client.initialize()
    client.close()  # returns: the front does not wait for the build
    assert client.result == [0] and len(backend.builds) == 1


@pytest.mark.parametrize("sigint", ["default", "ignored by its parent"])
def test_the_launcher_under_a_bare_python_serves_the_real_tools_from_a_ready_environment(tmp_path, monkeypatch,
                                                                                         sigint):
    """The launcher as .mcp.json starts it, with no package in its Python and an environment
    in place (its interpreter: this test's, which has the package), against the fake APIs.
    SIGINT stops it even when its parent ignores SIGINT, as a shell's background job does (the
    front then inherits the ignoring; it failed this way in .ci/run started with `&`)."""
    import fake_apis
    from fake_server import FakeServer
    from plugin_support import SKILL, clean_env, python_without_packages

    sys.path.insert(0, str(SCRIPTS))
    import environment

    data = tmp_path / "data"
    env = clean_env(LITSEARCH_CACHE_DIR=str(data))
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(data))
    folder, wanted = environment.environment_folder(REPO), environment.identity(REPO)
    environment.python_in(folder).parent.mkdir(parents=True)
    shim = environment.python_in(folder)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    (folder / environment.MARKER).write_text(json.dumps(wanted), encoding="utf-8")
    python = python_without_packages(tmp_path / "bin")
    with FakeServer() as server:
        front = subprocess.Popen([str(python), str(REPO / SKILL / "scripts" / "lit_search.py"), "mcp"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env={**env, **fake_apis.install(server)},
                                 preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
                                 if sigint != "default" else None)
        try:
            def ask(message: dict) -> None:
                front.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
                front.stdin.flush()

            def answer(ident) -> dict:
                for line in front.stdout:
                    message = json.loads(line)
                    if message.get("id") == ident:
                        return message
                raise AssertionError(front.stderr.read().decode())

            ask({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                             "clientInfo": {"name": "t", "version": "1"}}})
            assert answer(1)["result"]["serverInfo"]["version"] == wanted["version"]
            ask({"method": "notifications/initialized"})
            ask({"id": 2, "method": "tools/list"})
            assert {tool["name"] for tool in answer(2)["result"]["tools"]} >= {"paper_search", "library_list"}
            ask({"id": 3, "method": "tools/call", "params": {"name": "paper_search", "arguments": {
                "topic": "CRISPR off-target effects", "limit": 5, "providers": ["openalex"]}}})
            result = answer(3)["result"]
            assert not result.get("isError"), result
            assert "DNA targeting specificity" in json.dumps(result)
            front.send_signal(signal.SIGINT)  # how Claude Code stops its MCP servers
            # Both pipes drained while it stops: a full pipe nobody reads would hold the front's
            # last writes (and the exit that flushes them), which is this test's doing, not the front's.
            drained = {name: bytearray() for name in ("stdout", "stderr")}
            readers = [threading.Thread(target=lambda name=name: drained[name].extend(getattr(front, name).read()),
                                        daemon=True) for name in drained]
            for reader in readers:
                reader.start()
            try:
                code = front.wait(timeout=60)
            except subprocess.TimeoutExpired:
                raise AssertionError("the front did not stop within 60 s of SIGINT; its stderr so far: "
                                     + drained["stderr"].decode(errors="replace")[-2000:]) from None
            for reader in readers:
                reader.join(timeout=30)
            assert code == 0, drained["stderr"].decode(errors="replace")[-2000:]
            assert "Traceback" not in drained["stderr"].decode(errors="replace")
        finally:
            front.stdin.close()
            if front.poll() is None:
                front.kill()
            front.wait(timeout=60)
            front.stdout.close()
            front.stderr.close()
    assert sorted(p.name for p in folder.parent.iterdir()) == [folder.name]  # nothing built, nothing left
