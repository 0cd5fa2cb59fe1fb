"""Writing records as their files wrote them: the output of ``dedupe --merged``.

In the input's own format, a record without duplicates is written exactly as read (its own
text; only a record whose ID had to change, or a RIS record the file cut short, is
rewritten from its fields), and a merged record is written from its merged fields
(``source.merge_sources``) with the cluster's ID. Into another format, every field is
carried over through BibTeX-style names: the common ones map to the target's own fields
(``title`` <-> ``TI``, ``publisher`` <-> ``PB``, ``keywords`` <-> one ``KW`` each …); a field
the target has no name for is kept as ``ris_<tag>`` in BibTeX and CSV, and as a
``N1  - name: value`` note in RIS, so nothing is dropped.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from ..core.sanitize import spreadsheet_cell
from .bibtex import decode_latex
from .fields import split_bibtex_authors
from .readers import column_name
from .source import RIS_TYPES, SourceRecord, merge_sources
from .writers import bibtex_text

# RIS tag -> BibTeX-style name, for conversion between formats. Authors, pages and the
# entry type are handled on their own.
RIS_TO_NAME = {"TI": "title", "T1": "title", "CT": "title", "PY": "year", "Y1": "year", "DA": "date",
               "JO": "journal", "JF": "journal", "JA": "journal_abbreviation", "J2": "journal_abbreviation",
               "T2": "journal", "BT": "booktitle", "T3": "series", "VL": "volume", "IS": "number",
               "CP": "number", "PB": "publisher", "CY": "address", "ET": "edition", "SN": "issn",
               "KW": "keywords", "N1": "note", "AB": "abstract", "N2": "abstract", "DO": "doi", "UR": "url",
               "L1": "file", "LA": "language", "ID": "ID", "AN": "accession_number", "M3": "type", "DB": "database"}
NAME_TO_RIS = {"title": "TI", "year": "PY", "date": "DA", "journal": "JO", "journal_abbreviation": "J2",
               "booktitle": "T2", "series": "T3", "volume": "VL", "number": "IS", "publisher": "PB",
               "address": "CY", "edition": "ET", "issn": "SN", "isbn": "SN", "keywords": "KW", "note": "N1",
               "abstract": "AB", "doi": "DO", "url": "UR", "file": "L1", "language": "LA",
               "accession_number": "AN", "type": "M3", "database": "DB"}
BIBTEX_TO_RIS_TYPE = {"article": "JOUR", "inproceedings": "CONF", "conference": "CONF", "proceedings": "CONF",
                      "book": "BOOK", "incollection": "CHAP", "inbook": "CHAP", "phdthesis": "THES",
                      "mastersthesis": "THES", "thesis": "THES", "techreport": "RPRT", "report": "RPRT",
                      "unpublished": "UNPB", "online": "ELEC", "misc": "GEN"}
_RIS_AUTHORS = ("AU", "A1")
_RIS_EDITORS = ("A2", "ED", "A3")
_VERBATIM = frozenset({"doi", "url", "file", "eprint", "pmid"})
_LISTED = frozenset({"keywords"})  # one KW line per item in RIS
CSV_FIRST_COLUMNS = ["ID", "ENTRYTYPE", "title", "author", "year", "journal", "booktitle", "volume", "number",
                     "pages", "doi", "pmid", "eprint", "url", "abstract"]


def write_clusters(target: str, input_format: str, sources: Sequence[SourceRecord], clusters: Sequence,
                   ids: Sequence[str]) -> str:
    """The text of ``dedupe --merged`` in ``target`` ("csv", "ris" or "bibtex"): one record per
    cluster, its ID the cluster_id (the ID of the cluster's first member)."""
    records: list[tuple[SourceRecord, str, bool]] = []  # (record, cluster id, written exactly as read?)
    for cluster in clusters:
        members = [sources[i] for i in cluster.members]
        cluster_id = ids[cluster.members[0]]
        if len(members) == 1:
            records.append((members[0], cluster_id, True))
        else:
            records.append((merge_sources(members), cluster_id, False))
    if target == input_format:
        return _same_format(target, records)
    neutral = [(_neutral(record), cluster_id) for record, cluster_id, _ in records]
    return {"ris": _neutral_ris, "bibtex": _neutral_bibtex, "csv": _neutral_csv}[target](neutral)


# --------------------------------------------------------------------------- same format


def _same_format(target: str, records: list[tuple[SourceRecord, str, bool]]) -> str:
    if target == "csv":  # the user's own CSV cells, written back as they were read
        return _csv_text(_own_csv_rows(records), from_csv=True)
    parts = []
    for record, cluster_id, as_read in records:
        if target == "ris":
            verbatim = as_read and record.complete and record.text and record.first("ID") == cluster_id
            parts.append(record.text.replace("\n", "\r\n") + "\r\n" if verbatim else _ris_text(record, cluster_id))
        else:
            verbatim = as_read and record.text and record.key == cluster_id
            parts.append(record.text + "\n" if verbatim else _bibtex_text_of(record, cluster_id))
    return ("\r\n" if target == "ris" else "\n").join(parts)


def _ris_text(record: SourceRecord, cluster_id: str) -> str:
    lines = [("TY", record.entry_type or "GEN"), ("ID", cluster_id)]
    lines += [(tag, value) for tag, value in record.fields if tag not in ("TY", "ID", "ER")]
    return "".join(f"{tag}  - {_one_line(value)}\r\n" for tag, value in lines) + "ER  - \r\n"


def _bibtex_text_of(record: SourceRecord, cluster_id: str) -> str:
    """An entry from raw (TeX) values, as read."""
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in record.fields)
    return f"@{record.entry_type or 'misc'}{{{cluster_id},\n{body}\n}}\n"


