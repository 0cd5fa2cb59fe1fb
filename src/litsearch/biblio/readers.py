"""Read bibliographic exports (CSV, RIS, BibTeX) into Paper records: the input of `lit-search dedupe`.

`read_records(path)` chooses the reader by extension (.csv, .ris, .bib/.bibtex; .txt and
any other extension by content), decodes the bytes whatever the exporting tool chose (UTF-8
with or without BOM, UTF-16 with BOM, Windows-1252/Latin-1) and accepts CRLF, LF or CR line
ends. Every record gets an ID in ``Paper.external_ids["ID"]``: the file's own (CSV ``ID``
column, RIS ``ID`` tag, BibTeX key) or, when it has none, ``rec_000001`` style, numbered by
the record's position in the file, so the same file always gets the same IDs. An ID used
twice is renamed (``smith2010_2``) so that every record stays addressable.

A file that cannot be read raises `InputError`, whose message is one line naming the file
and the problem. A broken entry fails the whole file: skipping it would silently drop a
record from a systematic review.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError
from ..core.files import MB, read_input
from ..core.identifiers import normalize_doi
from ..core.records import Paper
from .bibtex import parse_bibtex
from .fields import RawRecord, paper_from_fields
from .formats import READABLE_FORMATS, readable_from_path
from .source import RIS_TYPES, SourceRecord

FORMATS = READABLE_FORMATS
# ".txt" is what several databases (Web of Science, Scopus, Ovid) call their RIS export, so
# it is sniffed like an unknown extension.


@dataclass
class LoadedRecords:
    papers: list[Paper]
    format: str  # one of FORMATS
    warnings: list[str] = field(default_factory=list)
    sources: list[SourceRecord] = field(default_factory=list)  # each paper's record as written


# --------------------------------------------------------------------------- entry point


def read_records(path: str | Path, *, format: str | None = None) -> list[Paper]:  # noqa: A002 - the CLI's word
    """Every record of a CSV, RIS or BibTeX file, with its ID in ``external_ids["ID"]``."""
    return load_records(path, format=format).papers


def load_records(path: str | Path, *, format: str | None = None) -> LoadedRecords:  # noqa: A002
    """`read_records` plus the detected format and warnings (renamed duplicate IDs)."""
    path = Path(path)
    text = decode_text(_read_bytes(path), path)
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    kind = format or detect_format(path, text)
    if kind not in _PARSERS:
        raise InputError(f"unknown input format {kind!r}; expected one of {', '.join(FORMATS)}")
    raw = _PARSERS[kind](text, path)
    if not raw:
        raise InputError(f"{path}: no records found in this {kind.upper()} file")
    if len(raw) > MAX_RECORDS:
        raise InputError(f"{path}: {len(raw):,} records; lit-search dedupe takes at most {MAX_RECORDS:,} "
                         "(split the file, or dedupe each database's export first)")
    warnings = _assign_ids(raw) + _cut_records_warning(raw)
    papers = [paper_from_fields(record.fields, authors=record.authors) for record in raw]
    shortened = sum(_shorten_long_fields(paper) for paper in papers)
    if shortened:
        warnings.append(f"{shortened} field(s) longer than {MAX_COMPARED_CHARS // 1024} KiB were compared by their "
                        f"first {MAX_COMPARED_CHARS // 1024} KiB (--merged keeps them whole)")
    sources = [record.source or SourceRecord(kind) for record in raw]
    return LoadedRecords(papers=papers, format=kind, warnings=warnings, sources=sources)


# Text fields beyond this length (a pasted full text) are compared by their start only; the
# record as written (``sources``) keeps them whole for --merged.
MAX_COMPARED_CHARS = 64 * 1024


def _shorten_long_fields(paper: Paper) -> int:
    shortened = 0
    for name in ("title", "abstract", "journal", "pages", "volume", "issue"):
        value = getattr(paper, name)
        if isinstance(value, str) and len(value) > MAX_COMPARED_CHARS:
            setattr(paper, name, value[:MAX_COMPARED_CHARS])
            shortened += 1
    if len(paper.authors) > 5_000:
        paper.authors = paper.authors[:5_000]
        shortened += 1
    return shortened


def _cut_records_warning(raw: list[RawRecord]) -> list[str]:
    """A RIS record without its ER line: the file may have been cut (a failed download or copy)."""
    cut = [(position, record) for position, record in enumerate(raw, start=1)
           if record.source is not None and not record.source.complete]
    if not cut:
        return []
    named = "; ".join(f"record {position} (ID {record.fields.get('ID')}, "
                      f"{_short_title(record.fields.get('title'))})" for position, record in cut[:3])
    more = f" and {len(cut) - 3} more" if len(cut) > 3 else ""
    return [f"{named}{more} end without an 'ER  -' line: the file may be cut short; "
            "each was read as far as it goes (check its fields)"]


def _short_title(title: str | None) -> str:
    text = " ".join((title or "").split())
    if not text:
        return "no title"
    return repr(text if len(text) <= 60 else text[:59] + "…")


# What `dedupe` takes (README, docs/safety.md): about 330 MB of memory per 50,000 records of
# ordinary exports (bench/dedupe_benchmark.py --memory measures it), so these keep a run
# within about 1.5 GB; larger inputs are refused before any work, not read until memory runs out.
MAX_INPUT_BYTES = 100 * MB
MAX_RECORDS = 200_000


def _read_bytes(path: Path) -> bytes:
    return read_input(path, MAX_INPUT_BYTES, "an input of lit-search dedupe")


_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode_text(data: bytes, source: str | Path = "input") -> str:
    """Text of an export: BOM-marked encodings, else UTF-8, else line by line UTF-8,
    Windows-1252 or Latin-1.

    Line ends become "\\n". Line by line, because exports concatenated from several databases
    mix encodings. Windows-1252 comes before Latin-1 because exports labelled "ANSI" or
    "Latin-1" by Windows tools use its curly quotes and dashes (0x80-0x9F).
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(codec, errors="replace")
            break
    else:
        if b"\x00" in data:
            text = _decode_utf16_without_bom(data, source)
        else:
            text = _decode_without_bom(data)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode_utf16_without_bom(data: bytes, source: str | Path) -> str:
    """UTF-16 text that lost its BOM (some Windows tools write it so): mostly-ASCII text puts
    a NUL in every second byte, after (little-endian) or before (big-endian) each letter."""
    sample = data[:8192]
    pairs = len(sample) // 2
    if len(data) % 2 == 0 and pairs:
        odd_nuls = sample[1::2].count(0) / pairs
        even_nuls = sample[0::2].count(0) / pairs
        codec = "utf-16-le" if odd_nuls > 0.3 and even_nuls < 0.05 else (
            "utf-16-be" if even_nuls > 0.3 and odd_nuls < 0.05 else None)
        if codec:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                pass
    raise InputError(f"{source}: not a text file (it contains NUL bytes and is not UTF-16)")


