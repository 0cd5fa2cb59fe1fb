"""``lit-search network ID [ID...]``: the citation network around a few seed papers, as a
Mermaid flowchart with the references they share (Markdown), Graphviz DOT, or JSON."""

from __future__ import annotations

import time
from typing import Sequence

from ..core.errors import ExitCode, UsageError
from ..core.identifiers import parse_paper_ref
from ..core.sanitize import json_text
from ..graph.limits import (
    MAX_EXPANDED_NODES,
    MAX_MERMAID_NODES,
    MAX_NETWORK_NODES,
    MAX_SEEDS,
)
from .common import (
    Console,
    add_cache_options,
    add_quiet_option,
    cache_mode,
    fetch,
    load_settings,
    new_parser,
    run_command,
    write_output,
)
from .paper import ID_EPILOG

PROG = "lit-search network"

DESCRIPTION = """\
Draw the citation network around one or more seed papers: the seeds, their references and
the papers citing them, as a Mermaid flowchart (markdown), Graphviz DOT or JSON. The
markdown also lists the references two or more seeds share: the papers they build on."""

EPILOG = f"""\
depth: 1 = the seeds, their references and citing papers; 2 also fetches the references of
  the {MAX_EXPANDED_NODES} references most shared by the seeds, stopping at {MAX_NETWORK_NODES} papers.
  The Mermaid drawing shows the {MAX_MERMAID_NODES} best-connected papers; DOT and JSON have all.
  At most {MAX_SEEDS} seeds (Semantic Scholar answers one request a second).
{ID_EPILOG.replace("the paper could not be fetched", "no seed could be fetched").replace("no provider has it", "no provider has any seed")}"""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("ids", nargs="+", metavar="ID", help="seed papers (any id form, as for 'paper')")
    parser.add_argument("--depth", type=int, choices=(1, 2), default=1, help="1 (default) or 2, see below")
    parser.add_argument("--format", choices=("markdown", "json", "dot"), default="markdown",
                        help="markdown with a Mermaid flowchart (default), JSON, or Graphviz DOT")
    add_quiet_option(parser)
    add_cache_options(parser)
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: network_command(argv))


def network_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    refs = list(dict.fromkeys(parse_paper_ref(text) for text in args.ids))
    if len(refs) > MAX_SEEDS:
        raise UsageError(f"{len(refs)} seed papers given; the limit is {MAX_SEEDS}")
    settings = load_settings()
    console = Console(settings, args.quiet)
    started = time.monotonic()
    from ..graph.network import build_network

    network = fetch(settings, cache_mode(args), console,
                    lambda http, _store: build_network(http, refs, depth=args.depth, progress=console.say))
    for line in network.failed_seeds:
        console.say(f"failed: {line}")
    for note in network.notes:
        console.say(f"note: {note}")
    console.say(f"{len(network.nodes)} papers and {len(network.edges)} citation links "
                f"({sum(network.requests.values())} requests, {time.monotonic() - started:.1f} s)")
    from ..render.network import network_markdown, network_payload, to_dot

    if args.format == "json":
        text = json_text(network_payload(network))
    elif args.format == "dot":
        text = to_dot(network)
    else:
        text = network_markdown(network)
    write_output(text, settings)
    return ExitCode.OK
