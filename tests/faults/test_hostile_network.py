"""The hostile-network matrix (issue 19): every command that talks to the network x every
fault of the catalogue (tests/hostile_catalogue.py), served on loopback by the fake APIs
with one route misbehaving, and a second server recording anything that reaches it.

For every cell: the command's documented exit code, no traceback and no "internal error"
(every failure of an HTTP exchange is a provider failure with its reason), the healthy
providers' results kept where the command has any, and nothing at all reaching the
recorder: no key, no contact email, no request (cross-origin redirects are not followed).
Pacing is not under test here (tests/net has it): every provider runs unpaced.
"""

from __future__ import annotations

import json

import pytest

import fake_apis
from fake_server import FakeServer
from fault_support import run_cli
from hostile_catalogue import FAULTS, catalogue
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy

KEYS = {"SEMANTIC_SCHOLAR_API_KEY": "s2-canary-key-1234", "OPENALEX_API_KEY": "oa-canary-key-5678",
        "NCBI_API_KEY": "ncbi-canary-key-90"}
EMAIL = "canary.researcher@example.org"
DNA = "DNA targeting specificity of RNA-guided Cas9 nucleases"
TOPIC = "CRISPR off-target effects"
SEARCH = [TOPIC, "--providers", "semantic_scholar,openalex", "--limit", "10"]


def _record(path) -> str:
    record = {"record_version": 1, "kind": "search", "topic": TOPIC, "searched_at": "2026-01-01T00:00:00Z",
              "options": {"providers": ["semantic_scholar", "openalex"], "limit": 10, "verify": True},
              "providers": [], "results": [],
              "counts": {"identified": 0, "per_source": {}, "duplicates_removed": 0,
                         "after_duplicates_removed": 0, "shown": 0}}
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def _library(folder) -> None:
    from litsearch.library.store import Store

    with Store.open(folder / "lit-search.sqlite3") as store:
        store.save_papers([{"title": DNA, "year": 2013, "doi": "10.1038/nbt.2647", "openalex_id": "W2022234560"},
                           {"title": "Off-target effects in CRISPR/Cas9 gene editing", "year": 2023,
                            "doi": "10.3389/fbioe.2023.1143157", "openalex_id": "W4324371002"},
                           {"title": "Fast off-target search for CRISPR guides", "year": 2018,
                            "doi": "10.1007/978-3-319-89929-9_12"}])


# command -> (routes that misbehave, arguments (a function of the test's folder), allowed exit
# codes, whether the healthy provider's papers must be in the output)
COMMANDS = {
    "search (a search provider fails)": (["/openalex/works"], lambda tmp: SEARCH, {0}, True),
    "search (its enrichment fails)": (["/crossref/works", "/unpaywall/v2/"], lambda tmp: SEARCH, {0}, True),
    # Europe PMC's own fake (tests/fake_europepmc.py): its contact email must not follow a redirect either.
    "search (Europe PMC fails)": (["/europepmc/search"],
                                  lambda tmp: [TOPIC, "--providers", "semantic_scholar,europepmc", "--limit", "10"],
                                  {0}, True),
    "paper": (["/s2/graph/v1/paper/"], lambda tmp: ["paper", "10.1038/nbt.2647"], {0, 3}, False),
    "snowball": (["/s2/graph/v1/paper/"], lambda tmp: ["snowball", "10.1038/nbt.2647", "--no-verify"],
                 {0, 3}, False),
    "network": (["/s2/graph/v1/paper/"], lambda tmp: ["network", "10.1038/nbt.2647", "10.3389/fbioe.2023.1143157"],
                {0, 3}, False),
    "rerun": (["/openalex/works"], lambda tmp: ["rerun", _record(tmp / "record.json")], {0}, True),
    "library link": (["/openalex/works", "/s2/graph/v1/paper/batch"], lambda tmp: ["library", "link"], {0, 3}, False),
    "doctor --check": (["/openalex/works", "/s2/graph/v1/paper/", "/crossref/works"],
                       lambda tmp: ["doctor", "--check", "--format", "json"], {0}, False),
}


@pytest.fixture
def servers():
    with FakeServer() as api, FakeServer() as recorder:
        yield api, recorder


@pytest.fixture
def unpaced(monkeypatch):
    monkeypatch.setattr(HttpClient, "policy", lambda self, provider: PacePolicy(min_interval=0, max_in_flight=4))


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("command", COMMANDS)
def test_hostile_network(command, fault, servers, unpaced, tmp_path, monkeypatch, capsys):
    api, recorder = servers
    routes, arguments, codes, healthy_kept = COMMANDS[command]
    answer = catalogue(recorder.url)[fault]
    env = fake_apis.install(api, {route: [answer] for route in routes})
    data = tmp_path / "data"
    data.mkdir()
    if command == "library link":
        _library(data)
    env.update(KEYS, LITSEARCH_EMAIL=EMAIL, LITSEARCH_CACHE_DIR=str(data), LITSEARCH_PROVIDER_BUDGET="8")
    run = run_cli(monkeypatch, capsys, env, arguments(tmp_path))
    everything = run.stdout + run.stderr
    assert run.exit_code in codes, f"exit {run.exit_code}: {run.stderr[-600:]}"
    assert "Traceback" not in everything
    assert "internal error" not in everything.lower(), everything[-800:]
    assert recorder.requests == [], [(r.method, r.path, r.headers) for r in recorder.requests]
    for secret in (*KEYS.values(), EMAIL):
        assert secret not in everything
    if healthy_kept:
        assert DNA in run.stdout  # Semantic Scholar's answer, untouched by the fault
    if command == "search (its enrichment fails)":
        assert run.exit_code == 0 and "DOIs checked at Crossref" in run.stdout
