"""``lit-search [search] TOPIC``: search, merge, rank, and print one table (or JSON, or an export).

stdout carries the product (table, JSON or export); progress and diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
from typing import Sequence

from .. import __version__
from ..biblio.formats import extensions_for
from ..core.errors import EXIT_CODES_HELP, ExitCode
from ..core.services import RETRACTIONS
from ..providers import registry
from ..runtime.console import Console
from ..runtime.logs import redact_logs
from ..runtime.results import RESULT_FORMATS, TERMINAL_VIEW
from ..runtime.settings import load_settings
from ..search.options import (
    COMMAND_LINE,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_VARIANTS,
    SORT_KEYS,
    SearchOptions,
    checked_options,
)
from .commands import commands_help
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
from .progress import LiveStatus
from .results import abstracts_wanted, add_rerank_option, add_result_options, rerank_mode, result_format, write_result
from .search_flags import add_filter_options, filter_arguments

PROG = "lit-search"

def _on_request_words() -> str:
    parts = []
    for name in registry.on_request():
        declared = registry.service(name)
        needs = f", needs {declared.key.variable}" if declared.key and declared.optional else ""
        parts.append(f"{name} ({declared.label}{needs})")
    return ", ".join(parts)


def _wrapped(text: str) -> str:
    import textwrap

    return textwrap.fill(text, width=92, subsequent_indent="  ", break_on_hyphens=False)


def _key_variables() -> str:
    return ", ".join(dict.fromkeys(registry.service(name).key.variable for name in registry.searchable()
                                   if registry.service(name).key))


DESCRIPTION = f"""\
Search {registry.in_words(registry.searched_by_auto())} in parallel and print one ranked,
deduplicated table (or JSON). Variants are folded into one boolean query per provider,
so they do not multiply the number of requests."""

EPILOG = f"""\
{_wrapped(f"providers (--providers): auto (default: {registry.auto_choice_in_words(label=str)}) or a comma list of "
           f"{', '.join(registry.searched_by_auto())}; {_on_request_words()} are searched only when named "
           f"(web hits are shown as a separate 'Web sources' list).")}
filters: each is translated to the provider's own parameters where it has one, and checked
  on the merged list otherwise; the footer says which. Shown DOIs are checked at Crossref
  (marked ✓ or ⚠) and Unpaywall fills missing open-access links (needs LITSEARCH_EMAIL).
ranking: each paper is scored against the topic and its variants on its own title and abstract
  (BM25F over the merged pool), fused with the providers' agreement; a title equal to the query
  comes first; citations per year only order papers of about equal relevance. --format json
  shows each paper's relevance and the terms of its score.
limits: topic and each variant up to {MAX_QUERY_CHARS} characters; up to {MAX_VARIANTS} variants.
{_wrapped(f"environment: LITSEARCH_EMAIL (contact sent to the APIs), {_key_variables()}, "
           f"LITSEARCH_<PROVIDER>_URL (base URLs; `lit-search doctor` lists each),")}
  LITSEARCH_PROVIDER_BUDGET / LITSEARCH_READ_TIMEOUT / LITSEARCH_CONNECT_TIMEOUT (seconds).
cache and library: answers are cached for a day (Crossref/Unpaywall a week) in
  $LITSEARCH_CACHE_DIR or the user data folder; --save keeps the shown papers in the local
  library (see `lit-search library --help`).
{commands_help()}
{EXIT_CODES_HELP}
  Here: 0 at least one provider answered (even with zero results), 3 every provider failed;
  4 only with --save or --offline.
examples:
  lit-search "CRISPR off-target effects" --variant "Cas9 specificity" --limit 10
  lit-search "graph neural networks" --providers semantic_scholar,arxiv --format json
  lit-search "deep learning" --year 2020-2024 --open-access --author Hinton
  lit-search "perovskite solar cells" --institution "ETH Zurich" --citations 50- --country CH
