"""`lit-search dedupe IN -o OUT.csv`: find the duplicate records of a bibliographic export.

OUT lists ``ID,cluster_id`` for every input record, in input order. A cluster's id is the
ID of its first member in the input, so a record that is unique keeps its own ID as its
cluster_id, and the ids do not change when unrelated records are added or removed.
Pairs that look alike but fail a safety check are never merged: ``--report`` lists them
for a human. Exit codes: 0 done, 2 usage or input error (one line on stderr).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .argparsing import StrictParser, UsageError
from .bibio import FORMATS, InputError, load_records
from .exports import to_bibtex, to_csl_json, to_csv, to_ris
from .merge import Cluster, DedupeResult, dedupe, merge_cluster
from .records import Paper
from .text import plain_text

EXIT_OK, EXIT_USAGE = 0, 2
PROG = "lit-search dedupe"
REPORT_TITLE_CHARS = 110

MERGED_WRITERS: dict[str, Callable[..., str]] = {".csv": to_csv, ".ris": to_ris, ".bib": to_bibtex,
                                                  ".json": to_csl_json}

DESCRIPTION = """\
Find the records of a bibliographic export that describe the same paper. Every input
record gets a cluster_id in OUT; records that share one are duplicates. Merging is
conservative: records join on a shared DOI, PMID or arXiv id, or on near-identical titles
that year, authors and citation details do not contradict. Look-alike pairs that fail a
check are listed (--report) for a human instead of being merged."""

EPILOG = """\
input formats: CSV (.csv; columns such as ID,title,author,year,journal,booktitle,volume,
  number,pages,doi,abstract,ENTRYTYPE, any missing), RIS (.ris, or .txt) and BibTeX (.bib).
  Other extensions are recognised by content. Encodings: UTF-8 (with or without BOM),
  UTF-16 with BOM, Windows-1252/Latin-1. Records without an ID (RIS ID tag, BibTeX key,
  CSV ID column) get rec_000001, rec_000002, ... by position; a repeated ID is renamed
  ID_2, ID_3, ... (with a warning).
output: OUT is a UTF-8 CSV with the columns ID,cluster_id, one row per input record in
  input order. cluster_id is the ID of the cluster's first record in the input.
exit codes: 0 done; 2 usage or input error (missing, empty, unreadable or unparseable
  file; unknown format), reported in one line on stderr.
examples:
  lit-search dedupe records.csv -o clusters.csv
  lit-search dedupe export.ris -o clusters.csv --merged deduplicated.ris --report
"""


def build_parser() -> argparse.ArgumentParser:
    parser = StrictParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", metavar="IN", help="the records to deduplicate: a .csv, .ris, .txt (RIS) or .bib file")
    parser.add_argument("-o", "--output", metavar="OUT.csv", required=True,
                        help="where to write ID,cluster_id for every input record (CSV, UTF-8)")
    parser.add_argument("--merged", metavar="FILE",
                        help="also write one merged record per cluster (the richest value of each field), "
                             "its ID being the cluster_id; the format follows the extension: "
                             ".csv, .ris, .bib, or .json for CSL-JSON (e.g. merged.csl.json)")
    parser.add_argument("--report", action="store_true",
                        help="print every cluster of two or more records with its members' IDs and titles and "
                             "the reasons they were merged, then the uncertain pairs (not merged) with their "
                             "similarity and why they were kept apart, then the summary line (stdout)")
    parser.add_argument("--input-format", choices=FORMATS, metavar="{" + ",".join(FORMATS) + "}",
                        help="read IN as this format whatever its extension says")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no summary or warnings on stderr (errors are still printed)")
    return parser


def dedupe_command(argv: Sequence[str]) -> int:
    """Run `lit-search dedupe`; returns the exit code (0 done, 2 usage or input error)."""
    try:
        args = build_parser().parse_args(list(argv))
        _check_paths(args)
        loaded = load_records(args.input, format=args.input_format)
    except SystemExit as exc:  # --help prints and exits 0
        return int(exc.code or 0)
    except UsageError as exc:
        return _fail(f"{exc}\nTry '{PROG} --help'.")
    except InputError as exc:
        return _fail(str(exc))
    for warning in loaded.warnings:
        _note(args.quiet, f"warning: {warning}")

    records = loaded.papers
    ids = [record.external_ids["ID"] for record in records]
    result = dedupe(records)
    cluster_ids = cluster_id_of_each_record(result.clusters, ids)
    try:
        write_text_atomically(Path(args.output), assignments_csv(ids, cluster_ids))
        if args.merged:
            write_text_atomically(Path(args.merged), merged_file_text(args.merged, records, result.clusters, ids))
    except OSError as exc:
        return _fail(f"cannot write {exc.filename or 'the output'}: {exc.strerror or exc}")

    summary = summary_line(len(records), result)
    if args.report:
        sys.stdout.write(render_report(records, ids, result))
        sys.stdout.flush()
    else:
        _note(args.quiet, summary)
    return EXIT_OK


def _check_paths(args: argparse.Namespace) -> None:
    """Refuse, before any work, outputs that would overwrite the input or that have no format."""
    source = Path(args.input).resolve()
    for option, target in (("-o", args.output), ("--merged", args.merged)):
        if target and Path(target).resolve() == source:
            raise UsageError(f"{option} {target} would overwrite the input file")
    for option, target in (("-o", args.output), ("--merged", args.merged)):
        folder = Path(target).parent if target else None
        if folder is not None and not folder.is_dir():
            raise UsageError(f"{option} {target}: the folder {folder} does not exist")
    if args.merged and Path(args.merged).suffix.lower() not in MERGED_WRITERS:
        raise UsageError(f"--merged {args.merged}: unknown extension; use .csv, .ris, .bib or .json")
    if args.merged and Path(args.merged).resolve() == Path(args.output).resolve():
        raise UsageError("-o and --merged name the same file")


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _note(quiet: bool, message: str) -> None:
    if not quiet:
        print(f"{PROG}: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- outputs


def cluster_id_of_each_record(clusters: Sequence[Cluster], ids: Sequence[str]) -> list[str]:
    """The cluster_id of every record: the ID of its cluster's first member (in input order)."""
    cluster_ids = [""] * len(ids)
    for cluster in clusters:
        for member in cluster.members:
            cluster_ids[member] = ids[cluster.members[0]]
    return cluster_ids


