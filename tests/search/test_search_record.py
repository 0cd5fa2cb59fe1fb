"""A search record a review can cite and re-run (issue 15, item 3): --record on search and
snowball, `lit-search report` (methods paragraph, PRISMA identification table that adds up)
and `lit-search rerun` (nothing new in an unchanged world; exactly the paper the world gained)."""

from __future__ import annotations

import json

import pytest

import fake_apis
from command import command_env, command_runner
from fake_server import FakeServer
from graph.test_snowball import GRAPH
from cli.test_paper_network_cli import CitationGraphAPI

TOPIC = "CRISPR off-target effects"
KEY = "OA+sec/ret=key 9"
NEW_PAPER = {
    "key": "brand_new", "title": "High-fidelity Cas9 variants reported this week",
    "authors": ["Nova Recent", "Olle Fresh"], "year": 2026, "date": "2026-11-20", "venue": "Journal of New Results",
    "doi": "10.5555/new.2026", "s2": "abababababababababababababababababababab", "openalex": "W3999999999",
    "citations": 900, "in": ["semantic_scholar", "openalex"],
}


@pytest.fixture
def world(tmp_path, monkeypatch):
    with FakeServer() as server:
        command = command_runner(command_env(fake_apis.install(server), LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                                             LITSEARCH_EMAIL="review@example.org", OPENALEX_API_KEY=KEY), tmp_path,
                                 in_process=True)  # tests/command.py: no process start

        def run(args: list[str], code: int = 0) -> str:
            proc = command(args, code)
            return proc.stdout if code == 0 else proc.stderr
        yield run, tmp_path, monkeypatch


def test_the_record_holds_each_request_as_sent_the_counts_and_the_ids(world):
    run, folder, _ = world
    run([TOPIC, "--variant", "Cas9 specificity", "--year", "2010-2024", "--limit", "5", "--record", "search.json"])
    record = json.loads((folder / "search.json").read_text(encoding="utf-8"))
    assert record["kind"] == "search" and record["tool"] == {"name": "lit-search", "version": record["tool"]["version"]}
    assert record["searched_at"].endswith("Z") and record["topic"] == TOPIC
    assert record["variants"] == ["Cas9 specificity"]
    providers = {p["name"]: p for p in record["providers"]}
    assert set(providers) == {"semantic_scholar", "openalex", "pubmed", "europepmc"}
    [openalex] = providers["openalex"]["requests"]
    assert openalex["url"].endswith("/openalex/works") and openalex["status"] == 200
    assert openalex["params"]["search"] == "(CRISPR off-target effects) OR (Cas9 specificity)"
    assert openalex["params"]["api_key"] == "[redacted]" and openalex["params"]["mailto"] == "[redacted]"
    assert [r["url"].rsplit("/", 1)[1] for r in providers["pubmed"]["requests"]] == ["esearch.fcgi", "efetch.fcgi"]
    # Europe PMC, auto-chosen for a biomedical topic, recorded from its declaration like the others.
    [europepmc] = providers["europepmc"]["requests"]
    assert europepmc["url"].endswith("/europepmc/search") and europepmc["params"]["email"] == "[redacted]"
    assert europepmc["params"]["query"] == ("((CRISPR off-target effects) OR (Cas9 specificity)) "
                                            "AND PUB_YEAR:[2010 TO 2024]")
    assert all(p["count"] >= 1 for p in providers.values())
    assert record["filters_applied"] == ["year 2010–2024: applied by semantic_scholar, openalex, pubmed, europepmc"]
    counts = record["counts"]
    assert counts["identified"] == sum(counts["per_source"].values())
    assert counts["identified"] - counts["duplicates_removed"] == counts["after_duplicates_removed"]
    assert counts["shown"] == len(record["results"]) == 5
    assert all(entry["doi"] or entry["pmid"] or entry["arxiv_id"] or entry["paper_id"] for entry in record["results"])
    text = (folder / "search.json").read_text(encoding="utf-8")
    assert KEY not in text and "review@example.org" not in text


