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
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .identifiers import normalize_arxiv_id, normalize_doi, normalize_pmid
from .records import Paper

PROVIDER = "import"
FORMATS = ("csv", "ris", "bibtex")
EXTENSIONS = {".csv": "csv", ".ris": "ris", ".bib": "bibtex", ".bibtex": "bibtex"}
# ".txt" is what several databases (Web of Science, Scopus, Ovid) call their RIS export, so
# it is sniffed like an unknown extension.

_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_AUTHOR_SEPARATOR = re.compile(r"\s+and\s+", re.I)
_SEMICOLON_SEPARATOR = re.compile(r"\s*;\s*")


class InputError(ValueError):
    """The input cannot be read as bibliographic records; the message is one line for the user."""


@dataclass
class LoadedRecords:
    papers: list[Paper]
    format: str  # one of FORMATS
    warnings: list[str] = field(default_factory=list)


@dataclass
class _RawRecord:
    """One record as a flat BibTeX-style field mapping, before it becomes a Paper."""

    fields: dict[str, str]
    authors: list[str] | None = None  # already split (RIS, BibTeX); None: split fields["author"]


# --------------------------------------------------------------------------- shared helpers


def split_bibtex_authors(value: str | None) -> list[str]:
    """``"Last, F. and Last2, G."`` -> ``["Last, F.", "Last2, G."]`` (BibTeX/CSV convention).

    An ``and`` inside braces belongs to a name (``{Barnes and Noble}``); a list without any
    ``and`` but with semicolons (``"Smith, J.; Jones, K."``) is split at the semicolons.
    """
    if not value or not value.strip():
        return []
    names = _split_outside_braces(value.strip(), _AUTHOR_SEPARATOR)
    if len(names) == 1 and ";" in value:
        names = _split_outside_braces(value.strip(), _SEMICOLON_SEPARATOR)
    cleaned = (_strip_outer_braces(name.strip().strip(";").strip()) for name in names)
    return [name for name in cleaned if name]


def _split_outside_braces(text: str, separator: re.Pattern) -> list[str]:
    if "{" not in text:
        return separator.split(text)
    parts, start = [], 0
    for match in separator.finditer(text):
        if _brace_depth(text, match.start()) == 0:
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return parts


def _brace_depth(text: str, end: int) -> int:
    return text.count("{", 0, end) - text.count("}", 0, end)


def _strip_outer_braces(name: str) -> str:
    """``{World Health Organization}`` -> ``World Health Organization`` (one enclosing pair only)."""
    if len(name) >= 2 and name[0] == "{" and name[-1] == "}" and all(
        _brace_depth(name, end) > 0 for end in range(1, len(name) - 1)
    ):
        return name[1:-1].strip()
    return name


def parse_year(value: str | None) -> int | None:
    """First plausible four-digit year in the field ("2019", "2019-05", "Epub 2019")."""
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def _clean(value: str | None) -> str | None:
    text = (value or "").strip()
    return text or None


def paper_from_fields(
    fields: Mapping[str, str | None], *, provider: str = PROVIDER, authors: Sequence[str] | None = None
) -> Paper:
    """One Paper from a flat mapping of BibTeX-style field names (missing fields allowed).

    `authors`, when given, replaces splitting ``fields["author"]`` (readers that get one name
    per line or split at brace level pass their list).
    """
    get = lambda name: _clean(fields.get(name))  # noqa: E731 - a short local accessor reads best here
    doi = normalize_doi(get("doi")) or normalize_doi(get("url"))  # a doi.org link is a DOI
    external_ids: dict[str, str] = {}
    record_id = get("ID")
    if record_id:
        external_ids["ID"] = record_id
    entry_type = get("ENTRYTYPE")
    return Paper(
        provider=provider,
        title=get("title") or "",
        authors=list(authors) if authors is not None else split_bibtex_authors(get("author")),
        year=parse_year(get("year")),
        journal=get("journal") or get("booktitle") or get("container_title"),
        doi=doi,
        pmid=normalize_pmid(get("pmid")) if get("pmid") else None,
        arxiv_id=normalize_arxiv_id(get("eprint")) if get("eprint") else None,
        abstract=get("abstract"),
        publication_types=[entry_type.lower()] if entry_type else [],
        external_ids=external_ids,
        volume=get("volume"),
        issue=get("number") or get("issue"),
        pages=get("pages"),
        url=get("url"),
    )


