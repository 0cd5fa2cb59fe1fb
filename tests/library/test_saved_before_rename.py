"""A library written before Paper.paper_id became semantic_scholar_id (tests/data/library/
library-0.1.0.sqlite3, saved by lit-search 0.1.0 as it was then) reads and grows as before:
saved records call Semantic Scholar's id "paper_id", now as then."""

from __future__ import annotations

import shutil

import pytest
from conftest import DATA

from litsearch.core.records import Paper
from litsearch.library.record import paper_from_record, saved_record
from litsearch.library.store import Store

WRITTEN_BEFORE = DATA / "library" / "library-0.1.0.sqlite3"
ATTENTION, S2_ONLY = "204e3073870fae3d05bcbc2f6a8e263d9b72e776", "0018ce3db8f9957b520d6b7e0cec84abfa230e1c"


@pytest.fixture
def library(tmp_path):
    copy = tmp_path / "lit-search.sqlite3"
    shutil.copyfile(WRITTEN_BEFORE, copy)
    with Store.open(copy) as store:
        yield store


def test_every_saved_paper_reads_with_its_semantic_scholar_id(library):
    records = {paper.title: library.get_paper(paper.id) for paper in library.list_papers()}
    assert len(records) == 3
    attention = records["Attention Is All You Need"]
    assert attention["paper_id"] == ATTENTION and "semantic_scholar_id" not in attention  # JSON as before
    assert paper_from_record(attention).semantic_scholar_id == ATTENTION
    assert paper_from_record(records["DNA targeting specificity of RNA-guided Cas9 nucleases"]).semantic_scholar_id \
        is None


def test_the_library_finds_a_paper_by_the_id_it_was_saved_with(library):
    assert library.find_by_identifiers({"paper_id": S2_ONLY}) == 2
    assert library.get_paper(S2_ONLY)["title"] == "A paper known to Semantic Scholar alone"


def test_saving_the_same_paper_again_merges_into_it(library):
    again = Paper(provider="semantic_scholar", title="A paper known to Semantic Scholar alone", year=2020,
                  semantic_scholar_id=S2_ONLY, citation_count=7)
    assert library.save_papers([saved_record(again, found_by=["semantic_scholar"])]) == [2]
    merged = library.get_paper(2)
    assert (merged["paper_id"], merged["citation_count"]) == (S2_ONLY, 7)
    assert len(library.list_papers()) == 3


def test_a_record_keeps_the_json_name_both_ways():
    paper = Paper(provider="x", title="t", semantic_scholar_id="a" * 40)
    record = saved_record(paper)
    assert record["paper_id"] == "a" * 40 and "semantic_scholar_id" not in record
    assert paper.to_dict()["paper_id"] == "a" * 40 and "semantic_scholar_id" not in paper.to_dict()
    assert paper_from_record(record).semantic_scholar_id == "a" * 40
