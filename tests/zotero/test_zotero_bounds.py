"""`lit-search zotero push` within bounds, and counting only what Zotero confirmed (issue 31):

- every wait Zotero asks for (``Backoff`` of a day, ``inf``, a date years ahead; ``Retry-After``
  likewise) is waited only within the time budget left, else the push fails at once naming it;
- every listing (the Web API's collections and items, the desktop's local API) is bounded in
  bytes and pages, stops when it repeats itself, and keeps the matching keys, not the items;
- the desktop connector's 201 counts only the items its answer reports: nothing imported is
  "0 created … 5 failed", exit 3.

The real entry point runs in-process against the fake Zotero (fault_support.run_cli)."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from fault_support import run_cli

import fake_apis
import fake_zotero
from fake_server import Answer, FakeServer
from litsearch.runtime.settings import settings_from_env
from litsearch.net.http import HttpClient
from litsearch.zotero import listing
from litsearch.zotero.matching import LibraryIndex
from litsearch.zotero.web_api import WebApi, ZoteroTarget
from scratch import scratch_folder  # noqa: E402

BOUND_SECONDS = 15.0
PAPERS = 5


@pytest.fixture
def zotero():
    with FakeServer() as server:
        server._httpd.handle_error = lambda request, address: None
        fake = fake_zotero.FakeZotero()
        env = fake_apis.install(server)
        env.update(fake.install(server))
        fake.env, fake.server = env, server
        yield fake


def push(monkeypatch, capsys, zotero, via="api", papers=PAPERS, budget="4"):
    path = scratch_folder(prefix="litsearch-zotero-bounds-") + "/results.json"
    results = [{"title": f"Bounded paper {n}", "doi": f"10.5555/bound.{n}", "year": 2021, "journal": "J",
                "authors": ["A Author"]} for n in range(papers)]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"results": results}, handle)
    env = {**zotero.env, "LITSEARCH_CACHE_DIR": scratch_folder(prefix="litsearch-zotero-bounds-"),
           "LITSEARCH_PROVIDER_BUDGET": budget}
    if via == "connector":
        env.update(ZOTERO_API_KEY="", ZOTERO_LIBRARY_ID="")
    for name in ("ZOTERO_API_KEY", "ZOTERO_LIBRARY_ID", "ZOTERO_LIBRARY_TYPE"):
        monkeypatch.delenv(name, raising=False)
    run = run_cli(monkeypatch, capsys, env, ["zotero", "push", "--from", path, "--collection", "Bounds"])
    assert "Traceback" not in run.stderr + run.stdout and "internal error" not in run.stderr
    assert run.seconds < BOUND_SECONDS, f"took {run.seconds:.1f} s"
    return run


def error_line(run) -> str:
    [line] = [line for line in run.stderr.splitlines() if line.startswith("lit-search zotero:")]
    return line


def api_requests(zotero) -> list:
    return [request for request in zotero.server.requests if request.path.startswith("/api/")]


def _date_in(seconds: float) -> str:
    return format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds), usegmt=True)


LONG_WAITS = {"a day": "86400", "inf": "inf", "Infinity": "Infinity", "1e999": "1e999",
              "a date a year ahead": _date_in(365 * 86400)}


@pytest.mark.parametrize("asked", list(LONG_WAITS))
def test_a_backoff_past_the_budget_fails_at_once_with_the_reason(asked, zotero, monkeypatch, capsys):
    """Zotero's Backoff on the first answer: the next request is not sent, and not waited for."""
    zotero.backoff = LONG_WAITS[asked]
    run = push(monkeypatch, capsys, zotero)
    assert run.exit_code == 3 and run.stdout == ""
    line = error_line(run)
    assert "(Backoff), more than the" in line and "server asked to wait" in line, line
    assert len(api_requests(zotero)) == 1 and zotero.collections == {} and zotero.items == {}


@pytest.mark.parametrize("asked", list(LONG_WAITS))
@pytest.mark.parametrize("status", [429, 503])
def test_a_retry_after_past_the_budget_fails_at_once_with_the_reason(asked, status, zotero, monkeypatch, capsys):
    zotero.queued = [Answer(status, "busy", content_type="text/plain", headers={"Retry-After": LONG_WAITS[asked]})]
    run = push(monkeypatch, capsys, zotero)
    assert run.exit_code == 3
    assert "(Retry-After), more than the" in error_line(run)
    assert len(api_requests(zotero)) == 1


def test_a_short_backoff_is_waited(zotero, monkeypatch, capsys):
    zotero.backoff = "0.3"
    run = push(monkeypatch, capsys, zotero)
    assert run.exit_code == 0 and run.stdout.endswith(f"{PAPERS} created, 0 skipped as duplicates, 0 failed.\n")
    requests = api_requests(zotero)
    assert all(later.time - earlier.time >= 0.28 for earlier, later in zip(requests, requests[1:]))


# ---------------------------------------------------------------- listings

def endless_items(size: int = 2_000, repeat: bool = False):
    """A listing that pages for ever: 100 fresh items a page (the same 100 when ``repeat``),
    each about ``size`` bytes, no Total-Results."""
    def answer(request):
        start = 0 if repeat else int(request.param("start") or 0)
        page = [{"key": f"K{start + n:07d}", "version": 1,
                 "data": {"key": f"K{start + n:07d}", "version": 1, "itemType": "journalArticle",
                          "title": f"Item {start + n}", "date": "2020", "abstractNote": "x" * size}}
                for n in range(listing.PAGE_SIZE)]
        return Answer(200, json.dumps(page), headers={"Last-Modified-Version": "5"})
    return answer


