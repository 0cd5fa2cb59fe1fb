"""``lit-search mcp [--http PORT]``: serve lit-search's tools over the Model Context Protocol,
for Claude Code (the plugin's .mcp.json starts it), Claude Desktop, Cursor, Codex, Gemini CLI
and VS Code (docs/mcp.md has each client's configuration)."""

from __future__ import annotations

import os
from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..runtime.settings import load_settings
from .common import new_parser, run_command

PROG = "lit-search mcp"
MAX_CHARS_VARIABLE = "LITSEARCH_MCP_MAX_CHARS"

DESCRIPTION = """\
Serve lit-search as an MCP server: over stdio (the default; an MCP client starts this command
and talks to it on stdin/stdout), or over streamable HTTP on 127.0.0.1 with --http PORT
(at http://127.0.0.1:PORT/mcp). Tools: paper_search, paper_get, paper_citations,
paper_network, author_list/author_get, source_list/source_get, institution_list/
institution_get, topic_list/topic_get, publisher_list, funder_list, library_list,
library_save, search_report. Diagnostics go to stderr, never stdout."""

EPILOG = f"""\
environment: the same as the search (keys, LITSEARCH_EMAIL, base URLs, cache folder), and
  {MAX_CHARS_VARIABLE} (the default for --max-chars).
{EXIT_CODES_HELP}"""


def build_parser():
    from ..mcp_server.paging import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS

    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT instead")
    parser.add_argument("--max-chars", type=int, metavar="N", default=None,
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
    settings = load_settings()
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("the MCP SDK is not installed: pip install 'mcp>=2.3,<3' (or reinstall lit-search)") from None
    from ..mcp_server.server import serve

    try:
        serve(settings, http_port=args.http, max_chars=max_chars)
    except KeyboardInterrupt:
        pass
    return ExitCode.OK