def test_report_prints_the_methods_and_a_table_that_adds_up(world):
    run, folder, _ = world
    run([TOPIC, "--variant", "Cas9 specificity", "--limit", "5", "--record", "search.json"])
    report = run(["report", "search.json"])
    assert report.startswith("## Search methods\n\nWe searched Semantic Scholar, OpenAlex, PubMed and Europe PMC on ")
    assert "Europe PMC (/europepmc/search): `query=(CRISPR off-target effects) OR (Cas9 specificity)`" in report
    assert "PubMed (/eutils/esearch.fcgi): `term=(CRISPR off-target effects) OR (Cas9 specificity)`" in report
    assert "Duplicates were merged" in report and "## Identification (PRISMA 2020)" in report
    payload = json.loads(run(["report", "search.json", "--format", "json"]))
    rows = {row["label"]: row["count"] for row in payload["identification"]}
    per_source = sum(count for label, count in rows.items() if label.startswith("Records identified from "))
    assert per_source == rows["Records identified, total"]
    assert rows["Records identified, total"] - rows["Duplicate records removed"] == \
        rows["Records after duplicates removed"]
    assert rows["Records shown (the highest ranked, up to the limit; none screened by lit-search)"] == 5
    assert payload["adds_up"] is True


def test_rerun_of_an_unchanged_world_shows_nothing_new_then_exactly_the_new_paper(world):
    run, folder, monkeypatch = world
    run([TOPIC, "--providers", "semantic_scholar,openalex", "--limit", "20", "--record", "before.json"])
    unchanged = run(["rerun", "before.json"])
    assert "Nothing new since the record of" in unchanged and "| # |" not in unchanged
    monkeypatch.setattr(fake_apis, "CORPUS", [*fake_apis.CORPUS, NEW_PAPER])  # the world gains a paper
    gained = run(["rerun", "before.json", "--format", "json", "--record", "after.json"])
    assert [r["title"] for r in json.loads(gained)["results"]] == [NEW_PAPER["title"]]
    after = json.loads((folder / "after.json").read_text(encoding="utf-8"))
    assert NEW_PAPER["doi"] in {entry["doi"] for entry in after["results"]}
    assert run(["rerun", "after.json"]).count("Nothing new since") == 1


def test_a_paper_found_below_the_limit_that_rises_later_is_not_new(world):
    run, folder, monkeypatch = world
    run([TOPIC, "--providers", "semantic_scholar,openalex", "--sort", "citations", "--limit", "3",
         "--record", "before.json"])
    record = json.loads((folder / "before.json").read_text(encoding="utf-8"))
    found = record["found"]
    assert len(record["results"]) == 3 and len(found) == record["counts"]["after_duplicates_removed"] > 3
    assert [entry["doi"] for entry in found[:3]] == [entry["doi"] for entry in record["results"]]
    below = found[3]  # found, ranked fourth, not shown
    assert below["doi"] and set(below) <= {"doi", "pmid", "arxiv_id", "paper_id", "openalex_id", "title", "year"}
    risen = [{**paper, "citations": 10**6} if paper.get("doi") == below["doi"] else paper for paper in fake_apis.CORPUS]
    monkeypatch.setattr(fake_apis, "CORPUS", risen)  # now first by citations
    today = json.loads(run(["rerun", "before.json", "--format", "json", "--record", "today.json"]))
    assert today["results"] == []
    assert json.loads((folder / "today.json").read_text(encoding="utf-8"))["results"][0]["doi"] == below["doi"]


def test_snowball_record_report_and_rerun(tmp_path):
    with FakeServer() as server:
        command = command_runner(command_env(CitationGraphAPI(GRAPH).install(server),
                                             LITSEARCH_CACHE_DIR=str(tmp_path / "data")), tmp_path, in_process=True)

        def run(args):
            return command(args).stdout
        run(["snowball", "10.5555/seed.a", "10.5555/seed.b", "--no-verify", "--record", "chase.json"])
        record = json.loads((tmp_path / "chase.json").read_text(encoding="utf-8"))
        assert record["kind"] == "snowball" and [s["id"] for s in record["seeds"]] == ["10.5555/seed.a",
                                                                                     "10.5555/seed.b"]
        counts = record["counts"]
        assert counts["identified"] == 8 and counts["shown"] == len(record["results"]) == 5
        assert counts["identified"] - counts["duplicates_removed"] == counts["after_duplicates_removed"]
        report = run(["report", "chase.json"])
        assert "citation chasing" in report and "2 seed papers (10.5555/seed.a, 10.5555/seed.b)" in report
        assert "Nothing new since the record" in run(["rerun", "chase.json"])


