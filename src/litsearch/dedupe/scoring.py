"""Score a deduplication against labelled duplicate clusters.

Two views, both pure functions of (predicted clusters, true clusters, record ids):

* Record level, counted exactly as bib-dedupe's published benchmark table does,
  so figures compare: every predicted cluster keeps one surviving record (its
  first listed id); the others are removed as duplicates.
  - a true singleton that survives is TN; one removed into another record is FP;
  - a true cluster of size m of which n records survive: n = 0 -> FP += 1 and
    TP += m - 1 (the paper vanished into another one); n >= 1 -> TN += 1,
    FN += n - 1, TP += m - n.
  precision = TP/(TP+FP), recall = TP/(TP+FN), FP-rate = FP/(FP+TN).
* Pairwise: precision/recall/F1 over the within-cluster record pairs.

`parse_published_results` reads bib-dedupe's published markdown table, so a
benchmark can print its figures beside ours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations


@dataclass(frozen=True)
class DedupeScores:
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    fp_rate: float
    pair_tp: int
    pair_fp: int
    pair_fn: int
    pairwise_precision: float
    pairwise_recall: float
    pairwise_f1: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def score_dedupe(
    predicted: Iterable[Sequence[str]],
    truth: Iterable[Sequence[str]],
    record_ids: Iterable[str],
) -> DedupeScores:
    """Scores of `predicted` clusters against `truth` over the records `record_ids`.

    Clusters are sequences of record ids; singletons may be omitted from either
    side (an id in no cluster stands alone). The first id of a predicted cluster
    is the record that survives the merge. Ids outside `record_ids` are ignored.
    """
    ids = list(dict.fromkeys(record_ids))
    known = set(ids)
    predicted_clusters = _complete_partition(predicted, ids, known, "predicted")
    true_clusters = _complete_partition(truth, ids, known, "true")

    tp, fp, fn, tn = _record_counts(predicted_clusters, true_clusters)
    pair_tp, pair_fp, pair_fn = _pair_counts(predicted_clusters, true_clusters)
    precision, recall, f1 = _prf(tp, fp, fn)
    pairwise_precision, pairwise_recall, pairwise_f1 = _prf(pair_tp, pair_fp, pair_fn)
    return DedupeScores(
        tp=tp, fp=fp, fn=fn, tn=tn,
        precision=precision, recall=recall, f1=f1,
        fp_rate=_ratio(fp, fp + tn, empty=0.0),
        pair_tp=pair_tp, pair_fp=pair_fp, pair_fn=pair_fn,
        pairwise_precision=pairwise_precision, pairwise_recall=pairwise_recall, pairwise_f1=pairwise_f1,
    )


def _complete_partition(
    clusters: Iterable[Sequence[str]], ids: list[str], known: set[str], side: str
) -> list[list[str]]:
    """Clusters restricted to known ids, plus a singleton for every id not mentioned."""
    seen: set[str] = set()
    partition = []
    for cluster in clusters:
        members = [i for i in dict.fromkeys(cluster) if i in known]
        if overlap := seen.intersection(members):
            raise ValueError(f"{side} clusters overlap on {sorted(overlap)[:3]}")
        seen.update(members)
        if members:
            partition.append(members)
    partition.extend([i] for i in ids if i not in seen)
    return partition


def _record_counts(predicted: list[list[str]], truth: list[list[str]]) -> tuple[int, int, int, int]:
    survivors = {cluster[0] for cluster in predicted}
    tp = fp = fn = tn = 0
    for cluster in truth:
        surviving = sum(1 for i in cluster if i in survivors)
        if len(cluster) == 1:
            tn, fp = (tn + 1, fp) if surviving else (tn, fp + 1)
        elif surviving == 0:
            fp += 1
            tp += len(cluster) - 1
        else:
            tn += 1
            fn += surviving - 1
            tp += len(cluster) - surviving
    return tp, fp, fn, tn


def _pairs(clusters: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(pair) for cluster in clusters for pair in combinations(cluster, 2)}


def _pair_counts(predicted: list[list[str]], truth: list[list[str]]) -> tuple[int, int, int]:
    predicted_pairs, true_pairs = _pairs(predicted), _pairs(truth)
    tp = len(predicted_pairs & true_pairs)
    return tp, len(predicted_pairs) - tp, len(true_pairs) - tp


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1; a side with nothing to find or nothing claimed scores 1.0."""
    precision = _ratio(tp, tp + fp, empty=1.0)
    recall = _ratio(tp, tp + fn, empty=1.0)
    f1 = _ratio(2 * precision * recall, precision + recall, empty=0.0)
    return precision, recall, f1


def _ratio(numerator: float, denominator: float, *, empty: float) -> float:
    return numerator / denominator if denominator else empty


_SECTION = re.compile(r"^##\s+(\S+)")


def parse_published_results(markdown: str) -> dict[str, dict[str, dict[str, float]]]:
    """{dataset: {package: {"tp", "fp", "fn", "tn", "f1", ...}}} from bib-dedupe's results table.

    F1 is recomputed from the counts so comparisons are exact rather than rounded.
    """
    results: dict[str, dict[str, dict[str, float]]] = {}
    dataset, columns = None, []
    for line in markdown.splitlines():
        if section := _SECTION.match(line):
            dataset, columns = section.group(1), []
            continue
        if dataset is None or not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells and cells[0] == "package":
            columns = [c.lower() for c in cells]
        elif columns and cells and not set(cells[0]) <= {":", "-"}:
            row = dict(zip(columns, cells))
            counts = {key: int(row[key]) for key in ("tp", "fp", "fn", "tn") if row.get(key, "").isdigit()}
            if len(counts) == 4:
                _, _, f1 = _prf(counts["tp"], counts["fp"], counts["fn"])
                results.setdefault(dataset, {})[row["package"]] = {**counts, "f1": f1}
    return results
