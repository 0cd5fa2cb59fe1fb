"""``lit-search paper ID``: one paper's merged record (Semantic Scholar and OpenAlex) with
its most cited references and citing papers. stdout carries the product; progress and
notes go to stderr."""

from __future__ import annotations

import time
from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..core.identifiers import ID_HELP, parse_paper_ref
from ..core.sanitize import json_text
from .common import (
    TERMINAL_VIEW,
    Console,
    add_cache_options,
    add_quiet_option,
    cache_mode,
    fetch,
    load_settings,
    new_parser,
    run_command,
    view_format,
    write_output,
)

PROG = "lit-search paper"
MAX_LIMIT = 100

DESCRIPTION = """\
Show one paper: its record merged from Semantic Scholar and OpenAlex (title, authors,
year, venue, identifiers, abstract, TL;DR, open-access link), then its references and the
papers citing it, each ranked by citation count."""

ID_EPILOG = f"""\
ids: {ID_HELP}.
sources: Semantic Scholar first for references (one page of 100) and citing papers (all it
  lists when they fit in one page of 1,000; else OpenAlex's 100 most cited are added, sorted by
  citations on its server); OpenAlex when Semantic Scholar fails, lacks the paper or lists
  none; PubMed for a paper with a PMID (retraction and notices). What the citing list covers is
  said under it. A provider that fails is reported in the notes; the command still prints what
  the others gave.
{EXIT_CODES_HELP}
  Here: 3 the paper could not be fetched (every provider failed), 5 no provider has it."""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, ID_EPILOG)
    parser.add_argument("id", metavar="ID", help="the paper: DOI, PMID, arXiv id, Semantic Scholar or OpenAlex id")
    parser.add_argument("--format", choices=("markdown", TERMINAL_VIEW, "json"), default=None,
                        help="table: a view sized to the terminal (the default when stdout is one); markdown: "
                             "the record and tables (the default otherwise); json: every fetched paper")
    parser.add_argument("--limit", type=int, default=10, metavar="N",
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
    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, not {args.limit}")
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
