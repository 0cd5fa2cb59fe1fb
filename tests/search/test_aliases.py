"""The search's filter aliases (institution, topic, source, publisher, funder, country,
continent, type, open, year, citations) through the real command against the fake APIs: each
becomes its OpenAlex filter, entity names are resolved once (free autocomplete) and the
resolution is shown, filters only OpenAlex applies say so, contradictions with the explicit
filters are usage errors, and a record keeps the resolved ids for rerun."""

from __future__ import annotations

import json

import pytest

import fake_apis
from fake_server import FakeServer
from fault_support import run_cli

PROVIDERS = "semantic_scholar,openalex"


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def search(server, monkeypatch, capsys, *flags: str, code: int = 0):
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", PROVIDERS, "--format", "json",
                                             "--no-verify", *flags])
    assert run.exit_code == code, run.stderr
    payload = json.loads(run.stdout) if code == 0 else None
    works = server.requests_to("/openalex/works")
    return payload, run, (works[0].param("filter") or "") if works else None


@pytest.mark.parametrize("flags,part,line", [
    (["--institution", "MIT"], "authorships.institutions.lineage:I63966007",
     "institution 'MIT' → Massachusetts Institute of Technology (I63966007)"),
    (["--institution", "ror:042nb2s44"], "authorships.institutions.lineage:I63966007",
     "institution 'ror:042nb2s44' → Massachusetts Institute of Technology (I63966007)"),
    (["--topic", "crispr genetic"], "primary_topic.id:T10211",
     "topic 'crispr genetic' → CRISPR and Genetic Engineering (T10211)"),
    (["--source", "Nature Biotechnology"], "primary_location.source.id:S106963461",
     "source 'Nature Biotechnology' → Nature Biotechnology (S106963461)"),
    (["--publisher", "PLOS"], "primary_location.source.publisher_lineage:P4310315706",
     "publisher 'PLOS' → Public Library of Science (P4310315706)"),
    (["--funder", "F4320332161"], "funders.id:F4320332161", "funder National Institutes of Health (F4320332161)"),
    (["--country", "de,us", "--country", "CH"], "authorships.countries:de|us|ch", "country DE|US|CH"),
    (["--continent", "North America"], "authorships.institutions.continent:north_america", "continent north_america"),
    (["--citations", "100-500"], "cited_by_count:100-500", "at least 100 citations"),
    (["--citations", "<50"], "cited_by_count:<50", "at most 49 citations"),
    (["--citations", "50", "--min-citations", "50"], "cited_by_count:>49", "at least 50 citations"),
    (["--open"], "open_access.is_oa:true", "open access"),
    (["--type", "review"], "type:review", "type review"),
    (["--year", "2020-"], "from_publication_date:2020-01-01", "year 2020–"),
])
def test_each_alias_becomes_its_openalex_filter(server, monkeypatch, capsys, flags, part, line):
    payload, _, sent = search(server, monkeypatch, capsys, *flags)
    assert part in sent.split(",")
    assert any(applied.startswith(line) for applied in payload["filters"]), payload["filters"]


def test_a_filter_only_openalex_applies_says_so_and_keeps_only_what_openalex_found(server, monkeypatch, capsys):
    payload, run, _ = search(server, monkeypatch, capsys, "--institution", "MIT")
    line = payload["filters"][0]
    assert line.endswith("applied by openalex; only OpenAlex can apply it: papers from semantic_scholar are kept "
                         "only where OpenAlex found them too")
    assert payload["results"] and all("openalex" in {f["provider"] for f in r["found_by"]} for r in payload["results"])
    assert payload["filtered_out"] > 0  # the Semantic Scholar-only papers
    assert len(server.requests_to("/openalex/autocomplete/institutions")) == 1  # one lookup, free of credits
    markdown = run_cli(monkeypatch, capsys, fake_apis.install(server),
                       ["deep learning", "--providers", PROVIDERS, "--no-verify", "--institution", "MIT"])
    assert "only OpenAlex can apply it" in markdown.stdout


@pytest.mark.parametrize("flags,message", [
    (["--source", "Nature", "--venue", "Cell"], "--source 'Nature' and --venue 'Cell' disagree"),
    (["--citations", "100", "--min-citations", "5"], "--citations '100' and --min-citations 5 disagree"),
    (["--citations", "lots"], "--citations takes 100 (at least)"),
    (["--citations", "500-100"], "backwards"),
    (["--country", "Germany"], "two-letter ISO country codes"),
    (["--continent", "atlantis"], "--continent takes africa"),
    (["--institution", "Nowhere University of Nothing"], "no OpenAlex institution matches"),
    (["--funder", "F1"], "OpenAlex has no funder 'F1'"),
])
def test_contradictions_and_bad_values_are_usage_errors(server, monkeypatch, capsys, flags, message):
    _, run, _ = search(server, monkeypatch, capsys, *flags, code=5 if "F1" in flags else 2)
    assert message in run.stderr and "Traceback" not in run.stderr
    assert not server.requests_to("/s2/")  # nothing was searched


def test_openalex_only_filters_need_openalex_among_the_providers(server, monkeypatch, capsys):
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", "pubmed", "--country", "DE"])
    assert run.exit_code == 2 and "only OpenAlex can apply the country filter; add openalex" in run.stderr
    assert server.requests == []


def test_the_same_alias_and_filter_agreeing_is_fine(server, monkeypatch, capsys):
    _, _, sent = search(server, monkeypatch, capsys, "--source", "Nature Biotechnology", "--venue",
                        "nature biotechnology", "--open", "--open-access")
    assert "primary_location.source.id:S106963461" in sent and "open_access.is_oa:true" in sent


def test_a_record_keeps_the_resolution_and_rerun_uses_it(server, monkeypatch, capsys, tmp_path):
    record = tmp_path / "search.json"
    search(server, monkeypatch, capsys, "--institution", "MIT", "--topic", "T10211", "--record", str(record))
    filters = json.loads(record.read_text())["options"]["filters"]
    assert filters["institution"] == "MIT" and filters["resolved"] == {
        "institution": ["I63966007", "Massachusetts Institute of Technology"],
        "topic": ["T10211", "CRISPR and Genetic Engineering"]}
    server.requests.clear()
    rerun = run_cli(monkeypatch, capsys, fake_apis.install(server), ["rerun", str(record), "--format", "json"])
    assert rerun.exit_code == 0, rerun.stderr
    assert not server.requests_to("/openalex/autocomplete") and not server.requests_to("/openalex/topics")
    assert "authorships.institutions.lineage:I63966007" in server.requests_to("/openalex/works")[0].param("filter")


def test_an_id_filter_survives_a_failed_name_lookup(server, monkeypatch, capsys):
    from fake_server import Answer

    env = fake_apis.install(server, {"/openalex/topics": [Answer(503, "{}")]})
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", PROVIDERS, "--format", "json",
                                             "--no-verify", "--topic", "T10211"])
    assert run.exit_code == 0, run.stderr
    assert "primary_topic.id:T10211" in server.requests_to("/openalex/works")[0].param("filter")