def _own_csv_rows(records: list[tuple[SourceRecord, str, bool]]) -> tuple[list[str], list[list[str]]]:
    """The input's own columns (an ID column first when it had none), one row per record."""
    header = [name for name, _ in records[0][0].fields] if records else []
    id_column = next((i for i, name in enumerate(header) if column_name(name) == "ID"), None)
    if id_column is None:
        header, id_column = ["ID", *header], 0
    rows = []
    for record, cluster_id, _ in records:
        values = dict(record.fields)
        row = [values.get(name, "") for name in header]
        row[id_column] = cluster_id
        rows.append(row)
    return header, rows


def _csv_text(table: tuple[list[str], list[list[str]]], from_csv: bool) -> str:
    """The table as CSV. Cells read from the user's own CSV are written as read (a formula
    there was already one); text that becomes a CSV cell here for the first time (from RIS
    or BibTeX) cannot start a formula (sanitize.spreadsheet_cell)."""
    header, rows = table
    if not from_csv:
        header = [spreadsheet_cell(name) for name in header]
        rows = [[spreadsheet_cell(cell) for cell in row] for row in rows]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _one_line(value: str) -> str:
    return " ".join(value.split())


# --------------------------------------------------------------------------- another format


def _neutral(record: SourceRecord) -> tuple[str, list[str], list[tuple[str, str]]]:
    """(BibTeX entry type, authors, [(BibTeX-style name, plain value)]) of any record."""
    if record.format == "ris":
        return _neutral_from_ris(record)
    authors: list[str] = []
    fields: list[tuple[str, str]] = []
    for name, value in record.fields:
        key = column_name(name) if record.format == "csv" else name.lower()
        if record.format == "bibtex":
            if key == "author":
                authors = [decode_latex(author) for author in split_bibtex_authors(value)]
                continue
            value = decode_latex(value, verbatim=key in _VERBATIM)
        elif key == "author":
            authors = split_bibtex_authors(value)
            continue
        if key in ("ID", "ENTRYTYPE") or not value.strip():
            continue
        fields.append((key, value))
    entry_type = (record.entry_type or "misc").lower()
    return entry_type, authors, fields


