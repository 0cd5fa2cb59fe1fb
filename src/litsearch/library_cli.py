"""``lit-search library list|show ID|export|remove ID|link``: the saved papers, offline."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Sequence

from .argparsing import StrictParser, UsageError
from .config import Settings
from .formats import EXPORT_FORMATS, export_papers, format_from_path
from .http import HttpClient
from .library import link_citations, paper_from_record
from .render import markdown_text
from .store import Store, StoreError, default_store_path

EXIT_OK, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_STORE = 0, 2, 3, 4

EPILOG = """\
The library lives in one SQLite file: $LITSEARCH_CACHE_DIR/lit-search.sqlite3, or the
platform's user data folder (on Linux ~/.local/share/lit-search). Papers get there with
`lit-search TOPIC --save`. ID is the library number (#12) or any identifier: a DOI, PMID,
arXiv id, OpenAlex W-id or Semantic Scholar id.
exit codes: 0 ok, 2 usage error, 3 no such paper, 4 the database is damaged or too new."""


def build_parser() -> argparse.ArgumentParser:
    parser = StrictParser(prog="lit-search library", description="The local library of saved papers.",
                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="action", metavar="ACTION")
    commands.required = True
    listing = commands.add_parser("list", help="every saved paper with its citation links")
    listing.add_argument("--format", choices=("markdown", "json"), default="markdown")
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


def _open_store(settings: Settings) -> Store:
    return Store.open(default_store_path(), redact=settings.redact)


def _list(store: Store, fmt: str) -> str:
    papers = store.list_papers()
    if fmt == "json":
        return json.dumps([paper.__dict__ for paper in papers], ensure_ascii=False, indent=2) + "\n"
    if not papers:
        return "The library is empty. Save papers with `lit-search TOPIC --save`.\n"
    lines = ["| # | First author | Title | Year | DOI | Cites | Cited by |", "|---|---|---|---|---|---|---|"]
    for paper in papers:
        lines.append(f"| {paper.id} | {markdown_text(paper.first_author) or '–'} | {markdown_text(paper.title)} | "
                     f"{paper.year or '–'} | {markdown_text(paper.doi) or '–'} | {paper.cites} | {paper.cited_by} |")
    edges = store.citations_among()
    lines.append("")
    lines.append(f"{len(papers)} papers, {len(edges)} citation links among them.")
    return "\n".join(lines) + "\n"


def _show(store: Store, ref: str, fmt: str) -> tuple[str, int]:
    record = store.get_paper(ref)
    if record is None:
        return f"lit-search library: no saved paper {ref!r}\n", EXIT_NOT_FOUND
    library_id = record["library_id"]
    edges = store.citations_among()
    cites = [store.get_paper(cited) for citing, cited in edges if citing == library_id]
    cited_by = [store.get_paper(citing) for citing, cited in edges if cited == library_id]
    if fmt == "json":
        payload = {**record, "cites": [p["library_id"] for p in cites if p],
                   "cited_by": [p["library_id"] for p in cited_by if p]}
        return json.dumps(payload, ensure_ascii=False, indent=2) + "\n", EXIT_OK
    lines = [f"## #{library_id}: {markdown_text(record.get('title'))}", ""]
    authors = ", ".join(record.get("authors") or [])
    lines.append(f"{markdown_text(authors) or '–'} ({record.get('year') or 'n.d.'}). "
                 f"{markdown_text(record.get('journal')) or ''}")
    for label, key in (("DOI", "doi"), ("PMID", "pmid"), ("arXiv", "arxiv_id"), ("OpenAlex", "openalex_id"),
                       ("Semantic Scholar", "paper_id"), ("Link", "citation_uri"), ("Open access", "oa_url")):
        if record.get(key):
            lines.append(f"- {label}: {markdown_text(record[key])}")
    if record.get("abstract"):
        lines += ["", "> " + markdown_text(record["abstract"])]
    for title, papers in (("Cites (in the library)", cites), ("Cited by (in the library)", cited_by)):
        lines += ["", f"### {title}: {len([p for p in papers if p])}"]
        lines += [f"- #{p['library_id']} {markdown_text(p.get('title'))} ({p.get('year') or 'n.d.'})"
                  for p in papers if p]
    return "\n".join(lines) + "\n", EXIT_OK


def _export(store: Store, args: argparse.Namespace) -> tuple[str, int]:
    if args.ids:
        records = [store.get_paper(ref) for ref in args.ids]
        missing = [ref for ref, record in zip(args.ids, records) if record is None]
        if missing:
            return f"lit-search library: no saved paper {', '.join(map(repr, missing))}\n", EXIT_NOT_FOUND
    else:
        records = [store.get_paper(paper.id) for paper in store.list_papers()]
    fmt = args.format or (format_from_path(args.output) if args.output else None) or "bibtex"
    if fmt == "json":
        text = json.dumps(records, ensure_ascii=False, indent=2) + "\n"
    else:
        text = export_papers([paper_from_record(r) for r in records if r], fmt)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        return f"Exported {len(records)} papers to {args.output} ({fmt}).\n", EXIT_OK
    return text, EXIT_OK


def library_command(argv: Sequence[str]) -> int:
    try:
        args = build_parser().parse_args(list(argv))
        settings = Settings.from_env()
    except (UsageError, ValueError) as exc:
        print(f"lit-search library: error: {exc}\nTry 'lit-search library --help'.", file=sys.stderr)
        return EXIT_USAGE
    try:
        with _open_store(settings) as store:
            code = EXIT_OK
            if args.action == "list":
                out = _list(store, args.format)
            elif args.action == "show":
                out, code = _show(store, args.id, args.format)
            elif args.action == "export":
                out, code = _export(store, args)
            elif args.action == "remove":
                removed = store.remove_paper(args.id)
                out = f"Removed {args.id}.\n" if removed else f"lit-search library: no saved paper {args.id!r}\n"
                code = EXIT_OK if removed else EXIT_NOT_FOUND
            else:  # link
                out = _relink(store, settings)
    except StoreError as exc:
        print(f"lit-search library: {exc}", file=sys.stderr)
        return EXIT_STORE
    except OSError as exc:
        print(f"lit-search library: cannot write: {exc}", file=sys.stderr)
        return EXIT_USAGE
    stream = sys.stdout if code == EXIT_OK else sys.stderr
    stream.write(settings.redact(out))
    return code


def _relink(store: Store, settings: Settings) -> str:
    async def go() -> tuple[int, list[str]]:
        async with HttpClient(settings) as http:
            return await link_citations(http, store)

    new, notes = asyncio.run(go())
    return "".join(f"note: {n}\n" for n in notes) + f"{new} new citation links; " \
        f"{len(store.citations_among())} in all.\n"
