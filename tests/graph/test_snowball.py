"""`lit-search snowball` (issue 15, item 2) against a small citation graph served in Semantic
Scholar's and OpenAlex's formats (the CitationGraphAPI of the paper/network tests)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from cli.test_paper_network_cli import CitationGraphAPI, make
from command import command_env, command_runner, lit_search_command
from fake_server import FakeServer

# Two seeds, and around them:
#   bridge   - cited by seed A and citing seed B: both seeds, both directions
#   shared   - cited by both seeds (backward from both), in both providers and twice (a preprint)
#   loop     - cites seed A and is cited by seed A (one seed, both directions)
#   only_a   - cited by seed A only; citer_b - cites seed B only
GRAPH = [
    make("seed_a", "Seed A: base editing in human cells", 2016, 900, doi="10.5555/seed.a",
         refs=["bridge", "shared", "loop", "only_a"]),
    make("seed_b", "Seed B: prime editing without double strand breaks", 2019, 700, doi="10.5555/seed.b",
         refs=["shared", "shared_pre"]),
    make("bridge", "A bridge between base and prime editing", 2015, 40, doi="10.5555/bridge", refs=["seed_b"]),
    make("shared", "Deaminase engineering for precise editing", 2014, 500, doi="10.5555/shared", arxiv="1401.00001",
         authors=["Ada Shared", "Ben Common"]),
    make("shared_pre", "Deaminase engineering for precise editing", 2014, 3, arxiv="1401.00001", venue="arXiv",
         authors=["Ada Shared", "Ben Common"], providers=("semantic_scholar",)),
    make("loop", "Editing outcomes measured in mouse embryos", 2017, 60, doi="10.5555/loop", refs=["seed_a"]),
    make("only_a", "Cytidine deaminases in antiviral defence", 2010, 900, doi="10.5555/only.a"),
    make("citer_b", "Prime editing of neurons in vivo", 2022, 10, doi="10.5555/citer.b", refs=["seed_b"]),
]


@pytest.fixture
def run(tmp_path):
    with FakeServer() as server:
        env = command_env(CitationGraphAPI(GRAPH).install(server), LITSEARCH_CACHE_DIR=str(tmp_path / "data"))
        yield command_runner(env, tmp_path, prefix=["snowball"], in_process=True)  # tests/command.py


def results(proc) -> list[dict]:
    return json.loads(proc.stdout)["results"]


def test_two_seeds_give_one_deduplicated_list_with_the_right_via(run):
    found = results(run(["10.5555/seed.a", "10.5555/seed.b", "--format", "json", "--no-verify"]))
    by_title = {r["title"]: r for r in found}
    assert len(found) == len(by_title)  # one row per paper
    bridge = by_title["A bridge between base and prime editing"]
    assert bridge["via"] == [{"seed": "10.5555/seed.a", "direction": "backward"},
                             {"seed": "10.5555/seed.b", "direction": "forward"}]
    shared = by_title["Deaminase engineering for precise editing"]  # preprint and article merged
    assert shared["via"] == [{"seed": "10.5555/seed.a", "direction": "backward"},
                             {"seed": "10.5555/seed.b", "direction": "backward"}]
    assert by_title["Editing outcomes measured in mouse embryos"]["via"] == [
        {"seed": "10.5555/seed.a", "direction": "both"}]
    # Seeds are not finds; two-seed papers first, then by citations (no --topic).
    assert not any(title.startswith("Seed ") for title in by_title)
    assert [r["title"] for r in found[:2]] == ["Deaminase engineering for precise editing",
                                               "A bridge between base and prime editing"]
    assert found[2]["title"] == "Cytidine deaminases in antiviral defence"


def test_direction_and_topic(run):
    backward = results(run(["10.5555/seed.b", "--direction", "backward", "--format", "json", "--no-verify"]))
    assert [r["title"] for r in backward] == ["Deaminase engineering for precise editing"]
    forward = results(run(["10.5555/seed.b", "--direction", "forward", "--format", "json", "--no-verify"]))
    assert {r["title"] for r in forward} == {"A bridge between base and prime editing",
                                             "Prime editing of neurons in vivo"}
    topical = results(run(["10.5555/seed.a", "--topic", "mouse embryos", "--format", "json", "--no-verify"]))
    assert topical[0]["title"] == "Editing outcomes measured in mouse embryos"


def test_the_table_footer_counts_and_states_the_cap(run):
    table = run(["10.5555/seed.a", "10.5555/seed.b", "--no-verify"]).stdout
    assert "| # | Authors | Title | Year | Venue | Cites | DOI | OA |" in table
    assert "### How each paper connects to the seeds" in table
    assert "cited by 10.5555/seed.a; cites 10.5555/seed.b" in table
    # seed B's two records of "shared" are one in its own list already: 4 + 1 references, 1 + 2 citing.
    assert "- found: 5 references, 3 citing papers; 5 papers after removing duplicates and the seeds; 5 shown" in table
    # What each seed's citing list covers (issue 20, item 3).
    assert ("- reach (both): references: up to 100 references per seed; citing papers: seed 1: all 1 citing "
            "paper Semantic Scholar lists; seed 2: all 2 citing papers Semantic Scholar lists") in table


def test_every_export_format_and_save(run, tmp_path):
    for name in ("found.bib", "found.ris", "found.csl.json", "found.json", "found.md"):
        run(["10.5555/seed.a", "--no-verify", "-o", name])
        assert "bridge" in (tmp_path / name).read_text(encoding="utf-8").lower()
    run(["10.5555/seed.a", "--no-verify", "--save"])
    listing = subprocess.run(lit_search_command() + ["library", "list"], capture_output=True, text=True,
                             env={**os.environ, "LITSEARCH_CACHE_DIR": str(tmp_path / "data")})
    assert "A bridge between base and prime editing" in listing.stdout


def test_from_library_uses_the_saved_papers_as_seeds(run, tmp_path):
    run(["10.5555/seed.b", "--direction", "backward", "--no-verify", "--save"])  # saves "shared"
    found = results(run(["--from-library", "--format", "json", "--no-verify"]))
    assert found and all(entry["seed"] == "10.5555/shared" for r in found for entry in r["via"])


@pytest.mark.parametrize("args,message", [
    ([], "give seed ids or --from-library"),
    (["10.5555/seed.a", "--from-library"], "give seed ids or --from-library"),
    (["not-an-id"], "not-an-id"),
    (["10.5555/seed.a", "--limit", "0"], "--limit"),
])
def test_usage_errors(run, args, message):
    proc = run(args, code=2)
    assert message in proc.stderr


def test_seeds_no_provider_has_fail_cleanly(run):
    # Issue 19: the same code as `paper` for the same unknown id (5, not found), not 3.
    proc = run(["10.5555/nobody.knows", "--no-verify"], code=5)
    assert "10.5555/nobody.knows" in proc.stderr