def _neutral_from_ris(record: SourceRecord) -> tuple[str, list[str], list[tuple[str, str]]]:
    entry_type = RIS_TYPES.get(record.entry_type.upper(), "misc")
    authors = [value for tag, value in record.fields if tag in _RIS_AUTHORS and value.strip()]
    editors = [value for tag, value in record.fields if tag in _RIS_EDITORS and value.strip()]
    fields: list[tuple[str, str]] = []
    start, end = record.first("SP"), record.first("EP")
    if start or end:
        fields.append(("pages", f"{start}-{end}" if start and end and "-" not in start else start or end))
    if editors:
        fields.append(("editor", " and ".join(editors)))
    for tag, value in record.fields:
        if tag in ("TY", "ID", "ER", "SP", "EP", *_RIS_AUTHORS, *_RIS_EDITORS) or not value.strip():
            continue
        name = RIS_TO_NAME.get(tag, f"ris_{tag.lower()}")
        if name == "journal" and entry_type in ("inproceedings", "incollection") and tag == "T2":
            name = "booktitle"
        if name == "issn" and entry_type in ("book", "incollection"):
            name = "isbn"
        known = [i for i, (own, _) in enumerate(fields) if own == name]
        if known and (name in ("keywords", "note", "url", "file") or name.startswith("ris_")):
            at = known[0]
            fields[at] = (name, f"{fields[at][1]}; {value}")  # repeated tags: one list
        elif not known:
            fields.append((name, value))
    return entry_type, authors, fields


def _neutral_ris(records: list[tuple[tuple[str, list[str], list[tuple[str, str]]], str]]) -> str:
    parts = []
    for (entry_type, authors, fields), cluster_id in records:
        lines = [("TY", BIBTEX_TO_RIS_TYPE.get(entry_type, "GEN")), ("ID", cluster_id)]
        lines += [("AU", author) for author in authors]
        for name, value in fields:
            if name == "pages":
                start, _, end = value.replace("--", "-").replace("–", "-").partition("-")
                lines += [("SP", start.strip()), ("EP", end.strip())]
            elif name == "editor":
                lines += [("ED", editor) for editor in split_bibtex_authors(value)]
            elif name in _LISTED:
                lines += [("KW", item.strip()) for item in value.replace(",", ";").split(";") if item.strip()]
            elif name in NAME_TO_RIS:
                lines.append((NAME_TO_RIS[name], value))
            elif name.startswith("ris_") and len(name) == 6:
                lines.append((name[4:].upper(), value))
            else:
                lines.append(("N1", f"{name}: {value}"))  # no RIS tag for it: kept as a note
        parts.append("".join(f"{tag}  - {_one_line(value)}\r\n" for tag, value in lines if _one_line(value))
                     + "ER  - \r\n")
    return "\r\n".join(parts)


def _neutral_bibtex(records: list[tuple[tuple[str, list[str], list[tuple[str, str]]], str]]) -> str:
    entries = []
    for (entry_type, authors, fields), cluster_id in records:
        body = [("author", " and ".join(bibtex_text(author) for author in authors))] if authors else []
        body += [(name, _bibtex_value(name, value)) for name, value in fields]
        text = ",\n".join(f"  {name} = {{{value}}}" for name, value in body)
        entries.append(f"@{entry_type}{{{cluster_id},\n{text}\n}}\n")
    return "\n".join(entries)


def _bibtex_value(name: str, value: str) -> str:
    if name in _VERBATIM:
        return _one_line(value).replace("{", "%7B").replace("}", "%7D").replace("\\", "%5C")
    return bibtex_text(_one_line(value))


def _neutral_csv(records: list[tuple[tuple[str, list[str], list[tuple[str, str]]], str]]) -> str:
    extra = list(dict.fromkeys(name for (_, _, fields), _ in records for name, _ in fields
                               if name not in CSV_FIRST_COLUMNS))
    header = CSV_FIRST_COLUMNS + extra
    rows = []
    for (entry_type, authors, fields), cluster_id in records:
        values = {"ID": cluster_id, "ENTRYTYPE": entry_type, "author": " and ".join(authors), **dict(fields)}
        rows.append([_one_line(values.get(column, "")) for column in header])
    return _csv_text((header, rows), from_csv=False)
