"""``lit-search snowball SEED… [--direction backward|forward|both] [--topic TEXT] [--limit N]``:
citation chasing from seed papers into one deduplicated, ranked list, with the same outputs
as a search (table, JSON, every export format, --save, --record)."""

from __future__ import annotations

import time
from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, UsageError
from ..core.identifiers import ID_HELP, PaperRef, id_kind, parse_paper_ref, record_identities
from ..core.sanitize import json_text
from ..graph.limits import MAX_SEEDS
from ..runtime.console import Console
from ..runtime.settings import load_settings
from ..search.options import MAX_LIMIT, check_limit
from .common import (
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
from .results import abstracts_wanted, add_rerank_option, add_result_options, rerank_mode, result_format, write_result

PROG = "lit-search snowball"

DESCRIPTION = """\
Chase citations from seed papers: backward (the papers they cite), forward (the papers citing
them) or both. Every paper found goes through the search's merge engine, so one reached from
several seeds or sources is one row; its JSON "via" says which seeds it connects to and how.
Ranked by the number of seeds connected, then relevance to --topic (title and abstract), then
citations; the seeds themselves are left out. DOIs are checked at Crossref (with retraction
notices) and open-access links looked up, as for a search."""

EPILOG = f"""\
seeds: {ID_HELP}; or --from-library for every paper saved in the library. At most {MAX_SEEDS}.
reach: each seed's reference list (Semantic Scholar first, OpenAlex when it lacks the paper)
  and its citing papers: all that Semantic Scholar lists when they fit in one page of 1,000,
  else with OpenAlex's 100 most cited added (sorted by citations on its server); the footer
  states what was covered for each seed, and the counts.
{EXIT_CODES_HELP}
  Here: 3 no seed could be fetched, 5 no provider has any seed."""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("seeds", nargs="*", metavar="SEED", help="seed papers (any id form, as for 'paper')")
    parser.add_argument("--from-library", action="store_true", help="use every paper in the library as a seed")
    parser.add_argument("--direction", choices=("backward", "forward", "both"), default="both",
                        help="backward = their references, forward = papers citing them, both (default)")
    parser.add_argument("--topic", metavar="TEXT", help="rank papers about this topic first among equals")
    parser.add_argument("--limit", type=whole_number, default=20, metavar="N", help=f"papers shown, 1-{MAX_LIMIT} (default 20)")
    add_result_options(parser, "table (a terminal view, the default on a terminal), markdown (the default "
                               "elsewhere), JSON, or an export format")
    parser.add_argument("--save", action="store_true", help="keep the shown papers in the local library")
    add_rerank_option(parser)
    parser.add_argument("--record", metavar="FILE", help="write a JSON search record (see `lit-search report`)")
    parser.add_argument("--no-verify", action="store_true", help="skip the Crossref checks and Unpaywall lookups")
    add_quiet_option(parser)
    add_cache_options(parser)
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: snowball_command(argv))


def snowball_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    check_limit(args.limit)
    if bool(args.seeds) == args.from_library:
        raise UsageError("give seed ids or --from-library (one of the two)")
    seeds = [(text, parse_paper_ref(text)) for text in dict.fromkeys(args.seeds)]
    if len(seeds) > MAX_SEEDS:
        raise UsageError(f"{len(seeds)} seed papers given; the limit is {MAX_SEEDS}")
    fmt = result_format(args)
    check_file_target(args.record, "--record", example="search.json")
    settings = load_settings()
    console = Console(settings, args.quiet)
    rerank = rerank_mode(args.rerank, console) if args.topic else args.rerank
    if args.rerank == "semantic" and not args.topic:
        console.warn("--rerank semantic re-ranks by meaning against --topic, which is not given; order kept")
    started = time.monotonic()

    async def work(http, store):
        chosen = seeds or _library_seeds(store)
        from ..graph.chased import as_search_result
        from ..graph.links import save_shown
        from ..graph.snowball import snowball

        found = await snowball(http, chosen, args.direction, args.topic, progress=console.say, rerank=rerank)
        result = await as_search_result(http, found, args.limit, not args.no_verify, started)
        note, error = (None, None)
        if args.save and store is not None and result.results:
            note, error = await save_shown(http, store, result.results[: args.limit])
        return found, result, note, error

    found, result, saved_note, save_error = fetch(settings, cache_mode(args), console, work,
                                                  store_needed=args.save or args.from_library)
    for seed in found.seeds:
        if seed.error:
            console.warn(f"seed {seed.label}: {seed.error}")
    if saved_note:
        result.enrichment.notes.append(saved_note)
    if args.record:
        from ..search.record import snowball_record

        write_output(json_text(snowball_record(found, result, args)), settings, args.record)
    write_result(result, args.limit, fmt, settings, args.output, abstracts=abstracts_wanted(args))
    if save_error is not None:
        console.warn(str(save_error))
        return save_error.exit_code
    return found.exit_code


def _library_seeds(store) -> list:
    """(label, PaperRef) of each library paper, by its best id."""
    if store is None:
        raise UsageError("--from-library needs the library, which could not be opened")
    seeds = []
    for listed in store.list_papers():
        identities = record_identities(store.get_paper(listed.id) or {})  # normalized, strongest first
        if identities:
            field, value = identities[0]
            seeds.append((value, PaperRef(id_kind(field).short, value)))
    if not seeds:
        raise UsageError("the library is empty: save papers first (lit-search TOPIC --save)")
    if len(seeds) > MAX_SEEDS:
        raise UsageError(f"the library holds {len(seeds)} papers; snowball takes at most {MAX_SEEDS} seeds: "
                         "give the seeds' ids instead")
    return seeds
