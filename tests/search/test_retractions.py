"""Retractions and corrections inline (issue 15, item 1), against fake APIs that carry them in
each source's own format: OpenAlex ``is_retracted``, PubMed's "Retracted Publication" type and
CommentsCorrections RetractionIn, Crossref's ``updated-by`` (on the work) and ``update-to`` (on
a notice). The fictional papers appear only for queries about gastric organoids."""

from __future__ import annotations

import json

import bibtexparser
import pytest
import rispy

import fake_apis
from command import command_env, command_runner
from conftest import shared_file
from fake_server import Answer, FakeServer, SeenRequest
from litsearch.core.updates import combined_retracted, merged_updates, notice_words
from litsearch.providers.crossref_parse import notices_about, work_updates

TOPIC = "gastric organoid stem cells"
RETRACTED = "Gastric organoids reveal a regenerative stem cell niche"
CORRECTED = "Organoid cultures of gastric cancer biopsies predict drug response"
MARK = "⚠ RETRACTED — "


@pytest.fixture
def run(tmp_path):
    with FakeServer() as server:
        command = command_runner(command_env(fake_apis.install(server), LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                                             LITSEARCH_EMAIL="notices@example.org"), tmp_path, timeout=90,
                                 in_process=True)  # tests/command.py: no process start

        def run(args: list[str], code: int = 0) -> str:
            return command(args, code).stdout
        run.server = server
        yield run


def by_title(payload: dict) -> dict[str, dict]:
    return {result["title"].rstrip("."): result for result in payload["results"]}  # PubMed ends titles with "."


def test_the_table_marks_the_retracted_paper_notes_the_correction_and_counts_them(run):
    table = run([TOPIC])
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    [retracted] = [row for row in rows if RETRACTED in row]
    [corrected] = [row for row in rows if CORRECTED in row]
    assert retracted.split(" | ")[2].startswith(MARK + RETRACTED)  # the Title cell starts with the mark
    assert "(correction published)" in corrected.split(" | ")[2]
    assert all(row.count(" | ") == 7 for row in rows)  # still 8 columns
    assert ("- notices: 1 retracted paper (title marked ⚠ RETRACTED —); 1 paper with a correction, erratum or "
            "expression of concern (from OpenAlex, PubMed and Crossref)") in table


def test_json_says_retracted_and_lists_each_notice(run):
    results = by_title(json.loads(run([TOPIC, "--format", "json"])))
    retracted = results[RETRACTED]
    assert retracted["retracted"] is True
    [notice] = retracted["updates"]
    assert notice["type"] == "retraction" and notice["notice_doi"] == "10.5555/jfg.2021.0045"
    assert notice["notice_pmid"] == "34000002" and notice["date"] == "2021-03-01"
    assert "pubmed" in notice["source"] and "crossref" in notice["source"]
    corrected = results[CORRECTED]
    assert corrected["retracted"] is False
    assert corrected["updates"] == [{"type": "correction", "notice_doi": "10.5555/jfg.2020.0303", "notice_pmid": None,
                                     "date": "2020-09-01", "source": "crossref (publisher)"}]
    assert results["DNA targeting specificity of RNA-guided Cas9 nucleases"]["retracted"] is False


@pytest.mark.parametrize("providers,verify,expect_notice", [
    ("openalex", False, False),  # is_retracted alone: retracted, no notice to link
    ("pubmed", False, True),  # the publication type and RetractionIn
    ("semantic_scholar", True, True),  # S2 cannot tell; Crossref's updated-by in the DOI check can
])
def test_each_source_alone_tells(run, providers, verify, expect_notice):
    args = [TOPIC, "--providers", providers, "--format", "json"] + ([] if verify else ["--no-verify"])
    result = by_title(json.loads(run(args)))[RETRACTED]
    assert result["retracted"] is True
    assert bool(result["updates"]) is expect_notice


def test_without_any_source_that_can_tell_retracted_is_null(run):
    results = by_title(json.loads(run([TOPIC, "--providers", "semantic_scholar", "--no-verify", "--format", "json"])))
    assert results[RETRACTED]["retracted"] is None and results[RETRACTED]["updates"] == []