def _decode_without_bom(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "\n".join(_decode_line(line) for line in data.split(b"\n"))


def _decode_line(line: bytes) -> str:
    for codec in ("utf-8", "cp1252"):
        try:
            return line.decode(codec)
        except UnicodeDecodeError:
            continue
    return line.decode("latin-1")  # every byte is a Latin-1 character: never fails


# --------------------------------------------------------------------------- format detection

_RIS_TAG_LINE = re.compile(r"^([A-Z][A-Z0-9]) {1,2}- ?(.*)$")
_RIS_START = re.compile(r"^TY {1,2}- ?\S", re.M)
_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.M)
_SNIFF_CHARS = 50_000


def detect_format(path: Path, text: str) -> str:
    """The format by extension; by content for .txt and unknown extensions."""
    extension = path.suffix.lower()
    named = readable_from_path(path.name)
    if named:
        return named
    sniffed = sniff_format(text)
    if sniffed:
        return sniffed
    shown = f"extension {extension}" if extension else "no extension"
    raise InputError(
        f"{path}: cannot tell the format ({shown}, and the content looks like none of them); "
        "expected CSV (.csv), RIS (.ris or .txt) or BibTeX (.bib)"
    )


def sniff_format(text: str) -> str | None:
    """"ris", "bibtex" or "csv" from the first part of the text; None when it is none of them."""
    head = text[:_SNIFF_CHARS]
    if _RIS_START.search(head):
        return "ris"
    if _BIBTEX_ENTRY.search(head):
        return "bibtex"
    first_line = head.lstrip("\n").split("\n", 1)[0]
    if _known_columns(_csv_header(first_line)):
        return "csv"
    return None


