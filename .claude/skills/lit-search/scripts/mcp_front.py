"""``lit-search mcp`` over stdio, started by the launcher under a Python without the package.

An MCP client (Claude Code above all) gives a server a few seconds to answer ``initialize`` and
``tools/list``; a server that misses them is left out of the session, or marked failed. The
real server needs lit-search's private environment, which takes a minute to build the first
time, and its SDK a second or more to import. So this front, standard library only, answers
the handshake and the list requests at once from ``mcp_server.json`` (the real server's own
answers, kept equal to them by tests/mcp_server/test_mcp_front.py), builds the environment in
the background if it is missing, then starts the real server in it, replays the client's
``initialize`` to it and passes every message through, both ways, unchanged.

A tool called before the server is ready waits up to CALL_WAIT_SECONDS, then answers with a
tool error that says what is happening (INSTALLING); the next call after a failed build says
why it failed and starts the build again. The build runs in its own session, so it finishes
even when the client gives up and stops this process (``claude -p`` does when its run ends).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO, Callable

SNAPSHOT = Path(__file__).with_name("mcp_server.json")
INSTALLING = "lit-search is installing its environment, once, about a minute; call again"
CALL_WAIT_SECONDS = 30.0  # a call waits this long for the build before it answers INSTALLING
OWN = "lit-search-front"  # the ids of the requests this front sends the real server itself


def load_snapshot(version: str) -> dict:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    snapshot["initialize"]["serverInfo"]["version"] = version
    return snapshot


class Proxy:
    """Answers the client until the real server is up, then relays. ``backend`` builds the
    environment and names the server's command (see BackgroundEnvironment)."""

    def __init__(self, client_in: BinaryIO, client_out: BinaryIO, snapshot: dict, backend,
                 wait_seconds: float = CALL_WAIT_SECONDS, log: Callable[[str], None] | None = None,
                 stop: Callable[[int], None] = os._exit):
        self.client_in, self.client_out = client_in, client_out
        self.snapshot, self.backend, self.wait_seconds = snapshot, backend, wait_seconds
        self.log = log or (lambda line: print(f"lit-search mcp: {line}", file=sys.stderr, flush=True))
        self.stop = stop  # the server died under a connected client: this process ends with it
        self.cond = threading.Condition()
        self.state = "building"  # -> starting -> ready; or failed (a build) / stopped (the server)
        self.failure = ""
        self.pending: list[dict] = []  # what waits for the server: {"raw", "message", "deadline"}
        self.client_params: dict | None = None
        self.closing = False
        self.server: subprocess.Popen | None = None
        self.exit_code = 0
        self.write_lock = threading.Lock()
        self.server_lock = threading.Lock()

    # ------------------------------------------------------------ the client's side

    def run(self) -> int:
        command = self.backend.ready_command()
        if command is not None:
            self.state = "starting"
            threading.Thread(target=self._serve, args=(command,), daemon=True).start()
        else:
            self.backend.start_build(self._built)
        threading.Thread(target=self._expire, daemon=True).start()
        try:
            for raw in iter(self.client_in.readline, b""):
                self._from_client(raw)
        except KeyboardInterrupt:  # how Claude Code stops its MCP servers (SIGINT): no traceback
            pass
        self._client_gone()
        return self.exit_code

    def _from_client(self, raw: bytes) -> None:
        if not raw.strip():
            return
        with self.cond:
            if self.state == "ready":
                self._to_server(raw)
                return
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
        if not isinstance(message, dict):  # a batch, or not JSON: the server answers it
            self._wait_for_server(raw, None)
            return
        method, is_request = message.get("method"), "id" in message and "method" in message
        if method == "initialize" and is_request:
            with self.cond:
                self.client_params = message.get("params") or {}
                self.cond.notify_all()
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": self._initialize_result(message)})
        elif method == "notifications/initialized":
            pass  # the server gets its own, after the replayed initialize
        elif is_request and method == "ping":
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
        elif is_request and method in self.snapshot["answers"]:
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": self.snapshot["answers"][method]})
        elif method == "notifications/cancelled" and self._cancel((message.get("params") or {}).get("requestId")):
            pass
        else:
            self._wait_for_server(raw, message if is_request else None)

    def _initialize_result(self, message: dict) -> dict:
        versions = self.snapshot["protocolVersions"]
        asked = (message.get("params") or {}).get("protocolVersion")
        return {**self.snapshot["initialize"], "protocolVersion": asked if asked in versions else versions[-1]}

    def _wait_for_server(self, raw: bytes, request: dict | None) -> None:
        """Queue a message for the server; a request is answered now if the build failed."""
        failed = None
        with self.cond:
            if self.state == "ready":
                self._to_server(raw)
                return
            if self.state in ("failed", "stopped") and request is not None:
                failed = self.failure
                if self.state == "failed" and request.get("method") == "tools/call":
                    self.state = "building"  # the failure is said once; this call starts a new try
                    self.backend.start_build(self._built)
            elif self.state != "stopped":
                deadline = time.monotonic() + self.wait_seconds if request and self.state == "building" else None
                self.pending.append({"raw": raw, "message": request, "deadline": deadline})
                self.cond.notify_all()
        if failed is not None:
            self._answer(request, failed)

    def _cancel(self, request_id: object) -> bool:
        with self.cond:
            for entry in self.pending:
                if entry["message"] is not None and entry["message"].get("id") == request_id:
                    self.pending.remove(entry)
                    return True
        return False

    def _answer(self, request: dict, text: str) -> None:
        """A request the server cannot take: a tool error for a call, an error otherwise."""
        if request.get("method") == "tools/call":
            reply = {"result": {"content": [{"type": "text", "text": text}], "isError": True}}
        else:
            reply = {"error": {"code": -32603, "message": text}}
        self._send({"jsonrpc": "2.0", "id": request["id"], **reply})

    def _expire(self) -> None:
        """Answer INSTALLING to the requests that waited their time for the build."""
        while True:
            with self.cond:
                if self.closing:
                    return
                now = time.monotonic()
                building = self.state == "building"
                expired = [e for e in self.pending if building and e["deadline"] is not None and e["deadline"] <= now]
                for entry in expired:
                    self.pending.remove(entry)
                if not expired:
                    deadlines = [e["deadline"] for e in self.pending if building and e["deadline"] is not None]
                    self.cond.wait(timeout=max(0.0, min(deadlines) - now) if deadlines else None)
                    continue
            for entry in expired:
                self._answer(entry["message"], INSTALLING)

    def _send(self, message: dict | bytes) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message, ensure_ascii=False).encode() + b"\n"
        with self.write_lock:
            try:
                self.client_out.write(line)
                self.client_out.flush()
            except (OSError, ValueError):  # the client is gone; its stdin's end will stop the loop
                pass

    def _client_gone(self) -> None:
        with self.cond:
            self.closing = True
            self.cond.notify_all()
            server = self.server
        if server is not None:
            try:
                server.stdin.close()
            except OSError:
                pass
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.terminate()

    # ------------------------------------------------------------ the build and the server

    def _built(self, failure: str | None) -> None:
        """The build's end (from the backend's thread): start the server, or say why not."""
        with self.cond:
            if failure is None:
                self.state = "starting"  # deadlines count only while building: what waits, waits on
                self.cond.notify_all()
            else:
                self._fail("failed", f"lit-search could not install its environment: {failure}")
                return
        self.log("the environment is ready; starting the server")
        self._serve(self.backend.ready_command())

    def _fail(self, state: str, text: str) -> None:
        """(Holding the lock.) Answer every waiting request with ``text``."""
        self.state, self.failure = state, text
        waiting, self.pending = [e["message"] for e in self.pending if e["message"] is not None], []
        self.cond.notify_all()
        for request in waiting:
            self._answer(request, text)

    def _serve(self, command: list[str] | None) -> None:
        if command is None:
            with self.cond:
                self._fail("failed", "lit-search could not install its environment (it is still missing after "
                                     "its build); call again to retry")
            return
        try:
            server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      env={**os.environ, **self.backend.server_environment()})
        except OSError as exc:
            with self.cond:
                self._fail("stopped", f"lit-search could not start its MCP server ({exc})")
            return
        with self.cond:
            self.server = server
            while self.client_params is None and not self.closing:
                self.cond.wait()
            params = self.client_params
        if params is None or not self._handshake(server, params):
            return
        with self.cond:
            for entry in self.pending:
                self._to_server(entry["raw"])
            self.pending, self.state = [], "ready"
            self.cond.notify_all()
        self._to_server(self._request("tools", "tools/list"))
        self._relay(server)

    def _handshake(self, server: subprocess.Popen, params: dict) -> bool:
        self._to_server(self._request("initialize", "initialize", params))
        for raw in iter(server.stdout.readline, b""):
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == f"{OWN}-initialize":
                if "result" in message:
                    self._to_server(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
                                    + b"\n")
                    return True
                break
        code = server.wait()
        with self.cond:
            self._fail("stopped", f"lit-search's MCP server stopped as it started (exit {code}); "
                                  "its message is in the client's MCP log")
        self.exit_code = code or 1
        return False

    def _relay(self, server: subprocess.Popen) -> None:
        """The server's messages to the client, unchanged, but the answers to this front's own."""
        for raw in iter(server.stdout.readline, b""):
            if OWN.encode() in raw and self._own_answer(raw):
                continue
            self._send(raw if raw.endswith(b"\n") else raw + b"\n")
        code = server.wait()
        with self.cond:
            if self.closing:
                return
        self.log(f"the server stopped (exit {code})")
        with self.write_lock:
            try:
                self.client_out.flush()
            except (OSError, ValueError):
                pass
        self.stop(code or 1)

    def _own_answer(self, raw: bytes) -> bool:
        try:
            message = json.loads(raw)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != f"{OWN}-tools":
            return False
        if (message.get("result") or {}).get("tools") != self.snapshot["answers"]["tools/list"]["tools"]:
            # The shipped answer differs from this server's: the client should ask again.
            self._send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return True

    def _request(self, name: str, method: str, params: dict | None = None) -> bytes:
        message = {"jsonrpc": "2.0", "id": f"{OWN}-{name}", "method": method, **({"params": params} if params else {})}
        return json.dumps(message).encode() + b"\n"

    def _to_server(self, raw: bytes) -> None:
        with self.server_lock:
            try:
                self.server.stdin.write(raw if raw.endswith(b"\n") else raw + b"\n")
                self.server.stdin.flush()
            except (OSError, ValueError, AttributeError):
                pass  # the server is gone: _relay says so and ends this process


