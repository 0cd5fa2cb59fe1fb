"""Enrichment in a real search: Crossref checks every shown DOI (match, mismatch, 404,
DataCite), Unpaywall fills missing open-access links (PDF, landing page, not OA, 404);
Crossref as an opt-in search provider; the web provider with and without a key."""

from __future__ import annotations

import json

import pytest

import fake_apis
from fake_server import Answer, FakeServer
from fault_support import run_cli

FOUR = "semantic_scholar,openalex,pubmed,arxiv"


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def run_json(server, monkeypatch, capsys, *flags, overrides=None, env_extra=None):
    env = {**fake_apis.install(server, overrides), **(env_extra or {})}
    run = run_cli(monkeypatch, capsys, env, ["CRISPR off-target effects", "--providers", FOUR, "--format", "json",
                                             *flags])
    assert run.exit_code == 0, run.stderr
    return json.loads(run.stdout), run


def by_doi(payload: dict) -> dict[str, dict]:
    return {r["doi"]: r for r in payload["results"] if r["doi"]}


def test_crossref_verdicts_match_mismatch_404_and_datacite(server, monkeypatch, capsys):
    payload, _ = run_json(server, monkeypatch, capsys)
    results = by_doi(payload)
    assert results["10.1038/nbt.2647"]["doi_verified"] is True
    assert results["10.1038/nbt.2647"]["doi_mismatch"] is None
    mismatch = results["10.1089/cmb.2018.0201"]
    assert mismatch["doi_verified"] is False
    assert mismatch["doi_mismatch"]["crossref_title"] == "Fish ladders and river connectivity"
    assert "title differs" in mismatch["doi_mismatch"]["reason"]
    missing = results["10.1002/jgm.3100"]
    assert missing["doi_verified"] is False and missing["doi_mismatch"]["reason"] == "DOI not found at Crossref"
    assert results["10.48550/arxiv.1706.03762"]["doi_verified"] is None  # DataCite: not checked
    # Batched: one filter=doi:… call for every DOI, plus one single lookup for the 404.
    batch = [r for r in server.requests_to("/crossref/works") if r.param("filter")]
    assert len(batch) == 1 and batch[0].param("filter").count("doi:") == 7
    assert "10.48550" not in batch[0].param("filter")
    assert "DOIs checked at Crossref: 7 of 8, 2 not found or not matching" in " ".join(payload["notes"])


def test_markdown_marks_verified_and_suspect_dois(server, monkeypatch, capsys):
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["CRISPR off-target effects", "--providers", FOUR])
    assert "[10.1038/nbt.2647](https://doi.org/10.1038/nbt.2647) ✓" in run.stdout
    assert "[10.1089/cmb.2018.0201](https://doi.org/10.1089/cmb.2018.0201) ⚠" in run.stdout
    assert "[10.48550/arxiv.1706.03762](https://doi.org/10.48550/arxiv.1706.03762) |" in run.stdout
    assert "⚠ = not found there or a different paper" in run.stdout


def test_unpaywall_fills_pdf_and_landing_links_only_where_missing(server, monkeypatch, capsys):
    payload, run = run_json(server, monkeypatch, capsys)
    results = by_doi(payload)
    crispr = results["10.1038/nbt.2647"]
    assert crispr["oa_url"] == "https://europepmc.org/articles/pmc3969858?pdf=render"
    assert crispr["oa_is_pdf"] is True and crispr["oa_source"] == "unpaywall"
    landing = results["10.3389/fbioe.2023.1143157"]
    assert landing["oa_url"].startswith("https://www.frontiersin.org/") and landing["oa_is_pdf"] is False
    assert results["10.1002/jgm.3300"]["oa_url"] is None  # Unpaywall: not OA
    assert results["10.48550/arxiv.1706.03762"]["oa_source"] == "provider"
    asked = {r.path.rsplit("/v2/", 1)[1] for r in server.requests_to("/unpaywall/v2/")}
    assert "10.48550/arxiv.1706.03762" not in asked  # it already had a link
    assert all(r.param("email") == "faults@example.org" for r in server.requests_to("/unpaywall/v2/"))
    md = run_cli(monkeypatch, capsys, fake_apis.install(server), ["CRISPR off-target effects", "--providers", FOUR])
    assert "[PDF](https://europepmc.org/articles/pmc3969858?pdf=render)" in md.stdout
    assert "[page](https://www.frontiersin.org/articles/10.3389/fbioe.2023.1143157)" in md.stdout