# --------------------------------------------------------------------------- CSV

# Column names of other tools' exports, mapped to the BibTeX-style names the reader uses.
_COLUMN_ALIASES = {"id": "ID", "entrytype": "ENTRYTYPE", "entry_type": "ENTRYTYPE", "authors": "author",
                   "author(s)": "author", "publication year": "year", "journal title": "journal",
                   "source title": "journal", "container-title": "journal", "secondary title": "journal",
                   "issue": "number", "page": "pages", "pubmed id": "pmid", "arxiv": "eprint", "arxiv_id": "eprint"}
_RECORD_COLUMNS = {"ID", "title", "author", "year", "doi", "journal", "booktitle", "abstract", "pmid"}


def column_name(header: str) -> str:
    """A CSV header as the BibTeX-style field name the readers use ("Authors" -> "author")."""
    name = header.strip().lstrip("\ufeff").strip()
    return _COLUMN_ALIASES.get(name.lower(), name.lower() if name not in ("ID", "ENTRYTYPE") else name)


def _csv_delimiter(header_line: str) -> str:
    """The delimiter the header line uses most: comma, semicolon (European Excel) or tab."""
    return max((",", ";", "\t"), key=header_line.count)


def _csv_header(header_line: str) -> list[str]:
    try:
        row = next(csv.reader([header_line], delimiter=_csv_delimiter(header_line)), [])
    except csv.Error:
        return []
    return [column_name(cell) for cell in row]


def _known_columns(columns: Iterable[str]) -> set[str]:
    return set(columns) & _RECORD_COLUMNS


def parse_csv(text: str, source: str | Path = "input") -> list[RawRecord]:
    """One record per row; the header names the fields (missing columns and cells allowed)."""
    text = text.lstrip("\n")
    header_line = text.split("\n", 1)[0]
    _allow_long_csv_fields()
    reader = csv.reader(io.StringIO(text), delimiter=_csv_delimiter(header_line))
    try:
        header = next(reader, [])
        columns = [column_name(cell) for cell in header]
        if not _known_columns(columns):
            raise InputError(f"{source}: the CSV header names none of the expected columns "
                             "(ID, title, author, year, doi, journal, abstract)")
        records = []
        for row in reader:
            if any(cell.strip() for cell in row):  # blank lines are not records
                fields = {c: cell for c, cell in zip(columns, row) if c}
                own = [(name.lstrip("\ufeff"), cell) for name, cell in zip(header, row)]
                own += [(name.lstrip("\ufeff"), "") for name in header[len(row):]]  # short rows keep every column
                records.append(RawRecord(fields=fields, source=SourceRecord(
                    "csv", fields.get("ENTRYTYPE", ""), own)))
    except csv.Error as exc:
        raise InputError(f"{source}: line {reader.line_num}: malformed CSV: {exc}") from None
    return records


# csv's own limit is 128 KiB per field, which one long abstract or a pasted full text can
# pass; 64 MiB still stops a file without line ends from being read as one field.
CSV_FIELD_LIMIT = 64 * 1024 * 1024


def _allow_long_csv_fields() -> None:
    if csv.field_size_limit() < CSV_FIELD_LIMIT:
        csv.field_size_limit(CSV_FIELD_LIMIT)


# --------------------------------------------------------------------------- RIS

_RIS_CONTAINER_TAGS = ("JF", "JO", "T2", "JA", "J2", "BT", "T3")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/", re.I)


def parse_ris(text: str, source: str | Path = "input") -> list[RawRecord]:
    """Records between ``TY  -`` and ``ER  -``; untagged lines continue the previous tag's value.

    Repeated tags (one ``AU`` per author, several ``UR``) keep every value. A record left
    open at the end of the file, or by the next ``TY``, is closed there and marked incomplete
    (the loader warns, naming it: the file may have been cut).
    """
    records: list[SourceRecord] = []
    current: SourceRecord | None = None
    lines = text.split("\n")
    first_line = 0

    def close(last_line: int, complete: bool) -> None:
        current.text = "\n".join(lines[first_line : last_line + 1])
        current.complete = complete
        records.append(current)

    for number, line in enumerate(lines):
        match = _RIS_TAG_LINE.match(line)
        if match:
            tag, value = match.group(1), (match.group(2) or "").strip()
            if tag == "TY":
                if current is not None:
                    close(_last_content_line(lines, first_line, number), False)
                current, first_line = SourceRecord("ris", value, [("TY", value)]), number
            elif current is None:
                continue  # export headers before the first record
            elif tag == "ER":
                close(number, True)
                current = None
            else:
                current.fields.append((tag, value))
        elif current is not None and len(current.fields) > 0 and line.strip():
            tag, value = current.fields[-1]
            current.fields[-1] = (tag, f"{value} {line.strip()}".strip())
    if current is not None:
        close(_last_content_line(lines, first_line, len(lines)), False)
    if not records:
        raise InputError(f"{source}: no RIS records found (no line starting 'TY  - ')")
    return [_ris_record(record) for record in records]


