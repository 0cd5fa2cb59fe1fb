"""``lit-search mcp [--http PORT]``: serve lit-search's tools over the Model Context Protocol,
for Claude Code (the plugin's .mcp.json starts it), Claude Desktop, Cursor, Codex, Gemini CLI
and VS Code (docs/mcp.md has each client's configuration)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..runtime.settings import load_settings
from .common import new_parser, run_command, whole_number

PROG = "lit-search mcp"
MAX_CHARS_VARIABLE = "LITSEARCH_MCP_MAX_CHARS"

DESCRIPTION = """\
Serve lit-search as an MCP server: over stdio (the default; an MCP client starts this command
and talks to it on stdin/stdout), or over streamable HTTP with --http PORT (at
http://127.0.0.1:PORT/mcp). Over HTTP every request needs a bearer token: by default the one
in <data folder>/mcp-token (made on the first start, readable by you alone; the start line
names the file), or for a team the tokens of --token-file, which also lets --host listen
beyond this machine. Tools: paper_search, paper_get, paper_read, paper_citations,
paper_network; deep_search_start, deep_search_next, deep_search_results (a deep search you
judge batch by batch, docs/deep.md); the OpenAlex explorer's {entity}_list, {entity}_get (work,
author, source, institution, topic, publisher, funder, domain, field, subfield), *_autocomplete
and work_find (docs/openalex-explorer.md); library_list, library_save, search_report.
Diagnostics go to stderr, never stdout."""

EPILOG = f"""\
token file: one token per line, optionally named ('alice: <token>'; # comments), at least
  16 characters each, readable by its owner only (chmod 600). Calls are logged by the
  token's name, never its value.
environment: the same as the search (keys, LITSEARCH_EMAIL, base URLs, cache folder,
  LITSEARCH_SHARED_STATE), and {MAX_CHARS_VARIABLE} (the default for --max-chars).
{EXIT_CODES_HELP}"""


def build_parser():
    from ..mcp_server.paging import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS

    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("--http", type=whole_number, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT instead")
    parser.add_argument("--host", metavar="ADDRESS", default=None,
                        help="with --http: the address to listen on (default 127.0.0.1); beyond loopback only "
                             "with --token-file")
    parser.add_argument("--token-file", metavar="FILE", default=None,
                        help="with --http: accept the bearer tokens in FILE (a team's server) instead of the "
                             "one in <data folder>/mcp-token")
    parser.add_argument("--allow-host", metavar="NAME", action="append", default=[],
                        help="with --http: a further name clients reach the server by (its Host header), e.g. "
                             "lit.lab.example.org; repeatable")
    parser.add_argument("--requests-per-hour", type=whole_number, metavar="N", default=None,
                        help="with --http: each token's request budget (default 1,000; 0: no limit)")
    parser.add_argument("--max-chars", type=whole_number, metavar="N", default=None,
                        help=f"at most about N characters per tool result, {MIN_MAX_CHARS:,}-{MAX_MAX_CHARS:,} "
                             f"(default {DEFAULT_MAX_CHARS:,}); the rest is a cursor away")
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: mcp_command(argv))


def mcp_command(argv: Sequence[str]) -> int:
    from ..mcp_server.paging import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS

    args = build_parser().parse_args(list(argv))
    max_chars = args.max_chars
    if max_chars is None:
        raw = os.environ.get(MAX_CHARS_VARIABLE, "").strip()
        if raw and not raw.isdigit():
            raise UsageError(f"{MAX_CHARS_VARIABLE} must be a whole number, not {raw!r}")
        max_chars = int(raw) if raw else DEFAULT_MAX_CHARS
    if not MIN_MAX_CHARS <= max_chars <= MAX_MAX_CHARS:
        raise UsageError(f"--max-chars must be between {MIN_MAX_CHARS:,} and {MAX_MAX_CHARS:,}, not {max_chars:,}")
    if args.http is not None and not 1 <= args.http <= 65535:
        raise UsageError(f"--http takes a port 1-65535, not {args.http}")
    http_only = [flag for flag, given in (("--host", args.host is not None), ("--token-file", args.token_file),
                                          ("--allow-host", args.allow_host),
                                          ("--requests-per-hour", args.requests_per_hour is not None)) if given]
    if args.http is None and http_only:
        raise UsageError(f"{http_only[0]} goes with --http PORT")
    settings = load_settings()
    http = http_options(args) if args.http is not None else None
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("the MCP SDK is not installed: pip install 'mcp>=2.3,<3' (or reinstall lit-search)") from None
    from ..mcp_server.server import serve

    _signal_ends_the_server()
    try:
        serve(settings, http=http, max_chars=max_chars)
    except KeyboardInterrupt:
        pass
    return ExitCode.OK


def _signal_ends_the_server() -> None:
    """A server is not a command: SIGTERM ends it at once, as it always has (its client sends it;
    over HTTP uvicorn sets handlers of its own). Nothing it holds is half written (its stores
    replace files atomically), and unwinding a transport mid-message could keep a client waiting."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def http_options(args) -> object:
    """The HTTP server's options: where it listens and the tokens it accepts (UsageError for
    what cannot be served; the values of tokens are never part of a message)."""
    from ..core.config import data_folder
    from ..mcp_server.http_serving import DEFAULT_REQUESTS_PER_HOUR, HttpOptions, is_loopback
    from ..mcp_server.tokens import TokenProblem, TokenTable, local_token, read_token_file

    host = (args.host or "127.0.0.1").strip()
    if not host or any(char.isspace() or ord(char) < 32 for char in host):
        raise UsageError("--host takes an address such as 127.0.0.1 or 0.0.0.0")
    if not is_loopback(host) and not args.token_file:
        raise UsageError(f"--host {host} listens beyond this machine: give --token-file FILE (one bearer token "
                         f"per line, optionally 'name: token') so only your team can call it")
    budget = DEFAULT_REQUESTS_PER_HOUR if args.requests_per_hour is None else args.requests_per_hour
    if budget < 0:
        raise UsageError(f"--requests-per-hour takes 0 (no limit) or more, not {budget}")
    for name in args.allow_host:
        if not name or any(char.isspace() or ord(char) < 32 or char in "/@?#" for char in name):
            raise UsageError("--allow-host takes a host name, optionally with :PORT (e.g. lit.lab.example.org)")
    try:
        if args.token_file:
            tokens = read_token_file(Path(args.token_file).expanduser())
            where = f"the {len(tokens)} token(s) of {args.token_file}"
        else:
            token, path = local_token(data_folder())
            tokens, where = [token], f"the token in {path}"
    except TokenProblem as problem:
        raise UsageError(str(problem)) from None
    shown_host = f"[{host}]" if ":" in host else host
    print(f"lit-search mcp: serving http://{shown_host}:{args.http}/mcp; clients send 'Authorization: Bearer "
          f"<token>' with {where}", file=sys.stderr, flush=True)
    return HttpOptions(host=host, port=args.http, tokens=TokenTable(tokens), requests_per_hour=budget,
                       allow_hosts=tuple(args.allow_host))
