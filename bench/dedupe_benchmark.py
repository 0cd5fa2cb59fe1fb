"""Dedupe benchmark: the merge engine on labelled exports, next to bib-dedupe's published figures.

Usage:  .venv/bin/python bench/dedupe_benchmark.py [--sets respiratory,stroke] [--no-scale]

For every set under ../shared/benchmarks/dedupe it prints record-level TP/FP/FN/TN,
precision, recall, F1, FP-rate (bib-dedupe's counting), pairwise P/R/F1, the predicted
clusters that mix two or more true works, run time and peak traced memory, beside
bib-dedupe's row from its published table. Then the DBLP-ACM and DBLP-Scholar labelled
pairs (../shared/benchmarks/entity-matching): false merges and recall. Then a synthetic
scale run times `find_clusters` on 2,000 and 100,000 records made by perturbing the real
titles. ``--memory N`` instead runs the whole `lit-search dedupe` command on N synthetic
records and prints its peak RSS and the records per GB. Figures go to stdout; nothing is
asserted here.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import string
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from litsearch.biblio.fields import read_benchmark_csv  # noqa: E402
from litsearch.dedupe.scoring import parse_published_results, score_dedupe  # noqa: E402
from litsearch.dedupe.clusters import dedupe, find_clusters  # noqa: E402
from litsearch.core.records import Paper  # noqa: E402

SHARED = Path(os.environ.get("LITSEARCH_SHARED_DIR", REPO.parent / "shared"))
BENCHMARKS = SHARED / "benchmarks" / "dedupe"
PUBLISHED = BENCHMARKS / "published_results_bibdedupe_2024-12-01.md"
SETS = ["respiratory", "haematology", "stroke", "cytology_screening", "special_cases"]


def read_true_clusters(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [row["merged_ids"].split(";") for row in csv.DictReader(handle) if row.get("merged_ids")]


def timed(function, *args):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def peak_megabytes(function, *args) -> float:
    """Peak memory traced while `function` runs (a separate run: tracing slows it down)."""
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def run_set(name: str, published: dict) -> dict | None:
    folder = BENCHMARKS / name
    records_path, truth_path = folder / "records_pre_merged.csv", folder / "merged_record_ids.csv"
    if not records_path.exists() or not truth_path.exists():
        print(f"skipping {name}: {folder} not found", file=sys.stderr)
        return None
    records = read_benchmark_csv(records_path)
    ids = [r.external_ids["ID"] for r in records]
    result, seconds = timed(dedupe, records)
    predicted = [[ids[i] for i in cluster.members] for cluster in result.clusters]
    truth = read_true_clusters(truth_path)
    scores = score_dedupe(predicted, truth, ids)
    reference = published.get(name, {}).get("bib-dedupe")
    return {
        "set": name,
        "records": len(records),
        "scores": scores,
        "seconds": seconds,
        "peak_mb": peak_megabytes(dedupe, records),
        "uncertain": len(result.uncertain_pairs),
        "vetoed": sum(1 for pair in result.uncertain_pairs if pair.veto),
        "mixed": mixed_clusters(predicted, truth),
        "reference": reference,
    }


def mixed_clusters(predicted: list[list[str]], truth: list[list[str]]) -> int:
    """Predicted clusters holding records of two or more true works (pairwise false merges,
    which record-level counting can hide)."""
    work = {record_id: number for number, cluster in enumerate(truth) for record_id in cluster}
    return sum(1 for cluster in predicted
               if len({work.get(record_id, ("alone", record_id)) for record_id in cluster}) > 1)


def print_set_table(rows: list[dict]) -> None:
    header = ("| set | records | TP | FP | FN | TN | P | R | F1 | FP-rate | pair P | pair R | pair F1 | mixed clusters "
              "| s | peak MB | uncertain | vetoed | bib-dedupe TP/FP/FN | bib-dedupe F1 |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for row in rows:
        s, ref = row["scores"], row["reference"]
        reference = f"{ref['tp']}/{ref['fp']}/{ref['fn']} | {ref['f1']:.4f}" if ref else "- | -"
        print(
            f"| {row['set']} | {row['records']} | {s.tp} | {s.fp} | {s.fn} | {s.tn} | {s.precision:.4f} "
            f"| {s.recall:.4f} | {s.f1:.4f} | {s.fp_rate:.4f} | {s.pairwise_precision:.4f} "
            f"| {s.pairwise_recall:.4f} | {s.pairwise_f1:.4f} | {row['mixed']} | {row['seconds']:.2f} "
            f"| {row['peak_mb']:.1f} | {row['uncertain']} | {row['vetoed']} | {reference} |"
        )


# --------------------------------------------------------------------------- synthetic scale run

def _recase(title: str, rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.3:
        return title.lower()
    if choice < 0.5:
        return title.title()
    if choice < 0.6:
        return title.upper()
    return title


def _repunctuate(title: str, rng: random.Random) -> str:
    title = title.replace(": ", rng.choice([": ", " - ", ". ", " : "]))
    if rng.random() < 0.4:
        title = title.rstrip(".") + "."
    if rng.random() < 0.1:
        title = f"<i>{title}</i>"
    return title


def _typo(title: str, rng: random.Random) -> str:
    """Drop, double or swap one letter, as a hand-keyed record might."""
    if len(title) < 10:
        return title
    at = rng.randrange(1, len(title) - 2)
    edit = rng.choice(("drop", "double", "swap"))
    if edit == "drop":
        return title[:at] + title[at + 1 :]
    if edit == "double":
        return title[:at] + title[at] + title[at:]
    return title[:at] + title[at + 1] + title[at] + title[at + 2 :]


def _reformat_author(author: str, rng: random.Random) -> str:
    """"Smith, John A." -> "Smith, J. A." / "Smith JA" / unchanged."""
    if "," not in author or rng.random() < 0.5:
        return author
    surname, given = (part.strip() for part in author.split(",", 1))
    initials = [word[0] for word in given.replace(".", " ").split() if word]
    return f"{surname}, {'. '.join(initials)}." if rng.random() < 0.5 else f"{surname} {''.join(initials)}"


def _abbreviate_pages(pages: str | None, rng: random.Random) -> str | None:
    """"1183-1187" -> "1183-7" (the MEDLINE style) half of the time."""
    if not pages or "-" not in pages or rng.random() < 0.5:
        return pages
    first, last = pages.split("-", 1)
    if len(first) == len(last) and first.isdigit() and last.isdigit():
        common = 0
        while common < len(first) - 1 and first[common] == last[common]:
            common += 1
        return f"{first}-{last[common:]}"
    return pages


def _unique_title(words: list[str], rng: random.Random) -> str:
    """A new title from real vocabulary plus a random token, so it matches nothing by chance."""
    body = " ".join(rng.sample(words, rng.randint(6, 14)))
    return f"{body} {''.join(rng.choices(string.ascii_lowercase, k=7))}".capitalize()


def make_synthetic_records(real: list[Paper], count: int, *, seed: int = 7) -> list[Paper]:
    """`count` records: perturbed copies of real records (as duplicates) and unique new titles."""
    rng = random.Random(seed)
    words = sorted({w for r in real for w in r.title.split() if w.isalpha() and len(w) > 3})
    records: list[Paper] = []
    while len(records) < count:
        base = rng.choice(real)
        if rng.random() < 0.6:
            # A different paper: new title, same-looking metadata.
            base = replace(base, title=_unique_title(words, rng),
                           year=(base.year or 2000) + rng.randint(-3, 3),
                           pages=f"{rng.randint(1, 2000)}-{rng.randint(2001, 2100)}")
        copies = 1 + (rng.random() < 0.35) + (rng.random() < 0.1)
        for _ in range(copies):
            year = base.year
            if year and rng.random() < 0.05:
                year += rng.choice((-1, 1))
            title = _repunctuate(_recase(base.title, rng), rng)
            if rng.random() < 0.3:
                title = _typo(title, rng)
            records.append(replace(
                base, title=title, year=year,
                authors=[_reformat_author(a, rng) for a in base.authors],
                pages=_abbreviate_pages(base.pages, rng),
                external_ids={"ID": f"syn{len(records)}"},
            ))
    return records[:count]


def run_scale(real: list[Paper]) -> None:
    print("\nSynthetic scale run (perturbed real titles, ~35% duplicated):")
    print("| records | clusters | seconds | peak MB |")
    print("|---|---|---|---|")
    for count in (2_000, 100_000):
        records = make_synthetic_records(real, count)
        clusters, seconds = timed(find_clusters, records)
        peak = peak_megabytes(find_clusters, records)
        print(f"| {count} | {len(clusters)} | {seconds:.2f} | {peak:.0f} |")


def run_memory(real: list[Paper], count: int) -> None:
    """The whole `lit-search dedupe` command on ``count`` synthetic records (a CSV written by
    the export writer), in a child process: its peak RSS and the records per GB it implies
    (the figure docs/dedupe.md and the README state)."""
    import resource
    import subprocess
    import tempfile

    from litsearch.biblio.writers import to_csv

    records = make_synthetic_records(real, count)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "records.csv"
        source.write_text(to_csv(records, keys=[r.external_ids["ID"] for r in records]), encoding="utf-8")
        command = [sys.executable, "-m", "litsearch", "dedupe", str(source), "-o", str(Path(folder) / "out.csv"), "-q"]
        started = time.perf_counter()
        subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # Linux: KiB
        size_mb = source.stat().st_size / 1e6
    print(f"\nMemory of the whole command ({count:,} records, {size_mb:.1f} MB CSV): peak RSS {peak_mb:,.0f} MB "
          f"in {seconds:.1f} s; about {count / (peak_mb / 1024):,.0f} records per GB")


# --------------------------------------------------------------------------- entity matching (DBLP)

ENTITY_MATCHING = SHARED / "benchmarks" / "entity-matching" / "Structured"
_SERIALIZED = re.compile(r"COL (\w+) VAL ?(.*?)(?= COL \w+ VAL|$)")


def entity_record(text: str) -> Paper:
    """A record of the Ditto serialization: "COL title VAL … COL authors VAL … COL venue VAL … COL year VAL …"."""
    fields = {name: value.strip() for name, value in _SERIALIZED.findall(text.strip())}
    year = fields.get("year", "").split(".")[0]
    return Paper(provider="import", title=fields.get("title", ""),
                 authors=[a.strip() for a in fields.get("authors", "").split(",") if a.strip()],
                 journal=fields.get("venue") or None, year=int(year) if year.isdigit() else None)


def run_entity_matching(name: str) -> dict | None:
    """All distinct records of a labelled pair file clustered together, then each labelled pair
    scored: a match the clusters join is found, a non-match they join is a false merge."""
    path = ENTITY_MATCHING / name / "test.txt"
    if not path.exists():
        print(f"skipping {name}: {path} not found", file=sys.stderr)
        return None
    pairs = [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = list(dict.fromkeys(text for left, right, _ in pairs for text in (left, right)))
    index = {text: position for position, text in enumerate(texts)}
    records = [entity_record(text) for text in texts]
    result, seconds = timed(dedupe, records)
    cluster_of = {member: number for number, cluster in enumerate(result.clusters) for member in cluster.members}
    found = false = matches = 0
    for left, right, label in pairs:
        joined = cluster_of[index[left]] == cluster_of[index[right]]
        matches += label == "1"
        found += joined and label == "1"
        false += joined and label == "0"
    return {"set": name, "records": len(records), "pairs": len(pairs), "matches": matches, "found": found,
            "false": false, "seconds": seconds}


def print_entity_table(rows: list[dict]) -> None:
    print("\nEntity matching (labelled pairs; all distinct records clustered together):")
    print("| set | records | labelled pairs | matches | found (recall) | false merges | s |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        recall = row["found"] / row["matches"] if row["matches"] else 0.0
        print(f"| {row['set']} | {row['records']} | {row['pairs']} | {row['matches']} | {row['found']} "
              f"({recall:.4f}) | {row['false']} | {row['seconds']:.2f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated set names")
    parser.add_argument("--no-scale", action="store_true", help="skip the synthetic 100,000-record run")
    parser.add_argument("--memory", type=int, metavar="N",
                        help="only measure the whole dedupe command's peak memory on N synthetic records")
    args = parser.parse_args(argv)
    if not BENCHMARKS.exists():
        print(f"benchmark data not found at {BENCHMARKS}; nothing to run", file=sys.stderr)
        return 0
    if args.memory:
        real = [r for name in SETS[:4] if (BENCHMARKS / name / "records_pre_merged.csv").exists()
                for r in read_benchmark_csv(BENCHMARKS / name / "records_pre_merged.csv") if r.title]
        run_memory(real, args.memory)
        return 0
    published = parse_published_results(PUBLISHED.read_text(encoding="utf-8")) if PUBLISHED.exists() else {}
    rows = [row for name in args.sets.split(",") if (row := run_set(name.strip(), published))]
    print_set_table(rows)
    entity_rows = [row for name in ("DBLP-ACM", "DBLP-GoogleScholar") if (row := run_entity_matching(name))]
    if entity_rows:
        print_entity_table(entity_rows)
    if not args.no_scale:
        real = [r for name in SETS[:4] if (BENCHMARKS / name / "records_pre_merged.csv").exists()
                for r in read_benchmark_csv(BENCHMARKS / name / "records_pre_merged.csv") if r.title]
        run_scale(real)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
