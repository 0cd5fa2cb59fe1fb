"""The deep-search tools: deep_search_start, deep_search_next, deep_search_results, with the
command's arguments and JSON (``lit-search deep``). The session is a file (a .json path, relative
to the server's working folder); each step goes through deep/steps.py as the command's does:
every list checked before anything changes, the file replaced atomically after the verdicts and
again after the round."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt

from ..core.errors import LitSearchError
from ..core.text import plural
from ..deep.limits import BATCH_RANGE, MAX_JUDGED_RANGE, MAX_REQUESTS_RANGE, ROUND_REQUESTS_RANGE, STOP_WINDOW_RANGE
from ..deep.session import Options
from ..deep.session_file import save
from ..deep.step_lock import held
from ..runtime.files import write_file_atomically
from ..runtime.results import RESULT_FORMATS
from .conduct import Conduct, declare
from .outputs import DeepResults, DeepStep
from .runtime import current, tool_result
from .tools_papers import Provider, SearchFilters

# A session step writes its file (adding verdicts, never dropping one) and asks the APIs; running
# it again with the same verdicts runs another round.
KEEPS_A_SESSION = Conduct(read_only=False, destructive=False, idempotent=False, open_world=True)
# Results read the session; with output they replace that file.
WRITES_AN_EXPORT = Conduct(read_only=False, destructive=True, idempotent=True, open_world=False)
# StrictInt: a JSON true is no row (pydantic's lax int would read it as row 1)
# A model writes one row as a bare number as often as in a list: each form is taken.
ListArg = Annotated[StrictInt | str | list[StrictInt | str] | None,
                    Field(description="batch rows (1-based), ranges of rows (\"3-5\") or paper ids, as a comma list, "
                                      "an array, or one row")]
SessionPath = Annotated[str, Field(min_length=1, max_length=4096, description="the session file (.json)")]
RESULTS_PAGE = 50


def in_tool_words(tool):
    """The tool's errors in the tools' words: its arguments (max_judged, not --max-judged) and
    its steps (deep_search_next with show=true, not a command to run): deep/door_words.py."""
    from ..deep.door_words import MCP_TOOLS, retold

    @functools.wraps(tool)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await tool(*args, **kwargs)
        except LitSearchError as error:
            raise retold(error, MCP_TOOLS) from None

    return wrapper


def _saver(path: str):
    return lambda session: save(path, session, write_file_atomically)


def _step_result(session, path: str):
    """The step as the command's Markdown and JSON; the Markdown's own sentences (what to call
    next, the stop) in the tools' words. The JSON's ``next`` stays the command-line equivalent."""
    from ..deep.door_words import MCP_TOOLS, in_door_words
    from ..render.deep import step_markdown, step_payload

    own = lambda text: in_door_words(text, MCP_TOOLS)  # noqa: E731
    return tool_result(step_markdown(session, path, own), step_payload(session, path, own))


@declare(KEEPS_A_SESSION, DeepStep)
@in_tool_words
async def deep_search_start(
    topic: Annotated[str, Field(min_length=1, max_length=1000, description="the research question or topic")],
    session: SessionPath,
    variants: Annotated[str | list[str] | None, Field(description="up to 8 other phrasings (one string is one)")]
    = None,
    batch: Annotated[int, Field(ge=BATCH_RANGE[0], le=BATCH_RANGE[1], description="papers per batch")] = 20,
    max_judged: Annotated[int, Field(ge=MAX_JUDGED_RANGE[0], le=MAX_JUDGED_RANGE[1],
                                     description="papers judged at most")] = 300,
    max_requests: Annotated[int, Field(ge=MAX_REQUESTS_RANGE[0], le=MAX_REQUESTS_RANGE[1],
                                       description="requests over the session at most")] = Options.max_requests,
    round_requests: Annotated[int, Field(ge=ROUND_REQUESTS_RANGE[0], le=ROUND_REQUESTS_RANGE[1],
                                         description="requests one round may send")] = Options.round_requests,
    stop_window: Annotated[int, Field(ge=STOP_WINDOW_RANGE[0], le=STOP_WINDOW_RANGE[1],
                                      description="the saturation rule looks at the last N judged (larger for a "
                                                  "review that must not miss anything)")] = Options.stop_window,
    stop_yield: Annotated[int, Field(ge=0, description="saturated when those held at most N relevant")]
    = Options.stop_yield,
    providers: Annotated[list[Provider] | None, Field(description="default: chosen from the topic")] = None,
    filters: Annotated[SearchFilters | None, Field(description="the search's filters")] = None,
    rerank: Annotated[Literal["semantic", "none"] | None, Field(description="semantic: the top of each round "
                                                                              "re-ranked by meaning (when the "
                                                                              "optional model is installed); "
                                                                              "default: installed or not")] = None,
):
    """Start a deep search for a thorough or systematic review: searches the topic, writes the session file, and
    returns the first batch (about 20 papers with abstracts) for you to judge. Judge each strictly against the user's
    request, then call deep_search_next with the verdicts; lit-search chases the relevant papers' citations and
    similar papers and says when the search is saturated."""
    from ..deep import steps
    from ..search.options import MCP_TOOL, checked_options

    given = filters.model_dump(exclude_none=True) if filters else {}
    given["types"] = given.pop("type", None)
    checked = checked_options(topic, variants=variants, providers=providers, filters=given,
                              rerank=rerank, names=MCP_TOOL)
    steps.check_new_session_path(session)
    options = steps.checked(Options(batch=batch, max_judged=max_judged, max_requests=max_requests,
                                    round_requests=round_requests, stop_window=stop_window, stop_yield=stop_yield,
                                    providers=checked.providers, rerank=rerank))
    with held(session):
        steps.check_new_session_path(session)  # another start may have made it meanwhile
        found = await current().online(lambda http, _store: steps.start_step(
            http, checked.topic, checked.variants, checked.filters, options, _saver(session)))
    return _step_result(found, session)


@declare(KEEPS_A_SESSION, DeepStep)
@in_tool_words
async def deep_search_next(
    session: SessionPath,
    relevant: ListArg = None,
    maybe: ListArg = None,
    not_: Annotated[StrictInt | str | list[StrictInt | str] | None,
                    Field(alias="not", description="rows or ids judged not relevant: as a comma list, an array, or "
                                                   "one row")]
    = None,
    rest: Annotated[Literal["not", "maybe"], Field(description="the verdict of the batch's rows not named")] = "not",
    variants: Annotated[str | list[str] | None, Field(description="queries to search in the next round (one "
                                                                   "string is one)")] = None,
    max_judged: Annotated[int | None, Field(ge=MAX_JUDGED_RANGE[0], le=MAX_JUDGED_RANGE[1],
                                            description="a new budget of papers judged (a session stopped at its "
                                                        "budget goes on with a larger one)")] = None,
    max_requests: Annotated[int | None, Field(ge=MAX_REQUESTS_RANGE[0], le=MAX_REQUESTS_RANGE[1],
                                              description="a new budget of requests over the session")] = None,
    show: Annotated[bool, Field(description="true: only show where the session stands (its batch again, a round "
                                            "owed, or the stop), recording nothing")] = False,
):
    """Record your verdicts on the current batch of a deep search (rows or ids judged relevant, maybe, not; the rows
    not named take rest) and get the next batch, or the stop (saturated, budget or exhausted) with the yield per
    round. Give variants for new search phrases the relevant papers suggest. If you lost a step's answer, call it
    with show=true first: with no verdicts it would judge the whole batch not relevant."""
    from ..deep import steps
    from ..search.options import MCP_TOOL, clean_phrasings

    queries = clean_phrasings(variants, MCP_TOOL)
    if show:
        steps.check_show({"relevant": relevant, "maybe": maybe, "not": not_,
                          "variants": queries or None,
                          "rest": None if rest == "not" else rest,  # "not" is the default: not told apart
                          "max_judged": max_judged, "max_requests": max_requests})
        return _step_result(steps.shown_session(session), session)
    lists = {"relevant": steps.given_list(relevant, "relevant"), "maybe": steps.given_list(maybe, "maybe"),
             "not": steps.given_list(not_, "not")}
    with held(session):  # from reading the session to its last save: two calls at once never both run
        found = steps.open_session(session)
        limits = {"max_judged": max_judged, "max_requests": max_requests}
        steps.check_step(found, lists, rest, queries, session, limits)  # before any request or write
        advanced = await current().online(lambda http, _store: steps.next_step(http, found, lists, rest, queries,
                                                                                _saver(session), limits))
    return _step_result(advanced, session)


@declare(WRITES_AN_EXPORT, DeepResults)
@in_tool_words
async def deep_search_results(
    session: SessionPath,
    format: Annotated[Literal[RESULT_FORMATS], Field(description="the page's text: markdown (the default; json and "  # type: ignore[valid-type]
                                                                  "table give it too, the data being JSON always), "
                                                                  "or an export: bibtex, ris, csl-json, csv")] = "markdown",
    all: Annotated[bool, Field(description="add the candidates not judged, best first")] = False,
    output: Annotated[str | None, Field(max_length=4096, description="write the whole result to this file instead "
                                                                     "(its extension names the format; format does "
                                                                     "for a name without one)")] = None,
    offset: Annotated[int, Field(ge=0, description="the first row of this page (next_offset of the last)")] = 0,
    rejected: Annotated[bool, Field(description="add the papers judged not relevant, last (the excluded "
                                                "records of a PRISMA flow)")] = False,
):
    """The papers a deep search judged relevant, then maybe (all: then the unjudged candidates; rejected: then the
    papers judged not relevant, for a review's excluded records), with their records and where each came from; a
    page at a time, or the whole list written to a file (BibTeX, RIS, CSL-JSON, CSV, JSON or Markdown)."""
    from ..biblio.formats import EXPORT_FORMATS
    from ..deep.results import as_search_result, nothing_listed
    from ..deep.steps import open_session
    from ..render.deep import results_json
    from ..render.table import render_markdown
    from ..runtime.results import render_result
    from .paging import largest_fit
    from .runtime import result_size

    from ..runtime.targets import TOOL_ARGUMENTS, output_format

    # The file to write is checked before the session is read, by the rules every door follows
    # (markdown, the default, asks for no file format: the extension decides)
    named = output_format(output, format if format in EXPORT_FORMATS else None, RESULT_FORMATS, "markdown",
                          words=TOOL_ARGUMENTS, example="included.ris") if output is not None else None
    found = open_session(session)
    result = as_search_result(found, include_unjudged=all, include_rejected=rejected)
    written = _write_export(found, result, session, output, named) if named else None
    payload = results_json(result, found, session)
    total = len(payload["results"])

    def page(count: int) -> tuple[str, dict[str, Any]]:
        """This page of ``count`` rows from ``offset``: its text and `deep results --format json`'s
        document with `results` this page (the paging fields say which)."""
        rows = payload["results"][offset: offset + count]
        following = offset + count if rows and offset + count < total else None
        if not rows:
            text = (f"No papers from offset {offset:,}: the list has {plural(total, 'paper')} (offsets 0–"
                    f"{total - 1:,}).\n" if total else nothing_listed(all, rejected) + "\n")
        elif format in EXPORT_FORMATS:
            text = render_result(_page_of(result, offset, count), count, format, include_abstracts=False)
        else:  # numbered as ranked: a later page goes on from where the last one ended
            text = render_markdown(result, count, include_abstracts=False, start=offset)
        if following is not None:
            text += (f"\nRows {offset + 1:,}–{offset + len(rows):,} of {total:,}; the next page: "
                     f"deep_search_results with offset={following}.\n")
        if written:
            text = f"Wrote {plural(len(result.results), 'paper')} to {written}.\n\n" + text
        return text, {**payload, "results": rows, "rows": f"{offset + 1}-{offset + len(rows)}" if rows else "0",
                      "total": total, "next_offset": following, "written": written}

    # As many rows as keep the result within the server's bound (at most RESULTS_PAGE): a page of
    # whole abstracts can be 100,000 characters, more than a client passes on to its model.
    count = largest_fit(max(0, min(RESULTS_PAGE, total - offset)), lambda n: result_size(*page(n)),
                        current().max_chars)
    text, data = page(count)
    return tool_result(text, data)


def _page_of(result, offset: int, count: int):
    from dataclasses import replace

    return replace(result, results=result.results[offset: offset + count])


def _write_export(session_data, result, session: str, output: str, named: str) -> str:
    """Write the whole ``result`` to ``output`` as ``named`` (checked already by ``output_format``)."""
    from ..core.sanitize import json_text
    from ..render.deep import results_json
    from ..runtime.results import render_result

    text = json_text(results_json(result, session_data, session)) if named == "json" else \
        render_result(result, max(1, len(result.results)), named, include_abstracts=True)
    write_file_atomically(Path(output), current().clean(text))
    return output


DEEP_TOOLS = [deep_search_start, deep_search_next, deep_search_results]
