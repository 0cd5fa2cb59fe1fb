"""The dedupe scorer on small cases whose counts are worked out by hand in the comments."""

from __future__ import annotations

import pytest

from litsearch.dedupe.scoring import parse_published_results, score_dedupe

IDS = ["a", "b", "c", "d", "e", "f", "g"]
TRUTH = [["a", "b", "c"], ["d", "e"]]  # f and g are unique


def test_perfect_prediction():
    scores = score_dedupe([["a", "b", "c"], ["d", "e"], ["f"], ["g"]], TRUTH, IDS)
    # abc: 1 survivor -> TN 1, TP 2; de: 1 survivor -> TN 1, TP 1; f, g kept -> TN 2.
    assert (scores.tp, scores.fp, scores.fn, scores.tn) == (3, 0, 0, 4)
    assert (scores.precision, scores.recall, scores.f1, scores.fp_rate) == (1.0, 1.0, 1.0, 0.0)
    assert (scores.pair_tp, scores.pair_fp, scores.pair_fn) == (4, 0, 0)
    assert scores.pairwise_f1 == 1.0


def test_split_cluster_and_false_merge():
    # Predicted: [a b] [c] [d e f], g alone (omitted singletons count as kept).
    scores = score_dedupe([["a", "b"], ["c"], ["d", "e", "f"]], TRUTH, IDS)
    # abc: survivors a and c (n=2) -> TN 1, FN 1, TP 1.
    # de: survivor d (n=1) -> TN 1, TP 1.
    # f: removed into d's record -> FP 1.  g: kept -> TN 1.
    assert (scores.tp, scores.fp, scores.fn, scores.tn) == (2, 1, 1, 3)
    assert scores.precision == pytest.approx(2 / 3)
    assert scores.recall == pytest.approx(2 / 3)
    assert scores.f1 == pytest.approx(2 / 3)
    assert scores.fp_rate == pytest.approx(1 / 4)
    # Pairs predicted {ab, de, df, ef}, true {ab, ac, bc, de}: 2 right, 2 wrong, 2 missed.
    assert (scores.pair_tp, scores.pair_fp, scores.pair_fn) == (2, 2, 2)
    assert (scores.pairwise_precision, scores.pairwise_recall, scores.pairwise_f1) == (0.5, 0.5, 0.5)


def test_true_cluster_swallowed_by_another_record_counts_one_false_positive():
    # Predicted [c a b]: c survives, so the true pair ab has no survivor (n=0): FP 1, TP 1; c kept: TN 1.
    scores = score_dedupe([["c", "a", "b"]], [["a", "b"]], ["a", "b", "c"])
    assert (scores.tp, scores.fp, scores.fn, scores.tn) == (1, 1, 0, 1)
    assert scores.precision == 0.5 and scores.recall == 1.0
    assert (scores.pair_tp, scores.pair_fp, scores.pair_fn) == (1, 2, 0)


def test_nothing_merged():
    # abc: 3 survivors -> TN 1, FN 2; de: 2 survivors -> TN 1, FN 1; f, g -> TN 2.
    scores = score_dedupe([], TRUTH, IDS)
    assert (scores.tp, scores.fp, scores.fn, scores.tn) == (0, 0, 3, 4)
    assert (scores.precision, scores.recall, scores.f1) == (1.0, 0.0, 0.0)
    assert (scores.pairwise_precision, scores.pairwise_recall) == (1.0, 0.0)


def test_no_duplicates_anywhere():
    scores = score_dedupe([["a"], ["b"]], [], ["a", "b"])
    assert (scores.tp, scores.fp, scores.fn, scores.tn) == (0, 0, 0, 2)
    assert (scores.precision, scores.recall, scores.fp_rate) == (1.0, 1.0, 0.0)


def test_ids_outside_the_record_set_are_ignored_and_overlaps_rejected():
    scores = score_dedupe([["a", "zz"]], [["a", "b"]], ["a", "b"])
    assert (scores.tp, scores.fn, scores.tn) == (0, 1, 1)
    with pytest.raises(ValueError):
        score_dedupe([["a", "b"], ["b", "c"]], [], ["a", "b", "c"])


def test_parse_published_results_recomputes_f1_from_counts():
    markdown = """# Individual datasets

## respiratory (n=1988)

| package    |   FP |   TP |   FN |   TN |   false_positive_rate |     f1 | runtime   |
|:-----------|-----:|-----:|-----:|-----:|----------------------:|-------:|:----------|
| bib-dedupe |    0 |  408 |   28 | 1552 |                0      | 0.9668 | 0:00:09   |
| asysd      |    0 |  399 |   37 | 1552 |                0      | 0.9557 | 0:00:04   |

## haematology (n=1415)

| package    |   FP |   TP |   FN |   TN |     f1 |
|:-----------|-----:|-----:|-----:|-----:|-------:|
| bib-dedupe |    0 |  120 |   15 | 1278 | 0.9412 |
"""
    results = parse_published_results(markdown)
    assert set(results) == {"respiratory", "haematology"}
    assert results["respiratory"]["asysd"] == {"tp": 399, "fp": 0, "fn": 37, "tn": 1552, "f1": 798 / 835}
    assert results["haematology"]["bib-dedupe"]["f1"] == pytest.approx(0.941176, abs=1e-6)