def assignments_csv(ids: Sequence[str], cluster_ids: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["ID", "cluster_id"])
    writer.writerows(zip(ids, cluster_ids))
    return buffer.getvalue()


def merged_records(records: Sequence[Paper], clusters: Sequence[Cluster]) -> list[Paper]:
    """One record per cluster, in cluster order: singletons as read, groups merged."""
    return [records[c.members[0]] if len(c.members) == 1 else merge_cluster([records[i] for i in c.members])
            for c in clusters]


def merged_file_text(path: str, records: Sequence[Paper], clusters: Sequence[Cluster], ids: Sequence[str]) -> str:
    writer = MERGED_WRITERS[Path(path).suffix.lower()]
    return writer(merged_records(records, clusters), keys=[ids[c.members[0]] for c in clusters])


def write_text_atomically(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder, so a failure never leaves half a file."""
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except OSError as exc:  # name the file the user asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        if temporary.exists():
            temporary.unlink()


# --------------------------------------------------------------------------- report


def summary_line(record_count: int, result: DedupeResult) -> str:
    clusters = len(result.clusters)
    return (f"{record_count} records → {clusters} clusters, {record_count - clusters} duplicates removed, "
            f"{len(result.uncertain_pairs)} uncertain pairs")


def _shown(text: str | None, limit: int = REPORT_TITLE_CHARS) -> str:
    """One printable line of untrusted text (markup and control characters removed), shortened."""
    clean = plain_text(text) or "(untitled)"
    return clean if len(clean) <= limit else clean[: limit - 1].rstrip() + "…"


def render_report(records: Sequence[Paper], ids: Sequence[str], result: DedupeResult) -> str:
    """Clusters of 2+ records with their reasons, then the uncertain pairs, then the summary line."""
    groups = [cluster for cluster in result.clusters if len(cluster.members) > 1]
    id_width = max((len(_shown(ids[m], 40)) for c in groups for m in c.members), default=0)
    lines = [f"Clusters of duplicates ({len(groups)})", ""]
    for cluster in groups:
        lines.append(f"cluster {_shown(ids[cluster.members[0]], 40)} ({len(cluster.members)} records)")
        lines += [f"  {_shown(ids[m], 40):<{id_width}}  {_shown(records[m].title)}" for m in cluster.members]
        lines += [f"  why: {_shown(reason, 300)}" for reason in cluster.reasons]
        lines.append("")
    lines += [f"Uncertain pairs (not merged) ({len(result.uncertain_pairs)})", ""]
    for pair in result.uncertain_pairs:
        lines.append(f"  {_shown(ids[pair.first], 40)}  {_shown(records[pair.first].title)}")
        lines.append(f"  {_shown(ids[pair.second], 40)}  {_shown(records[pair.second].title)}")
        lines.append(f"  title similarity {pair.title_similarity:.0f}%; kept apart: {_shown(pair.reason, 300)}")
        lines.append("")
    lines.append(summary_line(len(records), result))
    return "\n".join(lines) + "\n"
