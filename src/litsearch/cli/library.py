"""``lit-search library list|show ID|export|remove ID|link``: the saved papers, offline
(but for ``link``, which fetches reference lists again)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Sequence

from ..biblio.formats import EXPORT_FORMATS
from ..core.config import Settings
from ..core.errors import EXIT_CODES_HELP, ExitCode, NotFound
from ..core.sanitize import json_text
from ..runtime.console import Console
from ..runtime.results import TERMINAL_VIEW
from ..runtime.settings import load_settings
from .common import fetch, new_parser, output_format, run_command, view_format, write_output

PROG = "lit-search library"
ACTIONS = ("list", "show", "export", "remove", "link")

EPILOG = f"""\
The library lives in one SQLite file: $LITSEARCH_CACHE_DIR/lit-search.sqlite3, or the
platform's user data folder (on Linux ~/.local/share/lit-search). Papers get there with
`lit-search TOPIC --save`. ID is the library number (#12) or any identifier: a DOI, PMID,
arXiv id, OpenAlex W-id or Semantic Scholar id. A retracted paper is marked (⚠ RETRACTED) and a
corrected one noted in `list` and `show`, as known when it was saved; `list --retracted` shows only
the retracted ones.
{EXIT_CODES_HELP}"""


def build_parser() -> argparse.ArgumentParser:
    parser = new_parser(PROG, "The local library of saved papers.", EPILOG)
    commands = parser.add_subparsers(dest="action", metavar="ACTION")
    commands.required = True
    listing = commands.add_parser("list", help="every saved paper with its citation links")
    listing.add_argument("--format", choices=("markdown", TERMINAL_VIEW, "json"), default=None,
                         help="table: a view sized to the terminal (the default when stdout is one); markdown "
                              "(the default otherwise); json")
    listing.add_argument("--retracted", action="store_true",
                         help="only the retracted papers (as known when each was saved), to check a saved set "
                              "before submission")
    show = commands.add_parser("show", help="one saved paper, with the library papers it cites and that cite it")
    show.add_argument("id")
    show.add_argument("--format", choices=("markdown", "json"), default="markdown")
    export = commands.add_parser("export", help="all saved papers (or some) as BibTeX, RIS, CSL-JSON or JSON")
    export.add_argument("ids", nargs="*", metavar="ID", help="papers to export (default: all)")
    export.add_argument("--format", choices=EXPORT_FORMATS + ("json",), default=None,
                        help="default: from the -o extension, else bibtex")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    remove = commands.add_parser("remove", help="delete a saved paper and its citation links")
    remove.add_argument("id")
    commands.add_parser("link", help="fetch reference lists again and update the citation links (online)")
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: library_command(argv))


def library_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    settings = load_settings()
    if args.action == "export":  # an unusable -o is refused before anything is read
        args.format = output_format(args.output, args.format, EXPORT_FORMATS + ("json",), "bibtex")
    from ..library.store import Store

    # list, show and export only read: they open the file read-only (a read-only or full disk is fine).
    read_only = args.action in ("list", "show", "export")
    with Store.open(redact=settings.redact, read_only=read_only) as store:
        if args.action == "list":
            out = _list(store, view_format(args.format), args.retracted)
        elif args.action == "show":
            out = _show(store, args.id, args.format)
        elif args.action == "export":
            out = _export(store, args, settings)
        elif args.action == "remove":
            if not store.remove_paper(args.id):
                raise NotFound(f"no saved paper {args.id!r}")
            out = f"Removed {args.id}.\n"
        else:  # link
            out = _relink(store, settings)
    write_output(out, settings)
    return ExitCode.OK


def _list(store, fmt: str, retracted_only: bool = False) -> str:
    saved = store.list_papers()
    papers = [paper for paper in saved if paper.retracted] if retracted_only else saved
    if fmt == "json":
        return json_text([dataclasses.asdict(paper) for paper in papers])
    if fmt == TERMINAL_VIEW:
        from ..render.terminal import terminal_width
        from ..render.terminal_pages import library_view

        return library_view(papers, len(store.citations_among()), terminal_width(), retracted_only, len(saved))
    from ..render.library import library_listing

    return library_listing(papers, len(store.citations_among()), retracted_only, len(saved))


def _show(store, ref: str, fmt: str) -> str:
    record = store.get_paper(ref)
    if record is None:
        raise NotFound(f"no saved paper {ref!r}")
    library_id = record["library_id"]
    edges = store.citations_among()
    cites = [p for p in (store.get_paper(cited) for citing, cited in edges if citing == library_id) if p]
    cited_by = [p for p in (store.get_paper(citing) for citing, cited in edges if cited == library_id) if p]
    if fmt == "json":
        payload = {**record, "cites": [p["library_id"] for p in cites], "cited_by": [p["library_id"] for p in cited_by]}
        return json_text(payload)
    from ..render.library import saved_paper

    return saved_paper(record, cites, cited_by)


def _export(store, args: argparse.Namespace, settings: Settings) -> str:
    if args.ids:
        records = [store.get_paper(ref) for ref in args.ids]
        missing = [ref for ref, record in zip(args.ids, records) if record is None]
        if missing:
            raise NotFound(f"no saved paper {', '.join(map(repr, missing))}")
    else:
        records = [store.get_paper(paper.id) for paper in store.list_papers()]
    fmt = args.format
    if fmt == "json":
        text = json_text(records)
    else:
        from ..biblio.formats import export_papers
        from ..library.record import paper_from_record

        text = export_papers([paper_from_record(r) for r in records if r], fmt)
    if args.output:
        write_output(text, settings, args.output)
        return f"Exported {len(records)} papers to {args.output} ({fmt}).\n"
    return text


def _relink(store, settings: Settings) -> str:
    from ..graph.links import link_citations

    # Fetched anew (the cache is written, not read), so a later --save reuses the fresh lists.
    new, notes = fetch(settings, "refresh", Console(settings), lambda http, _cache_store: link_citations(http, store))
    return "".join(f"note: {n}\n" for n in notes) + f"{new} new citation links; " \
        f"{len(store.citations_among())} in all.\n"
