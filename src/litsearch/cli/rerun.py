"""``lit-search rerun RECORD``: repeat a recorded search (or citation chase) today, with the
same topic, variants, providers, filters and limits, fresh from the APIs, and show only the
papers that are new since the record (by any of their ids). The "what's new" alert of a
living review; ``--record FILE`` writes today's record."""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any, Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode
from ..core.identifiers import parse_paper_ref, record_identities
from ..core.sanitize import json_text
from ..core.text import fold_title
from .common import (
    Console,
    add_quiet_option,
    check_file_target,
    fetch,
    load_settings,
    new_parser,
    run_command,
    write_output,
)
from .search import RESULT_FORMATS, abstracts_wanted, add_abstract_options, result_format, write_result

PROG = "lit-search rerun"

DESCRIPTION = """\
Repeat a recorded search today (the same requests: topic, variants, providers, filters,
limit; not from the cache) and show only the papers that were not in the record, in the
same table. A paper counts as known when it shares any id (DOI, PMID, arXiv, Semantic
Scholar, OpenAlex), or its title and year, with any paper the recorded search found, shown
or ranked below the limit."""

EPILOG = f"""\
{EXIT_CODES_HELP}
  Here: 2 when RECORD cannot be read, 3 when every provider failed."""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("record", metavar="RECORD", help="a JSON search record written with --record")
    parser.add_argument("--format", choices=RESULT_FORMATS, default=None,
                        help="of the new papers: table (a terminal view, the default on a terminal), markdown "
                             "(the default elsewhere), JSON, or an export format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (format from its extension)")
    parser.add_argument("--record", dest="new_record", metavar="FILE", help="write today's search record")
    add_abstract_options(parser)
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
    if record["kind"] == "snowball":
        result, new_record, limit, failed = _rerun_snowball(record, settings, console)
    else:
        result, new_record, limit, failed = _rerun_search(record, settings, console)
    # Known: every paper the recorded search found, shown or not (records written before
    # "found" existed list only the shown ones).
    found = record.get("found", [])
    known = set().union(*(_identities(entry) for entry in record.get("results", []) + found))
    shown = result.results[:limit]
    fresh = [item for item in shown if not _identities(item.paper.to_dict()) & known]
    result = dataclasses.replace(result, results=fresh, empty_message=(
        f"Nothing new since the record of {record.get('searched_at', 'an unknown date')}: "
        f"all {len(shown)} papers shown today were in it."))
    result.enrichment.notes.insert(0, f"rerun of the search recorded {record.get('searched_at', '?')}: "
                                      f"{len(fresh)} new of the {len(shown)} shown today "
                                      f"(the record showed {len(record.get('results', []))} and found "
                                      f"{max(len(found), len(record.get('results', [])))})")
    if args.new_record:
        write_output(json_text(new_record), settings, args.new_record)
    write_result(result, limit, fmt, settings, args.output, abstracts=abstracts_wanted(args))
    return ExitCode.ALL_FAILED if failed else ExitCode.OK


def _rerun_search(record: dict[str, Any], settings, console):
    from ..providers.base import ALL_PROVIDERS
    from ..search.options import MAX_VARIANTS, SORT_KEYS, SearchOptions
    from ..search.pipeline import run_search
    from ..search.record import filters_from_dict, search_record

    recorded = record.get("options", {})
    providers = [name for name in recorded.get("providers") or [] if name in ALL_PROVIDERS and name != "unpaywall"]
    variants = [text for text in record.get("variants") or [] if isinstance(text, str) and text.strip()]
    options = SearchOptions(topic=record["topic"], variants=variants[:MAX_VARIANTS], providers=providers or None,
                            limit=_limit(recorded.get("limit")),
                            sort=recorded.get("sort") if recorded.get("sort") in SORT_KEYS
                            else "relevance",
                            filters=filters_from_dict(recorded.get("filters") or {}),
                            verify=bool(recorded.get("verify", True)), find_open_access=bool(recorded.get("verify", True)),
                            exclude_retracted=bool(recorded.get("exclude_retracted")))
    result = fetch(settings, "refresh", console, lambda http, _store: run_search(options, settings, http=http))
    return result, search_record(options, result), options.limit, result.all_failed


def _rerun_snowball(record: dict[str, Any], settings, console):
    from ..graph.snowball import DIRECTIONS, snowball
    from ..search.record import snowball_record
    from .snowball import as_search_result

    recorded = record.get("options", {})
    seeds = [(seed["id"], parse_paper_ref(seed["id"])) for seed in record.get("seeds", [])]
    args = argparse.Namespace(limit=_limit(recorded.get("limit")), no_verify=not recorded.get("verify", True))
    started = time.monotonic()

    async def work(http, _store):
        direction = recorded.get("direction") if recorded.get("direction") in DIRECTIONS else "both"
        topic = recorded.get("topic") if isinstance(recorded.get("topic"), str) else None
        found = await snowball(http, seeds, direction, topic, progress=console.say)
        return found, await as_search_result(http, found, args, started)

    found, result = fetch(settings, "refresh", console, work)
    return result, snowball_record(found, result, args), args.limit, found.all_failed


def _limit(value: Any) -> int:
    """The recorded --limit, when it is one (1-100); else the default 20."""
    return value if type(value) is int and 1 <= value <= 100 else 20


def _identities(record: dict[str, Any]) -> set[tuple[str, str]]:
    """Every normalized id of a recorded result or a paper (any spelling, external ids too),
    and its folded title with the year."""
    found = set(record_identities(record))
    if record.get("title"):
        found.add(("title", f"{fold_title(record['title'])}|{record.get('year')}"))
    return found
