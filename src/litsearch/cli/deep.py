"""``lit-search deep start|next|results``: a deep-search session. A judge (the model in Claude
Code, or a person) reads batches of candidates; lit-search chases what was judged relevant
(references, citing papers, "more like these", semantic search, new queries) and says when the
search is saturated. The session file holds every verdict and is replaced atomically after each
step (deep/steps.py)."""

from __future__ import annotations

import argparse
import os
from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, InputError, UsageError
from ..core.sanitize import json_text
from ..deep.limits import BATCH_RANGE, MAX_JUDGED_RANGE, MAX_REQUESTS_RANGE, ROUND_REQUESTS_RANGE, STOP_WINDOW_RANGE
from ..deep.session import Options
from ..deep.session_file import save
from ..runtime.files import write_file_atomically
from ..runtime.console import Console
from ..runtime.results import TERMINAL_VIEW
from ..runtime.settings import load_settings
from ..search.options import COMMAND_LINE, checked_options, clean_phrasings
from .common import add_cache_options, add_quiet_option, cache_mode, fetch, new_parser, run_command, view_format, \
    whole_number, write_output
from .interrupt import StepInterrupted, was_terminated
from .progress import LiveStatus, StepStatus, followed
from .results import add_rerank_option, add_result_options, rerank_mode, result_format, say_written, write_result
from .search_flags import add_filter_options, filter_arguments

PROG = "lit-search deep"
STEP_FORMATS = ("markdown", TERMINAL_VIEW, "json")

DESCRIPTION = """\
A deep search: the judge (you, or the model in Claude Code) reads a batch of candidates at a
time and says which are relevant; lit-search chases what was judged relevant (its references,
the papers citing it, papers recommended as similar, a semantic search with its text, new
queries from the words the relevant papers share), ranks every candidate by that evidence,
shows the best unjudged ones next, and stops when the search is saturated or a budget is spent.

  lit-search deep start "TOPIC" --session review.json        # search; the first batch
  lit-search deep next review.json --relevant 1,4,9 --maybe 7  # verdicts; the next batch
  lit-search deep results review.json -o included.bib        # relevant, then maybe"""

EPILOG = f"""\
verdicts: LIST is comma-separated row numbers of the current batch (1-based), ranges of rows
  (3-5) or paper ids (doi:…, PMID:…, arXiv:…, an OpenAlex W-id, a Semantic Scholar id, the
  JSON's key c48; a bare number is a row).
  Rows not named take --rest (default: not relevant): `deep next FILE` with no list judges every
  row not relevant. A flag given twice adds up (--relevant 1 --relevant 4 is 1,4). Naming an
  earlier paper by id changes its verdict. A bad LIST (row 0, a row not in the batch, an unknown
  id, an empty item as in 1,,2, a row not in the digits 0-9 or with a leading zero) changes
  nothing. `deep next FILE --show` prints the batch again and records nothing.
results: every export keeps each paper's verdict (a "lit-search verdict: relevant" keyword in
  BibTeX, RIS and CSL-JSON; verdict, judged_round and why columns in CSV; fields in JSON).
  --rejected adds the papers judged not relevant, last: a review's excluded records.
stop: saturated when the last --stop-window papers judged held at most --stop-yield relevant
  and every relevant paper was chased; budget at --max-judged papers or --max-requests
  requests; exhausted when no candidate is left. --format json prints the step's fields.
the session file is replaced atomically after the verdicts and again after the round: a
  step stopped at any moment keeps every verdict; `deep next FILE --show` says where it stands
  (a batch to judge, or a round owed, which `deep next FILE` runs).
{EXIT_CODES_HELP}
  Here: 2 also for a bad LIST, a session file that exists (start) or is damaged (next), or another
  step running on the session; 3 the providers failed: at start every one, or one while the
  others found nothing (no file is written), or at next a round's requests with nothing left to
  judge (the verdicts are kept; run it again)."""


