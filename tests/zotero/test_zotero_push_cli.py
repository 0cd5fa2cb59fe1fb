"""`lit-search zotero push`: the real command in a subprocess against the fake Zotero
(tests/fake_zotero.py) and the fake APIs. A 20-paper search into a new collection creates 20 valid
items, a second push creates none and names 20 duplicates; 120 papers go in writes of 50; the
connector imports RIS that rispy reads; Zotero's limits and errors (429, Backoff, 412, an old
schema) are honoured; the key is never printed; bad configuration is one line and exit 2."""

from __future__ import annotations

import json
import time

import pytest
from command import command_env, command_runner

import fake_apis
import fake_zotero
from fake_server import Answer, FakeServer
from litsearch.zotero.schema import check_item


def results_file(path, count: int = 20, start: int = 0) -> str:
    """A search's JSON (``--format json``) with ``count`` papers of every kind."""
    kinds = [{"journal": "Journal of Tests", "doi": "10.5555/test.{n}", "pmid": str(30000000)},
             {"journal": "bioRxiv", "doi": "10.1101/2024.{n}"},
             {"journal": "Proceedings of the Conference on Tests", "doi": "10.5555/conf.{n}"},
             {"journal": None, "arxiv_id": "2401.{n:05d}"}]
    results = []
    for n in range(start, start + count):
        kind = {k: (v.format(n=n) if isinstance(v, str) else v) for k, v in kinds[n % len(kinds)].items()}
        if "pmid" in kind:
            kind["pmid"] = str(30000000 + n)
        results.append({"title": f"Test paper number {n}: a study of pushing", "year": 2020 + n % 5,
                        "authors": [f"Author{n} Person", "Second Author"], "abstract": f"Abstract {n}.",
                        "doi": None, "pmid": None, "arxiv_id": None, "paper_id": None, "openalex_id": None, **kind})
    target = path / f"results-{start}-{count}.json"
    target.write_text(json.dumps({"query": "pushing", "results": results}), encoding="utf-8")
    return str(target)


@pytest.fixture
def zotero():
    with FakeServer() as server:
        fake = fake_zotero.FakeZotero()
        env = fake_apis.install(server)
        env.update(fake.install(server))
        fake.env, fake.server = env, server
        yield fake


@pytest.fixture
def run(zotero, tmp_path):
    env = command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"), LITSEARCH_BACKOFF="0.05",
                      LITSEARCH_READ_TIMEOUT="2", LITSEARCH_PROVIDER_BUDGET="8")
    return command_runner(env, tmp_path, prefix=["zotero", "push"], in_process=True)  # tests/command.py


def test_twenty_papers_into_a_new_collection_then_twenty_duplicates(run, zotero, tmp_path, shared):
    schema = json.loads(shared("zotero/zoteroschema__schema.json").read_text(encoding="utf-8"))
    source = results_file(tmp_path)
    first = run(["--from", source, "--collection", "Pushing review"])
    assert first.stdout == ("Zotero (Web API, user library 475425), collection 'Pushing review' (created): "
                            "20 created, 0 skipped as duplicates, 0 failed.\n")
    [(key, collection)] = zotero.collections.items()
    assert collection["name"] == "Pushing review"
    items = zotero.in_collection(key)
    assert len(items) == 20 and zotero.writes == [1, 20]  # the collection, then one write of 20 items
    assert {item["itemType"] for item in items} == {"journalArticle", "preprint", "conferencePaper"}
    for item in items:
        assert check_item({k: v for k, v in item.items() if k not in ("key", "version")}, schema) == []
    second = run(["--from", source, "--collection", "Pushing review"])
    lines = second.stdout.splitlines()
    assert lines[-1].endswith("(existing): 0 created, 20 skipped as duplicates, 0 failed.")
    assert len([line for line in lines if line.startswith("skipped: Test paper number")]) == 20
    assert "same DOI as item" in lines[0] and len(zotero.items) == 20 and zotero.writes == [1, 20]


def test_a_hundred_and_twenty_papers_go_fifty_at_a_time(run, zotero, tmp_path):
    run(["--from", results_file(tmp_path, 120), "--collection", "Big", "-q"])
    assert zotero.writes == [1, 50, 50, 20] and len(zotero.items) == 120


