"""``lit-search ENTITY ACTION …`` for each of OpenAlex's entities (work, author, source,
institution, topic, publisher, funder, domain, field, subfield), as an MCP client gets them:
``list`` (slim summaries, one page, a cursor for the next), ``get`` (one entity complete),
``autocomplete`` (the short list of names, for the entities that have it) and ``work find``
(works by meaning). Markdown, or the tools' JSON with ``--format json``."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..core.sanitize import json_text
from ..providers.openalex_costs import action_credits
from ..providers.openalex_declaration import SEMANTIC_MAX_RESULTS
from ..providers.openalex_entities import MAX_LIST_LIMIT, MAX_SEMANTIC_CHARS
from ..providers.openalex_entity_filters import FIND_ALIASES, LIST_ALIASES, lists_filtering_by
from ..providers.openalex_entity_kinds import EntityKind, kind_named
from ..runtime.console import Console
from ..runtime.settings import load_settings
from ..search.options import check_limit
from .common import add_cache_options, add_quiet_option, cache_mode, fetch, \
    new_parser, run_command, whole_number, write_output

VALUE_HELP = {
    "count": "{what}: 100 (at least), >100, <50, 100-500, -50",
    "year": "publication year: 2020, 2018-2020, 2018- or -2015",
    "country": "ISO country code (DE, US; repeatable or a comma list)",
    "continent": "africa, antarctica, asia, europe, north_america, oceania or south_america",
    "text": "OpenAlex type, e.g. article, review (works); journal, repository (sources); education (institutions)",
}
COUNT_WORDS = {"citations": "cited-by count", "works": "works count", "h_index": "h-index"}


def _output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    add_quiet_option(parser)
    add_cache_options(parser)


def _alias_options(parser: argparse.ArgumentParser, kind: EntityKind, aliases: dict[str, tuple[str, str]]) -> None:
    from ..providers.openalex_entity_kinds import KINDS

    for alias, (_, value_kind) in aliases.items():
        flag = "--" + alias.replace("_", "-")
        if value_kind == "flag":
            parser.add_argument(flag, action="store_true", default=None, help=f"open-access {kind.plural} only")
        elif value_kind in ("country", "continent"):
            parser.add_argument(flag, action="append", metavar="VALUE", help=VALUE_HELP[value_kind])
        elif value_kind.startswith("entity:"):
            target = KINDS[value_kind.split(":", 1)[1]]
            parser.add_argument(flag, metavar="ID_OR_NAME", help=f"an OpenAlex {target.name} id ({target.id_hint}) "
                                                                  "or a name, resolved to the top match")
        else:
            parser.add_argument(flag, metavar="VALUE",
                                help=VALUE_HELP[value_kind].format(what=COUNT_WORDS.get(alias, alias)))
    parser.add_argument("--filter", metavar="RAW", help="a raw OpenAlex filter, e.g. has_orcid:true (an alias "
                                                        "setting the same field is refused)")


def costs_in_words(kind: EntityKind) -> str:
    """Each action's cost, as OpenAlex prices it (providers/openalex_costs.py), in one sentence."""
    def said(action: str) -> str:
        credits = action_credits(kind.path, action)
        return "free" if credits == 0 else f"{credits} credit{'s' if credits != 1 else ''}"

    parts = [f"a list with a query {said('search')}", f"a list with filters only {said('list')}",
             f"a get {said('get')}"]
    if "autocomplete" in kind.actions:
        parts.append(f"an autocomplete {said('autocomplete')}")
    if "find" in kind.actions:
        parts.append(f"a find (semantic search) {said('find')}, at most one a second")
    return f"costs (OpenAlex's daily allowance; docs/openalex-explorer.md): {', '.join(parts)}."