def route_items(zotero, responder, place: str) -> None:
    if place == "web api":
        normal = zotero.web_api
        zotero.server.route("/api/", lambda request: responder(request) if request.path.endswith("/items/top")
                            else normal(request))
    else:
        normal = zotero.local_api_route
        zotero.server.route("/local/", lambda request: responder(request) if request.path.startswith(
            "/local/api/") else normal(request))


@pytest.mark.parametrize("place", ["web api", "local api"])
def test_a_listing_without_end_stops_at_its_byte_bound(place, zotero, monkeypatch, capsys):
    monkeypatch.setattr(listing, "MAX_LISTING_BYTES", 2 * 1024 * 1024)
    route_items(zotero, endless_items(), place)
    run = push(monkeypatch, capsys, zotero, via="api" if place == "web api" else "connector")
    assert run.exit_code == 3
    assert "passed 2 MB after" in error_line(run) and "read no further" in error_line(run)
    pages = [r for r in zotero.server.requests if "/items/top" in r.path]
    assert 8 <= len(pages) <= 12  # about 200 KB a page
    assert zotero.collections == {} and zotero.items == {} and zotero.imported_ris == []  # nothing written


@pytest.mark.parametrize("place", ["web api", "local api"])
def test_a_listing_that_repeats_itself_stops(place, zotero, monkeypatch, capsys):
    route_items(zotero, endless_items(size=10, repeat=True), place)
    run = push(monkeypatch, capsys, zotero, via="api" if place == "web api" else "connector")
    assert run.exit_code == 3 and "repeats itself (page 2 holds no entry not seen before)" in error_line(run)
    assert len([r for r in zotero.server.requests if "/items/top" in r.path]) == 2


def test_a_listing_longer_than_its_page_bound_stops(zotero, monkeypatch, capsys):
    monkeypatch.setattr(listing, "MAX_PAGES", 3)
    route_items(zotero, endless_items(size=10), "web api")
    run = push(monkeypatch, capsys, zotero)
    assert run.exit_code == 3 and "has more than 300 entries and was read no further" in error_line(run)


def test_a_listing_keeps_the_matching_keys_not_the_items():
    """30 pages of items with 10 KB abstracts (about 30 MB): what the index keeps afterwards is
    a small fraction of that (the old code kept every item)."""
    with FakeServer() as server:
        server.route("/api/", endless_items(size=10_000))
        pages = 30

        def short_last(request):
            start = int(request.param("start") or 0)
            return endless_items(size=10_000)(request) if start < pages * listing.PAGE_SIZE else Answer(200, "[]")
        server.route("/api/", short_last)
        settings = settings_from_env({"LITSEARCH_ZOTERO_URL": server.url + "/api", "ZOTERO_API_KEY": "k" * 24})

        async def read() -> LibraryIndex:
            index = LibraryIndex()
            async with HttpClient(settings) as http:
                await WebApi(http, ZoteroTarget("user", "1", "k" * 24)).read_items(index.add)
            return index
        tracemalloc.start()
        try:
            index = asyncio.run(read())
            kept, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert len({existing.key for existing in index.by_identity.values()}) == pages * listing.PAGE_SIZE
    assert kept < 3 * 1024 * 1024, f"{kept:,} bytes kept after reading about 30 MB"


# ---------------------------------------------------------------- counts the connector confirmed

def connector_answering(zotero, items):
    """Zotero's connector answering the import 201 with ``items`` (None: the RIS's own items)."""
    normal = zotero.local_api_route

    def answer(request):
        if request.path == "/local/connector/import" and items is not None:
            return Answer(201, json.dumps(items(request)))
        return normal(request)
    zotero.server.route("/local/", answer)


@pytest.mark.parametrize("body, created, reported", [
    (lambda request: [], 0, 0),
    (lambda request: "not a list", 0, 0),
    (lambda request: [{"title": "Bounded paper 1", "itemType": "journalArticle"},
                      {"DOI": "10.5555/BOUND.3", "itemType": "journalArticle"}], 2, 2),
    (lambda request: [{"title": "Something else entirely"}], 0, 1),
])
def test_the_connector_counts_only_what_zotero_reports_imported(body, created, reported, zotero, monkeypatch,
                                                                capsys):
    connector_answering(zotero, body)
    run = push(monkeypatch, capsys, zotero, via="connector")
    assert run.exit_code == 3
    assert run.stdout.endswith(f": {created} created, 0 skipped as duplicates, {PAPERS - created} failed.\n")
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED: ")]
    assert len(failed) == PAPERS - created
    assert all(f"did not report it imported (it reported {reported} of {PAPERS} papers sent)" in line
               for line in failed)
    if created == 2:
        assert not any("Bounded paper 1 " in line or "Bounded paper 3 " in line for line in failed)


def test_the_connector_reporting_every_paper_is_all_created(zotero, monkeypatch, capsys):
    connector_answering(zotero, None)
    run = push(monkeypatch, capsys, zotero, via="connector")
    assert run.exit_code == 0 and run.stdout.endswith(f"{PAPERS} created, 0 skipped as duplicates, 0 failed.\n")
