"""What the commands that print papers share (search, snowball, rerun): their result options
(``--format``, ``-o``, ``--abstracts``/``--no-abstracts``), the format chosen from them, the
terminal view or the one renderer every door uses (runtime/results.py), and the writer. One
place, so the commands agree and import nothing from one another."""

from __future__ import annotations

import argparse
from typing import Any

from ..biblio.formats import extensions_for
from ..core.text import plural
from ..runtime.results import RESULT_FORMATS, TERMINAL_VIEW, render_result
from .common import output_format, view_format, write_output

OUTPUT_HELP = f"write to FILE (format from its extension: {extensions_for(RESULT_FORMATS, last=', ')})"


def add_result_options(parser: argparse.ArgumentParser, format_help: str, output_help: str = OUTPUT_HELP) -> None:
    """--format, -o/--output and --abstracts | --no-abstracts."""
    parser.add_argument("--format", choices=RESULT_FORMATS, default=None, help=format_help)
    parser.add_argument("-o", "--output", metavar="FILE", help=output_help)
    add_abstract_options(parser)


def add_rerank_option(parser: argparse.ArgumentParser) -> None:
    """--rerank semantic|none (search, snowball)."""
    from ..search.options import RERANK_MODES

    parser.add_argument("--rerank", choices=RERANK_MODES, default=None,
                        help="semantic: re-rank the top 30 by meaning with the optional sentence-embedding model "
                             "(pip install 'lit-search[semantic]'; the model is fetched once, on the first "
                             "--rerank semantic or with `lit-search doctor --install semantic`); none: the lexical "
                             "order. Default: semantic when the re-ranker and its model are installed, else none")


def rerank_mode(requested: str | None, console: Any) -> str | None:
    """The re-ranking to search with: the variables checked, and on an explicit --rerank semantic
    the model fetched once when missing (one line); a failed fetch keeps the lexical order, said
    in one line."""
    from ..semantic.prepare import prepared_mode

    mode, note = prepared_mode(requested, say=console.say)
    if note:
        console.warn(note)
    return mode


def add_abstract_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--abstracts", action="store_true",
                       help="the abstract's first 100 words under each paper in the terminal view "
                            "(markdown and json always have them)")
    group.add_argument("--no-abstracts", action="store_true",
                       help="leave out abstract snippets (markdown) and abstracts/TLDRs (json)")


def abstracts_wanted(args: argparse.Namespace) -> bool | None:
    """--abstracts True, --no-abstracts False, neither None (the format's own default)."""
    return True if args.abstracts else False if args.no_abstracts else None


def result_format(args: argparse.Namespace) -> str:
    """The output format of a command that prints results (search, snowball, rerun):
    --format, or -o's extension, else the terminal view on a terminal and markdown elsewhere."""
    if args.format == TERMINAL_VIEW or (args.format is None and not args.output):
        return view_format(args.format, args.output)
    return output_format(args.output, args.format, RESULT_FORMATS, "markdown")


def write_result(result: Any, limit: int, fmt: str, settings: Any, path: str | None,
                 abstracts: bool | None = None, nothing_found: str | None = None) -> None:
    """A search's (or a snowball's, or a rerun's) result to stdout, or to ``path`` with one line
    saying so. ``abstracts`` None: the terminal view leaves them out, Markdown and JSON keep them.
    ``nothing_found``: said instead of "No papers found" when no row is shown (rerun)."""
    if fmt == TERMINAL_VIEW:
        from ..render.terminal import terminal_width
        from ..render.terminal_results import results_view

        output = results_view(result, limit, terminal_width(), abstracts=bool(abstracts), nothing_found=nothing_found)
    else:
        output = render_result(result, limit, fmt, include_abstracts=abstracts is not False,
                               nothing_found=nothing_found)
    write_output(output, settings, path)
    if path:
        say_written(min(limit, result.total_count), path, fmt, settings)


def say_written(count: int, path: str, fmt: str, settings: Any) -> None:
    """The one line (on stdout, after the file is written) that says what went where."""
    write_output(f"Wrote {plural(count, 'paper')} to {path} ({fmt}).\n", settings)

