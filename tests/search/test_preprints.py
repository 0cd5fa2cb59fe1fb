"""Preprints: one rule for what is one (core/preprints.py), the --preprints / --no-preprints
filter as each provider applies it and as the merged list is checked, the Venue cell that names
the server, and every export's type."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from litsearch.biblio.formats import export_papers
from litsearch.core.filters import build_filters, passes
from litsearch.core.preprints import is_preprint, only_preprints, shown_venue
from litsearch.core.records import Paper
from litsearch.providers import arxiv, crossref, europepmc, openalex, pubmed

ARTICLE = Paper(provider="pubmed", title="Off-target effects in CRISPR/Cas9 gene editing", pmid="36970624",
                journal="Frontiers in Bioengineering and Biotechnology", publication_types=["Journal Article"])
BIORXIV = Paper(provider="europepmc", title="Off-target effects in CRISPR/Cas9 gene editing", journal="bioRxiv (preprint)",
                doi="10.1101/2022.11.02.514901", publication_types=["Preprint", "preprint"])
OPENALEX_PREPRINT = Paper(provider="openalex", title="A preprint", journal="medRxiv", publication_types=["preprint"])
ARXIV_ONLY = Paper(provider="arxiv", title="An arXiv paper", arxiv_id="2401.00001", journal="Proc. of Something")
NO_SERVER = Paper(provider="crossref", title="Posted", publication_types=["posted-content"])


@pytest.mark.parametrize("record,expected", [
    (ARTICLE, False), (BIORXIV, True), (OPENALEX_PREPRINT, True), (ARXIV_ONLY, True), (NO_SERVER, True),
    (Paper(provider="semantic_scholar", title="x", journal="ArXiv"), True),
    (Paper(provider="semantic_scholar", title="x", doi="10.48550/arXiv.2401.00001", journal="ICML"), True),
    (Paper(provider="openalex", title="x", arxiv_id="2401.00001", journal="NeurIPS"), False),
    (Paper(provider="crossref", title="x", journal="Preprints of the Royal Society"), False),  # not a server
])
def test_one_rule_says_what_a_preprint_is(record, expected):
    assert is_preprint(record) is expected


@pytest.mark.parametrize("records,venue", [
    ([BIORXIV], "bioRxiv (preprint)"),
    ([OPENALEX_PREPRINT], "medRxiv (preprint)"),
    ([ARXIV_ONLY], "arXiv (preprint)"),
    ([NO_SERVER], "Preprint"),
    ([ARTICLE, BIORXIV], "Frontiers in Bioengineering and Biotechnology"),  # the published paper
])
def test_the_venue_cell_names_the_server_of_a_preprint(records, venue):
    assert shown_venue(records[0], records) == venue
    assert only_preprints(records) is (len(records) == 1)  # each alone is a preprint; merged, the article


@pytest.mark.parametrize("preprints,records,kept", [
    (True, [BIORXIV], True), (True, [ARTICLE], False), (True, [ARTICLE, BIORXIV], False),
    (False, [BIORXIV], False), (False, [ARTICLE], True), (False, [ARTICLE, BIORXIV], True),
])
def test_the_merged_list_keeps_a_published_paper_whose_preprint_was_merged_in(preprints, records, kept):
    filters = build_filters(preprints=preprints)
    assert filters.active() == ["preprints"]
    # Whoever applied it (vouched), the merged paper is judged on all its records.
    assert passes(records, filters, "preprints", vouched=True) is kept
    assert passes(records, filters, "preprints", vouched=False) is kept


@pytest.mark.parametrize("arguments", [dict(preprints=True, types=["article"]), dict(preprints=False, types=["preprint"])])
def test_the_filter_refuses_a_type_it_contradicts(arguments):
    with pytest.raises(ValueError, match="disagree"):
        build_filters(**arguments)
    assert build_filters(preprints=True, types=["preprint"]).types == ("preprint",)


@pytest.mark.parametrize("preprints", [True, False])
def test_each_provider_applies_it_where_it_can(preprints):
    filters = build_filters(preprints=preprints)
    query, native = europepmc.build_query("crispr", filters)
    assert query == ("(crispr) AND SRC:PPR" if preprints else "(crispr) NOT SRC:PPR") and "preprints" in native
    term, _, native = pubmed.filter_terms(filters)
    assert term == (" AND preprint[pt]" if preprints else " NOT preprint[pt]") and "preprints" in native
    params, native = crossref.filter_params(filters)  # Crossref has no negative type filter
    assert (params.get("filter"), "preprints" in native) == (("type:posted-content", True) if preprints else (None, False))
    session = SimpleNamespace(settings=SimpleNamespace(key=lambda name: None))
    expression, native, _ = asyncio.run(openalex.filter_expression(session, filters))
    assert expression == ("type:preprint" if preprints else "type:!preprint") and "preprints" in native


def test_arxiv_is_not_asked_for_no_preprints_and_says_why():
    class NoRequests:
        async def get(self, *args, **kwargs):
            raise AssertionError("arXiv was asked")

    answer = asyncio.run(arxiv.search(NoRequests(), "quantum codes", 10, build_filters(preprints=False)))
    assert answer.records == [] and "preprints" in answer.native_filters
    assert answer.notes == ["not searched: every arXiv paper is a preprint (--no-preprints)"]
    assert "preprints" in arxiv.filter_clauses(build_filters(preprints=True))[1]


def test_every_export_types_a_preprint_as_one():
    bibtex, ris = export_papers([BIORXIV], "bibtex"), export_papers([BIORXIV], "ris")
    assert bibtex.startswith("@misc{") and "howpublished = {bioRxiv (preprint)}" in bibtex
    assert ris.startswith("TY  - UNPB")
    (item,) = json.loads(export_papers([BIORXIV], "csl-json"))
    assert (item["type"], item["genre"], item["publisher"]) == ("article", "preprint", "bioRxiv")
    assert "container-title" not in item
    header, row = export_papers([BIORXIV], "csv").splitlines()[:2]
    assert header.startswith("ID,ENTRYTYPE,") and row.split(",")[1] == "misc" and "bioRxiv (preprint)" in row
    (journal,) = json.loads(export_papers([ARTICLE], "csl-json"))
    assert journal["type"] == "article-journal" and "genre" not in journal
