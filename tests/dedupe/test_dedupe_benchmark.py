"""The merge engine on the labelled dedupe benchmarks: no false merge, and at least bib-dedupe's F1.

Needs ../shared/benchmarks/dedupe (skipped cleanly without it). The reader of
the benchmark CSV format is tested here too, on a small file of our own.
"""

from __future__ import annotations

import csv

import pytest
from conftest import SHARED, skip_without_shared

from litsearch.biblio.fields import read_benchmark_csv, split_bibtex_authors
from litsearch.dedupe.scoring import parse_published_results, score_dedupe
from litsearch.dedupe.clusters import find_clusters

BENCHMARKS = SHARED / "benchmarks" / "dedupe"
PUBLISHED = BENCHMARKS / "published_results_bibdedupe_2024-12-01.md"
SETS = ["respiratory", "haematology", "stroke", "cytology_screening", "special_cases"]


@pytest.fixture(scope="module")
def published() -> dict:
    if not PUBLISHED.exists():
        skip_without_shared(f"published bib-dedupe results not available: {PUBLISHED}")
    return parse_published_results(PUBLISHED.read_text(encoding="utf-8"))


def load_set(name: str):
    folder = BENCHMARKS / name
    if not (folder / "records_pre_merged.csv").exists():
        skip_without_shared(f"benchmark set not available: {folder}")
    records = read_benchmark_csv(folder / "records_pre_merged.csv")
    with open(folder / "merged_record_ids.csv", newline="", encoding="utf-8") as handle:
        truth = [row["merged_ids"].split(";") for row in csv.DictReader(handle)]
    return records, truth


@pytest.mark.parametrize("name", SETS)
def test_no_false_merge_and_at_least_bib_dedupe_f1(name, published):
    records, truth = load_set(name)
    ids = [record.external_ids["ID"] for record in records]
    predicted = [[ids[i] for i in cluster.members] for cluster in find_clusters(records)]
    scores = score_dedupe(predicted, truth, ids)
    reference = published[name]["bib-dedupe"]
    assert scores.fp == 0
    assert scores.f1 >= reference["f1"], f"{name}: F1 {scores.f1:.4f} below bib-dedupe's {reference['f1']:.4f}"


def test_published_reference_figures_are_the_expected_ones(published):
    # The brief quotes these two; the others are read from the same table.
    assert round(published["respiratory"]["bib-dedupe"]["f1"], 4) == 0.9668
    assert round(published["haematology"]["bib-dedupe"]["f1"], 4) == 0.9412
    assert {"stroke", "cytology_screening", "special_cases"} <= set(published)


# --------------------------------------------------------------------------- the CSV reader


def test_split_bibtex_authors():
    authors = split_bibtex_authors("Zuna, R E and Wang, S. S. and Group, ALTS")
    assert authors == ["Zuna, R E", "Wang, S. S.", "Group, ALTS"]
    assert split_bibtex_authors("  ") == []
    assert split_bibtex_authors(None) == []


def test_read_benchmark_csv_maps_columns_and_allows_missing_ones(tmp_path):
    path = tmp_path / "records_pre_merged.csv"
    path.write_text(
        '"ID","title","year","author","pages","volume","number","ENTRYTYPE","booktitle","doi","abstract"\n'
        '"id_1","A <i>title</i>","2011","Zuber, J. and Le Quintrec, M.","23-35","7","1","article",,'
        '"https://doi.org/10.1038/NRNEPH.2010.155","An abstract."\n'
        '"id_2","Proceedings paper","n.d.",,,,,"inproceedings","AMCIS 2017",,\n',
        encoding="utf-8",
    )
    first, second = read_benchmark_csv(path)
    assert first.external_ids == {"ID": "id_1"}
    assert (first.title, first.year, first.pages) == ("A <i>title</i>", 2011, "23-35")
    assert (first.volume, first.issue) == ("7", "1")
    assert first.authors == ["Zuber, J.", "Le Quintrec, M."]
    assert first.doi == "10.1038/nrneph.2010.155"
    assert first.abstract == "An abstract." and first.publication_types == ["article"]
    assert (second.year, second.authors, second.journal, second.doi) == (None, [], "AMCIS 2017", None)
