"""``lit-search paper ID``: one paper's merged record (Semantic Scholar and OpenAlex) with
its most cited references and citing papers. stdout carries the product; progress and
notes go to stderr."""

from __future__ import annotations

import time
from typing import Sequence

from ..core.errors import ExitCode
from ..core.identifiers import parse_paper_ref
from ..core.sanitize import json_text
from ..runtime.console import Console
from ..runtime.results import TERMINAL_VIEW
from ..runtime.settings import load_settings
from ..search.options import MAX_LIMIT, check_limit
from .common import (
    PAPER_ID_EPILOG,
    add_cache_options,
    add_quiet_option,
    cache_mode,
    fetch,
    new_parser,
    run_command,
    view_format,
    whole_number,
    write_output,
)

PROG = "lit-search paper"

DESCRIPTION = """\
Show one paper: its record merged from Semantic Scholar and OpenAlex (title, authors,
year, venue, identifiers, abstract, TL;DR, open-access link), then its references and the
papers citing it, each ranked by citation count."""

def build_parser():
    parser = new_parser(PROG, DESCRIPTION, PAPER_ID_EPILOG)
    parser.add_argument("id", metavar="ID", help="the paper: DOI, PMID, arXiv id, Semantic Scholar or OpenAlex id")
    parser.add_argument("--format", choices=("markdown", TERMINAL_VIEW, "json"), default=None,
                        help="table: a view sized to the terminal (the default when stdout is one); markdown: "
                             "the record and tables (the default otherwise); json: every fetched paper")
    parser.add_argument("--limit", type=whole_number, default=10, metavar="N",
                        help=f"rows in each markdown table, 1-{MAX_LIMIT} (default 10)")
    add_quiet_option(parser)
    add_cache_options(parser)
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: paper_command(argv))


def paper_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    fmt = view_format(args.format)
    ref = parse_paper_ref(args.id)
    check_limit(args.limit)
    settings = load_settings()
    console = Console(settings, args.quiet)
    started = time.monotonic()
    from ..graph.bundle import fetch_paper_bundle

    async def work(http, _store):
        return await fetch_paper_bundle(http, ref, progress=console.say), sum(http.request_counts.values())

    bundle, requests = fetch(settings, cache_mode(args), console, work)
    for note in bundle.notes:
        console.say(f"note: {note}")
    console.say(f"{len(bundle.references)} references and {len(bundle.citations)} citing papers fetched "
                f"({requests} requests, {time.monotonic() - started:.1f} s)")
    from ..render.paper import paper_markdown, paper_payload

    if fmt == "json":
        text = json_text(paper_payload(bundle))
    elif fmt == TERMINAL_VIEW:
        from ..render.terminal import terminal_width
        from ..render.terminal_pages import paper_view

        text = paper_view(bundle, args.limit, terminal_width())
    else:
        text = paper_markdown(bundle, args.limit)
    write_output(text, settings)
    return ExitCode.OK
