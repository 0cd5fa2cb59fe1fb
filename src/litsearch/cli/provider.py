"""The runnable helper behind scripts/<provider>.py: one provider's search, its normalized
records as a JSON list on stdout."""

from __future__ import annotations

from typing import Sequence

from ..core.config import Settings
from ..core.errors import ExitCode, UsageError
from ..core.sanitize import json_text
from ..runtime.settings import load_settings
from ..search.options import MAX_LIMIT, check_limit
from .common import new_parser, run_command, whole_number, write_output
from .interrupt import run_async


def build_parser(name: str):
    from ..providers.registry import service

    declared = service(name)
    epilog = (
        "environment:\n"
        "  LITSEARCH_EMAIL        contact address sent to the API (also OPENALEX_EMAIL, UNPAYWALL_EMAIL)\n"
        + (f"  {declared.key.variable}   optional key ({declared.key.where})\n" if declared.key else "")
        + 
        f"  {declared.url_variable}   base URL (default {declared.base_url})\n"
        "  LITSEARCH_PROVIDER_BUDGET, LITSEARCH_READ_TIMEOUT, LITSEARCH_CONNECT_TIMEOUT   seconds\n"
        "Exit codes: 0 ok, 1 internal error, 2 usage error, 3 the provider failed (one line on stderr)."
    )
    description = declared.search_summary or f"Search {declared.label}."
    parser = new_parser(f"{name}.py", description + " Prints a JSON list of normalized records on stdout.",
                        epilog)
    parser.add_argument("query", help="search terms")
    parser.add_argument("--limit", type=whole_number, default=10, help=f"records to return, 1-{MAX_LIMIT} (default 10)")
    return parser


async def _run(name: str, query: str, limit: int, settings: Settings) -> list[dict]:
    from ..net.http import HttpClient
    from ..providers.base import SearchRequest, get_provider

    async with HttpClient(settings) as http:
        answer = await get_provider(name).search(http.session(name), SearchRequest(query, limit))
    return [record.to_dict() for record in answer.records]


def main(name: str, argv: Sequence[str] | None = None) -> int:
    def work() -> int:
        args = build_parser(name).parse_args(argv)
        query = " ".join(args.query.split())
        if not query:
            raise UsageError("the query is empty")
        check_limit(args.limit, MAX_LIMIT)
        settings = load_settings()
        records = run_async(_run(name, query, args.limit, settings))
        write_output(json_text(records), settings)
        return ExitCode.OK

    return run_command(name, work)