class BackgroundEnvironment:
    """The launcher's private environment (environment.py), built by a process of its own."""

    def __init__(self, root: Path, launcher: Path, args: list[str]):
        import environment

        self.environment, self.root, self.launcher, self.args = environment, root, launcher, args

    def ready_command(self) -> list[str] | None:
        python = self.environment.ready_python(self.root)
        return [str(python), str(self.launcher), "mcp", *self.args] if python is not None else None

    def server_environment(self) -> dict[str, str]:
        return {self.environment.BOOTSTRAPPED: "1"}

    def start_build(self, done: Callable[[str | None], None]) -> None:
        try:
            build = subprocess.Popen([sys.executable, self.environment.__file__, str(self.root)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)  # outlives this process and its client
        except OSError as exc:
            done(f"cannot start {sys.executable} ({exc})")
            return

        def watch() -> None:
            last = ""
            for raw in iter(build.stderr.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip()
                if line:
                    last = line
                    print(line, file=sys.stderr, flush=True)
            code = build.wait()
            done(None if code == 0 else last.removeprefix("lit-search: ") or f"its build exited with {code}")

        threading.Thread(target=watch, daemon=True).start()


def main(root: Path, launcher: Path, args: list[str]) -> int:
    import environment

    # SIGINT is how a client stops its MCP servers. A Python whose parent ignores SIGINT (a
    # shell's background job, nohup) inherits that and would serve on until its stdin closed;
    # the command line takes SIGINT back the same way (litsearch/cli/__init__.py).
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def tidy() -> None:
        environment.remove_leftovers(environment.environments_folder())
        environment.remove_plugin_data_environments()

    threading.Thread(target=tidy, daemon=True).start()
    backend = BackgroundEnvironment(root, launcher, args)
    snapshot = load_snapshot(environment.identity(root)["version"])
    return Proxy(sys.stdin.buffer, sys.stdout.buffer, snapshot, backend).run()
