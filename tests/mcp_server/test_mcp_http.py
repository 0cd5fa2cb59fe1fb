"""`lit-search mcp --http` (issue 31 item 5, issue 33 item 3): a token on every request, a team's
token file, Host and Origin checks, calls logged by the token's name, a request budget per
token, sessions bounded per token, and connections that never finish their request closed.

Most tests serve in this process (uvicorn in a thread, on a free loopback port) so they can
shorten the deadlines and look at the session table; the door itself (the command, its start
line, its refusals) is run as a subprocess once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import stat
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

import fake_apis
from command import command_env, lit_search_command
from fake_server import FakeServer
from fault_support import SHORT_SETTINGS

mcp = pytest.importorskip("mcp")

from litsearch.runtime.settings import settings_from_env  # noqa: E402
from litsearch.mcp_server import http_protocol, http_serving  # noqa: E402
from litsearch.mcp_server.http_serving import HttpOptions, uvicorn_server  # noqa: E402
from litsearch.mcp_server.server import build_server  # noqa: E402
from litsearch.mcp_server.tokens import Token, TokenTable  # noqa: E402

ALICE = "alice-token-4f1c2b9a8e7d6c5b"
BOB = "bob-token-0a9b8c7d6e5f4a3b2c"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "probe", "version": "1"}}}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(tmp_path, tokens=(Token("alice", ALICE), Token("bob", BOB)), **options):
    """The HTTP server in this process, on loopback, against the fake APIs."""
    with FakeServer() as fake:
        env = {**SHORT_SETTINGS, **fake_apis.install(fake), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
        settings = settings_from_env(env)
        port = free_port()
        mcp_server = build_server(settings)
        server = uvicorn_server(mcp_server, HttpOptions(host="127.0.0.1", port=port, tokens=TokenTable(list(tokens)),
                                                        **options))
        server.mcp_server = mcp_server
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.started
        try:
            yield f"http://127.0.0.1:{port}/mcp", server
        finally:
            server.should_exit = True
            thread.join(15)


def post(url: str, token: str | None, body=INITIALIZE, headers: dict | None = None, session: str | None = None):
    sent = {**ACCEPT, **(headers or {})}
    if token:
        sent["authorization"] = f"Bearer {token}"
    if session:
        sent["mcp-session-id"] = session
    return httpx.post(url, json=body, headers=sent, timeout=20)


def tool_call(url: str, token: str, tool: str, arguments: dict):
    """A whole client session (the SDK's own client) with ``token``: the tool's result."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def go():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return await client.call_tool(tool, arguments)

    return asyncio.run(go())


# ---------------------------------------------------------------- the token


@pytest.mark.parametrize("authorization", [None, "Bearer", "Bearer wrong-token-0000000000", f"Basic {ALICE}",
                                           f"Bearer {ALICE}x", f"Bearer {ALICE[:-1]}", "bearer" + ALICE])
def test_no_valid_token_is_401_and_nothing_else(tmp_path, authorization, caplog):
    with serving(tmp_path) as (url, server):
        headers = {"authorization": authorization} if authorization else {}
        answer = httpx.post(url, json=INITIALIZE, headers={**ACCEPT, **headers}, timeout=20)
        table = len(server.mcp_server.session_manager._server_instances)
    assert answer.status_code == 401 and table == 0
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "mcp-session-id" not in answer.headers
    assert ALICE not in answer.text and ALICE not in caplog.text


def test_a_valid_token_is_served_and_each_call_is_logged_by_its_name_never_its_value(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="litsearch.mcp.calls")
    with serving(tmp_path) as (url, _):
        found = tool_call(url, ALICE, "topic_list", {"query": "crispr"})
        other = tool_call(url, BOB, "topic_list", {"query": "crispr"})
    assert found.structured_content["results"][0]["id"] == "T10211" and not other.is_error
    lines = [record.getMessage() for record in caplog.records if record.name == "litsearch.mcp.calls"]
    assert any(line.startswith("alice tools/call topic_list -> 200") for line in lines), lines
    assert any(line.startswith("bob tools/call topic_list -> 200") for line in lines), lines
    assert any(line.startswith(("alice initialize -> 200", "alice server/discover -> 200")) for line in lines), lines
    everything = caplog.text + json.dumps(found.model_dump())
    assert ALICE not in everything and BOB not in everything


def test_a_session_answers_only_the_token_that_opened_it(tmp_path):
    with serving(tmp_path) as (url, _):
        opened = post(url, ALICE)
        session = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        stolen = post(url, BOB, listing, {"mcp-protocol-version": "2025-06-18"}, session=session)
    assert opened.status_code == 200 and stolen.status_code == 404


def test_each_token_has_a_request_budget(tmp_path):
    with serving(tmp_path, requests_per_hour=3) as (url, _):
        answers = [post(url, ALICE) for _ in range(4)]
        bob = post(url, BOB)
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert 1 <= int(answers[-1].headers["retry-after"]) <= 1200  # 3 an hour: one back within 20 minutes
    assert bob.status_code == 200  # one token's budget is its own


def test_host_and_origin_are_still_checked(tmp_path):
    with serving(tmp_path) as (url, _):
        evil_host = post(url, ALICE, headers={"host": "attacker.example"})
        evil_origin = post(url, ALICE, headers={"origin": "http://attacker.example"})
        local_origin = post(url, ALICE, headers={"origin": "http://127.0.0.1:5173"})
    assert evil_host.status_code == 421 and evil_origin.status_code == 403 and local_origin.status_code == 200


def test_a_team_server_allows_its_own_names_and_no_others():
    options = HttpOptions(host="0.0.0.0", port=8765, tokens=TokenTable([Token("a", ALICE)]),
                          allow_hosts=("lit.lab.example.org", "10.1.2.3:9000"))
    hosts, origins = http_serving.allowed_hosts(options)
    assert {"lit.lab.example.org", "lit.lab.example.org:8765", "10.1.2.3:9000", "127.0.0.1:*"} <= set(hosts)
    assert socket.gethostname() + ":8765" in hosts and "0.0.0.0:8765" not in hosts
    assert "https://lit.lab.example.org:8765" in origins and "http://attacker.example" not in origins
    assert "10.1.2.3:9000:8765" not in hosts


# ---------------------------------------------------------------- sessions


def test_a_flood_of_initialize_from_one_token_never_fills_the_table(tmp_path):
    flood = http_serving.SESSIONS_PER_TOKEN * 2 + 300
    with serving(tmp_path) as (url, server):
        with httpx.Client(timeout=20) as client:  # one process, one connection, as fast as it can
            statuses = [client.post(url, json=INITIALIZE, headers={**ACCEPT, "authorization": f"Bearer {ALICE}"}
                                    ).status_code for _ in range(flood)]
        gate = server.config.loaded_app
        while not hasattr(gate, "sessions"):
            gate = gate.app
        alice_sessions = gate.sessions.count("alice")
        table = len(server.mcp_server.session_manager._server_instances)  # the SDK's own count
        others = tool_call(url, BOB, "topic_list", {"query": "crispr"})
        again = tool_call(url, ALICE, "topic_list", {"query": "crispr"})
    assert statuses == [200] * flood  # each new session ended the token's oldest idle one
    # The SDK forgets an ended session a moment after its DELETE is answered: one may still be counted.
    assert alice_sessions <= http_serving.SESSIONS_PER_TOKEN and table <= http_serving.SESSIONS_PER_TOKEN + 2
    assert not others.is_error and not again.is_error  # nobody is locked out, not even the flooder's own client


def test_an_initialize_answered_but_not_yet_recorded_still_holds_its_place():
    """A session is recorded when its request is done, but its answer is out before that, and a
    client may open the next one in between (a flood, under load: 17 sessions of 16). Here ten
    initializes are answered and held there: the cap counts the ones still being answered."""
    from litsearch.mcp_server.http_guard import SESSION_HEADER, CallGate, SessionBook
    from litsearch.mcp_server.tokens import RequestBudget

    async def scenario() -> tuple[list[int], int, int]:
        answered_all = asyncio.Event()
        opened = 0

        async def sdk(scope, receive, send):  # answers, then finishes its work later
            nonlocal opened
            opened += 1
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(SESSION_HEADER.encode(), f"s{opened}".encode())]})
            await send({"type": "http.response.body", "body": b"{}"})
            await answered_all.wait()

        sessions = SessionBook(per_token=4)
        gate = CallGate(sdk, TokenTable([Token("alice", ALICE)]), RequestBudget(0), sessions)
        statuses: list[int] = []

        async def initialize() -> None:
            async def receive():
                return {"type": "http.request", "body": json.dumps(INITIALIZE).encode(), "more_body": False}

            async def send(message):
                if message["type"] == "http.response.start":
                    statuses.append(message["status"])

            scope = {"type": "http", "method": "POST", "path": "/mcp", "query_string": b"",
                     "headers": [(b"authorization", f"Bearer {ALICE}".encode())]}
            await gate(scope, receive, send)

        calls = [asyncio.ensure_future(initialize()) for _ in range(10)]
        while len(statuses) < 10:
            await asyncio.sleep(0)
        held = sessions.count("alice")
        answered_all.set()
        await asyncio.gather(*calls)
        return statuses, held, sessions.count("alice")

    statuses, held, after = asyncio.run(scenario())
    assert sorted(statuses) == [200] * 4 + [503] * 6  # the rest are told the token's sessions are busy
    assert held == 4 and after == 4