def test_exclude_retracted_drops_them_and_says_how_many(run):
    table = run([TOPIC, "--exclude-retracted"])
    assert RETRACTED not in table and CORRECTED in table
    assert "- 1 retracted paper left out (--exclude-retracted)" in table
    # Found only by Crossref's notice (S2 cannot tell): dropped after the DOI checks.
    table = run([TOPIC, "--providers", "semantic_scholar", "--exclude-retracted"])
    assert RETRACTED not in table and "1 retracted paper left out" in table


def test_exports_carry_the_notices(run):
    bib = bibtexparser.parse_string(run([TOPIC, "--format", "bibtex"]))
    notes = {entry["title"]: entry.fields_dict.get("note") for entry in bib.entries}
    [retracted_note] = [note.value for title, note in notes.items() if "regenerative" in title]
    assert retracted_note.startswith("RETRACTED") and "10.5555/jfg.2021.0045" in retracted_note
    ris = {entry["title"]: entry for entry in rispy.loads(run([TOPIC, "--format", "ris"]))}
    assert ris[RETRACTED]["notes"][0].startswith("RETRACTED (retraction: 10.5555/jfg.2021.0045")
    assert "correction: 10.5555/jfg.2020.0303" in ris[CORRECTED]["notes"][0]
    csl = {item["title"]: item for item in json.loads(run([TOPIC, "--format", "csl-json"]))}
    assert csl[RETRACTED]["note"].startswith("RETRACTED")
    assert "note" not in csl["DNA targeting specificity of RNA-guided Cas9 nucleases"]


def test_the_library_keeps_the_notices(run):
    run([TOPIC, "--save"])
    assert "RETRACTED" in run(["library", "export", "--format", "ris"])


def test_paper_shows_the_notices_with_their_links(run):
    shown = run(["paper", "10.5555/jfg.2019.0101"])
    assert "**⚠ RETRACTED**" in shown
    assert "- retraction: [10.5555/jfg.2021.0045](https://doi.org/10.5555/jfg.2021.0045), 2021-03-01" in shown
    payload = json.loads(run(["paper", "10.5555/jfg.2019.0101", "--format", "json"]))
    assert payload["retracted"] is True and payload["updates"][0]["notice_doi"] == "10.5555/jfg.2021.0045"


def test_a_notice_among_the_checked_dois_marks_the_paper_it_retracts(tmp_path):
    """Crossref's update-to: the notice names what it retracts, even when the work's own
    record carries no updated-by."""
    def works(request: SeenRequest) -> Answer:
        normal = fake_apis.crossref_works(request)
        if "doi:10.1038/nbt.2647" not in (request.param("filter") or ""):
            return normal
        payload = json.loads(normal.body)
        payload["message"]["items"].append({"DOI": "10.1038/nbt.9999", "title": ["Retraction note"],
                                            "update-to": [{"DOI": "10.1038/nbt.2647", "type": "retraction",
                                                           "updated": {"date-parts": [[2024, 1, 2]]}}]})
        return Answer(200, json.dumps(payload))
    with FakeServer() as server:
        run = command_runner(command_env(fake_apis.install(server, {"/crossref/works": works}),
                                         LITSEARCH_CACHE_DIR=str(tmp_path)), tmp_path, in_process=True)
        proc = run(["CRISPR off-target effects", "--providers", "semantic_scholar", "--format", "json"])
    result = by_title(json.loads(proc.stdout))["DNA targeting specificity of RNA-guided Cas9 nucleases"]
    assert result["retracted"] is True
    assert result["updates"][0] == {"type": "retraction", "notice_doi": "10.1038/nbt.9999", "notice_pmid": None,
                                    "date": "2024-01-02", "source": "crossref"}


def test_the_recorded_crossref_answer_with_a_correction_is_read():
    path = shared_file("crossref/bodies/paperqa__doi_search_10.1073_pnas.1414271111__00_200.json")
    message = json.loads(path.read_text(encoding="utf-8"))["message"]
    found = work_updates(message)
    assert found["retracted"] is False
    assert found["updates"] == [{"type": "correction", "notice_doi": "10.1073/pnas.1507001112", "notice_pmid": None,
                                 "date": "2015-05-04", "source": "crossref (publisher)"}]


