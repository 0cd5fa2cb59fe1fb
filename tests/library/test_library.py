"""Keep and reuse: the response cache (--refresh, --no-cache, --offline, expiry), --save
with citation links, the library command and its exports, several processes at once, and
a damaged database reported rather than dropped. Everything runs the real command."""

from __future__ import annotations

import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import bibtexparser
import pytest

import fake_apis
from fake_server import FakeServer
from litsearch.biblio.readers import read_records
from command import command_env, command_runner

FOUR = "semantic_scholar,openalex,pubmed,arxiv"
TOPIC = "CRISPR off-target effects"


@pytest.fixture
def world(tmp_path):
    """Fake APIs plus a private cache/library folder; ``run(args)`` runs lit-search in it."""
    with FakeServer() as server:
        env = command_env(fake_apis.install(server), LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                          LITSEARCH_EMAIL="lib@example.org")
        run = command_runner(env, tmp_path, timeout=90, in_process=True)  # tests/command.py: no process start
        run.processes = command_runner(env, tmp_path, timeout=90)  # for the test of several processes at once
        yield server, run, tmp_path


def search_requests(server: FakeServer) -> int:
    return sum(len(server.requests_to(p)) for p in ("/s2/graph/v1/paper/search", "/openalex/works",
                                                     "/eutils/", "/arxiv/"))


def test_second_search_is_answered_from_the_cache(world):
    server, run, _ = world
    first = json.loads(run([TOPIC, "--providers", FOUR, "--format", "json", "--no-verify"]).stdout)
    sent = search_requests(server)
    assert sent == 5  # S2 1, OpenAlex 1, PubMed 2 (esearch, efetch), arXiv 1
    second = json.loads(run([TOPIC, "--providers", FOUR, "--format", "json", "--no-verify"]).stdout)
    assert search_requests(server) == sent  # nothing new was fetched
    assert [p["from_cache"] for p in second["providers"]] == [1, 1, 2, 1]
    assert [r["title"] for r in second["results"]] == [r["title"] for r in first["results"]]
    run([TOPIC, "--providers", FOUR, "--no-verify", "--refresh"])
    assert search_requests(server) == 2 * sent  # --refresh fetched again
    run([TOPIC, "--providers", FOUR, "--no-verify", "--no-cache"])
    assert search_requests(server) == 3 * sent


def test_no_cache_neither_reads_nor_writes(world):
    server, run, tmp_path = world
    run([TOPIC, "--providers", "openalex", "--no-verify", "--no-cache"])
    assert not (tmp_path / "data" / "lit-search.sqlite3").exists()


def test_offline_answers_from_the_cache_only_and_says_so(world):
    server, run, tmp_path = world
    run([TOPIC, "--providers", FOUR, "--no-verify"])
    before = len(server.requests)
    # Expire every entry: offline still answers from them, a normal run fetches again.
    with sqlite3.connect(tmp_path / "data" / "lit-search.sqlite3") as db:
        db.execute("UPDATE cache SET expires_at = expires_at - 3 * 86400, stored_at = stored_at - 3 * 86400")
    offline = run([TOPIC, "--providers", FOUR, "--no-verify", "--offline"])
    assert len(server.requests) == before
    assert "answered from the local cache only (--offline)" in offline.stdout
    assert "DNA targeting specificity" in offline.stdout
    run([TOPIC, "--providers", FOUR, "--no-verify"])
    assert search_requests(server) == 10  # expired: fetched again


def test_offline_without_a_cached_answer_fails_cleanly(world):
    server, run, _ = world
    proc = run(["never searched before", "--providers", "openalex,pubmed", "--offline", "--no-verify"], code=None)
    assert proc.returncode == 3
    assert "offline: no cached search for 'never searched before'" in proc.stdout
    assert server.requests == []


def test_save_links_citations_and_the_library_reopens_offline(world):
    server, run, tmp_path = world
    saved = run([TOPIC, "--providers", FOUR, "--save"])
    assert "saved 9 papers to the library" in saved.stdout
    assert "5 new citation links" in saved.stdout
    listing = run(["library", "list", "--format", "json"])
    papers = json.loads(listing.stdout)
    assert len(papers) == 9
    by_title = {p["title"].rstrip("."): p for p in papers}
    assert by_title["DNA targeting specificity of RNA-guided Cas9 nucleases"]["cited_by"] == 3
    assert by_title["Language Models are Few-Shot Learners"]["cites"] == 1
    # One reference list came from Semantic Scholar's batch endpoint (a paper OpenAlex lacks):
    # its reference count first, then its references (batches sized by the counts, issue 20 item 6).
    counts, references = server.requests_to("/s2/graph/v1/paper/batch")
    assert counts.param("fields") == "referenceCount" and references.param("fields").startswith("paperId,references")
    shown = json.loads(run(["library", "show", "10.1038/NBT.2647", "--format", "json"]).stdout)
    assert shown["pmid"] == "23873081" and len(shown["cited_by"]) == 3
    assert run(["library", "show", "23873081"]).stdout.startswith("## #")
    assert "Cited by (in the library): 3" in run(["library", "show", "W2022234560"]).stdout
    # Saving again adds nothing twice.
    run([TOPIC, "--providers", FOUR, "--save"])
    assert len(json.loads(run(["library", "list", "--format", "json"]).stdout)) == 9


