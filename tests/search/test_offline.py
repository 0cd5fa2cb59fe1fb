"""--offline answers what the cache can answer: another --limit, --sort, filters checked on
the cached records; what it cannot answer is named. Each test searches online once against
the fake APIs, then asserts the offline run sent nothing and what it showed."""

from __future__ import annotations

import json

import pytest

import fake_apis
from fake_server import Answer, FakeServer
from fault_support import run_cli
from litsearch.search.options import SearchOptions

FOUR = "semantic_scholar,openalex,pubmed,arxiv"
TOPIC = "CRISPR off-target effects"


@pytest.fixture
def world(tmp_path, monkeypatch, capsys):
    """``search(*flags)`` runs lit-search in-process against the fake APIs with one cache
    (without DOI checks unless ``verify``)."""
    with FakeServer() as server:
        env = {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}

        def search(*flags: str, topic: str = TOPIC, verify: bool = False):
            args = [topic, "--providers", FOUR, *flags] + ([] if verify else ["--no-verify"])
            return run_cli(monkeypatch, capsys, env, args)

        yield server, search


def titles(run) -> list[str]:
    return [r["title"] for r in json.loads(run.stdout)["results"]]


def test_another_limit_and_sort_come_from_the_cache(world):
    server, search = world
    online = search("--limit", "20", "--format", "json")
    assert online.exit_code == 0
    sent = len(server.requests)
    fewer = search("--limit", "3", "--format", "json", "--offline")
    assert fewer.exit_code == 0, fewer.stderr
    assert titles(fewer) == titles(online)[:3]
    by_citations = search("--limit", "20", "--sort", "citations", "--format", "json", "--offline")
    counts = [r["citation_count"] or 0 for r in json.loads(by_citations.stdout)["results"]]
    assert counts == sorted(counts, reverse=True) and sorted(titles(by_citations)) == sorted(titles(online))
    assert len(server.requests) == sent  # nothing was fetched
    assert "offline" not in fewer.stderr  # complete answers need no note


def test_a_filter_the_cached_search_did_not_carry_is_applied_to_the_cached_records(world):
    server, search = world
    online = json.loads(search("--format", "json").stdout)
    sent = len(server.requests)
    run = search("--year", "2015-", "--format", "json", "--offline")
    assert run.exit_code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert len(server.requests) == sent
    expected = {r["title"] for r in online["results"] if (r["year"] or 0) >= 2015}
    assert {r["title"] for r in payload["results"]} == expected and expected
    assert all(r["year"] >= 2015 for r in payload["results"])
    # Applied after fetching for every provider: none of the cached requests carried it.
    markdown = search("--year", "2015-", "--offline")
    assert ("year 2015–: no provider applies it itself; applied after fetching for "
            r"semantic\_scholar, openalex, pubmed, arxiv") in markdown.stdout


def test_a_larger_limit_than_was_fetched_is_answered_and_the_shortfall_named(tmp_path, monkeypatch, capsys):
    """A fake OpenAlex that honours per_page (the shared fake returns its whole corpus). The
    online search asks 40 records, as earlier versions did for --limit 20 (now every search
    asks a full page of 100): the cache of an older version, read offline."""
    def paged(request):
        size = int(request.param("per_page") or 25)
        works = [fake_apis.openalex_work({**paper, "title": f"Paged work number {n} on off-target effects", "pmid": None, "openalex": f"W9{n:08d}", "doi": f"10.9999/paged.{n}", "openalex_doi": f"https://doi.org/10.9999/paged.{n}"}, n)
                 for n, paper in enumerate([fake_apis.CORPUS[1]] * size)]
        return Answer(200, json.dumps({"meta": {"count": 500}, "results": works}))

    with FakeServer() as server:
        env = {**fake_apis.install(server, {"/openalex/works": paged}),
               "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
        args = [TOPIC, "--providers", "openalex", "--no-verify", "--format", "json"]
        with monkeypatch.context() as older:
            older.setattr(SearchOptions, "fetch_per_provider", property(lambda self: 40))
            assert run_cli(monkeypatch, capsys, env, args + ["--limit", "20"]).exit_code == 0  # asks 40
        sent = len(server.requests)
        run = run_cli(monkeypatch, capsys, env, args + ["--limit", "50", "--offline"])  # asks 100
        assert run.exit_code == 0, run.stderr
        assert len(server.requests) == sent
        assert len(json.loads(run.stdout)["results"]) == 40
        assert "openalex: offline: answered from a cached search for 40 records; this one asks for 100" \
            in run.stderr


def test_what_the_cache_cannot_answer_is_named(world):
    server, search = world
    search()
    sent = len(server.requests)
    run = search("--format", "json", "--offline", topic="gene drives in mosquitoes")
    assert run.exit_code == 3
    errors = {e["provider"]: e["message"] for e in json.loads(run.stdout)["errors"]}
    assert set(errors) == set(FOUR.split(","))
    assert errors["openalex"] == ("offline: no cached search for 'gene drives in mosquitoes' "
                                  "(the topic and variants must match a search run online)")
    assert len(server.requests) == sent


def test_offline_enrichment_says_what_was_not_cached(world):
    server, search = world
    assert search("--limit", "1", verify=True).exit_code == 0  # Crossref checked the one shown DOI
    run = search("--limit", "20", "--offline", verify=True)
    assert run.exit_code == 0, run.stderr
    assert "could not be checked (their Crossref answers are not in the cache)" in run.stdout
    assert "Crossref unreachable" not in run.stdout
