"""`lit-search dedupe` end to end: the real command in a subprocess, on hand-made exports in
tests/data/dedupe/ (CSV, Latin-1, BOM, RIS, BibTeX) and, when ../shared is present, on a
labelled benchmark set."""

from __future__ import annotations

import csv
import json
import os
import subprocess
from collections import defaultdict
from pathlib import Path

import bibtexparser
import pytest
from conftest import DATA as TEST_DATA, skip_without_shared
from conftest import SHARED

from litsearch.biblio.fields import read_benchmark_csv
from litsearch.biblio.readers import read_records
from litsearch.dedupe.clusters import dedupe
from command import lit_search_command

from conftest import REPO  # noqa: E402
DATA = TEST_DATA / "dedupe"
BENCHMARKS = SHARED / "benchmarks" / "dedupe"
INPUTS = ["small.csv", "latin1.csv", "bom.csv", "records.ris", "records.txt", "records.bib", "records_bib.data"]
IDS = ["r1", "r2", "r3", "r4", "rec_000005", "r6", "r7"]
EXPECTED_CLUSTERS = {"r1": "r1", "r2": "r1", "r3": "r3", "r4": "r3", "rec_000005": "rec_000005", "r6": "r6",
                     "r7": "r7"}
SUMMARY = "7 records → 5 clusters, 2 duplicates removed, 1 uncertain pairs"


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), PYTHONIOENCODING="utf-8")
    return subprocess.run([*lit_search_command(), "dedupe", *map(str, args)], capture_output=True, text=True,
                          encoding="utf-8", env=env, cwd=cwd, timeout=120)