def test_duplicates_of_other_collections_are_added_to_this_one(run, zotero, tmp_path):
    run(["--from", results_file(tmp_path, 4), "--collection", "First"])
    out = run(["--from", results_file(tmp_path, 6), "--collection", "Second"]).stdout
    assert out.splitlines()[-1].endswith("(created): 2 created, 4 skipped as duplicates (4 of them added to the "
                                         "collection), 0 failed.")
    second = next(k for k, c in zotero.collections.items() if c["name"] == "Second")
    assert len(zotero.in_collection(second)) == 6


def test_repeats_in_the_input_are_duplicates(run, zotero, tmp_path):
    source = results_file(tmp_path, 3)
    payload = json.loads(open(source, encoding="utf-8").read())
    payload["results"].append(dict(payload["results"][0], title=payload["results"][0]["title"].upper()))
    open(source, "w", encoding="utf-8").write(json.dumps(payload))
    out = run(["--from", source, "--collection", "C"]).stdout
    assert "repeats paper 1 of this push (same DOI)" in out and out.endswith("3 created, 1 skipped as duplicates, "
                                                                             "0 failed.\n")


def test_ids_and_the_library(run, zotero, tmp_path):
    out = run(["10.1038/nbt.2647", "arXiv:1706.03762", "--collection", "By id"]).stdout
    assert out.endswith("2 created, 0 skipped as duplicates, 0 failed.\n")
    article = next(i for i in zotero.items.values() if i.get("DOI") == "10.1038/nbt.2647")
    assert article["PMID"] == "23873081" and article["itemType"] == "journalArticle"
    transformer = next(i for i in zotero.items.values() if i["title"] == "Attention Is All You Need")
    assert len(transformer["creators"]) == 8  # every author of the record
    proc = run(["#7", "--collection", "By id"], code=5)
    assert "no saved paper '#7'" in proc.stderr


def test_authors_cut_by_the_search_json_are_completed(run, zotero, tmp_path):
    source = tmp_path / "cut.json"
    source.write_text(json.dumps({"results": [{"title": "Attention Is All You Need", "year": 2017,
                                               "authors": ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar",
                                                           "Jakob Uszkoreit", "Llion Jones"],
                                               "openalex_id": "W2626778328", "arxiv_id": "1706.03762"}]}))
    run(["--from", str(source), "--collection", "Complete"])
    [item] = zotero.items.values()
    assert [c["lastName"] for c in item["creators"]][-1] == "Polosukhin"


def test_rate_limit_and_backoff_are_honoured(run, zotero, tmp_path):
    zotero.queued = [Answer(429, "Too Many Requests", content_type="text/plain", headers={"Retry-After": "1"})]
    zotero.backoff = "1"
    started = time.monotonic()
    out = run(["--from", results_file(tmp_path, 3), "--collection", "Slow"]).stdout
    assert out.endswith("3 created, 0 skipped as duplicates, 0 failed.\n")
    api = [r for r in zotero.server.requests if r.path.startswith("/api/")]
    gaps = [later.time - earlier.time for earlier, later in zip(api, api[1:])]
    assert gaps[0] >= 0.95  # Retry-After after the 429
    assert all(gap >= 0.95 for gap in gaps[1:]), gaps  # Backoff: 1 on every answer
    assert time.monotonic() - started < 20


def test_a_write_whose_answer_was_lost_is_not_stored_twice(run, zotero, tmp_path):
    # Stored, then answered 503; the HTTP layer sends it again with the same write token and
    # Zotero answers 412: the collection, then the items, are found in the library, not written twice.
    zotero.lose_answers = 1
    out = run(["--from", results_file(tmp_path, 2), "--collection", "Lost"]).stdout
    assert out.endswith("(created): 2 created, 0 skipped as duplicates, 0 failed.\n")
    assert len(zotero.collections) == 1
    zotero.lose_answers = 1
    out = run(["--from", results_file(tmp_path, 5, start=2), "--collection", "Lost"]).stdout
    assert out.endswith("(existing): 5 created, 0 skipped as duplicates, 0 failed.\n")
    assert len(zotero.items) == 7 and zotero.writes == [1, 2, 5]  # each stored once
    posts = [r for r in zotero.server.requests if r.method == "POST" and r.path.endswith("/items")]
    assert len(posts) == 3 and posts[-1].headers["zotero-write-token"] == posts[-2].headers["zotero-write-token"]


def test_a_server_without_pmid_fields_gets_them_in_extra(run, zotero, tmp_path):
    zotero.old_schema = True
    out = run(["--from", results_file(tmp_path, 4), "--collection", "Old"]).stdout
    assert out.endswith("4 created, 0 skipped as duplicates, 0 failed.\n")
    article = next(i for i in zotero.items.values() if i["itemType"] == "journalArticle")
    assert "PMID" not in article and article["extra"].startswith("PMID: 3000000")