def test_the_vocabulary_merges_and_words_notices():
    crossref = {"type": "retraction", "notice_doi": "10.1/n", "notice_pmid": None, "date": "2021", "source": "crossref"}
    pubmed = {"type": "retraction", "notice_doi": "10.1/n", "notice_pmid": "9", "date": None, "source": "pubmed"}
    [merged] = merged_updates([crossref], [pubmed])
    assert merged["notice_pmid"] == "9" and merged["date"] == "2021" and merged["source"] == "crossref, pubmed"
    assert combined_retracted([None, False]) is False and combined_retracted([None]) is None
    assert combined_retracted([False], [crossref]) is True
    assert notice_words([merged]) == "retraction: 10.1/n (2021)"
    assert notices_about({"DOI": "10.1/n", "update-to": "not a list"}) == []


# --------------------------------------------------------------------------- issue 20, item 1

TURING = "turing patterns reaction diffusion"
TURING_TITLE = "Turing patterns on a growing reaction-diffusion domain"


def test_a_retraction_only_pubmed_knows_is_found_when_pubmed_was_not_searched(run):
    """The automatic choice skips PubMed for this topic; the shown row's PMID (from Semantic
    Scholar and OpenAlex) is checked at PubMed in the enrichment round, in one efetch."""
    payload = json.loads(run([TURING, "--format", "json"]))
    result = by_title(payload)[TURING_TITLE]
    assert result["retracted"] is True
    assert result["updates"] == [{"type": "retracted_and_republished", "notice_doi": "10.5555/jfm.2020.0012",
                                  "notice_pmid": "32000004", "date": None, "source": "pubmed"}]
    efetches = run.server.requests_to("/eutils/efetch.fcgi")
    # One batched call for every shown PMID (the fake APIs serve their whole corpus).
    assert len(efetches) == 1 and "29000003" in efetches[0].param("id").split(",")
    assert not run.server.requests_to("/eutils/esearch.fcgi")  # PubMed was not searched
    assert any("PMIDs checked at PubMed" in note and "1 retracted" in note for note in payload["notes"])
    table = run([TURING])
    row = next(line for line in table.splitlines() if TURING_TITLE in line)
    assert row.split(" | ")[2].startswith(MARK)


def test_exclude_retracted_drops_what_only_pubmed_says(run):
    table = run([TURING, "--exclude-retracted"])
    assert TURING_TITLE not in table and "1 retracted paper left out" in table


def test_no_verify_skips_the_pubmed_check_too(run):
    payload = json.loads(run([TURING, "--no-verify", "--format", "json"]))
    assert by_title(payload)[TURING_TITLE]["retracted"] is False  # OpenAlex's word only
    assert not run.server.requests_to("/eutils/")


def test_rows_pubmed_supplied_are_not_asked_again(run):
    run([TOPIC, "--providers", "pubmed,openalex", "--format", "json"])
    efetches = run.server.requests_to("/eutils/efetch.fcgi")
    assert len(efetches) == 1  # the search's own efetch; its rows carry PubMed's word already


@pytest.mark.parametrize("given", ["PMID:29000003", "29000003", "10.5555/jfm.2018.0042"])
def test_paper_consults_pubmed_for_a_pmid(run, given):
    payload = json.loads(run(["paper", given, "--format", "json"]))
    assert payload["retracted"] is True
    assert payload["updates"][0]["type"] == "retracted_and_republished"
    assert "pubmed" in payload["sources"] or payload["updates"][0]["source"] == "pubmed"
    shown = run(["paper", given])
    assert "**⚠ RETRACTED**" in shown
    assert "- retracted and republished: [10.5555/jfm.2020.0012](https://doi.org/10.5555/jfm.2020.0012)" in shown


def test_a_pmid_only_pubmed_knows_is_shown_from_pubmed(run):
    not_found = lambda request: Answer(404, json.dumps({"error": "Paper not found"}))  # noqa: E731
    run.server.route("/s2/graph/v1/paper/", not_found)
    run.server.route("/openalex/works/", lambda request: Answer(404, "<html>Not Found</html>",
                                                                 content_type="text/html"))
    payload = json.loads(run(["paper", "PMID:29000003", "--format", "json"]))
    assert payload["title"].startswith(TURING_TITLE) and payload["retracted"] is True
    assert payload["sources"] == ["pubmed"] and payload["references"] == [] == payload["citations"]
    assert any("PubMed's record is shown" in note for note in payload["notes"])
