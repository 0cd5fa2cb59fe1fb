"""``lit-search mcp --http PORT``: the SDK's streamable HTTP app behind the door (http_guard.py),
served by uvicorn with bounds uvicorn itself lacks.

- **A token always** (tokens.py): the user's own (``<data folder>/mcp-token``) on loopback, or a
  team's ``--token-file``, which is also what allows listening beyond loopback (``--host``).
- **Host and Origin checks stay**: loopback allows the loopback names; a team server allows
  its own address, this machine's names and each ``--allow-host`` (with and without the port),
  over http and https.
- **Connections that never finish their request are closed**: uvicorn waits for headers for
  ever (it arms its keep-alive timer only after a response). ``BoundedH11Protocol`` gives a
  request ``HEADER_SECONDS`` from its first byte (or from the connection's opening) to finish
  its headers and ``REQUEST_SECONDS`` to finish its body; idle kept-alive connections close
  after ``KEEP_ALIVE_SECONDS``. Past ``MAX_CONNECTIONS`` open connections, the oldest one still
  waiting for its headers is closed for each new one: a slow trickle cannot crowd out a
  client that sends its request at once. The descriptor limit is raised to the hard limit.
- **Sessions**: ``SESSIONS_PER_TOKEN`` per token (http_guard.py), idle ones end after
  ``SESSION_IDLE_SECONDS``.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import sys
from dataclasses import dataclass
from typing import Any

from .http_guard import CallGate, SessionBook
from .http_protocol import HEADER_SECONDS, MAX_CONNECTIONS, REQUEST_SECONDS, BoundedH11Protocol  # noqa: F401
from .tokens import RequestBudget, TokenTable

KEEP_ALIVE_SECONDS = 15
SESSIONS_PER_TOKEN = 16
SESSION_HEADROOM = 8  # per token, in the SDK's table
SESSION_IDLE_SECONDS = 15 * 60.0
DEFAULT_REQUESTS_PER_HOUR = 1_000
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class HttpOptions:
    host: str
    port: int
    tokens: TokenTable
    requests_per_hour: int = DEFAULT_REQUESTS_PER_HOUR
    allow_hosts: tuple[str, ...] = ()


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or a name as given to --host) listens on loopback only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(options: HttpOptions) -> tuple[list[str], list[str]]:
    """(Host header values, Origin values) the server answers."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    names: list[str] = []
    if not is_loopback(options.host):
        unspecified = options.host in ("0.0.0.0", "::", "")
        if not unspecified:
            names.append(f"[{options.host}]" if ":" in options.host else options.host)
        for name in (socket.gethostname(), socket.getfqdn()):
            if name and name not in names:
                names.append(name)
    names += [name for name in options.allow_hosts if name not in names]
    for name in names:
        hosts += [name] if _has_port(name) else [name, f"{name}:{options.port}"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    origins += [f"{scheme}://{host}" for host in hosts if not host.endswith(":*") for scheme in ("http", "https")]
    return list(dict.fromkeys(hosts)), list(dict.fromkeys(origins))


def _has_port(name: str) -> bool:
    """"lab.example.org:8443" and "[::1]:80" name a port; "lab.example.org" and "[::1]" do not."""
    head, colon, tail = name.rpartition(":")
    return bool(colon) and tail.isdigit() and (not head.startswith("[") or head.endswith("]")) and (
        head.startswith("[") or ":" not in head)


def build_app(server: Any, options: HttpOptions) -> Any:
    """The ASGI app: the door in front of the SDK's streamable HTTP app."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts, origins = allowed_hosts(options)
    app = server.streamable_http_app(
        session_idle_timeout=SESSION_IDLE_SECONDS,
        # Each token's own bound is the door's (http_guard.py); the SDK's table gets room beyond
        # it, since it forgets an ended session a moment after the DELETE that ends it.
        max_sessions=(SESSIONS_PER_TOKEN + SESSION_HEADROOM) * len(options.tokens.tokens),
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                                     allowed_origins=origins),
        host=options.host)
    return CallGate(app, options.tokens, RequestBudget(options.requests_per_hour), SessionBook(SESSIONS_PER_TOKEN))


def uvicorn_server(server: Any, options: HttpOptions) -> Any:
    """The uvicorn server for the app, with the bounded protocol and the timeouts."""
    import uvicorn

    logging.getLogger("litsearch.mcp.calls").setLevel(logging.INFO)
    config = uvicorn.Config(build_app(server, options), host=options.host, port=options.port,
                            http=BoundedH11Protocol, ws="none", lifespan="on", log_level="warning",
                            access_log=False, server_header=False, timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            timeout_graceful_shutdown=5)
    return uvicorn.Server(config)


def serve_http(server: Any, options: HttpOptions) -> None:
    """Serve until interrupted."""
    _raise_descriptor_limit()
    uvicorn_server(server, options).run()


def _raise_descriptor_limit() -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65_536) if hard != resource.RLIM_INFINITY
                                                        else 65_536, hard))
    except (ValueError, OSError):
        print("lit-search mcp: could not raise the open-file limit", file=sys.stderr)