# ---------------------------------------------------------------- connections


def _closed_within(connection: socket.socket, seconds: float) -> bool:
    connection.settimeout(seconds)
    try:
        while True:
            data = connection.recv(65536)
            if not data:
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


def test_connections_that_never_finish_their_request_are_closed(tmp_path, monkeypatch):
    monkeypatch.setattr(http_protocol, "HEADER_SECONDS", 0.5)
    monkeypatch.setattr(http_protocol, "REQUEST_SECONDS", 1.0)
    with serving(tmp_path) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        silent = socket.create_connection(("127.0.0.1", port))
        partial = socket.create_connection(("127.0.0.1", port))
        partial.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        trickle = socket.create_connection(("127.0.0.1", port))
        body_short = socket.create_connection(("127.0.0.1", port))
        body_short.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
        started = time.monotonic()
        for piece in (b"GET /mcp HTTP/1.1\r\n", b"X-A: 1\r\n", b"X-B: 2\r\n", b"X-C: 3\r\n"):
            try:
                trickle.sendall(piece)  # bytes keep coming, the headers never end
            except OSError:
                break  # already closed: the deadline did not wait for the trickle to stop
            time.sleep(0.3)
        verdicts = [_closed_within(connection, 15) for connection in (silent, partial, trickle, body_short)]
        waited = time.monotonic() - started
        healthy = post(url, ALICE)
        for connection in (silent, partial, trickle, body_short):
            connection.close()
    assert verdicts == [True] * 4
    assert waited < 15  # closed by the deadlines, not by the test giving up
    assert healthy.status_code == 200