def read_benchmark_csv(path: str | Path) -> list[Paper]:
    """Records of a benchmark ``records_pre_merged.csv`` (ID,title,author,year,journal,...)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return papers_from_rows(csv.DictReader(handle))


def papers_from_rows(rows: Iterable[Mapping[str, str | None]]) -> list[Paper]:
    return [paper_from_fields(row) for row in rows]


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
    warnings = _assign_ids(raw)
    papers = [paper_from_fields(record.fields, authors=record.authors) for record in raw]
    return LoadedRecords(papers=papers, format=kind, warnings=warnings)


def _read_bytes(path: Path) -> bytes:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


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
            raise InputError(f"{source}: not a text file (it contains NUL bytes)")
        text = _decode_without_bom(data)
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
    if extension in EXTENSIONS:
        return EXTENSIONS[extension]
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


def _column_name(header: str) -> str:
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
    return [_column_name(cell) for cell in row]


def _known_columns(columns: Iterable[str]) -> set[str]:
    return set(columns) & _RECORD_COLUMNS


def parse_csv(text: str, source: str | Path = "input") -> list[_RawRecord]:
    """One record per row; the header names the fields (missing columns and cells allowed)."""
    text = text.lstrip("\n")
    header_line = text.split("\n", 1)[0]
    reader = csv.reader(io.StringIO(text), delimiter=_csv_delimiter(header_line))
    try:
        columns = [_column_name(cell) for cell in next(reader, [])]
        if not _known_columns(columns):
            raise InputError(f"{source}: the CSV header names none of the expected columns "
                             "(ID, title, author, year, doi, journal, abstract)")
        records = []
        for row in reader:
            if any(cell.strip() for cell in row):  # blank lines are not records
                records.append(_RawRecord(fields={c: cell for c, cell in zip(columns, row) if c}))
    except csv.Error as exc:
        raise InputError(f"{source}: line {reader.line_num}: malformed CSV: {exc}") from None
    return records


# --------------------------------------------------------------------------- RIS

# RIS reference types -> BibTeX entry types, so every reader labels records alike.
_RIS_TYPES = {"JOUR": "article", "JFULL": "article", "EJOUR": "article", "MGZN": "article", "NEWS": "article",
              "ABST": "article", "INPR": "article", "CONF": "inproceedings", "CPAPER": "inproceedings",
              "BOOK": "book", "EBOOK": "book", "EDBOOK": "book", "CHAP": "incollection", "ECHAP": "incollection",
              "THES": "phdthesis", "RPRT": "techreport", "UNPB": "unpublished", "MANSCPT": "unpublished"}
_RIS_CONTAINER_TAGS = ("JF", "JO", "T2", "JA", "J2", "BT", "T3")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/", re.I)


def parse_ris(text: str, source: str | Path = "input") -> list[_RawRecord]:
    """Records between ``TY  -`` and ``ER  -``; untagged lines continue the previous tag's value.

    Repeated tags (one ``AU`` per author, several ``UR``) keep every value. A record left
    open at the end of the file, or by the next ``TY``, is closed there.
    """
    records: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] | None = None
    last_tag = None
    for line in text.split("\n"):
        match = _RIS_TAG_LINE.match(line)
        if match:
            tag, value = match.group(1), (match.group(2) or "").strip()
            if tag == "TY":
                if current is not None:
                    records.append(current)
                current, last_tag = {"TY": [value]}, "TY"
            elif current is None:
                continue  # export headers before the first record
            elif tag == "ER":
                records.append(current)
                current, last_tag = None, None
            else:
                current.setdefault(tag, []).append(value)
                last_tag = tag
        elif current is not None and last_tag and line.strip():
            values = current[last_tag]
            values[-1] = f"{values[-1]} {line.strip()}".strip()
    if current is not None:
        records.append(current)
    if not records:
        raise InputError(f"{source}: no RIS records found (no line starting 'TY  - ')")
    return [_ris_record(tags) for tags in records]


def _ris_record(tags: dict[str, list[str]]) -> _RawRecord:
    def first(*names: str) -> str | None:
        return next((value for name in names for value in tags.get(name, []) if value), None)

    links = [value for name in ("UR", "L1", "L2", "L3", "LK") for value in tags.get(name, []) if value]
    doi = next((d for d in (normalize_doi(v) for v in [*tags.get("DO", []), *tags.get("DI", []), *links]) if d), None)
    arxiv = next((link for link in links if _ARXIV_URL.search(link)), None)
    fields = {
        "ID": first("ID") or "",
        "ENTRYTYPE": _RIS_TYPES.get((first("TY") or "").upper(), "misc"),
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
    return _RawRecord(fields=fields, authors=authors)


def _ris_pages(start: str | None, end: str | None) -> str:
    if start and end and not re.search(r"[-–]", start):
        return f"{start}-{end}"
    return start or end or ""


# --------------------------------------------------------------------------- BibTeX

_ENTRY_HEAD = re.compile(r"[ \t\n]*([A-Za-z][\w-]*)[ \t\n]*([{(])")
_KEY = re.compile(r"[ \t\n]*([^\s,={}()\"#%']*)[ \t\n]*")
_FIELD_NAME = re.compile(r"[ \t\n]*([A-Za-z_][\w:.+-]*)[ \t\n]*=[ \t\n]*")
_DELIMITED_SPECIAL = re.compile(r'[\\{}"]')
_SPACE_RUN = re.compile(r"\s*")
_BETWEEN_FIELDS = re.compile(r"(?:\s|,|%[^\n]*)*")
_MACRO_NAME = re.compile(r"[A-Za-z_][\w:.+-]*")
_NUMBER = re.compile(r"\d+")
_MONTHS = {name: str(number) for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
# Fields copied byte for byte apart from TeX escapes: identifiers and links.
_VERBATIM_FIELDS = {"doi", "url", "eprint", "pmid"}


class _BibtexScanner:
    """A reader of BibTeX's grammar: entries, @string macros, # concatenation, comments.

    Text outside entries is a comment (BibTeX's own rule), so "%" lines and stray notes
    need no special case. @comment and @preamble blocks are skipped.
    """

    def __init__(self, text: str, source: str | Path):
        self.text = text
        self.source = source
        self.pos = 0
        self.macros: dict[str, str] = dict(_MONTHS)
        self.entry: tuple[str, int] | None = None  # (key, start offset) of the entry being read, for errors

    def entries(self) -> list[tuple[str, str, dict[str, str]]]:
        """(entry type, key, raw field values) of every entry, in file order."""
        found = []
        while (at := self.text.find("@", self.pos)) != -1:
            self.pos = at + 1
            if self._in_percent_comment(at):
                continue  # "% @article{old, …" is a commented-out entry
            head = _ENTRY_HEAD.match(self.text, self.pos)
            if not head:
                continue  # an "@" in the free text between entries
            kind, closer = head.group(1).lower(), ")" if head.group(2) == "(" else "}"
            self.pos = head.end()
            self.entry = ("@" + kind, at)
            if kind in ("comment", "preamble"):
                self._skip_block(closer, at)
            elif kind == "string":
                self._read_macro(closer, at)
            else:
                key, fields = self._read_entry(closer, at)
                found.append((kind, key, fields))
            self.entry = None
        return found

    # -- pieces of the grammar

    def _read_entry(self, closer: str, start: int) -> tuple[str, dict[str, str]]:
        key_match = _KEY.match(self.text, self.pos)
        key, after_key = key_match.group(1), key_match.end()
        following = self._char_at(after_key)
        if following == "=":
            key = ""  # "@article{title = …": an entry without a key; the fields start here
        self.entry = (key or "(no key)", start)
        if following in (",", closer):
            self.pos = after_key + 1
            if following == closer:
                return key, {}
        elif following != "=":
            self._fail(after_key, f"unexpected {self._describe(after_key)} after the entry key")
        return key, self._read_fields(closer, start)

    def _read_fields(self, closer: str, start: int) -> dict[str, str]:
        fields: dict[str, str] = {}
        while True:
            self._skip_space_and_commas()
            if self.pos >= len(self.text):
                self._fail(start, "the entry never closes (unbalanced braces or quotes?)")
            if self.text[self.pos] == closer:
                self.pos += 1
                return fields
            name = _FIELD_NAME.match(self.text, self.pos)
            if not name:
                self._fail(self.pos, f"expected a field name, found {self._describe(self.pos)}")
            self.pos = name.end()
            value = self._read_value(start)
            fields.setdefault(name.group(1).lower(), value)  # a repeated field: the first one counts
            self._skip_space()
            if self._char_at(self.pos) not in (",", closer):
                self._fail(self.pos, f"expected ',' or '{closer}' after field {name.group(1)}, "
                                     f"found {self._describe(self.pos)}{self._unbalanced_hint()}")

    def _read_value(self, start: int) -> str:
        """A value: braced or quoted strings, numbers and macro names joined with '#'."""
        parts = []
        while True:
            self._skip_space()
            char = self._char_at(self.pos)
            if char == "{":
                parts.append(self._read_delimited("{", start))
            elif char == '"':
                parts.append(self._read_delimited('"', start))
            elif number := _NUMBER.match(self.text, self.pos):
                parts.append(number.group())
                self.pos = number.end()
            elif macro := _MACRO_NAME.match(self.text, self.pos):
                # An undefined macro (a journal abbreviation from a missing .bib) stays as its name.
                parts.append(self.macros.get(macro.group().lower(), macro.group()))
                self.pos = macro.end()
            else:
                self._fail(self.pos, f"expected a field value, found {self._describe(self.pos)}")
            self._skip_space()
            if self._char_at(self.pos) != "#":
                return "".join(parts)
            self.pos += 1

    def _read_delimited(self, opener: str, start: int) -> str:
        """The text inside {…} or "…", inner braces kept; a quote inside braces does not end it."""
        depth, text = 0, self.text
        index = self.pos + 1
        while True:
            special = _DELIMITED_SPECIAL.search(text, index)  # jump to the next character that matters
            if special is None:
                self._fail(start, "the entry never closes (unbalanced braces or quotes?)")
            index, char = special.start(), special.group()
            if char == "\\":
                index += 2  # an escaped brace or quote does not count
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0 and opener == "{":
                    break
                depth -= 1
                if depth < 0:
                    self._fail(index, "unbalanced '}'")
            elif opener == '"' and depth == 0:
                break
            index += 1
        value = text[self.pos + 1 : index]
        self.pos = index + 1
        return value

    def _read_macro(self, closer: str, start: int) -> None:
        name = _FIELD_NAME.match(self.text, self.pos)
        if not name:
            self._fail(self.pos, "malformed @string definition")
        self.pos = name.end()
        self.macros[name.group(1).lower()] = self._read_value(start)
        self._skip_space()
        if self._char_at(self.pos) != closer:
            self._fail(self.pos, f"expected '{closer}' to close the @string definition")
        self.pos += 1

    def _skip_block(self, closer: str, start: int) -> None:
        """Skip a @comment/@preamble body; an unclosed one ends at its line (comments are lenient)."""
        opener = "(" if closer == ")" else "{"
        depth, index = 1, self.pos
        while index < len(self.text) and depth:
            depth += {opener: 1, closer: -1}.get(self.text[index], 0)
            index += 1
        if depth:
            line_end = self.text.find("\n", start)
            index = len(self.text) if line_end == -1 else line_end
        self.pos = index

    # -- small helpers

    def _char_at(self, index: int) -> str:
        return self.text[index] if index < len(self.text) else ""

    def _skip_space(self) -> None:
        self.pos = _SPACE_RUN.match(self.text, self.pos).end()

    def _skip_space_and_commas(self) -> None:
        """Between fields: whitespace, stray commas and "%" comment lines (biber allows them)."""
        self.pos = _BETWEEN_FIELDS.match(self.text, self.pos).end()

    def _in_percent_comment(self, index: int) -> bool:
        line_start = self.text.rfind("\n", 0, index) + 1
        return self.text[line_start:index].lstrip().startswith("%")

    def _describe(self, index: int) -> str:
        char = self._char_at(index)
        return f"'{char}'" if char else "the end of the file"

    def _unbalanced_hint(self) -> str:
        return " (a brace left open in the entry?)" if self._char_at(self.pos) == "@" else ""

    def _line(self, index: int) -> int:
        return self.text.count("\n", 0, index) + 1

    def _fail(self, index: int, problem: str):
        where = f"line {self._line(index)}"
        if self.entry is not None:
            key, start = self.entry
            where += f" (in {key}, which starts on line {self._line(start)})" if self._line(start) != self._line(
                index) else f" (in {key})"
        raise InputError(f"{self.source}: {where}: {problem}")


def parse_bibtex(text: str, source: str | Path = "input") -> list[_RawRecord]:
    """Records of a .bib file, TeX accents and escapes decoded to Unicode."""
    entries = _BibtexScanner(text, source).entries()
    if not entries and not _BIBTEX_ENTRY.search(text):
        raise InputError(f"{source}: no BibTeX entries found (no line starting '@type{{')")
    return [_bibtex_record(kind, key, raw) for kind, key, raw in entries]


def _bibtex_record(kind: str, key: str, raw: dict[str, str]) -> _RawRecord:
    def value(*names: str) -> str:
        for name in names:
            if raw.get(name, "").strip():
                return decode_latex(raw[name], verbatim=name in _VERBATIM_FIELDS)
        return ""

    eprint_kind = value("archiveprefix", "eprinttype").lower()
    eprint = value("eprint")
    fields = {
        "ID": key,
        "ENTRYTYPE": kind,
        "title": value("title"),
        "journal": value("journal", "journaltitle"),
        "booktitle": value("booktitle"),
        "year": value("year", "date"),
        "volume": value("volume"),
        "number": value("number", "issue"),
        "pages": value("pages").replace("–", "-"),  # TeX's en dash "47--65" is the range "47-65"
        "doi": value("doi"),
        "pmid": value("pmid") or (eprint if eprint_kind == "pubmed" else ""),
        "eprint": eprint if eprint_kind in ("", "arxiv") else "",
        "abstract": value("abstract"),
        "url": value("url"),
    }
    authors = [decode_latex(name) for name in split_bibtex_authors(raw.get("author"))]
    return _RawRecord(fields=fields, authors=[name for name in authors if name])


# --------------------------------------------------------------------------- TeX -> Unicode

_COMBINING = {"`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306",
              ".": "\u0307", '"': "\u0308", "r": "\u030a", "H": "\u030b", "v": "\u030c", "d": "\u0323",
              "c": "\u0327", "k": "\u0328", "b": "\u0331"}
_ACCENT_BASE = r"(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"
# Symbol accents take their letter directly (\"u); letter accents need a brace or space (\c c, \v{s}).
_SYMBOL_ACCENT = re.compile(r"""\\([`'^~=."])\s*""" + _ACCENT_BASE)
_LETTER_ACCENT = re.compile(r"\\([uvHckrdb])(?:\s*\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|\s+(\\[ij](?![A-Za-z])|[A-Za-z]))")
_SPECIAL_LETTERS = {"ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "o": "ø",
                    "O": "Ø", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ"}
_SPECIAL_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\{\}|[ \t\n]+)?")
# Characters that must survive the final brace and dollar stripping are parked in the
# private-use area while decoding and put back at the end.
_KEEP = {"{": "\ue010", "}": "\ue011", "$": "\ue012", "~": "\ue013", "\\": "\ue014"}
_NAMED_SYMBOLS = {"textbackslash": _KEEP["\\"], "textbraceleft": _KEEP["{"], "textbraceright": _KEEP["}"],
                  "textasciitilde": _KEEP["~"], "textasciicircum": "^", "textdollar": _KEEP["$"],
                  "textunderscore": "_", "textendash": "–", "textemdash": "—", "ldots": "…", "dots": "…",
                  "textquoteright": "’", "textquoteleft": "‘", "textquotedblleft": "“", "textquotedblright": "”",
                  "textregistered": "®", "texttrademark": "™", "copyright": "©", "textdegree": "°", "pounds": "£",
                  "euro": "€", "S": "§", "P": "¶", "textperiodcentered": "·", "times": "×", "pm": "±",
                  "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "neq": "≠", "approx": "≈", "infty": "∞"}
_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
          "rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega")
_GREEK_LETTERS = dict(zip(_GREEK.split(), "αβγδεεζηθϑικλμνξπρστυφϕχψωΓΔΘΛΞΠΣΥΦΨΩ"))
# Font switches apply to the rest of their group ("{\\em E. coli}"): the text stays, the switch goes.
_FONT_SWITCHES = {"em", "it", "bf", "sc", "rm", "sf", "tt", "sl", "up", "itshape", "bfseries", "scshape", "upshape",
                  "slshape", "mdseries", "normalfont", "small", "footnotesize", "large", "Large", "tiny", "relax",
                  "protect", "noopsort", "noop"}
_NAMED_COMMAND = re.compile(r"\\([A-Za-z]+)(?:\{\}|[ \t\n]+)?")
_ESCAPED_CHAR = re.compile(r"\\([&%$#_{}\\ ,;:!/\-@~^'\"`=.])")
_ESCAPED_VALUES = {"{": _KEEP["{"], "}": _KEEP["}"], "$": _KEEP["$"], "\\": " ", " ": " ", ",": " ", ";": " ",
                   ":": " ", "!": "", "/": "", "-": "", "@": "", "~": _KEEP["~"]}
_DASHES = (("---", "—"), ("--", "–"))
_SPACE = re.compile(r"\s+")
_TEX_MARKUP = re.compile(r"[\\{}$~]|--")
_VERBATIM_ESCAPE = re.compile(r"\\([&%$#_~])")
_VERBATIM_DROP = re.compile(r"[{}\s]")


def decode_latex(value: str, *, verbatim: bool = False) -> str:
    """Unicode text of a BibTeX value: accents (``{\\"u}``, ``\\'{e}``, ``\\c{c}``), special letters
    (``\\ss``, ``\\o``), escapes (``\\&``, ``\\%``), dashes and Greek letters; braces and math
    dollars removed, whitespace collapsed. Formatting commands (``\\emph{x}``) keep their text,
    unknown commands their name.

    `verbatim` (DOIs, URLs): only escapes and braces are removed, whitespace dropped.
    """
    if verbatim:
        return _VERBATIM_DROP.sub("", _VERBATIM_ESCAPE.sub(r"\1", value))
    if not _TEX_MARKUP.search(value):  # most values: plain text, only whitespace to tidy
        text = " ".join(value.split())
        return text if text.isascii() else unicodedata.normalize("NFC", text)
    text = value
    if "\\" in text:
        text = _SYMBOL_ACCENT.sub(_compose_accent, text)
        text = _LETTER_ACCENT.sub(_compose_accent, text)
        text = _SPECIAL_LETTER.sub(lambda m: _SPECIAL_LETTERS[m.group(1)], text)
        text = _ESCAPED_CHAR.sub(lambda m: _ESCAPED_VALUES.get(m.group(1), m.group(1)), text)
        text = _NAMED_COMMAND.sub(_named_command, text)
    for tex, dash in _DASHES:
        text = text.replace(tex, dash)
    text = text.replace("~", " ").replace("{", "").replace("}", "").replace("$", "")
    for char, parked in _KEEP.items():
        text = text.replace(parked, char)
    return unicodedata.normalize("NFC", _SPACE.sub(" ", text).strip())


def _compose_accent(match: re.Match) -> str:
    base = match.group(2) or match.group(3)
    letter = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", letter + _COMBINING[match.group(1)])


def _named_command(match: re.Match) -> str:
    name = match.group(1)
    if name in _NAMED_SYMBOLS:
        return _NAMED_SYMBOLS[name]
    if name in _GREEK_LETTERS:
        return _GREEK_LETTERS[name]
    if name in _FONT_SWITCHES:
        return ""
    # Formatting (\emph{x}, \textit{x}) keeps its argument, which follows in braces;
    # an unknown word command (\LaTeX) keeps its name.
    return "" if match.end() < len(match.string) and match.string[match.end()] == "{" else name


# --------------------------------------------------------------------------- record IDs

_PARSERS = {"csv": parse_csv, "ris": parse_ris, "bibtex": parse_bibtex}
GENERATED_ID = "rec_{:06d}"


def _assign_ids(records: list[_RawRecord]) -> list[str]:
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
