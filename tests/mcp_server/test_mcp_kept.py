"""The MCP server opens the store and builds its httpx client once, off the event loop
(runtime/online.py ``Kept``; issue 31): before, every call opened the SQLite file and built a
client with its TLS set-up on the event loop, so a burst of calls delayed everything else.

In-process (tests/mcp_inprocess.py): several calls of several tools, then the count of store
openings (one, in a worker thread) and of httpx clients built (one for the loop)."""

from __future__ import annotations

import threading

import pytest

from fake_server import FakeServer
from mcp_inprocess import in_process, run, text_of, use_fakes

pytest.importorskip("mcp")


@pytest.fixture
def counted(monkeypatch):
    from litsearch.library.store import Store
    from litsearch.net import http

    seen = {"opened": [], "clients": 0}
    opening, building = Store.open.__func__, http.connections

    def open_counted(cls, *args, **kwargs):
        seen["opened"].append(threading.get_ident())
        return opening(cls, *args, **kwargs)

    def build_counted(*args, **kwargs):
        seen["clients"] += 1
        return building(*args, **kwargs)
    monkeypatch.setattr(Store, "open", classmethod(open_counted))
    monkeypatch.setattr(http, "connections", build_counted)
    return seen


def test_the_store_and_the_client_are_opened_once_off_the_event_loop(counted, monkeypatch, tmp_path):
    loop_thread = {}

    async def go():
        loop_thread["id"] = threading.get_ident()
        async with in_process() as client:
            results = [await client.call_tool("paper_search", {"topic": "CRISPR off-target effects",
                                                               "providers": ["openalex"]})]
            results.append(await client.call_tool("paper_get", {"id": "10.1038/nbt.2647"}))
            results.append(await client.call_tool("library_list", {}))
            results.append(await client.call_tool("paper_search", {"topic": "gene drive", "providers": ["openalex"]}))
            results.append(await client.call_tool("library_list", {}))
            return results

    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)
        results = run(go())
    assert not any(result.is_error for result in results), [text_of(r) for r in results if r.is_error]
    assert len(counted["opened"]) == 1 and counted["opened"][0] != loop_thread["id"], counted
    assert counted["clients"] == 1


def test_a_store_that_cannot_be_opened_is_tried_again_at_the_next_call(counted, monkeypatch, tmp_path):
    """A folder where the database should be: searches run without the cache, library_list fails
    in one line; once the folder is gone, the next call opens the store."""
    data = tmp_path / "data"
    (data / "lit-search.sqlite3").mkdir(parents=True)

    async def go():
        async with in_process() as client:
            search = await client.call_tool("paper_search", {"topic": "CRISPR off-target effects",
                                                             "providers": ["openalex"]})
            refused = await client.call_tool("library_list", {})
            (data / "lit-search.sqlite3").rmdir()
            listed = await client.call_tool("library_list", {})
            return search, refused, listed

    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)
        search, refused, listed = run(go())
    assert not search.is_error
    assert refused.is_error and "is a folder, not a file" in text_of(refused)
    assert not listed.is_error and (data / "lit-search.sqlite3").is_file()
    assert len(counted["opened"]) == 3  # the search and the refused list tried; the third opened it