def _last_content_line(lines: list[str], first: int, stop: int) -> int:
    """The last non-blank line before ``stop`` (a cut record's text ends there)."""
    last = stop - 1
    while last > first and not lines[last].strip():
        last -= 1
    return last


def _ris_record(record: SourceRecord) -> RawRecord:
    tags: dict[str, list[str]] = {}
    for tag, value in record.fields:
        tags.setdefault(tag, []).append(value)

    def first(*names: str) -> str | None:
        return next((value for name in names for value in tags.get(name, []) if value), None)

    links = [value for name in ("UR", "L1", "L2", "L3", "LK") for value in tags.get(name, []) if value]
    doi = next((d for d in (normalize_doi(v) for v in [*tags.get("DO", []), *tags.get("DI", []), *links]) if d), None)
    arxiv = next((link for link in links if _ARXIV_URL.search(link)), None)
    fields = {
        "ID": first("ID") or "",
        "ENTRYTYPE": RIS_TYPES.get((first("TY") or "").upper(), "misc"),
        "title": first("TI", "T1", "CT") or "",
        "journal": first(*_RIS_CONTAINER_TAGS) or "",
        "year": first("PY", "Y1", "DA", "Y2") or "",
        "volume": first("VL") or "",
        "number": first("IS", "CP") or "",
        "pages": _ris_pages(first("SP"), first("EP")),
        "doi": doi or "",
        "eprint": arxiv or "",
        "abstract": " ".join(tags.get("AB") or tags.get("N2") or []),  # AB and N2 repeat one abstract
        "url": links[0] if links else "",
    }
    authors = [name for tag in ("AU", "A1") for name in tags.get(tag, []) if name]
    return RawRecord(fields=fields, authors=authors, source=record)


def _ris_pages(start: str | None, end: str | None) -> str:
    if start and end and not re.search(r"[-–]", start):
        return f"{start}-{end}"
    return start or end or ""


# --------------------------------------------------------------------------- record IDs

_PARSERS = {"csv": parse_csv, "ris": parse_ris, "bibtex": parse_bibtex}
GENERATED_ID = "rec_{:06d}"


def _assign_ids(records: list[RawRecord]) -> list[str]:
    """Give each record a unique ID (its own, else ``rec_NNNNNN``); warnings for renamed repeats."""
    own = [(record.fields.get("ID") or "").strip() for record in records]
    used = {record_id for record_id in own if record_id}
    seen: set[str] = set()
    renamed: Counter[str] = Counter()
    for position, (record, record_id) in enumerate(zip(records, own), start=1):
        if not record_id:
            record_id = _unused(GENERATED_ID.format(position), used)
        elif record_id in seen:
            renamed[record_id] += 1
            record_id = _unused(record_id, used, start=2)
        seen.add(record_id)
        used.add(record_id)
        record.fields["ID"] = record_id
    return [_renamed_warning(renamed)] if renamed else []


def _unused(candidate: str, used: set[str], start: int | None = None) -> str:
    """`candidate` if free, else `candidate_2`, `candidate_3`, …"""
    if start is None and candidate not in used:
        return candidate
    number = start or 2
    while f"{candidate}_{number}" in used:
        number += 1
    return f"{candidate}_{number}"


def _renamed_warning(renamed: Counter[str]) -> str:
    shown = ", ".join(sorted(renamed)[:5]) + (", …" if len(renamed) > 5 else "")
    total = sum(renamed.values())
    return (f"{total} record(s) repeat an ID already used in the file ({shown}); "
            "the repeats were renamed with _2, _3, … so that every record keeps its own ID")
