"""Europe PMC end to end: the real command in a subprocess against the fake APIs, Europe PMC's
own fake among them (tests/fake_europepmc.py, mounted by fake_apis.install). Named in
--providers, and chosen for a biomedical topic, its records merge with PubMed's (one row per
paper, every provider's record kept), its preprints say so in the Venue cell and in every
export's type, and --preprints / --no-preprints reach it."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

import fake_apis
import fake_europepmc
from command import lit_search_command
from fake_server import FakeServer

TOPIC = "CRISPR off-target effects"
CRISPR_DOI, REVIEW_PMID, STANDALONE_DOI = "10.1038/nbt.2647", "36970624", "10.21203/rs.3.rs-2555555/v1"


def run(args: list[str], env: dict[str, str], cwd=None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "OPENALEX", "NCBI", "SEMANTIC"))}
    proc = subprocess.run(lit_search_command() + args, capture_output=True, text=True, timeout=60, cwd=cwd,
                          env={**clean, "LITSEARCH_EMAIL": "e2e@example.org", **env})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def apis(tmp_path):
    with FakeServer() as server:
        yield server, {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}


def providers_of(row: dict) -> list[str]:
    return sorted(hit["provider"] for hit in row["found_by"])


def test_providers_europepmc_searches_europe_pmc_alone(apis):
    server, env = apis
    payload = json.loads(run([TOPIC, "--providers", "europepmc", "--format", "json", "--no-verify"], env).stdout)
    assert payload["providers_searched"] == ["europepmc"] and payload["errors"] == []
    assert {providers_of(row)[0] for row in payload["results"]} == {"europepmc"} and len(payload["results"]) == 3
    [request] = server.requests_to(fake_europepmc.SEARCH_ROUTE)
    assert (request.param("format"), request.param("resultType"), request.param("cursorMark")) == ("json", "core", "*")
    assert request.param("email") == "e2e@example.org" and request.param("query") == TOPIC


def test_a_biomedical_topic_merges_europe_pmc_with_pubmed_one_row_per_paper(apis):
    server, env = apis
    payload = json.loads(run([TOPIC, "--format", "json", "--limit", "50"], env).stdout)
    assert payload["providers_searched"] == ["semantic_scholar", "openalex", "pubmed", "europepmc"]
    rows = payload["results"]
    crispr = [row for row in rows if row["doi"] == CRISPR_DOI]
    assert len(crispr) == 1 and {"pubmed", "europepmc", "openalex", "semantic_scholar"} <= set(providers_of(crispr[0]))
    # The review once, its bioRxiv preprint merged in (Europe PMC links them): the published paper.
    review = [row for row in rows if row["pmid"] == REVIEW_PMID]
    assert len(review) == 1 and {"pubmed", "europepmc"} <= set(providers_of(review[0]))
    assert providers_of(review[0]).count("europepmc") == 2  # the article's record and its preprint's
    assert review[0]["external_ids"]["ppr"] == "PPR571234"
    assert "preprint and published version (PPR id PPR571234)" in review[0]["merge_reasons"]
    assert review[0]["preprint"] is False and review[0]["journal"] == "Frontiers in Bioengineering and Biotechnology"
    [standalone] = [row for row in rows if row["doi"] == STANDALONE_DOI]
    assert standalone["preprint"] is True and providers_of(standalone) == ["europepmc"]
    assert len({row["doi"] or row["pmid"] or row["title"] for row in rows}) == len(rows)


def test_a_preprint_says_so_in_the_venue_cell_and_in_every_exports_type(apis, tmp_path):
    _, env = apis
    table = run([TOPIC, "--format", "markdown", "--no-abstracts"], env).stdout
    [line] = [line for line in table.splitlines() if "Guide-dependent off-target activity" in line]
    assert "| Research Square (preprint) |" in line
    view = run([TOPIC, "--format", "table", "--limit", "50"], {**env, "COLUMNS": "120"}).stdout
    assert "Research Square (preprint)" in view
    for name in ("refs.bib", "refs.ris", "refs.csl.json", "refs.csv"):
        run([TOPIC, "--limit", "50", "-o", str(tmp_path / name)], env)
    bibtex = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    entry = next(part for part in bibtex.split("\n@") if STANDALONE_DOI in part)
    assert entry.lstrip("@").startswith("misc{") and "(preprint)" in entry
    ris = next(part for part in (tmp_path / "refs.ris").read_text(encoding="utf-8").split("ER  -")
               if STANDALONE_DOI in part)
    assert "TY  - UNPB" in ris
    [item] = [i for i in json.loads((tmp_path / "refs.csl.json").read_text(encoding="utf-8"))
              if i.get("DOI") == STANDALONE_DOI]
    assert (item["type"], item["genre"], item["publisher"]) == ("article", "preprint", "Research Square")
    [row] = [line for line in (tmp_path / "refs.csv").read_text(encoding="utf-8").splitlines() if STANDALONE_DOI in line]
    assert ",misc," in row and "Research Square (preprint)" in row
    # The published review is exported as the journal article it is, not as its preprint.
    review = next(part for part in bibtex.split("\n@") if "10.3389/fbioe.2023.1143157" in part)
    assert review.lstrip("@").startswith("article{")


def test_preprints_and_no_preprints_reach_europe_pmc_and_the_merged_list(apis):
    server, env = apis
    only = json.loads(run([TOPIC, "--preprints", "--format", "json", "--no-verify"], env).stdout)
    assert [row["doi"] for row in only["results"]] == [STANDALONE_DOI]
    assert "SRC:PPR" in server.requests_to(fake_europepmc.SEARCH_ROUTE)[-1].param("query")
    assert any(line.startswith("preprints only: applied by") and "europepmc" in line for line in only["filters"])
    none = json.loads(run([TOPIC, "--no-preprints", "--format", "json", "--no-verify"], env).stdout)
    assert STANDALONE_DOI not in {row["doi"] for row in none["results"]}
    assert any(row["pmid"] == REVIEW_PMID for row in none["results"])  # published, though its preprint merged in
    assert server.requests_to(fake_europepmc.SEARCH_ROUTE)[-1].param("query").endswith("NOT SRC:PPR")
