"""OpenAlex queries never carry a bare ``?``, ``*`` or ``~`` (issue 31, item 8): OpenAlex answers
HTTP 400 to a ``?`` or ``*`` in ``search=`` since June 2026, and the fake OpenAlex now does too,
with its real message (tests/fake_openalex_rules.py). Checked as a class: the text function on a
table and on any text (hypothesis, against the fake's rules), and every place lit-search builds
an OpenAlex search text through the real doors: the command, paper_search (topic and variants
OR'ed), name resolution, entity lists (query and raw filter) and autocomplete."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fake_apis
import fake_openalex_rules
from fake_server import FakeServer
from fault_support import run_cli
from litsearch.providers.openalex_query import name_search_text, works_search_text

QUESTION = "do turing patterns form in skin?"
PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# text -> (sent, as search.exact, a note containing this, or None for no note)
TABLE = {
    QUESTION: ("do turing patterns form in skin", False, None),
    "why? because? cells": ("why because cells", False, None),
    "Turing patterns?!": ("Turing patterns!", False, None),
    "transcriptom* in the gut": ("transcriptom* in the gut", True, "search.exact"),
    "non-coding* RNA": ("non-coding* RNA", True, "search.exact"),
    "(transcriptom*) OR (?)": ("(transcriptom*)", True, "search.exact"),
    "wom?n in science": ("wom?n in science", True, "search.exact"),
    "?omen": ("omen", False, "'?omen'"),
    "ab* of *ology and col*r": ("ab of ology and colr", False, "only at the end of a word of 3 or more letters"),
    '"turing pattern"~3 skin': ('"turing pattern" skin', False, "'~3' removed"),
    "skin~ cells~0.8": ("skin cells", False, "fuzzy and proximity"),
    '"smart* phone" sensors': ('"smart phone" sensors', False, "no wildcard inside quotes"),
    "cells AND ?": ("cells", False, None),
    "cells AND NOT ?": ("cells", False, None),
    "cells AND NOT mice?": ("cells AND NOT mice", False, None),
    "? OR *": ("", False, "only at the end of a word"),
}


@pytest.mark.parametrize("text", list(TABLE))
def test_the_works_search_text_table(text):
    sent, exact, note = TABLE[text]
    found = works_search_text(text)
    assert (found.text, found.exact) == (sent, exact)
    if note is None:
        assert found.notes == ()
    else:
        assert any(note in line for line in found.notes), found.notes
    assert works_search_text(found.text).text == found.text  # planned, then sent: the same text


def test_names_take_no_wildcard_at_all():
    assert name_search_text("hint*") == "hint" and name_search_text("wom?n") == "womn"
    assert name_search_text("Hinton?") == "Hinton" and name_search_text("*") == ""
    assert name_search_text('"Geoffrey Hinton"~2') == '"Geoffrey Hinton"'


def test_the_fake_refuses_what_openalex_refuses_with_its_words():
    refused = fake_openalex_rules.works_search_problem({"search": QUESTION})
    assert refused.status == 400
    body = json.loads(refused.body)
    assert body["error"] == "Invalid query parameters error."
    assert body["message"].startswith("Wildcards (* or ?) require exact (no-stem) search.")
    assert fake_openalex_rules.works_search_problem({"search.exact": "transcriptom*"}) is None
    assert "Leading wildcards" in json.loads(fake_openalex_rules.works_search_problem(
        {"search.exact": "*ology"}).body)["message"]
    assert "3 leading characters" in json.loads(fake_openalex_rules.list_search_problem("ab*").body)["message"]
    assert fake_openalex_rules.list_search_problem("hinton?") is None  # names: only the shape rules


words = st.sampled_from(["cell", "skin", "RNA", "transcriptom", "ab", "x", "AND", "OR", "NOT", "(", ")", '"', "?",
                         "*", "~", "~3", "wom?n", "why?", "*ology", "gen*", "a*b", "??", "**", "\"a b\"~2", "é*"])
texts = st.lists(words, max_size=12).map(" ".join) | st.text(max_size=40)


@PROPERTY
@given(texts)
def test_any_text_becomes_one_openalex_takes(text):
    found = works_search_text(text)
    parameter = "search.exact" if found.exact else "search"
    assert fake_openalex_rules.works_search_problem({parameter: found.text}) is None, (text, found)
    assert "~" not in found.text
    assert found.exact == bool(re.search(r"[?*]", found.text))
    for phrase in re.findall(r'"[^"]*"', found.text):
        assert not re.search(r"[?*]", phrase), found.text
    assert works_search_text(found.text).text == found.text
    name = name_search_text(text)
    assert not re.search(r"[?*~]", name) and fake_openalex_rules.list_search_problem(name) is None


# ---------------------------------------------------------------- through the doors

@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def openalex_search_params(server) -> list[dict]:
    return [{name: request.param(name) for name in ("search", "search.exact")}
            for request in server.requests_to("/openalex/works") if request.param("search") or
            request.param("search.exact")]


def test_the_command_gets_openalex_results_for_a_question(server, monkeypatch, capsys):
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, [QUESTION, "--providers", "semantic_scholar,openalex", "--format", "json",
                                             "--no-verify"])
    assert run.exit_code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert not [e for e in payload["errors"] if e["provider"] == "openalex"], payload["errors"]
    found_by_openalex = [r for r in payload["results"] if "openalex" in r["provider_scores"]]
    assert any("Turing patterns" in r["title"] for r in found_by_openalex)
    assert openalex_search_params(server) == [{"search": "do turing patterns form in skin", "search.exact": None}]


def test_paper_search_gets_openalex_results_for_a_question_and_its_variants(server, monkeypatch, tmp_path):
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run, text_of, use_fakes

    use_fakes(monkeypatch, server, tmp_path)

    async def go():
        async with in_process() as client:
            alone = await client.call_tool("paper_search", {"topic": QUESTION, "providers": ["openalex"],
                                                            "verify": False})
            varied = await client.call_tool("paper_search", {
                "topic": QUESTION, "variants": ["turing pattern* in skin?", "~zebrafish stripes?"],
                "providers": ["openalex"], "verify": False})
            return alone, varied

    alone, varied = run(go())
    for answer in (alone, varied):
        assert not answer.is_error, text_of(answer)
        assert answer.structured_content["errors"] == []
        assert any("Turing patterns" in p["title"] for p in answer.structured_content["papers"])
    sent = openalex_search_params(server)
    assert sent[0] == {"search": "do turing patterns form in skin", "search.exact": None}
    assert sent[1] == {"search": None, "search.exact": "(do turing patterns form in skin) OR (turing pattern* in "
                                                       "skin) OR (zebrafish stripes)"}
    notes = varied.structured_content["notes"]
    assert any("'~' removed" in note for note in notes) and any("search.exact" in note for note in notes), notes


def test_names_and_entity_lists_send_no_wildcard(server, monkeypatch, capsys, tmp_path):
    """Name resolution (--author, --venue with a key; the entity filters via autocomplete) and
    the entity lists (query and a raw *.search filter)."""
    env = {**fake_apis.install(server), "OPENALEX_API_KEY": "k" * 20}
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", "openalex", "--author", "Hinton?",
                                             "--venue", "nature*", "--institution", "Toronto?", "--no-verify"])
    assert run.exit_code == 0, run.stderr
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run as run_async, text_of, use_fakes

    use_fakes(monkeypatch, server, tmp_path)

    async def go():
        async with in_process() as client:
            return (await client.call_tool("author_list", {"query": "lovel*"}),
                    await client.call_tool("author_list", {"filter": "display_name.search:*lace?"}))

    by_query, by_filter = run_async(go())
    assert not by_query.is_error and not by_filter.is_error, (text_of(by_query), text_of(by_filter))
    assert by_query.structured_content["results"], text_of(by_query)
    assert any("searched for 'lovel'" in note for note in by_query.structured_content["filters"])
    assert any("display_name.search: searched for 'lace'" in note for note in by_filter.structured_content["filters"])
    sent = [value for request in server.requests for name, values in request.query.items()
            if name in ("search", "search.exact", "q", "filter") for value in values]
    assert sent and not [value for value in sent if re.search(r"[?~]", value) or
                         ("*" in value and not value.endswith("*"))], sent
    assert {request.path for request in server.requests} >= {"/openalex/authors", "/openalex/sources",
                                                              "/openalex/autocomplete/institutions"}
