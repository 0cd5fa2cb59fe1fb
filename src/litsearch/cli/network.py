"""``lit-search network ID [ID...]``: the citation network around a few seed papers, as a
Mermaid flowchart with the references they share (Markdown), Graphviz DOT, or JSON."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Sequence

from ..core.errors import ExitCode, InputError, UsageError
from ..core.identifiers import parse_paper_ref
from ..core.sanitize import json_text
from ..graph.limits import (
    MAX_EXPANDED_NODES,
    MAX_MERMAID_NODES,
    MAX_NETWORK_NODES,
    MAX_SEEDS,
)
from ..runtime.console import Console
from ..runtime.files import write_file_atomically
from ..runtime.settings import load_settings
from .common import (
    PAPER_ID_EPILOG,
    add_cache_options,
    add_quiet_option,
    cache_mode,
    check_file_target,
    fetch,
    new_parser,
    run_command,
    whole_number,
    write_output,
)

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
files: -o net.md, net.json or net.dot writes that format; -o net.svg, net.png or net.pdf draws
  the DOT with Graphviz's `dot` program (install Graphviz: apt install graphviz, brew install
  graphviz), checked before anything is fetched. The file is written whole or not at all;
  `... --format dot | dot -Tsvg > net.svg` would leave an empty net.svg when dot is missing,
  because the shell creates it first.
{PAPER_ID_EPILOG.replace("the paper could not be fetched", "no seed could be fetched").replace("no provider has it", "no provider has any seed")}"""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("ids", nargs="+", metavar="ID", help="seed papers (any id form, as for 'paper')")
    parser.add_argument("--depth", type=whole_number, choices=(1, 2), default=1, help="1 (default) or 2, see below")
    parser.add_argument("--format", choices=("markdown", "json", "dot"), default=None,
                        help="markdown with a Mermaid flowchart (default), JSON, or Graphviz DOT; "
                             "with -o, taken from the file's extension")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE: .md, .json, .dot, or .svg/.png/.pdf drawn by Graphviz (needs dot)")
    add_quiet_option(parser)
    add_cache_options(parser)
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: network_command(argv))


def network_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    fmt, drawing = _output_format(args.output, args.format)
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

    if fmt == "json":
        text = json_text(network_payload(network))
    elif fmt == "dot":
        text = to_dot(network)
    else:
        text = network_markdown(network)
    if drawing:
        write_file_atomically(Path(args.output), _drawn(text, drawing))
    else:
        write_output(text, settings, args.output)
    if args.output:
        write_output(f"Wrote {len(network.nodes)} papers and {len(network.edges)} citation links to "
                     f"{args.output} ({drawing.upper() + ' drawn by Graphviz' if drawing else fmt}).\n", settings)
    return ExitCode.OK


NETWORK_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".dot": "dot", ".gv": "dot"}
DRAWINGS = (".svg", ".png", ".pdf")  # drawn by Graphviz from the DOT
GRAPHVIZ = "dot"


def _output_format(path: str | None, option: str | None) -> tuple[str, str | None]:
    """(the format to render, the Graphviz output type or None), checked before any fetching:
    -o's extension, agreeing with --format when both are given; a drawing needs dot."""
    if not path:
        return option or "markdown", None
    check_file_target(path, "-o", example="net.svg")
    suffix = Path(path).suffix.lower()
    named = "dot" if suffix in DRAWINGS else NETWORK_EXTENSIONS.get(suffix)
    if named is None:
        raise UsageError(f"-o {path}: unknown extension; use .md, .json, .dot, .svg, .png or .pdf")
    if option is not None and option != named:
        raise UsageError(f"-o {path} names {named} but --format asks for {option}; use one, or make them agree")
    if suffix in DRAWINGS and shutil.which(GRAPHVIZ) is None:
        raise UsageError(f"-o {path}: drawing {suffix[1:].upper()} needs Graphviz's dot program, which is not on "
                         f"PATH; install Graphviz (apt install graphviz, brew install graphviz), or write the DOT "
                         f"with -o {Path(path).with_suffix('.dot')} and draw it later")
    return named, suffix[1:] if suffix in DRAWINGS else None


def _drawn(dot_text: str, kind: str) -> bytes:
    """The DOT drawn by Graphviz as ``kind`` (svg, png, pdf); its failure is one line."""
    try:
        run = subprocess.run([GRAPHVIZ, f"-T{kind}"], input=dot_text.encode("utf-8"), capture_output=True,
                             timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"Graphviz's dot could not draw the network: {exc}") from None
    if run.returncode != 0 or not run.stdout:
        reason = (run.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {run.returncode}"])[0]
        raise InputError(f"Graphviz's dot could not draw the network: {reason}")
    return run.stdout
