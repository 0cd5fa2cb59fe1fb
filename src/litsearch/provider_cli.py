"""The runnable helper behind scripts/<provider>.py: one provider, JSON records on stdout."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Sequence

from .config import BASE_URL_VARIABLES, DEFAULT_BASE_URLS, Settings
from .http import HttpClient, ProviderError
from .providers import load_provider

DESCRIPTIONS = {
    "semantic_scholar": "Search Semantic Scholar (/graph/v1/paper/search).",
    "openalex": "Search OpenAlex (/works?search=).",
    "pubmed": "Search PubMed (esearch, then esummary and efetch for abstracts).",
    "arxiv": "Search arXiv (/api/query, Atom feed).",
}

MAX_LIMIT = 100


def build_parser(name: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{name}.py",
        description=DESCRIPTIONS[name] + " Prints a JSON list of normalized records on stdout.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "environment:\n"
            "  LITSEARCH_EMAIL        contact address sent to the API (also OPENALEX_EMAIL, UNPAYWALL_EMAIL)\n"
            "  SEMANTIC_SCHOLAR_API_KEY, NCBI_API_KEY, OPENALEX_API_KEY   optional keys\n"
            f"  {BASE_URL_VARIABLES[name]}   base URL (default {DEFAULT_BASE_URLS[name]})\n"
            "  LITSEARCH_PROVIDER_BUDGET, LITSEARCH_READ_TIMEOUT, LITSEARCH_CONNECT_TIMEOUT   seconds\n"
            "Exit codes: 0 ok, 2 usage error, 3 the provider failed (one line on stderr)."
        ),
    )
    parser.add_argument("query", help="search terms")
    parser.add_argument("--limit", type=int, default=10, help=f"records to return, 1-{MAX_LIMIT} (default 10)")
    return parser


async def _run(name: str, query: str, limit: int, settings: Settings) -> list[dict]:
    provider = load_provider(name)
    async with HttpClient(settings) as http:
        records = await provider.search(http.session(name), query, limit)
    return [record.to_dict() for record in records]


def main(name: str, argv: Sequence[str] | None = None) -> int:
    parser = build_parser(name)
    args = parser.parse_args(argv)
    query = " ".join(args.query.split())
    if not query:
        parser.error("the query is empty")
    if not 1 <= args.limit <= MAX_LIMIT:
        parser.error(f"--limit must be between 1 and {MAX_LIMIT}")
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    try:
        records = asyncio.run(_run(name, query, args.limit, settings))
    except ProviderError as exc:
        print(f"{name}: {settings.redact(str(exc))}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    # A server may echo a key back inside a record: scrub the whole output.
    sys.stdout.write(settings.redact(json.dumps(records, ensure_ascii=False, indent=2)) + "\n")
    return 0
