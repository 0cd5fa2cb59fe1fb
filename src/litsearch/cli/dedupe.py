"""`lit-search dedupe IN [-o OUT.csv]`: find the duplicate records of a bibliographic export.

OUT (stdout without -o) lists ``ID,cluster_id`` for every input record, in input order. A cluster's id is the
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
from collections.abc import Sequence
from pathlib import Path

from ..biblio.formats import READABLE_FORMATS as FORMATS
from ..biblio.formats import MERGED_FORMATS, MERGED_JSON, extensions_for, merged_from_path
from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..core.records import Paper
from ..runtime.console import Console
from ..runtime.files import write_file_atomically
from .common import check_file_target, new_parser, run_command, write_output

PROG = "lit-search dedupe"

DESCRIPTION = """\
Find the records of a bibliographic export that describe the same paper. Every input
record gets a cluster_id in OUT; records that share one are duplicates. Merging is
conservative: records join on a shared DOI, PMID or arXiv id, or on near-identical titles
that year, authors and citation details do not contradict. Look-alike pairs that fail a
check are listed (--report) for a human instead of being merged."""

EPILOG = f"""\
input formats: CSV (.csv; columns such as ID,title,author,year,journal,booktitle,volume,
  number,pages,doi,abstract,ENTRYTYPE, any missing), RIS (.ris, or .txt) and BibTeX (.bib).
  Other extensions are recognised by content. Encodings: UTF-8 (with or without BOM),
  UTF-16 (with or without BOM), Windows-1252/Latin-1. A RIS record without its ER line is
  read and named in a warning (the file may be cut short). Records without an ID (RIS ID
  tag, BibTeX key, CSV ID column) get rec_000001, rec_000002, ... by position; a repeated
  ID is renamed ID_2, ID_3, ... (with a warning).
output: OUT is a UTF-8 CSV with the columns ID,cluster_id, one row per input record in
  input order. cluster_id is the ID of the cluster's first record in the input. Without -o
  the CSV goes to stdout; with --report and without -o, only the report does.
{EXIT_CODES_HELP}
  Here: 2 also for a missing, empty, unreadable or unparseable file or an unknown format.
examples:
  lit-search dedupe records.csv
  lit-search dedupe records.csv -o clusters.csv
  lit-search dedupe export.ris -o clusters.csv --merged deduplicated.ris --report