@pytest.mark.parametrize("content,message", [
    (None, "no such file"), ("not json", "not JSON"), ('{"kind": "other"}', "not a lit-search search record"),
    ('{"kind": "search", "record_version": 99}', "newer lit-search"),
    ('{"kind": "search", "record_version": 1}', "not a complete search record: 'counts' is missing"),
    ('{"kind": "search", "record_version": 1, "providers": [], "options": {}, "counts": {"identified": "7"}}', "'counts.identified' should be a whole number"),
    (json.dumps({"kind": "search", "record_version": 1, "topic": "x", "providers": [], "options": {}, "results": [],
                 "found": 5, "counts": {"identified": 0, "duplicates_removed": 0, "after_duplicates_removed": 0,
                                        "shown": 0, "per_source": {}}}), "'found' is not a list"),
    # Half a character (a lone surrogate, which JSON can escape and no file can hold): the report
    # showed a replacement character in its place, and rerun searched a topic nobody typed
    (json.dumps({"kind": "search", "record_version": 1, "topic": "coral \ud800 reefs", "providers": [],
                 "options": {}, "results": [], "counts": {"identified": 0, "duplicates_removed": 0,
                                                          "after_duplicates_removed": 0, "shown": 0,
                                                          "per_source": {}}}),
     "'topic' holds '\\ud800', half of a character (a lone surrogate)"),
])
def test_a_bad_record_is_one_clear_line(world, content, message):
    run, folder, _ = world
    if content is not None:
        (folder / "bad.json").write_text(content, encoding="utf-8")
    for command in ("report", "rerun"):
        error = run([command, "bad.json"], code=2)
        assert message in error and error.count("\n") == 1


def test_record_path_is_checked_before_any_request(world):
    run, _, _ = world
    error = run([TOPIC, "--record", "/nonexistent/folder/r.json"], code=2)
    assert "does not exist" in error


@pytest.mark.parametrize("direction", ["sideways", None, ["both"]])
def test_a_hand_edited_snowball_direction_is_reported_without_a_guess(direction):
    from litsearch.render.report import report_markdown

    record = {"kind": "snowball", "record_version": 1, "searched_at": "2026-11-25T10:00:00Z",
              "options": {} if direction is None else {"direction": direction}, "seeds": [{"id": "10.5555/seed.a"}],
              "providers": [], "results": [], "counts": {"identified": 3, "duplicates_removed": 1,
                                                          "after_duplicates_removed": 2, "shown": 2, "per_source": {}}}
    text = report_markdown(record)
    assert "collected the reference lists of, or the papers citing, 1 seed paper (10.5555/seed.a)" in text


def test_report_quotes_each_search_string_exactly_and_says_what_each_number_is(world):
    """Issue 20, item 11: the methods paragraph showed Semantic Scholar's bulk query as
    "(a) \\| (b)" and called the rows shown "screened"."""
    run, folder, _ = world
    # --sort citations: Semantic Scholar's bulk endpoint, with the variants joined by its OR.
    run([TOPIC, "--variant", "Cas9 specificity", "--variant", "guide `RNA` design", "--limit", "5",
         "--providers", "semantic_scholar,openalex", "--sort", "citations", "--record", "search.json"])
    record = json.loads((folder / "search.json").read_text(encoding="utf-8"))
    sent = {p["name"]: p["requests"][0]["params"] for p in record["providers"]}
    s2_query = sent["semantic_scholar"]["query"]
    assert "|" in s2_query  # the variants joined by the bulk syntax's OR
    report = run(["report", "search.json"])
    paragraph = report.split("\n\n")[1]
    assert "\\|" not in paragraph and "screened (" not in paragraph
    # Each string as sent, verbatim, in a code span (backticks inside get a longer fence).
    assert f"`` query={s2_query} ``" in paragraph or f"`query={s2_query}`" in paragraph
    assert f"`search={sent['openalex']['search']}`" in paragraph or "``" in paragraph
    counts = record["counts"]["per_source"]
    assert (f"Records identified are those each source returned for its query, in its own order: "
            f"Semantic Scholar {counts['semantic_scholar']}") in paragraph
    assert f"OpenAlex {counts['openalex']} (asked for {sent['openalex']['per_page']})" in paragraph
    assert "highest ranked were shown (the rest were found, not shown)" in paragraph
    assert "lit-search ranks and shows records, it screens none" in paragraph
    payload = json.loads(run(["report", "search.json", "--format", "json"]))
    assert f"query={s2_query}" in payload["methods"]  # plain text: no Markdown at all
    labels = [row["label"] for row in payload["identification"]]
    assert not any("screened (" in label for label in labels)