def test_library_exports_parse_in_real_readers(world):
    _, run, tmp_path = world
    run([TOPIC, "--providers", FOUR, "--save", "--no-verify"])
    bib = run(["library", "export", "--format", "bibtex"]).stdout
    library = bibtexparser.loads(bib) if hasattr(bibtexparser, "loads") else bibtexparser.parse_string(bib)
    entries = library.entries
    assert len(entries) == 9
    run(["library", "export", "-o", "refs.ris"])
    ris = read_records(tmp_path / "refs.ris")
    assert len(ris) == 9 and any(p.doi == "10.1038/nbt.2647" for p in ris)
    run(["library", "export", "-o", "refs.csl.json"])
    items = json.loads((tmp_path / "refs.csl.json").read_text())
    assert len(items) == 9 and all(item["id"] and item["type"] for item in items)


def test_library_remove_and_missing_ids(world):
    _, run, _ = world
    run([TOPIC, "--providers", FOUR, "--save", "--no-verify"])
    assert run(["library", "remove", "10.1038/nbt.2647"]).stdout.startswith("Removed")
    papers = json.loads(run(["library", "list", "--format", "json"]).stdout)
    assert len(papers) == 8 and all(p["cited_by"] == 0 for p in papers if "Cas9 nucleases" in p["title"])
    missing = run(["library", "show", "10.9999/none"], code=None)
    assert missing.returncode == 5 and "no saved paper" in missing.stderr
    assert run(["library", "frobnicate"], code=None).returncode == 2


def test_search_exports_to_files_and_stdout(world):
    _, run, tmp_path = world
    out = run([TOPIC, "--providers", FOUR, "--no-verify", "-o", "results.bib", "--limit", "5"])
    assert out.stdout.strip() == "Wrote 5 papers to results.bib (bibtex)."
    text = (tmp_path / "results.bib").read_text()
    assert text.count("\n@") + text.startswith("@") == 5
    ris = run([TOPIC, "--providers", FOUR, "--no-verify", "--format", "ris", "--limit", "3"]).stdout
    assert ris.count("ER  -") == 3
    csl = json.loads(run([TOPIC, "--providers", FOUR, "--no-verify", "--format", "csl-json"]).stdout)
    assert len(csl) == 9


def test_concurrent_processes_share_one_library(world):
    server, run, tmp_path = world
    topics = [TOPIC, "CRISPR specificity", "off-target detection", "Cas9 guide design"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda t: run.processes([t, "--providers", FOUR, "--save", "--no-verify"], code=None),
                                topics * 2))
    assert [r.returncode for r in results] == [0] * 8, [r.stderr for r in results]
    papers = json.loads(run(["library", "list", "--format", "json"]).stdout)
    assert len(papers) == 9  # the same nine papers, each once
    with sqlite3.connect(tmp_path / "data" / "lit-search.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM citations").fetchone()[0] == 5


def test_a_damaged_database_is_reported_and_left_alone(world):
    _, run, tmp_path = world
    path = tmp_path / "data" / "lit-search.sqlite3"
    path.parent.mkdir(parents=True)
    garbage = b"this is not a database, but it is somebody's file\n" * 100
    path.write_bytes(garbage)
    listing = run(["library", "list"], code=None)
    assert listing.returncode == 4 and "damaged" in listing.stderr
    search = run([TOPIC, "--providers", "openalex", "--no-verify"])  # the cache just switches off
    assert "cache disabled" in search.stderr and "DNA targeting specificity" in search.stdout
    save = run([TOPIC, "--providers", "openalex", "--no-verify", "--save"], code=None)
    assert save.returncode == 4 and "damaged" in save.stderr
    assert path.read_bytes() == garbage


def test_a_database_from_a_newer_version_is_refused(world):
    _, run, tmp_path = world
    run([TOPIC, "--providers", "openalex", "--no-verify", "--save"])
    path = tmp_path / "data" / "lit-search.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    proc = run(["library", "list"], code=None)
    assert proc.returncode == 4 and "newer lit-search" in proc.stderr


def test_answers_a_provider_could_not_use_are_never_served_from_the_cache(world):
    server, run, _ = world
    error_feed = ('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>'
                  '<id>http://arxiv.org/api/errors#bad</id><title>Error</title><summary>bad query</summary>'
                  '</entry></feed>')
    env_routes = {"/openalex/works": [fake_apis.Answer(200, '{"results": [{"id": "W1", "title": "Half'), None],
                  "/arxiv/query": [fake_apis.Answer(200, error_feed, content_type="application/atom+xml"), None]}
    fake_apis.install(server, env_routes)
    failing = run([TOPIC, "--providers", "openalex,arxiv", "--format", "json", "--no-verify"], code=None)
    assert failing.returncode == 3  # both providers failed
    first = json.loads(failing.stdout)
    assert {e["provider"] for e in first["errors"]} == {"openalex", "arxiv"}
    second = json.loads(run([TOPIC, "--providers", "openalex,arxiv", "--format", "json", "--no-verify"]).stdout)
    assert second["errors"] == []  # fetched again, not the broken answers from the cache
    assert [p["from_cache"] for p in second["providers"]] == [0, 0]