def test_unpaywall_404_is_not_an_error(server, monkeypatch, capsys):
    missing = Answer(404, json.dumps({"HTTP_status_code": 404, "error": True, "message": "not found"}))
    payload, _ = run_json(server, monkeypatch, capsys, overrides={"/unpaywall/v2/": [missing]})
    assert payload["errors"] == []
    assert any(note.startswith("Unpaywall: no free copy found for the") for note in payload["notes"])


def test_without_an_email_unpaywall_is_skipped_with_one_notice(server, monkeypatch, capsys):
    payload, _ = run_json(server, monkeypatch, capsys, env_extra={"LITSEARCH_EMAIL": ""})
    assert server.requests_to("/unpaywall/") == []
    notices = [n for n in payload["notes"] if "Unpaywall" in n]
    assert notices == ["Unpaywall skipped: it needs a contact email (set LITSEARCH_EMAIL)"]


def test_crossref_unreachable_leaves_dois_unchecked(server, monkeypatch, capsys):
    down = Answer(503, "down", content_type="text/plain")
    payload, _ = run_json(server, monkeypatch, capsys, overrides={"/crossref/works": [down]})
    assert payload["errors"] == []  # enrichment never fails the search
    assert all(r["doi_verified"] is None for r in payload["results"])
    assert any("could not be checked" in note for note in payload["notes"])


def test_no_verify_skips_crossref_and_unpaywall(server, monkeypatch, capsys):
    payload, _ = run_json(server, monkeypatch, capsys, "--no-verify")
    assert server.requests_to("/crossref/") == [] and server.requests_to("/unpaywall/") == []
    assert all(r["doi_verified"] is None for r in payload["results"])


def test_crossref_as_an_opt_in_search_provider(server, monkeypatch, capsys):
    monkeypatch.setattr(fake_apis, "CORPUS", [dict(p, **{"in": p["in"] + ["crossref"]}) if p["key"] == "crispr"
                                               else p for p in fake_apis.CORPUS])
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["CRISPR off-target", "--providers", "crossref,openalex",
                                             "--format", "json", "--no-verify"])
    payload = json.loads(run.stdout)
    assert payload["providers_searched"] == ["openalex", "crossref"]
    crispr = [r for r in payload["results"] if r["doi"] == "10.1038/nbt.2647"]
    assert len(crispr) == 1 and set(crispr[0]["provider_scores"]) == {"openalex", "crossref"}
    assert server.requests_to("/crossref/works")[0].param("query") == "CRISPR off-target"


def test_auto_never_picks_crossref_or_web(server, monkeypatch, capsys):
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["CRISPR in deep learning", "--format", "json", "--no-verify"])
    assert set(json.loads(run.stdout)["providers_searched"]) == {"semantic_scholar", "openalex", "pubmed", "europepmc",
                                                                 "arxiv"}


def test_web_provider_with_a_key_adds_a_separate_section(server, monkeypatch, capsys):
    env = {**fake_apis.install(server), "TAVILY_API_KEY": "tvly-test-key-123"}
    run = run_cli(monkeypatch, capsys, env, ["CRISPR off-target", "--providers", "openalex,web", "--no-verify"])
    assert run.exit_code == 0
    table, web = run.stdout.split("### Web sources")
    assert "explained" not in table  # never mixed into the papers
    assert "- [CRISPR off-target effects explained](https://www.example.org/crispr-off-target) (example.org)" in web
    assert "<b>" not in web and "tvly-test-key-123" not in run.stdout
    assert server.requests_to("/tavily/search")[0].headers["authorization"] == "Bearer tvly-test-key-123"
    payload = json.loads(run_cli(monkeypatch, capsys, env, ["CRISPR off-target", "--providers", "openalex,web",
                                                            "--no-verify", "--format", "json"]).stdout)
    assert [w["domain"] for w in payload["web_sources"]] == ["example.org", "blog.example.net"]
    assert all(r["title"] != "CRISPR off-target effects explained" for r in payload["results"])


def test_web_provider_without_a_key_is_named_as_failed(server, monkeypatch, capsys):
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["CRISPR off-target", "--providers", "openalex,web", "--no-verify",
                                             "--format", "json"])
    assert run.exit_code == 0  # the scholarly provider answered
    payload = json.loads(run.stdout)
    assert payload["errors"] == [{"provider": "web", "message": "web search needs TAVILY_API_KEY"}]
    assert server.requests_to("/tavily/") == []