def test_refusals_are_named_and_exit_3(run, zotero, tmp_path):
    zotero.refuse["Test paper number 1: a study of pushing"] = (413, "Item too large")
    proc = run(["--from", results_file(tmp_path, 2), "--collection", "R"], code=3)
    assert "FAILED: Test paper number 1: a study of pushing — Zotero refused it (413: Item too large)" in proc.stdout
    assert proc.stdout.endswith("1 created, 0 skipped as duplicates, 1 failed.\n")
    zotero.queued = [Answer(200, "<html>maintenance</html>", content_type="text/html")]
    proc = run(["--from", results_file(tmp_path, 2), "--collection", "R"], code=3)
    assert "Zotero's answer to a listing is not JSON" in proc.stderr and proc.stdout == ""


def test_the_key_is_never_printed(run, zotero, tmp_path):
    proc = run(["--from", results_file(tmp_path, 2), "--collection", "K"])
    zotero.queued = [Answer(403, f"Invalid key {fake_zotero.KEY}", content_type="text/plain")]
    refused = run(["--from", results_file(tmp_path, 2), "--collection", "K"], code=3)
    assert "Zotero refused the key for user library 475425" in refused.stderr
    for output in (proc.stdout, proc.stderr, refused.stdout, refused.stderr):
        assert fake_zotero.KEY not in output
    sent = [r for r in zotero.server.requests if r.path.startswith("/api/")]
    assert all(r.headers["authorization"] == f"Bearer {fake_zotero.KEY}" and "key" not in r.query for r in sent)
    assert all(r.headers["zotero-api-version"] == "3" for r in sent)
    assert all(len(r.headers["zotero-write-token"]) == 32 for r in sent if r.method == "POST")


@pytest.mark.parametrize("variables, args, words", [
    ({"ZOTERO_LIBRARY_TYPE": "team"}, [], "ZOTERO_LIBRARY_TYPE must be user or group, not 'team'"),
    ({"ZOTERO_LIBRARY_ID": ""}, [], "ZOTERO_API_KEY is set but ZOTERO_LIBRARY_ID is not"),
    ({"ZOTERO_LIBRARY_ID": "me"}, [], "ZOTERO_LIBRARY_ID must be the library's number"),
    ({"ZOTERO_API_KEY": "", "ZOTERO_LIBRARY_ID": ""}, ["--via", "api"], "--via api needs ZOTERO_API_KEY"),
    ({}, ["--collection", " "], "--collection needs a name"),
    ({}, ["not-an-id"], "unrecognised paper id"),
])
def test_configuration_errors(zotero, tmp_path, variables, args, words):
    env = command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "c"), **variables)
    run = command_runner(env, tmp_path, prefix=["zotero", "push"])
    arguments = args if "--collection" in args else ["10.1038/nbt.2647", *args, "--collection", "X"]
    if args == ["not-an-id"]:
        arguments = ["not-an-id", "--collection", "X"]
    proc = run(arguments, code=2)
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2
    assert [r for r in zotero.server.requests if r.path.startswith("/api/")] == []


# ---------------------------------------------------------------- the desktop connector

@pytest.fixture
def desktop(zotero, tmp_path):
    env = command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"), ZOTERO_API_KEY="",
                      ZOTERO_LIBRARY_ID="")
    return command_runner(env, tmp_path, prefix=["zotero", "push"], in_process=True)  # tests/command.py


def test_connector_imports_ris_into_the_named_collection(desktop, zotero, tmp_path):
    import rispy

    out = desktop(["--from", results_file(tmp_path, 5), "--collection", "Review"])
    assert out.stdout.endswith("Zotero (desktop connector, My Library), collection 'Review' (existing): 5 created, "
                               "0 skipped as duplicates, 0 failed.\n")
    assert "duplicates were not checked" in out.stderr
    [ris] = zotero.imported_ris
    records = rispy.loads(ris)
    assert [r["title"] for r in records] == [f"Test paper number {n}: a study of pushing" for n in range(5)]
    assert {r["type_of_reference"] for r in records} == {"JOUR", "UNPB", "CONF"}
    assert all(item["collections"] == ["C7"] for item in zotero.items.values())  # moved from Inbox to Review
    imports = [r for r in zotero.server.requests if r.path == "/local/connector/import"]
    assert imports[0].headers["content-type"] == "application/x-research-info-systems"
    assert len(imports[0].query["session"][0]) == 32