"""


def build_parser() -> argparse.ArgumentParser:
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("topic", nargs="+", help="the research topic (quotes optional)")
    parser.add_argument("--variant", action="append", default=[], metavar="Q",
                        help="another phrasing of the topic (repeatable): synonyms, broader, narrower")
    parser.add_argument("--providers", default="auto", metavar="LIST",
                        help="auto, or a comma list of: " + ", ".join(registry.searchable()))
    parser.add_argument("--limit", type=whole_number, default=20, metavar="N",
                        help=f"rows to show, 1-{MAX_LIMIT} (default 20)")
    parser.add_argument("--sort", choices=SORT_KEYS, default="relevance",
                        help="order of the table: relevance to the topic (default; see 'ranking' below), "
                             "impact (relevance x ln(citations + 1), the first versions' order), citations "
                             "(most cited first) or year (newest first)")
    add_rerank_option(parser)
    add_result_options(parser, "table: a view sized to the terminal (the default when stdout is one); markdown: "
                               "the Markdown table (the default otherwise: a pipe, a file, Claude Code); json: "
                               "the full record; or an export for reference managers (bibtex, ris, csl-json) or "
                               "spreadsheets (csv); with -o, taken from the file's extension",
                       f"write the output to FILE ({extensions_for(RESULT_FORMATS, last=', ')}) and print one line")
    parser.add_argument("--save", action="store_true",
                        help="save the shown papers to the local library and link their citations")
    add_cache_options(parser)
    filters = add_filter_options(parser)
    filters.add_argument("--exclude-retracted", action="store_true",
                         help=f"leave out papers {registry.in_words(registry.searchable_with(RETRACTIONS), 'or')} "
                              "mark retracted (default: shown, "
                              "their titles starting with '⚠ RETRACTED —'); the footer says how many")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the Crossref check of each shown DOI (and Unpaywall's OA lookup)")
    parser.add_argument("--record", metavar="FILE",
                        help="also write a JSON search record: every request as sent (keys redacted), counts "
                             "and result ids, for `lit-search report RECORD` and `lit-search rerun RECORD`")
    add_quiet_option(parser)
    parser.add_argument("--version", action="version", version=f"lit-search {__version__}")
    return parser


def options_from_args(args: argparse.Namespace) -> SearchOptions:
    return checked_options(" ".join(args.topic), variants=args.variant, providers=args.providers, limit=args.limit,
                           sort=args.sort, filters=filter_arguments(args), verify=not args.no_verify,
                           exclude_retracted=args.exclude_retracted, rerank=args.rerank, names=COMMAND_LINE)


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: search_command(argv))


def search_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    options = options_from_args(args)
    settings = load_settings()
    redact_logs(settings)
    fmt = result_format(args)
    check_file_target(args.record, "--record", example="search.json")
    mode = cache_mode(args)
    console = Console(settings, args.quiet)
    options.rerank = rerank_mode(options.rerank, console)
    live = LiveStatus() if LiveStatus.wanted(args.quiet) else None
    result, saved_note, save_error = fetch(settings, mode, console,
                                           lambda http, store: _search(http, store, options, args.save, live),
                                           store_needed=args.save)
    if mode == "offline":
        result.enrichment.notes.insert(0, "answered from the local cache only (--offline); nothing was fetched")
    if saved_note:
        result.enrichment.notes.append(saved_note)
    footer_on_screen = fmt in ("markdown", TERMINAL_VIEW) and not args.output
    if result.provider_reason and not footer_on_screen:
        console.say(f"providers: {result.provider_reason}")  # the footer says it otherwise
    if result.rerank_note and not footer_on_screen:
        console.warn(result.rerank_note)
    for outcome in result.outcomes:
        if outcome.error and live is None:  # the live status line already said so
            console.say(f"{outcome.provider} failed: {outcome.error}")
        for note in outcome.notes if fmt != TERMINAL_VIEW else ():  # the person's footer says each once
            console.say(f"{outcome.provider}: {note}")  # e.g. "author 'Hinton' → Geoffrey E. Hinton, A5108093963"
    if args.record:
        from ..core.sanitize import json_text
        from ..search.record import search_record

        write_output(json_text(search_record(options, result)), settings, args.record)
    write_result(result, options.limit, fmt, settings, args.output, abstracts=abstracts_wanted(args))
    if save_error is not None:
        console.warn(str(save_error))
        return save_error.exit_code
    return ExitCode.ALL_FAILED if result.all_failed else ExitCode.OK


async def _search(http, store, options: SearchOptions, save: bool, progress=None):
    """The search, and with --save the shown papers kept in the library with their links."""
    from ..graph.links import save_shown
    from ..search.pipeline import run_search

    result = await run_search(options, http.settings, http=http, progress=progress)
    if not save or store is None:
        return result, None, None
    note, error = await save_shown(http, store, result.results[: options.limit])
    return result, note, error