def test_past_the_connection_cap_the_oldest_waiting_connection_makes_room(tmp_path, monkeypatch):
    monkeypatch.setattr(http_protocol, "MAX_CONNECTIONS", 20)
    with serving(tmp_path) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(60)]
        healthy = post(url, ALICE)
        shed = sum(_closed_within(connection, 0.2) for connection in idle[:30])
        for connection in idle:
            connection.close()
    assert healthy.status_code == 200
    assert shed >= 25  # the oldest idle ones were closed to make room for the newer


# ---------------------------------------------------------------- the command


def test_the_command_makes_a_private_token_names_its_file_and_never_prints_it(tmp_path):
    port = free_port()
    with FakeServer() as fake:
        env = command_env(SHORT_SETTINGS, fake_apis.install(fake), LITSEARCH_CACHE_DIR=str(tmp_path / "data"))
        process = subprocess.Popen([*lit_search_command(), "mcp", "--http", str(port)], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            token_file = tmp_path / "data" / "mcp-token"
            deadline = time.monotonic() + 60
            answer = None
            while time.monotonic() < deadline:
                try:
                    answer = httpx.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers=ACCEPT, timeout=5)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            token = token_file.read_text().strip()
            found = tool_call(f"http://127.0.0.1:{port}/mcp", token, "topic_list", {"query": "crispr"})
        finally:
            process.terminate()
            out, err = process.communicate(timeout=20)
    assert answer is not None and answer.status_code == 401
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600 and len(token) >= 40
    assert not found.is_error
    text = err.decode()
    assert str(token_file) in text and token not in text and token not in out.decode()
    assert "lit-search mcp: serving http://127.0.0.1:" in text
    assert "litsearch.mcp.calls: local tools/call topic_list -> 200" in text  # logged by the token's name


