"""The library and report tools: library_list (the saved papers), library_save (papers of a
search, or papers by id, into the local library with their citation links) and search_report
(the methods paragraph and PRISMA table of a search)."""

from __future__ import annotations

import asyncio

import dataclasses
from typing import Annotated, Any

from pydantic import Field

from ..core.errors import InputError, NotFound, UsageError
from .conduct import ADDS_TO_THE_LIBRARY, READS_THIS_MACHINE, declare
from .outputs import LibraryPage, ReportResult, SaveResult
from .paging import largest_fit
from .runtime import current, result_size, tool_result

MAX_SAVE_IDS = 20


@declare(READS_THIS_MACHINE, LibraryPage)
async def library_list(
    limit: Annotated[int, Field(ge=1, le=500, description="papers per page")] = 50,
    offset: Annotated[int, Field(ge=0, description="first paper (0: the first saved)")] = 0,
):
    """List the papers saved in the local lit-search library (a SQLite file on this machine), with each one's
    library number, first author, year, title (a retracted paper marked ⚠ RETRACTED, as known when it was saved),
    DOI and how many library papers it cites and is cited by. Use it
    to see what the user has collected before searching again or exporting. Page with offset; next_offset says
    where the next page starts."""
    from ..render.library import library_listing

    store = await current().opened.store(needed=True)
    # A large library takes a moment to read: in a worker thread, the event loop answers meanwhile.
    papers, links = await asyncio.to_thread(lambda: (store.list_papers(), len(store.citations_among())))
    papers_page = papers[offset:offset + limit]

    def page(count: int) -> tuple[str, dict[str, Any]]:
        shown = papers_page[:count]
        following = offset + count
        data = {"total": len(papers), "citation_links": links, "papers": [dataclasses.asdict(paper) for paper in shown],
                "next_offset": following if following < len(papers) else None}
        return library_listing(shown, links), data

    count = largest_fit(len(papers_page), lambda n: result_size(*page(n)), current().max_chars)
    return tool_result(*page(count))


@declare(ADDS_TO_THE_LIBRARY, SaveResult)
async def library_save(
    search_id: Annotated[str | None, Field(description="a search_id from paper_search or paper_citations")] = None,
    rows: Annotated[list[int] | None, Field(description="with search_id: the rows (ranks) to save; default all "
                                                        "shown")] = None,
    ids: Annotated[list[str] | None, Field(max_length=MAX_SAVE_IDS, description="or papers by id: DOI, PMID, "
                                                                               "arXiv id, OpenAlex or S2 id")] = None,
):
    """Save papers to the local lit-search library, with the citation links among the saved papers refreshed: the
    rows of a search this server ran (search_id, and rows to pick some), or papers by id. Use it when the user
    wants to keep papers for later (export to BibTeX/RIS with `lit-search library export`, chase citations,
    report). Returns what was saved and the library's path."""
    from ..graph.links import save_shown

    if bool(search_id) == bool(ids):
        raise UsageError("give search_id (with rows to pick some) or ids, one of the two")
    runtime = current()
    if search_id:
        kept = runtime.recall(search_id)
        if kept is None:
            raise NotFound(f"no search {search_id!r} in this session: run paper_search again, then save")
        _, options, result = kept
        limit = options.limit if kept[0] == "search" else options[1].limit
        shown = result.results[:limit]
        if rows:
            wrong = [row for row in rows if not 1 <= row <= len(shown)]
            if wrong:
                raise UsageError(f"rows {wrong} are not among the {len(shown)} shown")
            shown = [shown[row - 1] for row in dict.fromkeys(rows)]

        async def work(http, store):
            return await save_shown(http, store, shown)
    else:
        from ..graph.bundle import fetch_paper_bundle
        from ..search.rank import RankedPaper

        async def work(http, store):
            bundles = [await fetch_paper_bundle(http, text) for text in dict.fromkeys(ids or [])]
            return await save_shown(http, store, [RankedPaper(b.paper, list(b.records)) for b in bundles])

    note, error = await runtime.online(work, store_needed=True)
    if error is not None:
        raise error
    return tool_result(note, {"saved": note})


@declare(READS_THIS_MACHINE, ReportResult)
async def search_report(
    record: Annotated[str, Field(min_length=1, max_length=4096,
                                 description="a search_id from paper_search or paper_citations in this session, "
                                             "the path of a JSON search record (lit-search … --record FILE), or a "
                                             "deep search's session file (deep_search_start's session)")],
):
    """Write the methods of a search as a systematic review reports them: a paragraph (sources, date searched, the
    exact search string sent to each source, limits and filters, deduplication) and the PRISMA 2020
    identification table (records per source, duplicates removed, records screened), then every request as sent.
    For a deep search's session file: its methods paragraph and every round (what it searched and chased, the
    verdicts, the stop rule and why it fired). Use it when the user needs to document or reproduce a search."""
    from ..render.report import report_markdown, report_payload
    from ..search.record import search_record, snowball_record

    kept = current().recall(record)
    if kept is not None:
        kind, options, result = kept
        if kind == "search":
            saved = search_record(options, result)
        else:
            found, arguments = options
            saved = snowball_record(found, result, arguments)
    elif record.lower().endswith(".json"):
        from ..deep.session_file import read_report_input

        session, saved = read_report_input(record)
        if session is not None:  # a deep search: its methods text, round by round (as `lit-search report`)
            from ..render.deep import methods_payload

            payload = methods_payload(session)
            return tool_result(payload["methods"], {"report": payload})
    else:
        raise InputError(f"{record!r} is neither a search_id of this session nor a .json search record")
    payload = report_payload(saved)
    return tool_result(report_markdown(saved), {"report": {k: v for k, v in payload.items() if k != "requests"}})


LIBRARY_TOOLS = [library_list, library_save, search_report]