def test_connector_without_the_named_collection_says_where_it_saved(desktop, zotero, tmp_path):
    out = desktop(["--from", results_file(tmp_path, 2), "--collection", "Nonexistent"]).stdout
    assert ("collection 'Nonexistent' (none in Zotero: saved into 'Inbox', the collection selected in Zotero): "
            "2 created") in out
    assert all(item["collections"] == ["C5"] for item in zotero.items.values())


def test_connector_with_the_local_api_skips_duplicates(desktop, zotero, tmp_path):
    zotero.local_api = True
    source = results_file(tmp_path, 3)
    desktop(["--from", source, "--collection", "Review"])
    out = desktop(["--from", source, "--collection", "Review"])
    assert out.stdout.endswith("0 created, 3 skipped as duplicates, 0 failed.\n")
    assert "duplicates were not checked" not in out.stderr and len(zotero.items) == 3


def test_zotero_not_running(zotero, tmp_path):
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        env = command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "c"), ZOTERO_API_KEY="",
                          ZOTERO_LIBRARY_ID="", LITSEARCH_ZOTERO_CONNECTOR_URL=f"http://127.0.0.1:"
                                                                              f"{holder.getsockname()[1]}")
        proc = command_runner(env, tmp_path, prefix=["zotero", "push"])(["10.1038/nbt.2647", "--collection", "X"],
                                                                        code=3)
    assert "Zotero desktop is not running: nothing answers at http://127.0.0.1:" in proc.stderr
    assert "set ZOTERO_API_KEY and ZOTERO_LIBRARY_ID" in proc.stderr


def test_python_function(zotero, monkeypatch, tmp_path):
    from litsearch.api import push_to_zotero

    for name, value in zotero.env.items():
        monkeypatch.setenv(name, value)
    result = push_to_zotero(collection="From Python", from_file=results_file(tmp_path, 3))
    assert (result["created"], result["duplicates"], result["failed"]) == (3, 0, 0)
    assert [o["status"] for o in result["outcomes"]] == ["created"] * 3
    assert fake_zotero.KEY not in json.dumps(result)


def test_the_connector_is_reached_directly_whatever_proxy_is_set(zotero, tmp_path):
    # A proxy for the web must not be asked for Zotero desktop on this machine.
    env = command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "c"), ZOTERO_API_KEY="", ZOTERO_LIBRARY_ID="",
                      HTTP_PROXY="http://127.0.0.1:9", http_proxy="http://127.0.0.1:9", NO_PROXY="", no_proxy="")
    run = command_runner(env, tmp_path, prefix=["zotero", "push"])
    out = run(["--from", results_file(tmp_path, 2), "--collection", "Review"]).stdout
    assert out.endswith("2 created, 0 skipped as duplicates, 0 failed.\n")


def test_notes_about_the_papers_are_shown_even_with_quiet(desktop, tmp_path):
    proc = desktop(["--from", results_file(tmp_path, 1), "--collection", "Review", "-q"])
    assert proc.stderr.startswith("lit-search: note: duplicates were not checked")


@pytest.mark.parametrize("topic", ["eculizumab registry", "Attention Is All You Need"])
def test_a_search_json_gives_zotero_what_the_bibtex_of_the_same_search_has(run, zotero, tmp_path, topic):
    import bibtexparser

    search = command_runner(command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache")), tmp_path,
                            in_process=True)
    for target in ("results.json", "results.bib"):
        search([topic, "--providers", "semantic_scholar,openalex", "--no-verify", "-q", "-o", target])
    entries = [{name: field.value for name, field in entry.fields_dict.items()}
               for entry in bibtexparser.parse_string((tmp_path / "results.bib").read_text(encoding="utf-8")).entries]
    before = set(zotero.items)
    run(["--from", "results.json", "--collection", f"From JSON {topic}"])
    items = [zotero.items[key] for key in set(zotero.items) - before]
    by_title = {(entry["title"].replace("{", "").replace("}", ""), entry["year"]): entry for entry in entries}
    for item in items:  # a paper Zotero already had (same DOI) is skipped, not created
        entry = by_title[(item["title"], item["date"][:4])]
        assert item.get("volume") == entry.get("volume") and item.get("pages") == entry.get("pages"), entry
        assert len(item["creators"]) == len(entry["author"].split(" and ")), entry
    assert any(item.get("volume") and item.get("pages") for item in items) or topic.startswith("Attention")
    assert any(len(item["creators"]) > 5 for item in items) or topic.startswith("eculizumab")
