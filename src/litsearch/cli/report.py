"""``lit-search report RECORD [--format markdown|json] [-o OUT]``: the methods paragraph (PRISMA-S style)
and the PRISMA 2020 identification table of a search record written with --record."""

from __future__ import annotations

from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode
from ..core.sanitize import json_text
from ..runtime.results import TERMINAL_VIEW
from ..runtime.settings import load_settings
from .common import add_quiet_option, new_parser, output_format, run_command, view_format, write_output

PROG = "lit-search report"

DESCRIPTION = """\
Turn a search record (written by `lit-search TOPIC --record FILE` or `lit-search snowball ...
--record FILE`) into a methods paragraph a systematic review can cite (sources, date searched,
the exact search string sent to each source, limits and filters, deduplication) and a PRISMA
2020 identification table (records per source, duplicates removed, records screened), whose
numbers add up, then every request as it was sent. A deep-search session file (`lit-search
deep`) gives its methods paragraph and a table of its rounds instead: what each round searched
and chased, the papers judged and found relevant, the stop rule and why it fired."""

EPILOG = f"""\
{EXIT_CODES_HELP}
  Here: 2 when RECORD cannot be read or is not a search record."""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("record", metavar="RECORD", help="a JSON search record written with --record")
    parser.add_argument("--format", choices=("markdown", TERMINAL_VIEW, "json"), default=None,
                        help="table: a view sized to the terminal (the default when stdout is one); markdown "
                             "(the default otherwise); or JSON with the same parts")
    parser.add_argument("-o", "--output", metavar="OUT", default=None,
                        help="write to OUT (format from its extension: .md or .json; or as --format names it)")
    add_quiet_option(parser)  # accepted as by the deep steps: a report sends no request and prints no progress
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: report_command(argv))


def report_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    from ..deep.session_file import read_report_input
    from ..render.report import report_markdown, report_payload

    fmt = view_format(args.format, args.output)
    if args.output:  # checked before the record is read: a bad target costs nothing
        fmt = output_format(args.output, args.format, ("markdown", "json"), "markdown")
    session, record = read_report_input(args.record)
    if session is not None:  # a deep-search session: its methods text, round by round
        from ..render.deep import methods_text, methods_view

        text = methods_text(session)
        if fmt == TERMINAL_VIEW:
            from ..render.terminal import terminal_width

            text = methods_view(session, terminal_width())
        elif fmt == "json":
            from ..render.deep import methods_payload

            text = json_text(methods_payload(session))
        return _written(text, args.output)
    if fmt == TERMINAL_VIEW:
        from ..render.terminal import terminal_width
        from ..render.terminal_pages import report_view

        text = report_view(record, terminal_width())
    else:
        text = json_text(report_payload(record)) if fmt == "json" else report_markdown(record)
    return _written(text, args.output)


def _written(text: str, path: str | None) -> int:
    """The report to stdout, or to ``path`` (replaced atomically) with one line saying so."""
    settings = load_settings()
    write_output(text, settings, path)
    if path:
        write_output(f"Wrote the report to {path}.\n", settings)
    return ExitCode.OK