def build_parser(kind: EntityKind) -> argparse.ArgumentParser:
    prog = f"lit-search {kind.name}"
    actions = kind.actions
    description = (f"OpenAlex {kind.plural} (OpenAlex alone; `lit-search TOPIC` searches every source): "
                   f"{', '.join(actions)}.")
    epilog = (f"{costs_in_words(kind)}\n{EXIT_CODES_HELP}\n  Here: 5 OpenAlex has no {kind.name} with that id.")
    parser = new_parser(prog, description, epilog)
    commands = parser.add_subparsers(dest="action", metavar="ACTION")
    commands.required = True
    listing = commands.add_parser("list", help=f"search and filter {kind.plural}")
    listing.add_argument("query", nargs="*", help="words to search for (optional with filters)")
    _alias_options(listing, kind, LIST_ALIASES[kind.name])
    listing.add_argument("--sort", choices=("relevance", *kind.sorts),
                         help="order (default: relevance with a query, else cited_by_count)")
    listing.add_argument("--limit", type=whole_number, default=10, metavar="N",
                         help=f"{kind.plural} per page, 1-{MAX_LIST_LIMIT} (default 10)")
    listing.add_argument("--cursor", metavar="C", help="the next page's cursor, from the previous page")
    _output_options(listing)
    getting = commands.add_parser("get", help=f"one {kind.name}, complete")
    extra = ", DOI, PMID or PMCID" if kind.name == "work" else ""
    getting.add_argument("id", metavar="ID", help=f"an OpenAlex {kind.name} id ({kind.id_hint}{extra})")
    _output_options(getting)
    if "find" in actions:
        finding = commands.add_parser("find", help="works closest in meaning to a text (semantic search)")
        finding.add_argument("text", nargs="+", help=f"a question, an abstract or a paragraph (at most "
                                                     f"{MAX_SEMANTIC_CHARS:,} characters)")
        _alias_options(finding, kind, FIND_ALIASES)
        finding.add_argument("--limit", type=whole_number, default=10, metavar="N",
                             help=f"works, 1-{SEMANTIC_MAX_RESULTS} (default 10)")
        _output_options(finding)
    if "autocomplete" in actions:
        completing = commands.add_parser("autocomplete", help=f"{kind.plural} matching typed text (free)")
        completing.add_argument("text", nargs="+", help="a name or its start")
        _output_options(completing)
    return parser


def main(argv: Sequence[str]) -> int:
    """``argv[0]`` is the entity (the command's name), the rest its arguments."""
    kind = kind_named(argv[0])
    return run_command(f"lit-search {kind.name}", lambda: entity_command(kind, list(argv[1:])))


def aliases_given(args: argparse.Namespace, aliases: dict[str, tuple[str, str]]) -> dict[str, Any]:
    return {alias: getattr(args, alias) for alias in aliases}


def list_arguments(kind: EntityKind, args: argparse.Namespace) -> dict[str, Any]:
    """The list's query, aliases, raw filter, sort, limit and cursor from the command line."""
    check_limit(args.limit, MAX_LIST_LIMIT)
    query = " ".join(args.query).strip() or None
    sort = None if args.sort in (None, "relevance") else f"{args.sort}:desc"
    if args.sort == "relevance" and not query:
        raise UsageError("--sort relevance needs a query")
    return {"query": query, "aliases": aliases_given(args, LIST_ALIASES[kind.name]), "raw": args.filter,
            "sort": sort, "limit": args.limit, "cursor": args.cursor}


def entity_command(kind: EntityKind, argv: list[str]) -> int:
    args = build_parser(kind).parse_args(argv)
    settings = load_settings()
    console = Console(settings, args.quiet)
    from ..providers import openalex_entities as openalex
    from ..render import entities as render

    def online(work):
        return fetch(settings, cache_mode(args), console, lambda http, _store: work(http))

    if args.action == "get":
        record = online(lambda http: openalex.get_entity(http.session("openalex"), kind, args.id))
        write_output(json_text(record) if args.format == "json" else render.entity_markdown(kind, record), settings)
        return ExitCode.OK
    if args.action == "autocomplete":
        text = " ".join(" ".join(args.text).split())
        count, items = online(lambda http: openalex.autocomplete(http.session("openalex"), kind, text))
        payload = {"entity": kind.name, "query": text, "count": count, "results": items}
        lists = " or ".join(f"`lit-search {name} list`" for name in lists_filtering_by(kind.name))
        next_step = f"`lit-search {kind.name} get ID` for the whole record" + (
            f"; or --{kind.name} ID on {lists}" if lists else "")
        write_output(json_text(payload) if args.format == "json" else
                     render.autocomplete_markdown(kind, text, items, count, next_step), settings)
        return ExitCode.OK
    if args.action == "find":
        check_limit(args.limit, SEMANTIC_MAX_RESULTS)
        text = " ".join(args.text)
        page, notes = online(lambda http: openalex.find_works(
            http.session("openalex"), text, aliases=aliases_given(args, FIND_ALIASES), raw=args.filter,
            limit=args.limit))
        query, more, heading = " ".join(text.split()), None, "OpenAlex works closest in meaning to the text given"
    else:
        wanted = list_arguments(kind, args)
        page, notes = online(lambda http: openalex.entity_page(http.session("openalex"), kind, **wanted))
        query, heading = wanted["query"], None
        more = (f"`lit-search {kind.name} list … --cursor {page.next_cursor}` (the same query and filters)"
                if page.next_cursor else None)
    for note in notes:
        console.say(note)
    if args.format == "json":
        text = json_text({"entity": kind.name, "query": query, "count": page.count, "filters": notes,
                          "results": page.items, "next_cursor": page.next_cursor})
    else:
        text = render.entity_list_markdown(kind, page.items, query=None if heading else query, count=page.count,
                                           notes=notes, more=more, heading=heading)
    write_output(text, settings)
    return ExitCode.OK
