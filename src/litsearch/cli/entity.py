"""``lit-search author|source|institution|topic|publisher|funder list [QUERY] | get ID``:
OpenAlex's entities, as an MCP client gets them (author_list, author_get, …): a list as slim
summaries (one page, a cursor for the next), one entity complete."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..core.sanitize import json_text
from ..providers.openalex_entities import LIST_ALIASES, MAX_LIST_LIMIT, kind_named
from ..providers.openalex_entities_parse import EntityKind
from ..runtime.console import Console
from ..runtime.settings import load_settings
from ..search.options import check_limit
from .common import add_cache_options, add_quiet_option, cache_mode, fetch, new_parser, run_command, write_output

ACTIONS = ("list", "get")
ALIAS_HELP = {
    "institution": "an OpenAlex institution id (I…), ROR id or name, resolved to the best match",
    "publisher": "an OpenAlex publisher id (P…) or name (the publisher or its parent)",
    "country": "ISO country code (DE, US; repeatable or comma list)",
    "continent": "africa, antarctica, asia, europe, north_america, oceania or south_america",
    "citations": "cited-by count: 100 (at least), >100, <50, 100-500, -50",
    "works": "works count, same forms as --citations",
    "h_index": "h-index, same forms as --citations",
    "type": "OpenAlex type, e.g. journal, repository, conference (sources); education, company (institutions)",
    "open": "fully open-access sources only",
}


def build_parser(kind: EntityKind) -> argparse.ArgumentParser:
    prog = f"lit-search {kind.name}"
    description = (f"OpenAlex {kind.plural}: `list` searches and filters them (slim summaries, one page at a time), "
                   f"`get` shows one complete.")
    epilog = (f"costs (OpenAlex's daily allowance; see docs/mcp.md): a list with a query is a search (10 credits), "
              f"a list with filters only 1 credit, a get is free.\n{EXIT_CODES_HELP}\n"
              f"  Here: 5 OpenAlex has no {kind.name} with that id.")
    parser = new_parser(prog, description, epilog)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help=f"search and filter {kind.plural}")
    listing.add_argument("query", nargs="*", help="words to search for (optional with filters)")
    for alias in LIST_ALIASES[kind.name]:
        flag = "--" + alias.replace("_", "-")
        if alias == "open":
            listing.add_argument(flag, action="store_true", default=None, help=ALIAS_HELP[alias])
        elif alias in ("country", "continent"):
            listing.add_argument(flag, action="append", metavar="VALUE", help=ALIAS_HELP[alias])
        else:
            listing.add_argument(flag, metavar="VALUE", help=ALIAS_HELP[alias])
    listing.add_argument("--filter", metavar="RAW", help="a raw OpenAlex filter, e.g. has_orcid:true (an alias "
                                                         "setting the same field is refused)")
    listing.add_argument("--sort", choices=("relevance", *kind.sorts),
                         help="order (default: relevance with a query, else cited_by_count)")
    listing.add_argument("--limit", type=int, default=10, metavar="N", help=f"{kind.plural} per page, "
                                                                           f"1-{MAX_LIST_LIMIT} (default 10)")
    listing.add_argument("--cursor", metavar="C", help="the next page's cursor, from the previous page")
    listing.add_argument("--format", choices=("markdown", "json"), default="markdown")
    add_quiet_option(listing)
    add_cache_options(listing)
    getting = actions.add_parser("get", help=f"one {kind.name}, complete")
    getting.add_argument("id", metavar="ID", help=f"an OpenAlex {kind.name} id ({kind.letter}…)"
                         + "".join(f" or {name.upper()}" for name in kind.external_ids))
    getting.add_argument("--format", choices=("markdown", "json"), default="markdown")
    add_quiet_option(getting)
    add_cache_options(getting)
    return parser


def main(argv: Sequence[str]) -> int:
    """``argv[0]`` is the entity (the command's name), the rest its arguments."""
    kind = kind_named(argv[0])
    return run_command(f"lit-search {kind.name}", lambda: entity_command(kind, list(argv[1:])))


def list_arguments(kind: EntityKind, args: argparse.Namespace) -> dict[str, Any]:
    """The list's query, aliases, raw filter, sort, limit and cursor from the command line."""
    check_limit(args.limit, MAX_LIST_LIMIT)
    query = " ".join(args.query).strip() or None
    sort = None if args.sort in (None, "relevance") else f"{args.sort}:desc"
    if args.sort == "relevance" and not query:
        raise UsageError("--sort relevance needs a query")
    aliases = {alias: getattr(args, alias) for alias in LIST_ALIASES[kind.name]}
    return {"query": query, "aliases": aliases, "raw": args.filter, "sort": sort, "limit": args.limit,
            "cursor": args.cursor}


def entity_command(kind: EntityKind, argv: list[str]) -> int:
    args = build_parser(kind).parse_args(argv)
    settings = load_settings()
    console = Console(settings, args.quiet)
    from ..providers.openalex_entities import entity_page, get_entity
    from ..render.entities import entity_list_markdown, entity_markdown

    if args.action == "get":
        record = fetch(settings, cache_mode(args), console,
                       lambda http, _store: get_entity(http.session("openalex"), kind, args.id))
        write_output(json_text(record) if args.format == "json" else entity_markdown(kind, record), settings)
        return ExitCode.OK
    wanted = list_arguments(kind, args)
    page, notes = fetch(settings, cache_mode(args), console,
                        lambda http, _store: entity_page(http.session("openalex"), kind, **wanted))
    for note in notes:
        console.say(note)
    if args.format == "json":
        text = json_text({"entity": kind.name, "query": wanted["query"], "count": page.count, "filters": notes,
                          "results": page.items, "next_cursor": page.next_cursor})
    else:
        more = None
        if page.next_cursor:
            more = f"`lit-search {kind.name} list … --cursor {page.next_cursor}` (the same query and filters)"
        text = entity_list_markdown(kind, page.items, query=wanted["query"], count=page.count, notes=notes, more=more)
    write_output(text, settings)
    return ExitCode.OK
