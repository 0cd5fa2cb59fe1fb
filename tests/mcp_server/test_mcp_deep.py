"""The deep-search tools through the SDK's client: the same steps, JSON and checks as
`lit-search deep` (tests/deep/test_deep_cli.py), against the fake providers' small world."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).parent.parent / "deep"))

from mcp_inprocess import in_process, run, text_of  # noqa: E402

from deep_world import World  # noqa: E402
from fault_support import SHORT_SETTINGS  # noqa: E402
from small_world import small_world  # noqa: E402


@pytest.fixture
def served(monkeypatch, tmp_path):
    from litsearch.net.pacing import PROCESS_PACE_BOOK

    with World(small_world(), share=1.0) as world:
        for name, value in {**SHORT_SETTINGS, "LITSEARCH_READ_TIMEOUT": "10", **world.env,
                            "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(tmp_path)
        PROCESS_PACE_BOOK.clear()
        yield world


def test_start_next_results_through_the_sdk_client(served, tmp_path):
    async def go():
        async with in_process() as client:
            first = await client.call_tool("deep_search_start", {"topic": "coral reef bleaching",
                                                                 "session": "review.json", "batch": 3})
            second = await client.call_tool("deep_search_next", {"session": "review.json", "relevant": [1],
                                                                 "not": "2,3"})
            bad = await client.call_tool("deep_search_next", {"session": "review.json", "relevant": "0"})
            again = await client.call_tool("deep_search_start", {"topic": "x", "session": "review.json"})
            results = await client.call_tool("deep_search_results", {"session": "review.json",
                                                                     "output": "included.ris"})
            over = await client.call_tool("deep_search_results", {"session": "review.json", "output": "review.json"})
            excluded = await client.call_tool("deep_search_results", {"session": "review.json", "rejected": True,
                                                                      "output": "screened.csv"})
            past = await client.call_tool("deep_search_results", {"session": "review.json", "rejected": True,
                                                                  "offset": 10_000})
            return first, second, bad, again, results, over, excluded, past

    first, second, bad, again, results, over, excluded, past = run(go())
    assert excluded.structured_content["total"] == 3 and past.structured_content["total"] == 3
    assert past.structured_content["results"] == [] and past.structured_content["rows"] == "0"
    assert "No papers from offset 10,000: the list has 3 papers (offsets 0–2)." in text_of(past)
    assert not excluded.is_error, text_of(excluded)
    assert [paper["verdict"] for paper in excluded.structured_content["results"]] == ["relevant", "not", "not"]
    assert "**not relevant** ·" in text_of(excluded)
    assert (tmp_path / "screened.csv").read_text().count(",not,") == 2
    assert [paper["verdict"] for paper in results.structured_content["results"]] == ["relevant"]  # as before
    assert over.is_error and "is a deep-search session: writing there would replace it" in text_of(over)
    assert not first.is_error and not second.is_error, text_of(first) + text_of(second)
    step = first.structured_content
    assert step["round"] == 1 and len(step["batch"]) == 3 and step["done"] is False
    assert {"row", "doi", "pmid", "arxiv_id", "openalex_id", "paper_id", "title", "abstract", "year", "venue",
            "why"} <= set(step["batch"][0])
    assert json.loads(second.content[1].text)["yield"][0]["judged"] == 3
    assert second.structured_content["relevant"] == 1 and second.structured_content["round"] == 2
    assert bad.is_error and "row 0 is not in the batch" in text_of(bad) and "\n" not in text_of(bad)
    assert again.is_error and "already exists" in text_of(again)
    assert not results.is_error and results.structured_content["relevant"] == 1
    assert results.structured_content["results"][0]["verdict"] == "relevant"
    assert (tmp_path / "included.ris").read_text().count("TY  -") == 1
    # The same JSON as `deep results --format json` (the Python API's deep_results): every field,
    # the same rows, plus where this page is.
    from litsearch.api import deep_results
    command = deep_results("review.json", include_rejected=True)
    page = excluded.structured_content
    assert set(command) <= set(page) and page["results"] == command["results"]
    assert {name: page[name] for name in command if name != "results"} == {
        name: value for name, value in command.items() if name != "results"}
    document = json.loads((tmp_path / "review.json").read_text())
    assert [c["verdict"] for c in document["candidates"] if c["verdict"]] == ["relevant", "not", "not"]


def test_start_takes_the_commands_stop_and_budget_options_and_a_true_is_no_row(served, tmp_path):
    async def go():
        async with in_process() as client:
            started = await client.call_tool("deep_search_start", {
                "topic": "coral reef bleaching", "session": "review.json", "batch": 3, "max_requests": 50,
                "round_requests": 20, "stop_window": 120, "stop_yield": 1})
            odd = await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "x.json",
                                                               "stop_window": 10, "stop_yield": 10})
            truth = await client.call_tool("deep_search_next", {"session": "review.json", "relevant": [True]})
            return started, odd, truth

    started, odd, truth = run(go())
    assert not started.is_error, text_of(started)
    options = json.loads((tmp_path / "review.json").read_text())["options"]
    assert (options["max_requests"], options["round_requests"], options["stop_window"], options["stop_yield"]) == \
        (50, 20, 120, 1)
    assert odd.is_error and "stop_yield must be between 0 and stop_window - 1" in text_of(odd)
    assert not (tmp_path / "x.json").exists()
    assert truth.is_error and json.loads((tmp_path / "review.json").read_text())["rounds"][-1]["number"] == 1
    assert all(c.get("verdict") is None for c in json.loads((tmp_path / "review.json").read_text())["candidates"])


def test_two_next_calls_at_once_run_one_step_and_refuse_the_other(served, tmp_path):
    """A client that sends two deep_search_next calls on one session at once (a model calling
    tools in parallel): one runs, the other is refused in one line; the session holds the verdicts
    of the one that ran, and its batch is the one that call returned."""
    import asyncio

    async def go():
        async with in_process() as client:
            await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "review.json",
                                                         "batch": 3})
            return await asyncio.gather(
                client.call_tool("deep_search_next", {"session": "review.json", "relevant": [1], "not": "2,3"}),
                client.call_tool("deep_search_next", {"session": "review.json", "relevant": [2], "not": "1,3"}))

    answers = run(go())
    ran = [answer for answer in answers if not answer.is_error]
    refused = [answer for answer in answers if answer.is_error]
    assert len(ran) == 1 and len(refused) == 1, [text_of(answer) for answer in answers]
    assert "another step on this session is running" in text_of(refused[0]) and "\n" not in text_of(refused[0])
    document = json.loads((tmp_path / "review.json").read_text())
    judged = [c for c in document["candidates"] if c["verdict"]]
    assert [c["verdict"] for c in judged].count("relevant") == 1 and len(judged) == 3
    shown = [row["title"] for row in ran[0].structured_content["batch"]]
    keys = {c["key"]: c for c in document["candidates"]}
    assert shown and len(shown) == len(document["batch"]) and all(keys[key]["verdict"] is None for key in document["batch"])
    assert not (tmp_path / ".review.json.lock").exists()


def test_show_returns_the_batch_again_and_records_nothing(served, tmp_path):
    async def go():
        async with in_process() as client:
            first = await client.call_tool("deep_search_start", {"topic": "coral reef bleaching",
                                                                 "session": "review.json", "batch": 3})
            before = (tmp_path / "review.json").read_bytes()
            shown = await client.call_tool("deep_search_next", {"session": "review.json", "show": True})
            after = (tmp_path / "review.json").read_bytes()
            mixed = await client.call_tool("deep_search_next", {"session": "review.json", "show": True,
                                                                "relevant": [1]})
            with held(tmp_path / "review.json"):  # another step is running: mid-step, the file misleads
                busy = await client.call_tool("deep_search_next", {"session": "review.json", "show": True})
            return first, before, shown, after, mixed, busy

    from litsearch.deep.step_lock import held

    first, before, shown, after, mixed, busy = run(go())
    assert busy.is_error and "another step on this session is running" in text_of(busy)
    assert not shown.is_error and shown.structured_content["batch"] == first.structured_content["batch"]
    assert before == after
    assert mixed.is_error and "show records nothing; leave out relevant" in text_of(mixed)


def test_the_results_of_a_filtered_session_are_the_commands_json_too(served, tmp_path):
    """A session with filters: its results through the tool match `deep results --format json`
    field for field (the output schema checks every field's type)."""
    from litsearch.api import deep_results

    async def go():
        async with in_process() as client:
            await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "f.json",
                                                          "batch": 3, "filters": {"year": "2000-"}})
            await client.call_tool("deep_search_next", {"session": "f.json", "relevant": [1, 2]})
            report = await client.call_tool("search_report", {"record": "f.json"})
            return await client.call_tool("deep_search_results", {"session": "f.json", "all": True}), report

    answer, report = run(go())
    assert not answer.is_error, text_of(answer)
    # The session's methods, as `lit-search report f.json --format json` gives them.
    assert not report.is_error, text_of(report)
    methods = report.structured_content["report"]
    assert methods["kind"] == "deep-search session" and methods["yield"] == answer.structured_content["yield"]
    assert "Round" in methods["methods"] and methods["methods"] in text_of(report)
    page, command = answer.structured_content, deep_results("f.json", include_unjudged=True)
    assert command["filters"] and page["filters"] == command["filters"]
    assert page["results"] == command["results"][:len(page["results"])] and page["total"] == len(command["results"])