"""


def build_parser() -> argparse.ArgumentParser:
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("input", metavar="IN", help=f"the records to deduplicate: a {extensions_for(FORMATS)} "
                                                    "file (a .txt file is read as RIS)")
    parser.add_argument("-o", "--output", metavar="OUT.csv",
                        help="where to write ID,cluster_id for every input record (CSV, UTF-8); "
                             "default: stdout (not written with --report, which then has stdout)")
    parser.add_argument("--merged", metavar="FILE",
                        help="also write one record per cluster, its ID being the cluster_id: a record "
                             "without duplicates exactly as read, a merged one with every field of its "
                             "members that does not conflict; the format follows the extension: "
                             f"{extensions_for(MERGED_FORMATS + ('json',))} (.json: CSL-JSON)")
    parser.add_argument("--report", action="store_true",
                        help="print every cluster of two or more records with its members' IDs and titles and "
                             "the reasons they were merged, then the uncertain pairs (not merged) with their "
                             "similarity and why they were kept apart, then the summary line (stdout)")
    parser.add_argument("--input-format", choices=FORMATS, metavar="{" + ",".join(FORMATS) + "}",
                        help="read IN as this format whatever its extension says")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no summary or warnings on stderr (errors are still printed)")
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: dedupe_command(argv))


def dedupe_command(argv: Sequence[str]) -> int:
    """Run `lit-search dedupe`; returns the exit code (0 done, 2 usage or input error)."""
    from ..biblio.readers import load_records
    from ..dedupe.clusters import dedupe
    from ..render.dedupe_report import render_report, summary_line

    args = build_parser().parse_args(list(argv))
    _check_paths(args)
    loaded = load_records(args.input, format=args.input_format)
    console = Console(None, args.quiet, prefix=PROG)
    for warning in loaded.warnings:
        console.say(f"warning: {warning}")

    records = loaded.papers
    ids = [record.external_ids["ID"] for record in records]
    result = dedupe(records)
    cluster_ids = cluster_id_of_each_record(result.clusters, ids)
    assignments = assignments_csv(ids, cluster_ids, from_csv=loaded.format == "csv")
    if args.output:
        write_file_atomically(Path(args.output), assignments)
    elif not args.report:
        write_output(assignments, None)
    if args.merged:
        write_file_atomically(Path(args.merged), merged_file_text(args.merged, loaded, result.clusters, ids))

    if args.report:
        write_output(render_report(records, ids, result), None)
        if not args.output:
            console.say("the ID,cluster_id list was not written: add -o clusters.csv to keep it")
    else:
        console.say(summary_line(len(records), result))
    return ExitCode.OK


def _check_paths(args: argparse.Namespace) -> None:
    """Refuse, before any work, outputs that would overwrite the input or that have no format."""
    # realpath, not Path.resolve: a symbolic-link loop is the reader's to report, in one line.
    source = os.path.realpath(args.input)
    for option, target in (("-o", args.output), ("--merged", args.merged)):
        if target and os.path.realpath(target) == source:
            raise UsageError(f"{option} {target} would overwrite the input file")
    for option, target, example in (("-o", args.output, "clusters.csv"), ("--merged", args.merged, "deduplicated.ris")):
        check_file_target(target, option, example=example)
    if args.merged and merged_from_path(args.merged) is None:
        raise UsageError(f"--merged {args.merged}: unknown extension; use {extensions_for(MERGED_FORMATS + ('json',))}")
    if args.merged and args.output and os.path.realpath(args.merged) == os.path.realpath(args.output):
        raise UsageError("-o and --merged name the same file")


# --------------------------------------------------------------------------- outputs


def cluster_id_of_each_record(clusters: Sequence, ids: Sequence[str]) -> list[str]:
    """The cluster_id of every record: the ID of its cluster's first member (in input order)."""
    cluster_ids = [""] * len(ids)
    for cluster in clusters:
        for member in cluster.members:
            cluster_ids[member] = ids[cluster.members[0]]
    return cluster_ids


def assignments_csv(ids: Sequence[str], cluster_ids: Sequence[str], from_csv: bool = True) -> str:
    """ID,cluster_id rows. IDs read from a CSV are written as read; an ID from RIS or BibTeX
    that would start a spreadsheet formula is neutralised (sanitize.spreadsheet_cell)."""
    from ..core.sanitize import spreadsheet_cell

    shown = (lambda value: value) if from_csv else spreadsheet_cell
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["ID", "cluster_id"])
    writer.writerows((shown(record_id), shown(cluster_id)) for record_id, cluster_id in zip(ids, cluster_ids))
    return buffer.getvalue()


def merged_records(records: Sequence[Paper], clusters: Sequence) -> list[Paper]:
    """One record per cluster, in cluster order: singletons as read, groups merged."""
    from ..dedupe.merge import merge_cluster

    return [records[c.members[0]] if len(c.members) == 1 else merge_cluster([records[i] for i in c.members])
            for c in clusters]


def merged_file_text(path: str, loaded, clusters: Sequence, ids: Sequence[str]) -> str:
    """--merged: CSV, RIS and BibTeX from the records as written (every field kept, a record
    without duplicates exactly as read); CSL-JSON from the merged papers."""
    target = merged_from_path(path)
    if target == MERGED_JSON:
        from ..biblio.writers import to_csl_json

        return to_csl_json(merged_records(loaded.papers, clusters), keys=[ids[c.members[0]] for c in clusters])
    from ..biblio.source_writers import write_clusters

    return write_clusters(target, loaded.format, loaded.sources, clusters, ids)
