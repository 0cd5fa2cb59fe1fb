"""``lit-search zotero push``: papers into a Zotero collection, without duplicates.

stdout carries the account (each paper skipped or failed, then the summary line); progress
and notes go to stderr."""

from __future__ import annotations

from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode
from ..zotero.declaration import CONNECTOR, WEB_API
from ..runtime.console import Console
from ..runtime.settings import load_settings
from .common import new_parser, run_command, write_output
from .interrupt import run_async

PROG = "lit-search zotero"

DESCRIPTION = """\
Send papers to a Zotero collection: the ids given, the papers of a results file, or the
local library. Papers already in the Zotero library (same DOI, else same PMID or arXiv id,
else same title and year) are skipped and named, never added twice."""

EPILOG = f"""\
routes (--via):
  api        the Zotero Web API: the default when ZOTERO_API_KEY and ZOTERO_LIBRARY_ID are set
             (ZOTERO_LIBRARY_TYPE=user, the default, or group). The collection is created when
             missing; items are checked against Zotero's schema and written 50 at a time; a
             paper already in the library but not in the collection is added to it.
  connector  Zotero desktop's local connector (Zotero must be running): the default without a
             key. Papers are imported as RIS into the collection selected in Zotero, then moved
             into --collection when Zotero has a collection of that name (the connector cannot
             create one). Duplicates are skipped only when Zotero's local API is switched on.
inputs: IDS are library numbers (#12) or paper ids (DOI, PMID, arXiv, Semantic Scholar, OpenAlex);
  --from takes lit-search's JSON (a search or snowball with --format json, a search record from
  --record, or `library export --format json`); --from-library takes every saved paper.
environment: ZOTERO_API_KEY, ZOTERO_LIBRARY_ID, ZOTERO_LIBRARY_TYPE, {WEB_API.url_variable} (default
  {WEB_API.base_url}), {CONNECTOR.url_variable} (default {CONNECTOR.base_url}).
  The key is never printed.
{EXIT_CODES_HELP}
  Here: 3 Zotero could not be reached, refused the key, or failed at least one paper (each is
  named); 5 a paper id is unknown.
examples:
  lit-search zotero push --from results.json --collection "CRISPR review"
  lit-search zotero push 10.1038/nbt.2647 #3 --collection "To read" --via connector"""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    push = actions.add_parser("push", help="send papers to a Zotero collection", description=DESCRIPTION,
                              epilog=EPILOG, formatter_class=parser.formatter_class)
    push.add_argument("ids", nargs="*", metavar="ID", help="papers: library numbers (#12) or DOIs, PMIDs, arXiv ids…")
    push.add_argument("--from", dest="from_file", metavar="RESULTS.json",
                      help="the papers of a lit-search JSON file (search, snowball, record or library export)")
    push.add_argument("--from-library", action="store_true", help="every paper saved in the local library")
    push.add_argument("--collection", required=True, metavar="NAME", help="the Zotero collection to put them in")
    push.add_argument("--via", choices=("api", "connector"),
                      help="api (needs ZOTERO_API_KEY and ZOTERO_LIBRARY_ID; the default when they are set) or "
                           "connector (Zotero desktop)")
    push.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: zotero_command(argv))


def zotero_command(argv: Sequence[str]) -> int:
    from ..render.zotero import push_report
    from ..zotero.run import push_to_zotero
    from ..runtime.online import opened_cache

    args = build_parser().parse_args(list(argv))
    settings = load_settings()
    console = Console(settings, args.quiet)
    store_needed = args.from_library or any(ref.strip().lstrip("#").isdigit() for ref in args.ids)
    with opened_cache(settings, "normal", console, store_needed=store_needed) as (_cache, store):
        summary, notes = run_async(push_to_zotero(args.ids, args.from_file, args.from_library,
                                                    collection=args.collection, via=args.via, settings=settings,
                                                    store=store, progress=console.say))
    # Notes are about the papers themselves (entries skipped, duplicates unchecked): shown even with -q.
    for note in notes + summary.notes:
        console.warn(f"note: {note}")
    write_output(push_report(summary), settings)
    return ExitCode.ALL_FAILED if summary.count("failed") else ExitCode.OK