def test_a_results_page_stays_within_the_servers_bound_and_says_where_the_next_starts(served, tmp_path):
    """A page of whole abstracts can be far larger than a client passes on: the page holds as many
    rows as keep the result within --max-chars, numbered as ranked, and says which offset comes
    next; pages follow one another to the end, every row once. An output file and a format that
    name two formats are refused."""
    from litsearch.mcp_server.runtime import result_size

    budget = 6_000

    async def go():
        async with in_process(max_chars=budget) as client:
            await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "review.json",
                                                         "batch": 5})
            pages, offset = [], 0
            while offset is not None:
                page = await client.call_tool("deep_search_results", {"session": "review.json", "all": True,
                                                                      "offset": offset})
                pages.append(page)
                offset = page.structured_content["next_offset"]
            clash = await client.call_tool("deep_search_results", {"session": "review.json", "output": "x.bib",
                                                                   "format": "ris"})
            return pages, clash

    pages, clash = run(go())
    total = pages[0].structured_content["total"]
    assert len(pages) > 1 and total > 20  # the small world's candidates do not fit one page of this bound
    keys = [paper["session_key"] for page in pages for paper in page.structured_content["results"]]
    assert len(keys) == total == len(set(keys))
    for page in pages:
        data = page.structured_content
        assert result_size(data["text"], {k: v for k, v in data.items() if k not in ("text", "quoted_data")}) <= budget
    second = pages[1].structured_content
    first_row = int(second["rows"].split("-")[0])
    assert f"| {first_row} |" in text_of(pages[1])  # numbered as ranked, not from 1 again
    assert f"the next page: deep_search_results with offset={pages[0].structured_content['next_offset']}" \
        in text_of(pages[0])
    assert clash.is_error and "names BibTeX but format asks for RIS" in text_of(clash)
    assert not (tmp_path / "x.bib").exists()


