"""The paper tools: paper_search (the full search), paper_get (one paper with its references
and citing papers), paper_citations (citation chasing) and paper_network. Each is a typed
function: its signature is the tool's JSON schema, its docstring the description the model
chooses by."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..core.errors import UsageError
from ..graph.limits import MAX_SEEDS
from ..providers import registry
from .conduct import ASKS_THE_APIS, declare
from .outputs import NetworkPage, PaperRecord, SearchPage
from .cursors import MAX_CURSOR_CHARS, encode_cursor, resume
from .paging import largest_fit
from .runtime import call_key, current, result_size, tool_result
from .search_page import search_page

# What --providers accepts, read from the declarations: a provider added to the registry is
# offered here with no edit (Literal[...] of a tuple is the same as listing the names).
Provider = Literal[registry.searchable()]  # type: ignore[valid-type]
Cursor = Annotated[str | None, Field(max_length=MAX_CURSOR_CHARS,
                                     description="next_cursor from a previous result, to get the next rows "
                                                 "(the other arguments are then taken from the cursor)")]
Rerank = Annotated[Literal["semantic", "none"] | None,
                   Field(description="semantic: re-rank the top 30 by meaning with the optional sentence-embedding "
                                     "model (fetched once when missing); none: the lexical order; default: semantic "
                                     "where the re-ranker is installed")]


class SearchFilters(BaseModel):
    """Filters of paper_search. Explicit filters and the aliases of the OpenAlex-explorer design;
    an alias that contradicts its explicit filter (source/venue, open/open_access,
    citations/min_citations) is an error."""

    model_config = ConfigDict(extra="forbid")
    # A year is written as a number as often as a string: 2020 is "2020".
    year: Annotated[str | None, BeforeValidator(lambda value: str(value) if type(value) is int else value)] = Field(
        None, description="publication years: 2019-2024, 2019-, -2015 or 2020")
    since: str | None = Field(None, description="published on or after YYYY-MM-DD")
    until: str | None = Field(None, description="published on or before YYYY-MM-DD")
    author: str | None = Field(None, description="an author's name")
    venue: str | None = Field(None, description="a journal or conference name, matched by its words")
    type: list[Literal["article", "review", "preprint", "conference"]] | None = Field(None, description="work types")
    open: bool | None = Field(None, description="only papers with a free full text")
    open_access: bool | None = Field(None, description="the same as open")
    preprints: bool | None = Field(None, description="true: preprints only (bioRxiv, medRxiv, arXiv…); false: no "
                                                     "preprints; unset: both")
    citations: str | None = Field(None, description="citation count: 100 (at least), >100, <50, 100-500, -50")
    min_citations: int | None = Field(None, ge=0, description="at least this many citations")
    source: str | None = Field(None, description="an OpenAlex source (S…) or a journal name resolved to one")
    institution: str | None = Field(None, description="an author's institution (I…, ROR id or name); OpenAlex only")
    topic: str | None = Field(None, description="the work's primary OpenAlex topic (T… or a name); OpenAlex only")
    publisher: str | None = Field(None, description="a publisher or its parent (P… or name); OpenAlex only")
    funder: str | None = Field(None, description="a funder of the work (F… or name); OpenAlex only")
    country: list[str] | None = Field(None, description="author institutions' countries, ISO codes (DE, US); "
                                                         "OpenAlex only")
    continent: list[str] | None = Field(None, description="author institutions' continents (europe, asia, "
                                                           "north_america, …); OpenAlex only")


def search_options(arguments: dict[str, Any]):
    """SearchOptions from paper_search's arguments (a cursor's too), through the one check
    (search/options.py): UsageError for bad values."""
    from ..search.options import MCP_TOOL, checked_options

    given = dict(arguments.get("filters") or {})
    filters = {"types": given.pop("type", None), **given}  # the schema's "type" is search_filters' "types"
    return checked_options(arguments["topic"], variants=arguments.get("variants") or [],
                           providers=arguments.get("providers") or None, limit=arguments["limit"],
                           sort=arguments["sort"], filters=filters, verify=arguments["verify"],
                           exclude_retracted=arguments["exclude_retracted"], rerank=arguments.get("rerank"),
                           names=MCP_TOOL)


def rerank_prepared(requested: str | None) -> tuple[str | None, str | None]:
    """The re-ranking to run with, the model fetched once on an explicit "semantic" (its line in
    the server's log), and a note when it could not be."""
    import logging

    from ..semantic.prepare import prepared_mode

    return prepared_mode(requested, say=logging.getLogger("litsearch").warning)


@declare(ASKS_THE_APIS, SearchPage)
async def paper_search(
    topic: Annotated[str, Field(min_length=1, max_length=1000, description="the research topic in plain words")],
    variants: Annotated[str | list[str] | None, Field(description="up to 8 other phrasings (synonyms, broader, "
                                                                  "narrower; one string is one), folded into one "
                                                                  "query per provider")] = None,
    providers: Annotated[list[Provider] | None, Field(description=f"default: chosen from the topic "
                                                                  f"({registry.auto_choice_in_words()})")] = None,
    filters: Annotated[SearchFilters | None, Field(description="filters; each is sent to the providers that "
                                                               "apply it and checked after fetching")] = None,
    sort: Annotated[Literal["relevance", "impact", "citations", "year"],
                    Field(description="relevance to the topic (default); impact: relevance x ln(citations + 1); "
                                      "citations: most cited first; year: newest first")] = "relevance",
    limit: Annotated[int, Field(ge=1, le=100, description="papers to rank, check and show")] = 20,
    exclude_retracted: Annotated[bool, Field(description="leave out papers marked retracted")] = False,
    include_abstracts: Annotated[bool, Field(description="abstract snippets in the table")] = True,
    verify: Annotated[bool, Field(description="check DOIs at Crossref and find open-access links")] = True,
    rerank: Rerank = None,
    cursor: Cursor = None,
):
    """Search the scholarly literature ({searched}) at once:
    duplicates merged, ranked by relevance with citations as a gentle prior, DOIs checked at Crossref,
    open-access links found, retractions marked. Use it to find papers on a topic; give variants for synonyms
    and filters for years, venues, authors, institutions, topics, countries, citation counts or preprints
    (work_list is OpenAlex alone, with its exact filters). Returns the ranked Markdown table and slim summaries (ids, first authors, year, venue, citations, DOI
    check, open-access link, retraction flag, relevance and why), a search_id for library_save and
    search_report, and a cursor when more rows are left."""
    from ..search.pipeline import run_search

    # One phrase as a model often writes it, a string: one variant (as the deep-search tools take it)
    variants = [variants] if isinstance(variants, str) else variants
    given = {"topic": topic, "variants": variants, "providers": providers, "filters": filters, "sort": sort,
             "limit": limit, "exclude_retracted": exclude_retracted, "include_abstracts": include_abstracts,
             "verify": verify, "rerank": rerank}
    offset = 0
    if cursor:
        resumed = resume(paper_search, cursor)
        given, offset = resumed.arguments, resumed.offset
    if given.get("rerank") is None:  # not asked: the same search_id as before the re-ranker existed
        given.pop("rerank", None)
    arguments = {**given, "variants": given["variants"] or [],
                 "filters": given["filters"].model_dump(exclude_none=True) if given["filters"] else {}}
    options = search_options(arguments)
    runtime = current()
    search_id = call_key("paper_search", {k: v for k, v in arguments.items() if k != "include_abstracts"})
    kept = runtime.recall(search_id)
    if kept is None:
        options.rerank, note = await asyncio.to_thread(rerank_prepared, options.rerank)  # may fetch the model
        result = await runtime.online(lambda http, _store: run_search(options, http.settings, http=http))
        if note:
            result.enrichment.notes.append(note)
        kept = ("search", options, result)
        runtime.remember(search_id, kept)
    return search_page("paper_search", arguments, search_id, kept[2], options.limit, offset,
                       arguments["include_abstracts"])


# The description names the providers the registry declares (a provider added there is named here).
paper_search.__doc__ = (paper_search.__doc__ or "").format(searched=", ".join(
    registry.provider_label(name) for name in registry.searched_by_auto()))


@declare(ASKS_THE_APIS, SearchPage)
async def paper_citations(
    seeds: Annotated[list[str], Field(min_length=1, max_length=MAX_SEEDS,
                                      description="seed papers: DOI, PMID, arXiv id, OpenAlex W-id or Semantic "
                                                  "Scholar id")],
    direction: Annotated[Literal["backward", "forward", "both"],
                         Field(description="backward: the papers the seeds cite; forward: the papers citing "
                                           "them")] = "both",
    topic: Annotated[str | None, Field(max_length=1000, description="rank papers about this first "
                                                                    "among equals")] = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
    include_abstracts: bool = True,
    verify: Annotated[bool, Field(description="check DOIs at Crossref and find open-access links")] = True,
    rerank: Rerank = None,
    cursor: Cursor = None,
):
    """Chase citations from seed papers (snowballing): their references, the papers citing them, or both, merged
    into one deduplicated list ranked by how many seeds each paper connects to, then relevance to the topic, then
    citations; the seeds themselves are left out. Use it after finding a few key papers to find the rest of a
    literature. Returns the same table and slim summaries as paper_search (why says which seeds each connects
    to), a search_id for library_save and search_report, and a cursor when more rows are left."""
    from ..core.identifiers import parse_paper_ref
    from ..graph.snowball import snowball

    given = {"seeds": seeds, "direction": direction, "topic": topic, "limit": limit,
             "include_abstracts": include_abstracts, "verify": verify, "rerank": rerank}
    offset = 0
    if cursor:
        resumed = resume(paper_citations, cursor)
        given, offset = resumed.arguments, resumed.offset
    if given.get("rerank") is None:  # not asked: the same search_id as before the re-ranker existed
        given.pop("rerank", None)
    arguments = {**given, "seeds": list(dict.fromkeys(given["seeds"]))}
    refs = [(text, parse_paper_ref(text)) for text in arguments["seeds"]]
    runtime = current()
    search_id = call_key("paper_citations", {k: v for k, v in arguments.items() if k != "include_abstracts"})
    kept = runtime.recall(search_id)
    if kept is None:
        from ..graph.chased import as_search_result

        started = time.monotonic()
        settings = SimpleNamespace(limit=arguments["limit"], no_verify=not arguments["verify"],
                                   direction=arguments["direction"])

        mode, note = (await asyncio.to_thread(rerank_prepared, arguments.get("rerank")) if arguments["topic"]
                      else (None, None))

        async def work(http, _store):
            found = await snowball(http, refs, arguments["direction"], arguments["topic"], rerank=mode)
            if note:
                found.notes.append(note)
            return found, await as_search_result(http, found, arguments["limit"], arguments["verify"], started)

        found, result = await runtime.online(work)
        if found.all_failed:
            raise UsageError("no seed could be fetched: " + "; ".join(f"{s.label}: {s.error}" for s in found.seeds))
        kept = ("snowball", (found, settings), result)
        runtime.remember(search_id, kept)
    return search_page("paper_citations", arguments, search_id, kept[2], arguments["limit"], offset,
                       arguments["include_abstracts"])


@declare(ASKS_THE_APIS, PaperRecord)
async def paper_get(
    id: Annotated[str, Field(min_length=1, max_length=300,
                             description="DOI, PMID, PMCID, arXiv id, OpenAlex W-id or Semantic Scholar id")],
    limit: Annotated[int, Field(ge=1, le=100, description="rows of references and of citing papers")] = 10,
    offset: Annotated[int, Field(ge=0, description="first row of each list (0: the most cited)")] = 0,
):
    """Get one paper in full: its record merged from Semantic Scholar and OpenAlex (title, all authors, year,
    venue, every identifier, abstract, TL;DR, open-access link, retraction and correction notices), then its
    references and the papers citing it, each ranked by citation count. Use it to read up on a paper found by a
    search or named by the user. Page the two lists with offset; next_offset says where the next rows start."""
    from ..graph.bundle import fetch_paper_bundle
    from ..render.paper import paper_markdown, record_dict
    from .summaries import paper_brief

    bundle = await current().online(lambda http, _store: fetch_paper_bundle(http, id))

    def page(count: int) -> tuple[str, dict[str, Any]]:
        view = SimpleNamespace(**{**bundle.__dict__, "references": bundle.references[offset:offset + count],
                                  "citations": bundle.citations[offset:offset + count]})
        record = record_dict(bundle.paper, bundle.records, all_authors=True)
        following = offset + count
        more = following < max(len(bundle.references), len(bundle.citations))
        data = {"paper": record, "reference_count": bundle.reference_count, "citation_count": bundle.citation_count,
                "references": [paper_brief(p) for p in view.references],
                "citations": [paper_brief(p) for p in view.citations],
                "rows": f"{offset + 1}-{following}", "next_offset": following if more else None,
                "notes": list(bundle.notes)}
        return paper_markdown(view, count), data

    count = largest_fit(limit, lambda n: result_size(*page(n)), current().max_chars)
    return tool_result(*page(count))


@declare(ASKS_THE_APIS, NetworkPage)
async def paper_network(
    ids: Annotated[list[str], Field(min_length=1, max_length=MAX_SEEDS, description="seed papers (any id form)")],
    depth: Annotated[Literal[1, 2], Field(description="1: seeds, references, citing papers; 2: also the references "
                                                      "of the most shared references")] = 1,
    limit: Annotated[int, Field(ge=1, le=500, description="nodes listed per page")] = 100,
    cursor: Cursor = None,
):
    """Build the citation network around one or more seed papers: the seeds, their references and the papers
    citing them, with the citation links among all of them and the references several seeds share (the work
    they build on). Use it to map a field's structure or find common foundations. Returns a Mermaid flowchart of
    the best-connected papers, the shared references, and the nodes (n-ids, titles, years, citations) with the
    links among them, paged by cursor."""
    from ..core.identifiers import parse_paper_ref
    from ..graph.network import build_network
    from ..render.network import network_markdown, network_payload

    given = {"ids": ids, "depth": depth, "limit": limit}
    offset = 0
    if cursor:
        resumed = resume(paper_network, cursor)
        given, offset = resumed.arguments, resumed.offset
    arguments = {**given, "ids": list(dict.fromkeys(given["ids"]))}
    refs = [parse_paper_ref(text) for text in arguments["ids"]]
    runtime = current()
    key = call_key("paper_network", arguments)
    network = runtime.recall(key)
    if network is None:
        network = await runtime.online(lambda http, _store: build_network(http, refs, depth=arguments["depth"]))
        runtime.remember(key, network)
    full = network_payload(network)
    nodes = [{"id": n["id"], "seed": n["seed"], "title": n.get("title"), "year": n.get("year"),
              "citations": n.get("citation_count"), "doi": n.get("doi"), "openalex": n.get("openalex_id")}
             for n in full["nodes"]]
    if offset and offset >= len(nodes):
        raise UsageError(f"the cursor points past the last of the {len(nodes)} nodes")
    text = network_markdown(network) if offset == 0 else ""

    def page(count: int) -> dict[str, Any]:
        listed = nodes[offset:offset + count]
        ids_here = {n["id"] for n in listed}
        following = offset + count
        return {"node_count": full["node_count"], "edge_count": full["edge_count"], "seeds": full["seeds"],
                "nodes": listed, "edges": [f"{e['citing']}->{e['cited']}" for e in full["edges"]
                                           if e["citing"] in ids_here or e["cited"] in ids_here],
                "shared_references": full["shared_references"], "failed_seeds": full["failed_seeds"],
                "notes": full["notes"], "next_cursor": encode_cursor("paper_network", arguments, following)
                if following < len(nodes) else None}

    if len(text) > current().max_chars // 2:  # the drawing is capped, but titles can be long
        text = "The network is in the data below (its drawing is too long for one result)."
    count = largest_fit(min(arguments["limit"], len(nodes) - offset), lambda n: result_size(text, page(n)),
                        current().max_chars) if nodes else 0
    return tool_result(text, page(count))
