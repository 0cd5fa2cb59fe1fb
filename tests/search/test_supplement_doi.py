"""A congress supplement's DOI shared by two abstracts (issue 20, item 9), served by the fake
APIs in their own formats (S2 journal.pages, OpenAlex biblio): the search shows two papers."""

from __future__ import annotations

import json

import fake_apis
from fake_server import FakeServer
from fault_support import run_cli

ADULTS = "Long-term outcomes of eculizumab in adults with paroxysmal nocturnal haemoglobinuria: registry results"
CHILDREN = ADULTS.replace("adults", "children")


def test_two_abstracts_sharing_a_supplement_doi_are_two_rows(monkeypatch, capsys):
    with FakeServer() as server:
        env = fake_apis.install(server)
        run = run_cli(monkeypatch, capsys, env, ["eculizumab registry outcomes", "--providers",
                                                 "semantic_scholar,openalex", "--no-verify", "--format", "json"])
    assert run.exit_code == 0, run.stderr
    rows = {result["title"]: result for result in json.loads(run.stdout)["results"]}
    assert ADULTS in rows and CHILDREN in rows
    assert list(rows[ADULTS]["provider_scores"]) == ["semantic_scholar"]
    assert list(rows[CHILDREN]["provider_scores"]) == ["openalex"]
