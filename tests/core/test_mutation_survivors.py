"""Tests written to kill the mutants that survived the suite (issue 19's mutation check):
each asserts a literal fact, never the code's own constant, so a changed threshold, a
changed comparison or a dropped escape fails here."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

from litsearch.biblio.writers import bibtex_escape, publication_kind, to_bibtex
from litsearch.runtime.files import write_file_atomically
from litsearch.core.filters import Filters, matches_date
from litsearch.core.identifiers import is_arxiv_doi, record_identities
from litsearch.core.records import Paper
from litsearch.core.updates import combined_retracted


def test_the_atomic_writer_never_writes_into_the_target(tmp_path, monkeypatch):
    target = tmp_path / "refs.bib"
    target.write_text("the old file, whole\n", encoding="utf-8")

    def refuse(source, destination):
        raise OSError(28, "No space left on device", str(destination))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        write_file_atomically(target, "the new text")
    assert target.read_text(encoding="utf-8") == "the old file, whole\n"
    assert [path.name for path in tmp_path.iterdir()] == ["refs.bib"]  # no temporary left either


def test_the_atomic_writer_replaces_by_rename(tmp_path, monkeypatch):
    target = tmp_path / "refs.bib"
    target.write_text("old", encoding="utf-8")
    renamed = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renamed.append((Path(a).parent, Path(b))), real(a, b)))
    write_file_atomically(target, "new")
    assert renamed == [(tmp_path, target)] and target.read_text(encoding="utf-8") == "new"


@pytest.mark.parametrize("values,expected", [([True, False], True), ([False, True], True), ([None, True], True),
                                             ([False, None], False), ([None, None], None), ([], None)])
def test_any_source_saying_retracted_is_enough(values, expected):
    assert combined_retracted(values) is expected


def test_a_retraction_notice_alone_marks_retracted():
    assert combined_retracted([False], [{"type": "retraction", "doi": "10.1/r"}]) is True


@pytest.mark.parametrize("year,kept", [(2019, False), (2020, True), (2021, True), (2022, True), (2023, False)])
def test_the_year_filter_includes_both_bounds(year, kept):
    filters = Filters(date_from=date(2020, 1, 1), date_to=date(2022, 12, 31))
    assert matches_date(Paper(provider="openalex", title="t", year=year), filters) is kept


@pytest.mark.parametrize("day,kept", [("2020-01-01", True), ("2019-12-31", False), ("2022-12-31", True),
                                      ("2023-01-01", False)])
def test_the_date_filter_includes_both_days(day, kept):
    filters = Filters(date_from=date(2020, 1, 1), date_to=date(2022, 12, 31))
    paper = Paper(provider="openalex", title="t", year=int(day[:4]), publication_date=day)
    assert matches_date(paper, filters) is kept


@pytest.mark.parametrize("text,escaped", [("a_b", r"a\_b"), ("50%", r"50\%"), ("R&D", r"R\&D"), ("$x$", r"\$x\$"),
                                          ("#1", r"\#1"), ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"),
                                          ("{", r"\textbraceleft{}"), ("\\", r"\textbackslash{}")])
def test_bibtex_escapes_every_special_character(text, escaped):
    assert bibtex_escape(text) == escaped


def test_an_underscore_in_a_title_is_escaped_in_the_entry():
    entry = to_bibtex([Paper(provider="openalex", title="The snake_case convention", year=2020)])
    assert r"snake\_case" in entry


@pytest.mark.parametrize("expected,found,verified", [
    ("DNA targeting specificity of RNA-guided Cas9 nucleases",
     "DNA targeting specificity of RNA guided Cas9 nucleases.", True),
    ("Fast off-target search for CRISPR guides", "Fish ladders and river connectivity", False),
    # about 70-85 similar: a lowered threshold would accept these as the same paper
    ("Deep learning for protein structure prediction", "Deep learning for protein function prediction", False),
    ("Off-target effects in CRISPR/Cas9 gene editing", "Off-target effects in base editing", False),
])
def test_the_crossref_title_check_needs_a_close_match(expected, found, verified):
    from litsearch.providers.crossref import _compare

    message = {"DOI": "10.1/x", "title": [found], "issued": {"date-parts": [[2020]]}}
    assert _compare("10.1/x", message, expected, 2020)["verified"] is verified


def test_an_arxiv_doi_is_an_arxiv_id_not_a_publisher_doi():
    assert is_arxiv_doi("10.48550/arXiv.1706.03762") and not is_arxiv_doi("10.1038/nbt.2647")
    assert record_identities({"doi": "10.48550/arxiv.1706.03762"}) == [("arxiv_id", "1706.03762")]
    assert publication_kind(Paper(provider="openalex", title="t", doi="10.48550/arXiv.1706.03762")) == "preprint"
    assert publication_kind(Paper(provider="openalex", title="t", doi="10.1038/nbt.2647")) == "other"
