"""``lit-search rerun RECORD``: repeat a recorded search (or citation chase) today, with the
same topic, variants, providers, filters and limits, fresh from the APIs, and show only the
papers that are new since the record (by any of their ids). The "what's new" alert of a
living review; ``--record FILE`` writes today's record."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time
from typing import Any, Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, InputError, UsageError
from ..core.identifiers import parse_paper_ref, record_identities
from ..core.sanitize import json_text
from ..core.text import fold_title
from ..runtime.console import Console
from ..runtime.settings import load_settings
from ..search.options import check_limit
from .common import add_quiet_option, check_file_target, fetch, new_parser, run_command, write_output
from .results import abstracts_wanted, add_result_options, result_format, write_result

PROG = "lit-search rerun"
DEFAULT_LIMIT = 20  # a record without a limit: the command line's default

DESCRIPTION = """\
Repeat a recorded search today (the same requests: topic, variants, providers, filters,
limit; not from the cache) and show only the papers that were not in the record, in the
same table. A paper counts as known when it shares any id (DOI, PMID, arXiv, Semantic
Scholar, OpenAlex), or its title and year, with any paper the recorded search found, shown
or ranked below the limit."""

EPILOG = f"""\
{EXIT_CODES_HELP}
  Here: 2 when RECORD cannot be read, 3 when every provider failed, 5 when no provider has
  any seed of a recorded snowball."""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("record", metavar="RECORD", help="a JSON search record written with --record")
    add_result_options(parser, "of the new papers: table (a terminal view, the default on a terminal), markdown "
                               "(the default elsewhere), JSON, or an export format")
    parser.add_argument("--record", dest="new_record", metavar="FILE", help="write today's search record")
    add_quiet_option(parser)
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: rerun_command(argv))


def rerun_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    from ..search.record import read_record

    record = read_record(args.record)
    fmt = result_format(args)
    check_file_target(args.new_record, "--record", example="search.json")
    settings = load_settings()
    console = Console(settings, args.quiet)
    # Everything the record asks for is checked before any request is sent.
    if record["kind"] == "snowball":
        seeds, limit = recorded_seeds(record, args.record), _limit(record["options"].get("limit"), args.record)
        result, new_record, limit, code = _rerun_snowball(record, seeds, limit, settings, console)
    else:
        options = recorded_search(record, args.record)
        result, new_record, limit, code = _rerun_search(options, settings, console)
    # Known: every paper the recorded search found, shown or not (records written before
    # "found" existed list only the shown ones).
    found = record.get("found", [])
    known = set().union(*(_identities(entry) for entry in record.get("results", []) + found))
    shown = result.results[:limit]
    fresh = [item for item in shown if not _identities(item.paper.to_dict()) & known]
    result = dataclasses.replace(result, results=fresh)
    nothing_new = (f"Nothing new since the record of {record.get('searched_at', 'an unknown date')}: "
                   f"all {len(shown)} papers shown today were in it.")
    result.enrichment.notes.insert(0, f"rerun of the search recorded {record.get('searched_at', '?')}: "
                                      f"{len(fresh)} new of the {len(shown)} shown today "
                                      f"(the record showed {len(record.get('results', []))} and found "
                                      f"{max(len(found), len(record.get('results', [])))})")
    if args.new_record:
        write_output(json_text(new_record), settings, args.new_record)
    write_result(result, limit, fmt, settings, args.output, abstracts=abstracts_wanted(args), nothing_found=nothing_new)
    return code


def _rerun_search(options, settings, console):
    from ..search.pipeline import run_search
    from ..search.record import search_record

    result = fetch(settings, "refresh", console, lambda http, _store: run_search(options, settings, http=http))
    return result, search_record(options, result), options.limit, \
        ExitCode.ALL_FAILED if result.all_failed else ExitCode.OK


def recorded_search(record: dict[str, Any], record_path: str = "the record"):
    """The SearchOptions a search record asks for, through the command line's own checks
    (topic and variant length, how many variants, provider names, --limit, filters): a
    record says nothing the command line could not have said. InputError otherwise."""
    from ..core.filters import Filters
    from ..search.options import SEARCH_RECORD, checked_options
    from ..search.record import filters_from_dict

    recorded = record.get("options", {})
    with _as_record_problem(record_path):
        filters = filters_from_dict(recorded.get("filters") or {})
        # Unpaywall is listed among a record's providers (it gave links), never searched.
        names = [name for name in recorded.get("providers") or [] if name != "unpaywall"]
        limit = recorded.get("limit")
        # rerank: re-ranked by meaning then, asked again (kept lexical if it cannot run)
        return checked_options(record["topic"], variants=record.get("variants") or [], providers=names,
                               limit=DEFAULT_LIMIT if limit is None else limit,
                               sort=recorded.get("sort", "relevance"),
                               filters=filters if isinstance(filters, Filters) else Filters(),
                               verify=recorded.get("verify", True),
                               exclude_retracted=recorded.get("exclude_retracted", False),
                               rerank=recorded.get("rerank"), names=SEARCH_RECORD)


def recorded_seeds(record: dict[str, Any], record_path: str = "the record") -> list:
    """(label, PaperRef) of each recorded seed, through `snowball`'s own checks: at most
    MAX_SEEDS, each a paper id `paper` accepts. InputError otherwise."""
    from ..graph.limits import MAX_SEEDS

    seeds = record.get("seeds", [])
    with _as_record_problem(record_path):
        if len(seeds) > MAX_SEEDS:
            raise UsageError(f"the record holds {len(seeds):,} seeds; snowball takes at most {MAX_SEEDS}")
        return [(seed["id"], parse_paper_ref(seed["id"])) for seed in seeds]


@contextlib.contextmanager
def _as_record_problem(record_path: str):
    """A value the command line would refuse, refused as the record's: InputError, one line."""
    try:
        yield
    except (UsageError, ValueError) as problem:
        raise InputError(f"{record_path}: {problem}") from None


def _rerun_snowball(record: dict[str, Any], seeds: list, limit: int, settings, console):
    from ..graph.chased import as_search_result
    from ..graph.snowball import DIRECTIONS, snowball
    from ..search.record import snowball_record

    recorded = record.get("options", {})
    args = argparse.Namespace(limit=limit, no_verify=not recorded.get("verify", True))
    started = time.monotonic()

    async def work(http, _store):
        direction = recorded.get("direction") if recorded.get("direction") in DIRECTIONS else "both"
        topic = recorded.get("topic") if isinstance(recorded.get("topic"), str) else None
        found = await snowball(http, seeds, direction, topic, progress=console.say)
        return found, await as_search_result(http, found, args.limit, not args.no_verify, started)

    found, result = fetch(settings, "refresh", console, work)
    return result, snowball_record(found, result, args), args.limit, found.exit_code


def _limit(value: Any, record_path: str) -> int:
    """The recorded --limit (checked as the command line checks it); 20 when the record has none."""
    if value is None:
        return DEFAULT_LIMIT
    with _as_record_problem(record_path):
        return check_limit(value, flag="the recorded limit")


def _identities(record: dict[str, Any]) -> set[tuple[str, str]]:
    """Every normalized id of a recorded result or a paper (any spelling, external ids too),
    and its folded title with the year."""
    found = set(record_identities(record))
    if record.get("title"):
        found.add(("title", f"{fold_title(record['title'])}|{record.get('year')}"))
    return found