@pytest.mark.parametrize("args, message", [
    (["--host", "0.0.0.0"], "listens beyond this machine: give --token-file"),
    (["--host", "10.0.0.7"], "give --token-file FILE"),
    (["--token-file", "{missing}"], "cannot be read"),
    (["--token-file", "{open}"], "other users can read it"),
    (["--token-file", "{short}"], "line 2: a token is 16-512"),
    (["--token-file", "{twice}"], "the same token as an earlier line"),
    (["--requests-per-hour", "-1"], "--requests-per-hour takes 0"),
])
def test_what_cannot_be_served_is_one_line_and_exit_2(tmp_path, args, message):
    files = {"missing": tmp_path / "none.txt", "open": tmp_path / "open.txt", "short": tmp_path / "short.txt",
             "twice": tmp_path / "twice.txt"}
    files["open"].write_text(f"alice: {ALICE}\n")
    files["open"].chmod(0o644)
    files["short"].write_text(f"# team\nbob: {BOB[:8]}\n")
    files["twice"].write_text(f"alice: {ALICE}\ncarol: {ALICE}\n")
    for name in ("short", "twice"):
        files[name].chmod(0o600)
    args = [arg.format(**{name: str(path) for name, path in files.items()}) for arg in args]
    proc = subprocess.run([*lit_search_command(), "mcp", "--http", str(free_port()), *args],
                          env=command_env(LITSEARCH_CACHE_DIR=str(tmp_path / "data")), capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert ALICE not in proc.stderr and BOB[:8] not in proc.stderr


def test_http_options_without_http_are_a_usage_error(tmp_path):
    proc = subprocess.run([*lit_search_command(), "mcp", "--token-file", "x"], env=command_env(),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "--token-file goes with --http PORT" in proc.stderr


def test_a_token_file_names_tokens_skips_comments_and_refuses_what_it_cannot_use(tmp_path):
    from litsearch.mcp_server.tokens import TokenProblem, read_token_file

    good = tmp_path / "tokens"
    good.write_text(f"# the lab\n\nalice: {ALICE}\n{BOB}\n")
    good.chmod(0o600)
    tokens = read_token_file(good)
    assert [(token.name, token.value) for token in tokens] == [("alice", ALICE), ("line-4", BOB)]
    table = TokenTable(tokens)
    assert table.find(ALICE).name == "alice" and table.find(BOB).name == "line-4"
    assert table.find(ALICE + " ") is None and table.find("") is None and table.find(None) is None
    for text in ("", "# only a comment\n", "alice: has space inside\n", f"a: {ALICE}\na: {BOB}\n", "é" * 20 + "\n"):
        good.write_text(text)
        good.chmod(0o600)
        with pytest.raises(TokenProblem) as problem:
            read_token_file(good)
        assert ALICE not in str(problem.value) and BOB not in str(problem.value)


def test_the_request_budget_refills_over_the_hour():
    from litsearch.mcp_server.tokens import RequestBudget

    now = [0.0]
    budget = RequestBudget(60, clock=lambda: now[0])  # one a minute
    assert [budget.take("a") for _ in range(60)] == [None] * 60
    assert budget.take("a") == pytest.approx(60.0)
    assert budget.take("b") is None
    now[0] += 30
    assert budget.take("a") == pytest.approx(30.0)
    now[0] += 30
    assert budget.take("a") is None
    assert RequestBudget(0).take("a") is None  # 0: no limit


def test_an_unwritable_data_folder_asks_for_a_token_file(tmp_path):
    from litsearch.mcp_server.tokens import TokenProblem, local_token

    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(TokenProblem, match="--token-file"):
        local_token(blocker / "data")


# ---------------------------------------------------------------- docs/mcp.md's HTTP clients

HTTP_SNIPPET = re.compile(r"<!-- http-client: ([a-z-]+) -->\n```(json|text)\n(.*?)```", re.S)


def http_snippets() -> dict[str, tuple[str, str]]:
    from conftest import REPO

    text = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    return {client: (language, body) for client, language, body in HTTP_SNIPPET.findall(text)}


def snippet_connection(client: str, language: str, body: str, token: str) -> tuple[str, dict[str, str]]:
    """(URL, headers) as the snippet configures them, the token filled in where it says."""
    if client == "claude-code":
        url, header = re.search(r'--transport http lit-search (\S+) --header "([^"]+)"', body).groups()
        name, value = header.split(": ", 1)
        assert "$(cat ~/.local/share/lit-search/mcp-token)" in value
        return url, {name: value.replace("$(cat ~/.local/share/lit-search/mcp-token)", token)}
    config = json.loads(body)
    entry = config["servers" if client == "vscode" else "mcpServers"]["lit-search"]
    if client == "vscode":
        assert entry["type"] == "http"
        (asked,) = config["inputs"]
        assert asked["password"] is True and "${input:" + asked["id"] + "}" in entry["headers"]["Authorization"]
    url = entry.get("httpUrl") or entry["url"]
    headers = {name: re.sub(r"\$\{input:[a-z-]+\}|<token>", token, value) for name, value in entry["headers"].items()}
    return url, headers


def test_every_http_client_snippet_sends_the_token_and_reaches_the_tools(tmp_path):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from litsearch.core.config import data_folder
    from litsearch.mcp_server.tokens import LOCAL_TOKEN_FILE

    # The Claude Code line reads the token where a Linux user's data folder keeps it.
    assert data_folder({"HOME": "/home/u"}, "linux") / LOCAL_TOKEN_FILE == Path(
        "/home/u/.local/share/lit-search/mcp-token")
    found = http_snippets()
    assert set(found) == {"claude-code", "vscode", "gemini", "cursor"}
    with serving(tmp_path, tokens=(Token("local", ALICE),)) as (url, _):
        port = url.split(":")[2].split("/")[0]

        async def tools_through(client: str) -> set[str]:
            configured, headers = snippet_connection(client, *found[client], ALICE)
            assert configured == "http://127.0.0.1:8765/mcp"
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(configured.replace("8765", port), http_client=http)) as mcp_client:
                    return {tool.name for tool in (await mcp_client.list_tools()).tools}

        for client in sorted(found):
            assert "paper_search" in asyncio.run(tools_through(client)), client