# Each step's own help ends with the exit codes it can give (`deep start --help` is where a new
# user looks, not `deep --help`).
START_EPILOG = f"""{EXIT_CODES_HELP}
  Here: 2 also for a session file that exists already, or another step running on it; 3 the
  providers failed: every one, or one while the others found nothing (no file is written)."""
NEXT_EPILOG = f"""{EXIT_CODES_HELP}
  Here: 2 also for a bad LIST (nothing is recorded), a damaged session file, or another step
  running on it; 3 a round's requests failed with nothing left to judge (the verdicts are kept:
  run `deep next FILE` again)."""
RESULTS_EPILOG = f"""{EXIT_CODES_HELP}
  Here: 2 also for a damaged session file, or an output file that cannot be written."""


def build_parser() -> argparse.ArgumentParser:
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    steps = parser.add_subparsers(dest="step", metavar="start|next|results", parser_class=type(parser))
    steps.required = True
    start = steps.add_parser("start", help="search the topic and print the first batch to judge",
                             description="Create the session file, run the first search and print the first batch.",
                             epilog=START_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    start.add_argument("topic", nargs="+", help="the research question or topic")
    start.add_argument("--variant", action="append", default=[], metavar="Q", help="another phrasing (repeatable)")
    start.add_argument("--session", required=True, metavar="FILE", help="the session file to create (.json)")
    _range_option(start, "--batch", 20, BATCH_RANGE, "papers in a batch")
    _range_option(start, "--max-judged", 300, MAX_JUDGED_RANGE, "papers judged at most (a budget stop)")
    _range_option(start, "--max-requests", 2_000, MAX_REQUESTS_RANGE, "requests over the session at most")
    _range_option(start, "--round-requests", 60, ROUND_REQUESTS_RANGE, "requests one round may send")
    _range_option(start, "--stop-window", 80, STOP_WINDOW_RANGE, "the saturation rule looks at the last N judged")
    start.add_argument("--stop-yield", type=whole_number, default=2, metavar="N",
                       help="saturated when those held at most N relevant, 0 to --stop-window - 1 "
                            "(default 2: a judge's stray 'relevant')")
    start.add_argument("--providers", default="auto", metavar="LIST", help="auto (from the topic) or a comma list")
    start.add_argument("--format", choices=STEP_FORMATS, help="markdown (the default off a terminal), table, json")
    add_rerank_option(start)
    add_filter_options(start)
    _common(start)

    step = steps.add_parser("next", help="record verdicts on the batch; print the next batch or the stop",
                            description="Record the verdicts on the current batch, chase, and print the next batch.",
                            epilog=NEXT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    step.add_argument("file", metavar="FILE", help="the session file")
    for verdict in ("relevant", "maybe", "not"):
        # repeatable: `--relevant 1 --relevant 4` is 1,4 (argparse would keep only the last)
        step.add_argument(f"--{verdict}", action="append", metavar="LIST", help=f"rows or ids judged {verdict} (repeatable)")
    step.add_argument("--rest", choices=("not", "maybe"), default=None,  # None: not given (not, as said)
                      help="the verdict of the batch's rows not named (default not)")
    step.add_argument("--variant", action="append", default=[], metavar="Q",
                      help="a query to search in the next round (repeatable)")
    for flag, bounds, words in (("--max-judged", MAX_JUDGED_RANGE, "papers judged at most"),
                                ("--max-requests", MAX_REQUESTS_RANGE, "requests over the session at most")):
        step.add_argument(flag, type=whole_number, metavar="N",
                          help=f"a new budget: {words} ({bounds[0]}–{bounds[1]:,}); a session stopped at its "
                               f"budget goes on with a larger one")
    step.add_argument("--show", action="store_true",
                      help="print where the session stands (its batch to judge, a round owed, or the stop) "
                           "and record nothing")
    step.add_argument("--format", choices=STEP_FORMATS, help="markdown (the default off a terminal), table, json")
    _common(step)

    results = steps.add_parser("results", help="the papers judged relevant, then maybe",
                               description="The papers judged relevant, then maybe, each group by its score "
                                           "(--all: then the candidates not judged; --rejected: then the papers "
                                           "judged not relevant).",
                               epilog=RESULTS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    results.add_argument("file", metavar="FILE", help="the session file")
    results.add_argument("--all", action="store_true", help="add the candidates not judged, best first")
    results.add_argument("--rejected", action="store_true",
                         help="add the papers judged not relevant, last (the excluded records of a PRISMA flow)")
    add_result_options(results, "table (a terminal view), markdown, json, or an export (bibtex, ris, csl-json, csv)")
    add_quiet_option(results)  # accepted as by every deep step (listing sends no request and prints no progress)
    return parser


def _step(args: argparse.Namespace, settings, console: Console, steps, held):
    """Run ``start`` or ``next`` (or show the session with ``--show``): (the session, its path)."""
    if args.step == "start":
        checked = checked_options(" ".join(args.topic), variants=args.variant, providers=args.providers,
                                  filters=filter_arguments(args), rerank=args.rerank, names=COMMAND_LINE)
        topic, variants, filters = checked.topic, checked.variants, checked.filters
        options = _options(args, checked.providers)
        options.rerank = rerank_mode(args.rerank, console)
        steps.check_new_session_path(args.session)
        shown = args.session
        save = _saver(shown)
        with held(shown):
            steps.check_new_session_path(shown)  # another start may have made it meanwhile
            status = _status("deep start", args)
            session = fetch(settings, cache_mode(args), console, lambda http, _store: followed(
                http, status, steps.start_step(http, topic, variants, filters, options, save)))
    elif args.show:
        shown = args.file
        steps.check_show({"--relevant": args.relevant, "--maybe": args.maybe, "--not": args.__dict__["not"],
                          "--variant": args.variant, "--rest": args.rest, "--max-judged": args.max_judged,
                          "--max-requests": args.max_requests}, "--show")
        session = steps.shown_session(shown)
    else:
        shown = args.file
        lists = {verdict: _joined(getattr(args, verdict)) for verdict in ("relevant", "maybe", "not")}
        queries = clean_phrasings(args.variant, COMMAND_LINE)
        with held(shown):  # from reading the session to its last save: one step at a time
            session = steps.open_session(shown)
            limits = {"max_judged": args.max_judged, "max_requests": args.max_requests}
            steps.check_step(session, lists, args.rest or "not", queries, shown, limits)  # before any request or write
            save = _saver(shown)
            status = _status("deep next", args)
            session = fetch(settings, cache_mode(args), console, lambda http, _store: followed(
                http, status, steps.next_step(http, session, lists, args.rest or "not", queries, save, limits)))
    return session, shown


def _status(what: str, args) -> StepStatus | None:
    """The step's live status line, on a terminal and without -q."""
    return StepStatus(what) if LiveStatus.wanted(args.quiet) else None


def _where(path: str) -> str:
    """Where a session stands after Ctrl-C, as a command to run."""
    import shlex

    if not os.path.lexists(path):
        return "no session was written"
    return f"see where it stands with `lit-search deep next {shlex.quote(path)} --show`"


def _joined(lists: list[str] | None) -> str | None:
    """A verdict's repeated lists as one comma list (None when the flag was not given; a blank
    one names nothing, so it adds no empty item)."""
    return None if lists is None else ",".join(text for text in lists if text.strip())


def _range_option(parser: argparse.ArgumentParser, flag: str, default: int, bounds: tuple[int, int], words: str) -> None:
    parser.add_argument(flag, type=whole_number, default=default, metavar="N",
                        help=f"{words} ({bounds[0]}–{bounds[1]:,}; default {default:,})")


def _common(parser: argparse.ArgumentParser) -> None:
    add_quiet_option(parser)
    add_cache_options(parser)


def main(argv: Sequence[str]) -> int:
    # A step's mistake points at that step's help, where its options are.
    step = argv[0] if argv and argv[0] in ("start", "next", "results") else None
    return run_command(PROG, lambda: deep_command(argv), help_of=f"{PROG} {step}" if step else None)


def deep_command(argv: Sequence[str]) -> int:
    _check_step_name(list(argv))
    try:
        args = build_parser().parse_args(list(argv))
    except UsageError as error:
        hint = _usage_hint(list(argv), str(error))
        if hint:
            raise UsageError(f"{error}; {hint}") from None
        raise
    if args.step == "results":
        return _results(args)
    fmt = view_format(args.format)
    settings = load_settings()
    console = Console(settings, args.quiet)
    from ..deep import steps
    from ..deep.step_lock import held
    from ..render.deep import step_markdown, step_payload, step_text

    try:
        try:
            session, shown = _step(args, settings, console, steps, held)
        except OSError as failed:  # a full disk, a file-size limit: the file is at its last complete step
            if isinstance(failed, BrokenPipeError):
                raise
            raise InputError(f"cannot write {failed.filename or 'the session'}: {failed.strerror or failed}; the "
                             f"session is as its last complete step left it: "
                             f"{_where(getattr(args, 'session', None) or args.file)}") from None
        if fmt == "json":
            text = json_text(step_payload(session, shown))
        elif fmt == TERMINAL_VIEW:
            text = step_text(session, shown)
        else:
            text = step_markdown(session, shown)
        write_output(text, settings)
    except KeyboardInterrupt as interrupt:  # the file may hold a batch nobody saw: say how to see it
        raise StepInterrupted(_where(getattr(args, "session", None) or args.file),
                              terminated=was_terminated(interrupt)) from None
    return 0


def _check_step_name(argv: list[str]) -> None:
    """A mistyped step (``deep result r.json``) or another command's name (``deep report r.json``)
    is one line naming the steps and the command meant; words that read as a topic ("deep
    learning") are left to the parser's error and the dispatcher's search hint."""
    from .commands import COMMANDS
    from .first_word import mistyped_action

    meant = mistyped_action(COMMANDS["deep"], argv)
    if meant:
        steps = COMMANDS["deep"].actions
        raise UsageError(f"{argv[0]!r} is not a step of lit-search deep ({', '.join(steps[:-1])} or {steps[-1]}); "
                         f"did you mean `{meant}`?")


def _usage_hint(argv: list[str], message: str) -> str | None:
    """What a user most likely meant by arguments the parser did not take: the session file
    named with --session on a step that takes it first (``deep next --session r.json``), or rows
    separated by spaces (``--relevant 1 2``)."""
    if not message.startswith("unrecognized arguments:") or not argv:
        return None
    step = argv[0]
    if step in ("next", "results") and "--session" in argv:
        at = argv.index("--session")
        named = argv[at + 1] if at + 1 < len(argv) else "FILE"
        return f"the session file comes right after the step, without --session: `lit-search deep {step} {named} …`"
    for flag in ("--relevant", "--maybe", "--not"):
        if flag in argv:
            at = argv.index(flag)
            rows = []
            for word in argv[at + 1:]:
                if word.startswith("-"):
                    break
                rows.append(word)
            if len(rows) > 1:
                return f"separate the rows of a list with commas: {flag} {','.join(rows)}"
    return None


def _saver(path: str):
    return lambda session: save(path, session, write_file_atomically)


def _options(args: argparse.Namespace, providers: list[str] | None) -> Options:
    from ..deep.steps import checked

    return checked(Options(batch=args.batch, max_judged=args.max_judged, max_requests=args.max_requests,
                           round_requests=args.round_requests, stop_window=args.stop_window,
                           stop_yield=args.stop_yield, providers=providers))


def _results(args: argparse.Namespace) -> int:
    from ..deep.results import as_search_result, nothing_listed
    from ..deep.steps import open_session

    fmt = result_format(args)
    session = open_session(args.file)
    settings = load_settings()
    result = as_search_result(session, include_unjudged=args.all, include_rejected=args.rejected)
    if fmt == "json":
        from ..render.deep import results_json

        write_output(json_text(results_json(result, session, args.file)), settings, args.output)
        if args.output:
            say_written(len(result.results), args.output, fmt, settings)
        return 0
    write_result(result, max(1, len(result.results)), fmt, settings, args.output,
                 nothing_found=nothing_listed(args.all, args.rejected))
    return 0
