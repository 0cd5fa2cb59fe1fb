"""`lit-search mcp` driven by the MCP SDK's own client over stdio, against the fake APIs: the
tool list with its schemas, every tool called, long results paged by cursor, tool errors for
bad input (one line each), a provider failure survived, keys never in a result or the log, and
the streamable HTTP transport on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

import fake_apis
from command import command_env, lit_search_command
from fake_server import Answer, FakeServer
from fault_support import SHORT_SETTINGS

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

# The OpenAlex explorer design's 28 tools, by name (tests/mcp_server/test_explorer_tools.py calls each).
EXPLORER_TOOLS = {*(f"{entity}_{verb}" for entity in ("work", "author", "source", "institution", "topic", "publisher",
                                                     "funder", "domain", "field", "subfield") for verb in ("list", "get")),
                  *(f"{entity}_autocomplete" for entity in ("work", "author", "source", "institution", "publisher",
                                                            "funder", "subfield")), "work_find"}
DEEP_TOOLS = {"deep_search_start", "deep_search_next", "deep_search_results"}
TOOLS = {"paper_search", "paper_get", "paper_read", "paper_citations", "paper_network", *EXPLORER_TOOLS,
         "library_list", "library_save", "search_report", *DEEP_TOOLS}
TABLE_HEADER = "| # | Authors | Title | Year | Venue | Cites | DOI | OA |"
KEY = "sentinel-openalex-key-7f3a9c"


def server_env(server: FakeServer, tmp_path: Path, overrides: dict | None = None, **extra: str) -> dict[str, str]:
    return command_env(SHORT_SETTINGS, fake_apis.install(server, overrides),
                       LITSEARCH_CACHE_DIR=str(tmp_path / "data"), **extra)


@asynccontextmanager
async def connected(env: dict[str, str], *args: str, log: Path | None = None):
    command = lit_search_command()
    errlog = open(log, "w") if log else None
    params = StdioServerParameters(command=command[0], args=[*command[1:], "mcp", *args], env=env)
    try:
        from mcp.client.stdio import stdio_client

        transport = stdio_client(params, errlog=errlog) if errlog else stdio_client(params)
        async with Client(transport) as client:
            yield client
    finally:
        if errlog:
            errlog.close()


def run(coroutine):
    return asyncio.run(coroutine)


def text_of(result) -> str:
    return result.content[0].text


def test_tools_are_listed_with_schemas_and_one_paragraph_descriptions(tmp_path):
    async def go():
        with FakeServer() as server:
            async with connected(server_env(server, tmp_path)) as client:
                return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run(go())}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and "properties" in tool.input_schema, tool.name
        assert 120 < len(tool.description) < 900 and "\n" not in tool.description, tool.name
    search = tools["paper_search"].input_schema
    assert search["required"] == ["topic"]
    assert search["properties"]["limit"]["maximum"] == 100
    filters = search["$defs"]["SearchFilters"]["properties"]
    assert {"institution", "topic", "source", "publisher", "funder", "country", "continent", "type", "open", "year",
            "citations"} <= set(filters)
    assert search["$defs"]["SearchFilters"]["additionalProperties"] is False
    assert {"query", "institution", "country", "h_index", "filter", "cursor", "limit"} <= \
        set(tools["author_list"].input_schema["properties"])
    assert tools["institution_get"].input_schema["required"] == ["id"]


def test_paper_search_offers_every_searchable_provider_and_the_preprint_filter(tmp_path):
    """The providers paper_search accepts are the registry's (a provider added there is offered
    with no edit to the server), Europe PMC among them, and preprints=true is applied."""
    from litsearch.providers import registry

    async def go():
        with FakeServer() as server:
            async with connected(server_env(server, tmp_path)) as client:
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                found = await client.call_tool("paper_search", {
                    "topic": "CRISPR off-target effects", "providers": ["europepmc"],
                    "filters": {"preprints": True}, "limit": 10, "verify": False})
                return tools["paper_search"], found

    tool, found = run(go())
    providers = tool.input_schema["properties"]["providers"]["anyOf"][0]["items"]["enum"]
    assert providers == list(registry.searchable()) and "europepmc" in providers
    assert "Europe PMC" in tool.description
    assert not found.is_error, text_of(found)
    papers = found.structured_content["papers"]
    assert papers and all("(preprint)" in (paper["venue"] or "") for paper in papers), papers
    assert "Research Square (preprint)" in text_of(found)


def test_every_tool_answers(tmp_path):
    async def go():
        with FakeServer() as server:
            async with connected(server_env(server, tmp_path)) as client:
                calls = {
                    "paper_search": {"topic": "CRISPR off-target effects", "limit": 5},
                    "paper_get": {"id": "10.1038/nbt.2647"},
                    "paper_citations": {"seeds": ["10.1038/nbt.2647"], "limit": 5},
                    "paper_network": {"ids": ["10.1038/nbt.2647"]},
                    "author_list": {"query": "hinton"}, "author_get": {"id": "A5108093963"},
                    "source_list": {"query": "nature"}, "source_get": {"id": "issn:0028-0836"},
                    "institution_list": {"country": ["us"]}, "institution_get": {"id": "ror:042nb2s44"},
                    "topic_list": {"query": "crispr"}, "topic_get": {"id": "T10211"},
                    "publisher_list": {}, "funder_list": {"country": ["US"]},
                }
                answers = {name: await client.call_tool(name, arguments) for name, arguments in calls.items()}
                search_id = answers["paper_search"].structured_content["search_id"]
                answers["library_save"] = await client.call_tool("library_save", {"search_id": search_id, "rows": [1, 2]})
                answers["library_list"] = await client.call_tool("library_list", {})
                answers["search_report"] = await client.call_tool("search_report", {"record": search_id})
                return answers

    answers = run(go())
    # paper_read needs the full-text fakes (test_mcp_read.py), deep search its judged world (test_mcp_deep.py);
    # the explorer's new tools are each called against the recorded OpenAlex in test_explorer_tools.py.
    assert TOOLS - EXPLORER_TOOLS - DEEP_TOOLS - {"paper_read"} <= set(answers)
    for name, answer in answers.items():
        assert not answer.is_error, (name, text_of(answer))
        assert answer.structured_content["text"] == text_of(answer), name  # one text, both forms
        assert json.loads(answer.content[1].text)["quoted_data"].startswith("Titles, names"), name
    search = answers["paper_search"].structured_content
    assert TABLE_HEADER in search["text"]
    first = search["papers"][0]
    assert {"rank", "ids", "title", "authors", "year", "venue", "citations", "doi_verified", "oa_url", "retracted",
            "relevance", "why"} <= set(first)
    assert [p["rank"] for p in search["papers"]] == [1, 2, 3, 4, 5]
    crispr = next(p for p in search["papers"] if p["ids"].get("doi") == "10.1038/nbt.2647")
    assert crispr["doi_verified"] is True and set(crispr["score_terms"]) == {"lexical", "agreement", "title_match",
                                                                               "citation_prior"}
    assert "found by" in first["why"]
    assert "DNA targeting specificity" in answers["paper_get"].structured_content["paper"]["title"]
    assert answers["paper_citations"].structured_content["papers"], text_of(answers["paper_citations"])
    assert answers["paper_network"].structured_content["node_count"] > 1
    assert "```mermaid" in text_of(answers["paper_network"])
    authors = answers["author_list"].structured_content["results"]
    assert authors[0] == {"id": "A5108093963", "display_name": "Geoffrey E. Hinton", "orcid": "0000-0001-2345-6789",
                          "works_count": 412, "cited_by_count": 650123, "h_index": 170,
                          "last_known_institutions": ["University of Toronto"],
                          "top_topics": ["Neural Networks and Applications",
                                         "Research topic number 0 in machine learning",
                                         "Research topic number 1 in machine learning"]}
    assert answers["source_get"].structured_content["record"]["display_name"] == "Nature"
    assert answers["institution_get"].structured_content["record"]["id"] == "I63966007"
    assert {r["country_code"] for r in answers["institution_list"].structured_content["results"]} == {"US"}
    assert [f["display_name"] for f in answers["funder_list"].structured_content["results"]] == [
        "National Institutes of Health", "National Science Foundation"]
    assert "saved 2 papers to the library" in text_of(answers["library_save"])
    assert answers["library_list"].structured_content["total"] == 2
    assert "PRISMA 2020" in text_of(answers["search_report"])


def test_long_results_page_by_cursor_within_the_budget(tmp_path):
    async def go():
        with FakeServer() as server:
            env = server_env(server, tmp_path, LITSEARCH_MCP_MAX_CHARS="4000")
            async with connected(env) as client:
                pages = [await client.call_tool("paper_search", {"topic": "CRISPR off-target effects", "limit": 8})]
                while pages[-1].structured_content["next_cursor"]:
                    pages.append(await client.call_tool("paper_search",
                                                        {"topic": "ignored", "cursor": pages[-1].structured_content[
                                                            "next_cursor"]}))
                whole = await client.call_tool("paper_search", {"topic": "CRISPR off-target effects", "limit": 8})
                authors = [await client.call_tool("author_list", {"query": "lovelace", "limit": 5})]
                while authors[-1].structured_content["next_cursor"]:
                    authors.append(await client.call_tool("author_list", {
                        "cursor": authors[-1].structured_content["next_cursor"]}))
                big = await client.call_tool("author_get", {"id": "A5108093963"})
                searches = len(server.requests_to("/openalex/works"))
                return pages, whole, authors, big, searches

    pages, whole, authors, big, searches = run(go())
    assert len(pages) > 1
    for page in pages:
        size = len(json.dumps(page.structured_content, ensure_ascii=False, separators=(",", ":")))
        assert size <= 4000 or len(page.structured_content["papers"]) == 1, size
    ranks = [p["rank"] for page in pages for p in page.structured_content["papers"]]
    titles = [p["title"] for page in pages for p in page.structured_content["papers"]]
    assert ranks == list(range(1, len(ranks) + 1)) and len(ranks) == min(8, pages[0].structured_content["shown"])
    second = pages[1].structured_content
    first_rank = second["papers"][0]["rank"]
    assert f"Showing rows {first_rank}–" in second["text"] and f"| {first_rank} | " in second["text"]
    assert titles[0] == whole.structured_content["papers"][0]["title"]
    assert searches == 1  # the pages came from the kept result, not new searches
    names = [a["display_name"] for page in authors for a in page.structured_content["results"]]
    assert len(names) == 12 and len(set(names)) == 12 and len(authors) >= 3
    shortened = big.structured_content["shortened"]
    assert shortened and len(json.dumps(big.structured_content)) < 4000 * 1.2


BAD_CALLS = [
    ("paper_search", {"topic": "x", "limit": 500}, "paper_search: invalid arguments: limit: Input should be less"),
    ("paper_search", {"topic": "x", "filters": {"colour": "red"}}, "filters.colour: Extra inputs are not permitted"),
    ("paper_search", {"topic": "x", "filters": {"source": "Nature", "venue": "Cell"}}, "disagree"),
    ("paper_search", {"topic": "x", "filters": {"citations": "100", "min_citations": 5}}, "disagree"),
    ("paper_search", {"topic": "x", "filters": {"institution": "MIT"}, "providers": ["pubmed"]},
     "only OpenAlex can apply the institution filter"),
    ("paper_search", {"topic": "x", "filters": {"institution": "Nowhere University of Nothing"}},
     "no OpenAlex institution matches"),
    ("paper_search", {"topic": "x", "filters": {"country": ["Germany"]}}, "two-letter ISO country codes"),
    ("paper_search", {"topic": "x", "cursor": "not-a-cursor"}, "cursor"),
    ("paper_get", {"id": "not an id at all"}, "not"),
    ("author_get", {"id": "W2741809807"}, "is not an OpenAlex author id"),
    ("author_get", {"id": "A1"}, "OpenAlex has no author 'A1'"),
    ("author_list", {"query": "x", "institution": "MIT", "filter": "last_known_institutions.id:I1"}, "both set"),
    ("author_list", {"citations": "many"}, "takes 100 (at least)"),
    ("library_save", {}, "give search_id"),
    ("search_report", {"record": "nope"}, "neither a search_id"),
]


def test_bad_input_is_a_one_line_tool_error(tmp_path):
    async def go():
        with FakeServer() as server:
            async with connected(server_env(server, tmp_path)) as client:
                answers = [await client.call_tool(tool, arguments) for tool, arguments, _ in BAD_CALLS]
                still = await client.call_tool("topic_get", {"id": "T10211"})
                return answers, still

    answers, still = run(go())
    for (tool, arguments, message), answer in zip(BAD_CALLS, answers):
        assert answer.is_error, (tool, arguments)
        assert message in text_of(answer) and "\n" not in text_of(answer), (tool, text_of(answer))
        assert "Traceback" not in text_of(answer)
    assert not still.is_error  # the server goes on


def test_a_provider_failure_is_reported_and_the_server_survives_total_failure(tmp_path):
    down = [Answer(503, json.dumps({"message": "Service Unavailable"}))]
    overrides = {"/s2/graph/v1/paper/search": down}

    async def go():
        with FakeServer() as server:
            async with connected(server_env(server, tmp_path, overrides)) as client:
                partial = await client.call_tool("paper_search", {"topic": "CRISPR off-target effects",
                                                                  "providers": ["semantic_scholar", "openalex"]})
                total = await client.call_tool("paper_search", {"topic": "deep learning",
                                                                "providers": ["semantic_scholar"]})
                entity = await client.call_tool("author_list", {"query": "providerdown"})
                after = await client.call_tool("author_list", {"query": "guo"})
                return partial, total, entity, after

    partial, total, entity, after = run(go())
    assert not partial.is_error and partial.structured_content["papers"]
    assert partial.structured_content["errors"][0]["provider"] == "semantic_scholar"
    assert "HTTP 503" in partial.structured_content["errors"][0]["message"]
    assert "semantic_scholar: failed" in partial.structured_content["text"]
    assert total.is_error and "every provider failed (semantic_scholar: HTTP 503" in text_of(total)
    assert entity.is_error and "HTTP 503" in text_of(entity) and "\n" not in text_of(entity)
    assert not after.is_error and after.structured_content["results"][0]["display_name"] == "Congting Guo"


def test_keys_never_reach_a_result_or_the_log(tmp_path):
    def echoing(request):  # an API that echoes the key back inside a title and an error
        if request.param("api_key") != KEY:
            return Answer(401, json.dumps({"error": "no key"}))
        body = json.loads(fake_apis.openalex_works(request).body)
        body["results"][0]["display_name"] = f"Title with {KEY} inside"
        return Answer(200, json.dumps(body))

    log = tmp_path / "server.log"

    async def go():
        with FakeServer() as server:
            env = server_env(server, tmp_path, {"/openalex/works": echoing,
                                                "/openalex/topics": [Answer(500, f"crash {KEY}")]},
                             OPENALEX_API_KEY=KEY)
            async with connected(env, log=log) as client:
                found = await client.call_tool("paper_search", {"topic": "deep learning", "providers": ["openalex"]})
                failed = await client.call_tool("topic_list", {"query": "x"})
                return found, failed

    found, failed = run(go())
    everything = json.dumps(found.model_dump()) + json.dumps(failed.model_dump()) + log.read_text()
    assert "Title with [redacted] inside" in found.structured_content["text"]
    assert failed.is_error and KEY not in everything


def test_streamable_http_on_loopback(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with FakeServer() as server:
        process = subprocess.Popen([*lit_search_command(), "mcp", "--http", str(port)], env=server_env(server, tmp_path),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)

            token = (tmp_path / "data" / "mcp-token").read_text().strip()  # made at start, for this user only

            async def go():
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http, \
                        Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client:
                    tools = (await client.list_tools()).tools
                    return tools, await client.call_tool("topic_list", {"query": "crispr"})

            tools, answer = run(go())
        finally:
            process.terminate()
            process.wait(timeout=10)
    assert {tool.name for tool in tools} == TOOLS
    assert answer.structured_content["results"][0]["id"] == "T10211"
    assert process.stdout.read() == b""  # stdout carries nothing but the protocol (and HTTP needs none)


def test_bad_server_options_exit_2_in_one_line(tmp_path):
    env = command_env(LITSEARCH_MCP_MAX_CHARS="lots")
    for args, message in ((["--max-chars", "10"], "--max-chars must be between"), ([], "LITSEARCH_MCP_MAX_CHARS"),
                          (["--http", "70000"], "--http takes a port")):
        proc = subprocess.run([*lit_search_command(), "mcp", *args], env=env if not args else command_env(),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_the_server_ends_when_the_client_closes_stdin(tmp_path):
    proc = subprocess.run([*lit_search_command(), "mcp"], env=command_env(), input="", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    assert os.environ.get("PYTHONPATH", "") == os.environ.get("PYTHONPATH", "")