def test_the_forms_a_model_writes_one_value_in_are_taken(served, tmp_path):
    """One row as a bare number, one query as a string, a year as a number: each as its list or
    string form would be, not refused in the validator's words."""
    async def go():
        async with in_process() as client:
            first = await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "r.json",
                                                                 "batch": 3, "variants": "bleached reefs"})
            second = await client.call_tool("deep_search_next", {"session": "r.json", "relevant": 1, "not": 2,
                                                                 "variants": "zooxanthellae expulsion"})
            dated = await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "y.json",
                                                                 "filters": {"year": 2003}})
            return first, second, dated

    first, second, dated = run(go())
    assert not first.is_error and not second.is_error, text_of(first) + text_of(second)
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["variants"] == ["bleached reefs"] and "zooxanthellae expulsion" in document["queries"]
    assert not dated.is_error, text_of(dated)
    assert {paper["year"] for paper in dated.structured_content["batch"]} == {2003}
    verdicts = sorted(c["verdict"] for c in document["candidates"] if c["verdict"])
    assert verdicts == ["not", "not", "relevant"]  # row 1 relevant, row 2 not, row 3 the rest


def test_an_empty_output_is_named_as_such(served, tmp_path):
    async def go():
        async with in_process() as client:
            await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "e.json",
                                                         "batch": 3})
            return await client.call_tool("deep_search_results", {"session": "e.json", "output": " "})

    empty = run(go())
    assert empty.is_error and "output is empty: name the file to write" in text_of(empty)


@pytest.mark.parametrize("output,format,said", [
    ("refs", "bibtex", None),  # no extension: the format named decides, as `-o refs --format bibtex` does
    ("out.txt", "csv", None),
    ("included.ris", "markdown", None),  # markdown, the default, names no file format: the extension decides
    ("folder/", "markdown", "output folder/: a folder, not a file"),
    ("missing/refs.bib", "markdown", "the folder missing does not exist"),
    ("pipe.bib", "markdown", "output pipe.bib: "),  # a FIFO: writing there would block, or replace it
    ("refs.bib", "ris", "output refs.bib names BibTeX but format asks for RIS"),
    ("out.docx", "markdown", "or name the format with format"),
    ("", "markdown", "output is empty: name the file to write"),
])
def test_the_output_file_follows_the_rules_of_every_door(served, tmp_path, output, format, said):
    """The tool's `output` is checked by the rules the command line's `-o` follows (one function,
    runtime/targets.py), in the tool's words, before the session is read; a refused target is
    left as it was."""
    import os

    from litsearch.core.errors import UsageError
    from litsearch.runtime.results import EXPORT_FORMATS, RESULT_FORMATS
    from litsearch.runtime.targets import output_format

    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe.bib")

    async def go():
        async with in_process() as client:
            await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": "o.json",
                                                         "batch": 3})
            await client.call_tool("deep_search_next", {"session": "o.json", "relevant": "1,2"})
            return await client.call_tool("deep_search_results", {"session": "o.json", "output": output,
                                                                  "format": format})

    answer = run(go())
    try:  # the command line's verdict on the same target
        output_format(output, format if format in EXPORT_FORMATS else None, RESULT_FORMATS, "markdown")
        command_line = None
    except UsageError as error:
        command_line = str(error)
    if said is None:
        assert not answer.is_error, text_of(answer)
        assert command_line is None
        written = (tmp_path / output).read_text()
        assert written.strip() and f"to {output}" in text_of(answer)
        if format == "bibtex":
            assert written.lstrip().startswith("@")
    else:
        assert answer.is_error and said in text_of(answer), text_of(answer)
        assert command_line is not None and "-o" in command_line and "-o" not in text_of(answer)
        assert not (tmp_path / output.rstrip("/")).is_file()