def read_assignments(path: Path) -> list[tuple[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["ID", "cluster_id"]
    return [tuple(row) for row in rows[1:]]


def assert_one_error_line(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    first_line = result.stderr.splitlines()[0]
    assert first_line.startswith("lit-search dedupe: error: ")
    for fragment in fragments:
        assert fragment in first_line


# --------------------------------------------------------------------------- the hand-made exports


@pytest.mark.parametrize("name", INPUTS)
def test_every_input_format_gives_the_same_clusters(name, tmp_path):
    out = tmp_path / "clusters.csv"
    result = run(DATA / name, "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    if name == "records.txt":  # its last record has no ER line: read, and named in a warning
        assert lines.pop(0).startswith("lit-search dedupe: warning: record 7 (ID r7, 'Cultural Universality")
    assert lines == [f"lit-search dedupe: {SUMMARY}"]
    assert dict(read_assignments(out)) == EXPECTED_CLUSTERS
    assert [record_id for record_id, _ in read_assignments(out)] == IDS  # input order, each once


def test_report_lists_clusters_reasons_uncertain_pairs_and_summary(tmp_path):
    result = run(DATA / "records.bib", "-o", tmp_path / "out.csv", "--report")
    assert result.returncode == 0 and result.stderr == ""
    report = result.stdout
    assert report.splitlines()[0] == "Clusters of duplicates (2)"
    cluster = report[report.index("cluster r1 (2 records)"):report.index("cluster r3")]
    assert "  r1  Deep residual learning for image recognition" in cluster
    assert "  r2  Deep Residual Learning for Image Recognition" in cluster
    assert "why: same DOI 10.1109/cvpr.2016.90" in cluster
    assert "why: title 100% similar, year 2017" in report
    uncertain = report[report.index("Uncertain pairs (not merged) (1)"):]
    assert "r6  Cultural Universality Versus Particularity in CMC" in uncertain
    assert "r7  Cultural Universality Versus Particularity in CMC" in uncertain
    assert "title similarity 100%; kept apart: " in uncertain and "2004/2003" in uncertain
    assert report.rstrip("\n").splitlines()[-1] == SUMMARY


@pytest.mark.parametrize("extension", [".csv", ".ris", ".bib", ".json"])
def test_merged_output_has_one_record_per_cluster(extension, tmp_path):
    merged = tmp_path / f"merged{extension}"
    result = run(DATA / "records.ris", "-o", tmp_path / "out.csv", "--merged", merged)
    assert result.returncode == 0, result.stderr
    cluster_ids = ["r1", "r3", "rec_000005", "r6", "r7"]
    if extension == ".json":
        items = json.loads(merged.read_text(encoding="utf-8"))
        assert [item["id"] for item in items] == cluster_ids
        return
    again = read_records(merged)
    assert [p.external_ids["ID"] for p in again] == cluster_ids
    deep = again[0]
    # The merged record keeps the richest value of each field of its two records.
    assert (deep.doi, deep.pages, deep.authors[0]) == ("10.1109/cvpr.2016.90", "770-778", "He, Kaiming")
    assert again[2].title == "Müller's study of café culture in Zürich"
    if extension == ".bib":
        library = bibtexparser.parse_string(merged.read_text(encoding="utf-8"))
        assert not library.failed_blocks and [e.key for e in library.entries] == cluster_ids


def test_records_without_ids_and_repeated_ids(tmp_path):
    source = tmp_path / "in.ris"
    source.write_text("TY  - JOUR\nTI  - One\nER  - \nTY  - JOUR\nID  - x\nTI  - Two\nER  - \n"
                      "TY  - JOUR\nID  - x\nTI  - Three\nER  - \n", encoding="utf-8")
    result = run(source, "-o", tmp_path / "out.csv")
    assert result.returncode == 0
    assert "warning: 1 record(s) repeat an ID" in result.stderr
    assert [record_id for record_id, _ in read_assignments(tmp_path / "out.csv")] == ["rec_000001", "x", "x_2"]


def test_quiet_prints_nothing(tmp_path):
    result = run(DATA / "small.csv", "-o", tmp_path / "out.csv", "-q")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_help_describes_every_option_and_the_exit_codes():
    result = run("--help")
    assert result.returncode == 0
    for text in ("-o OUT.csv", "--merged FILE", "--report", "--input-format", "--quiet", "exit codes",
                 "0 ok", "2 usage or input error", "130 interrupted", "cluster_id is the ID of the cluster's first record"):
        assert text in result.stdout


# --------------------------------------------------------------------------- bad input and usage


@pytest.mark.parametrize(("name", "message"), [
    ("missing.csv", "no such file"),
    ("empty.csv", "the file is empty"),
    ("notes.xyz", "cannot tell the format"),
    ("broken.bib", "in r3, which starts on line 21"),
])
def test_bad_input_is_one_line_and_exit_2(name, message, tmp_path):
    out = tmp_path / "out.csv"
    assert_one_error_line(run(DATA / name, "-o", out), name, message)
    assert not out.exists()


def test_without_o_the_clusters_go_to_stdout(tmp_path):
    # Issue 21: `lit-search dedupe FILE` as a newcomer types it printed a usage error.
    result = run(DATA / "small.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = list(csv.reader(result.stdout.splitlines()))
    assert rows[0] == ["ID", "cluster_id"] and dict(rows[1:]) == EXPECTED_CLUSTERS
    assert SUMMARY in result.stderr and list(tmp_path.iterdir()) == []


def test_report_without_o_has_stdout_and_says_the_list_was_not_written(tmp_path):
    result = run(DATA / "small.csv", "--report", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ID,cluster_id" not in result.stdout and "r1" in result.stdout
    assert "add -o clusters.csv" in result.stderr and list(tmp_path.iterdir()) == []


def test_usage_errors_exit_2(tmp_path):
    source = DATA / "small.csv"
    assert_one_error_line(run(source, "-o", tmp_path / "out.csv", "--merged", tmp_path / "m.docx"),
                          "unknown extension")
    assert_one_error_line(run(source, "-o", tmp_path / "no" / "such" / "out.csv"), "does not exist")
    assert_one_error_line(run(source, "-o", source), "would overwrite the input")
    assert_one_error_line(run(source, "-o", tmp_path / "o.csv", "--input-format", "endnote"), "--input-format")


def test_unwritable_output_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "taken.csv"
    folder.mkdir()  # a directory where the output file should go: refused before any work
    assert_one_error_line(run(DATA / "small.csv", "-o", folder), "a folder, not a file")
    pipe = tmp_path / "pipe.ris"
    os.mkfifo(pipe)  # a FIFO is never replaced by a file
    assert_one_error_line(run(DATA / "small.csv", "-o", tmp_path / "c.csv", "--merged", pipe), "not a regular file")
    assert pipe.is_fifo() and not (tmp_path / "c.csv").exists()


# --------------------------------------------------------------------------- a real benchmark set


@pytest.mark.parametrize("name", ["special_cases", "respiratory"])
def test_benchmark_output_matches_the_merge_engine(name, tmp_path):
    source = BENCHMARKS / name / "records_pre_merged.csv"
    if not source.exists():
        skip_without_shared(f"benchmark data not available: {source}")
    out = tmp_path / "clusters.csv"
    result = run(source, "-o", out)
    assert result.returncode == 0, result.stderr

    rows = read_assignments(out)
    records = read_benchmark_csv(source)
    input_ids = [record.external_ids["ID"] for record in records]
    assert [record_id for record_id, _ in rows] == input_ids  # every input ID exactly once, in order

    produced: dict[str, set[str]] = defaultdict(set)
    for record_id, cluster_id in rows:
        produced[cluster_id].add(record_id)
    expected = {frozenset(input_ids[i] for i in cluster.members) for cluster in dedupe(records).clusters}
    assert {frozenset(members) for members in produced.values()} == expected
    assert all(cluster_id in members for cluster_id, members in produced.items())


def test_report_lists_pairs_held_apart_only_by_a_veto(tmp_path):
    source = tmp_path / "dois.csv"
    source.write_text("ID,title,author,year,journal,volume,number,pages,doi\n"
                      "p1,Insulin pump therapy in pregnancy,Keller M and Weber J,2017,Diabetes Care,40,3,300-307,"
                      "10.2337/dc16-1\n"
                      "p2,Insulin pump therapy in pregnancy,Keller M and Weber J,2017,Diabetes Care,40,3,300-307,"
                      "10.2337/dc16-1a\n", encoding="utf-8")
    result = run(source, "-o", tmp_path / "out.csv", "--report")
    assert result.returncode == 0, result.stderr
    vetoed = result.stdout[result.stdout.index("Pairs held apart only by a veto (1)"):]
    assert "p1  Insulin pump therapy in pregnancy" in vetoed and "p2  Insulin pump therapy in pregnancy" in vetoed
    assert "veto: different DOIs" in vetoed
    assert result.stdout.rstrip().endswith("0 uncertain pairs, 1 held apart only by a veto (see --report)")
    assert dict(read_assignments(tmp_path / "out.csv")) == {"p1": "p1", "p2": "p2"}
