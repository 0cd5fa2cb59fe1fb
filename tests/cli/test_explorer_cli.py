"""`lit-search ENTITY ACTION …` for the explorer's commands (work list|get|find|autocomplete,
domain/field/subfield list|get, subfield autocomplete, and the autocompletes of the other
entities), in process (the real entry point, cli.main) against the fake OpenAlex built from
the recorded works: Markdown and --format json, the aliases as flags, the documented exit code
and one line for each failure, and the words that stay a topic."""

from __future__ import annotations

import json

import pytest

import fake_openalex_recorded
from fake_server import FakeServer
from fault_support import run_cli
from litsearch.cli.first_word import entity_topic, mistyped_command
from litsearch.providers.openalex_entity_kinds import KINDS

LARGE = "openalex/bodies/openalexPro__works_filter_title_and_abstract_search_biodiversity_AND_finance_200results_LARGE__00_200.json"


@pytest.fixture
def cli(shared, monkeypatch, capsys, tmp_path):
    shared(LARGE)
    fake_openalex_recorded.corpus()  # read once before the clock runs (the settings' read timeout is 0.5 s)
    with FakeServer() as server:
        env = {**fake_openalex_recorded.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}

        def run(args: list[str], code: int = 0):
            result = run_cli(monkeypatch, capsys, env, args)
            assert result.exit_code == code, (args, result.stderr)
            assert "Traceback" not in result.stderr
            return result

        run.server = server
        yield run


def test_work_list_in_markdown_and_json_with_aliases_as_flags(cli):
    markdown = cli(["work", "list", "--year", "2000", "--subfield", "Ecological Modeling", "--limit", "3"]).stdout
    assert markdown.startswith("## OpenAlex works\n") and "| 1 | Biodiversity hotspots for conservation priorities |" \
        in markdown
    assert "[10.1038/35002501](https://doi.org/10.1038/35002501)" in markdown and "quoted from OpenAlex" in markdown
    payload = json.loads(cli(["work", "list", "--year", "2000", "--subfield", "Ecological Modeling",
                              "--format", "json"]).stdout)
    assert payload["entity"] == "work" and payload["filters"] == [
        "subfield 'Ecological Modeling' → Ecological Modeling (subfields/2302)"]
    assert {r["publication_year"] for r in payload["results"]} == {2000}
    assert set(payload["results"][0]) == {"id", "title", "doi", "publication_year", "type", "authors", "journal",
                                          "is_oa", "oa_url", "cited_by_count", "primary_topic", "abstract_text"}
    sent = cli.server.requests_to("/openalex/works")[-1].param("filter").split(",")
    assert set(sent) == {"publication_year:2000", "primary_topic.subfield.id:2302"}


def test_work_get_find_and_autocomplete(cli):
    record = json.loads(cli(["work", "get", "doi:10.1038/35002501", "--format", "json"]).stdout)
    assert record["id"] == "W2162348455" and "abstract_inverted_index" not in record
    assert cli(["work", "get", "W2162348455"]).stdout.startswith(
        "## Biodiversity hotspots for conservation priorities (W2162348455)")
    found = json.loads(cli(["work", "find", "protecting", "places", "rich", "in", "endemic", "species",
                            "--limit", "5", "--type", "article", "--format", "json"]).stdout)
    assert found["query"] == "protecting places rich in endemic species" and 0 < len(found["results"]) <= 5
    assert all("relevance_score" in r and r["type"] == "article" for r in found["results"])
    sent = cli.server.requests_to("/openalex/works")[-1]
    assert sent.param("search.semantic") == found["query"] and sent.param("per_page") == "5"
    assert "| Score |" in cli(["work", "find", "biodiversity finance"]).stdout
    typed = json.loads(cli(["work", "autocomplete", "biodiversity", "hot", "--format", "json"]).stdout)
    assert typed["results"][0]["id"] == "W2162348455" and typed["results"][0]["external_id"].endswith("35002501")


def test_the_hierarchy_on_the_command_line(cli):
    domains = cli(["domain", "list"]).stdout
    assert "| 1 | Physical Sciences | domains/3 |" in domains
    assert json.loads(cli(["domain", "get", "3", "--format", "json"]).stdout)["display_name"] == "Physical Sciences"
    fields = json.loads(cli(["field", "list", "--domain", "Physical Sciences", "--format", "json"]).stdout)
    assert fields["results"] and {f["domain"] for f in fields["results"]} == {"Physical Sciences"}
    assert {"subfield_count", "domain"} <= set(fields["results"][0])
    assert cli(["field", "get", "fields/23"]).stdout.startswith("## Environmental Science (fields/23)")
    subfields = json.loads(cli(["subfield", "list", "--field", "23", "--works", "10-", "--format", "json"]).stdout)
    assert subfields["results"] and all(s["works_count"] >= 10 for s in subfields["results"])
    typed = cli(["subfield", "autocomplete", "ecol"]).stdout
    assert "| 1 | Ecology | subfields/2303 |" in typed and "--subfield ID on `lit-search work list`" in typed


@pytest.mark.parametrize("kind,text,first", [("author", "myers", "A5109070857"), ("source", "natu", "S137773608"),
                                             ("institution", "oxford", "I40120149"),
                                             ("publisher", "spring", "P4310319965"),
                                             ("funder", "national science", "F4320306076")])
def test_each_autocomplete(cli, kind, text, first):
    payload = json.loads(cli([kind, "autocomplete", *text.split(), "--format", "json"]).stdout)
    assert payload["entity"] == kind and payload["results"][0]["id"] == first


@pytest.mark.parametrize("args,code,message", [
    (["work", "list", "--year", "2020", "--filter", "publication_year:2019"], 2, "both set publication_year"),
    (["work", "find", "x", "--filter", "cited_by_count:>5"], 2, "does not take the cited_by_count filter"),
    (["work", "find", "x" * 2_001], 2, "reads at most 2,000"),
    (["work", "find", "x", "--limit", "51"], 2, "--limit must be between 1 and 50"),
    (["work", "find", "x", "--citations", "5"], 2, "unrecognized arguments: --citations"),
    (["work", "get", "A123"], 2, "'A123' is not an OpenAlex work id"),
    (["work", "get", "W1"], 5, "OpenAlex has no work 'W1'"),
    (["domain", "get", "Physical"], 2, "is not an OpenAlex domain id"),
    (["field", "list", "--domain", "Nowhere Sciences"], 2, "no OpenAlex domain matches"),
])
def test_failures_end_in_one_line_and_their_exit_code(cli, args, code, message):
    result = cli(args, code=code)
    assert message in result.stderr and len(result.stderr.strip().splitlines()) <= 2, result.stderr


@pytest.mark.parametrize("words,command", [
    (["work", "engagement", "and", "burnout"], False), (["field", "theory"], False), (["domain", "adaptation"], False),
    (["work", "find", "x"], True), (["subfield", "autocomplete", "x"], True), (["domain", "get", "3"], True),
    (["field", "autocomplete", "x"], False),  # fields have no autocomplete: a topic's words
])
def test_an_entity_name_starts_a_topic_unless_an_action_follows(words, command):
    assert entity_topic(words) is (not command)


def test_words_near_work_are_topics_not_typos():
    assert mistyped_command(["word", "list", "recall"]) is None and mistyped_command(["worm", "get", "x"]) is None
    assert mistyped_command(["domian", "list"]).name == "domain"
    assert set(KINDS) <= {"work", "author", "source", "institution", "topic", "publisher", "funder", "domain",
                          "field", "subfield"}
