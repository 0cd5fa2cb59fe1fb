"""The papers a push sends: ids (library papers first, else looked up), a results file, the library.

``--from FILE`` takes what lit-search writes: the JSON of a search, snowball or ``rerun``
(``--format json``: its ``results``), a search record (``--record``: ids only, so each paper is
looked up), or ``library export --format json`` (a list of saved records); and a BibTeX, RIS or
CSV export, read as ``lit-search dedupe`` reads it (any encoding). The file must be a regular
file of at most 50 MB (a FIFO, a device or a folder is refused before anything is read). An
entry that is no paper is skipped and counted, never dropped unsaid. A file of another kind
(CSL-JSON, Markdown, anything that is not JSON) is refused in one line saying what --from takes.

Every paper that lacks something a citation needs is completed from its ids (zotero/completion.py).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..biblio.formats import FORMAT_LABELS, READABLE_FORMATS, format_from_path
from ..biblio.readers import decode_text, sniff_format
from ..core.errors import InputError
from ..core.records import Paper
from ..library.record import paper_from_record

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_PAPERS = 10_000
# A search JSON written before it carried every author kept five; its entries have no "volume" key.
OLD_SEARCH_JSON_AUTHORS = 5
RECORD_IDS = ("doi", "pmid", "arxiv_id", "paper_id", "openalex_id")
FROM_TAKES = ("--from takes lit-search's JSON (a search or snowball with --format json, a search record, a library "
              "export) or a BibTeX, RIS or CSV export")


@dataclass
class Gathered:
    papers: list[Paper] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    to_look_up: list[str] = field(default_factory=list)  # ids (from a search record) still to fetch
    to_complete: list[int] = field(default_factory=list)  # positions of papers missing what a citation needs
    cut_authors: set[int] = field(default_factory=set)  # positions whose author list an older search JSON cut


def read_results_file(path: str) -> Gathered:
    """The papers in a file lit-search wrote (see the module docstring). InputError (exit 2)
    for a file that cannot be read as one, naming the file and the problem."""
    data = _read_bounded(Path(path))
    named = format_from_path(path)
    if named in READABLE_FORMATS:  # review.bib, export.ris, records.csv
        return _bibliographic_file(path)
    if named not in (None, "json"):
        raise InputError(f"{path}: a {FORMAT_LABELS[named]} file; {FROM_TAKES}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    try:
        payload = json.loads(text) if text is not None else None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to be lit-search's") from None
    except ValueError as exc:
        if named is None and sniff_format(text or ""):  # a RIS export named .txt, a BibTeX file without extension
            return _bibliographic_file(path)
        raise InputError(f"{path}: not JSON ({str(exc)[:80]}); {FROM_TAKES}") from None
    if text is None:
        if named is None and _sniffed(data, path):  # UTF-16 or Latin-1 BibTeX, RIS or CSV
            return _bibliographic_file(path)
        raise InputError(f"{path}: not UTF-8 text (is it a binary file?)")
    gathered = Gathered()
    if isinstance(payload, dict) and payload.get("kind") in ("search", "snowball") and "record_version" in payload:
        entries = payload.get("results")
        if not isinstance(entries, list):
            raise InputError(f"{path}: a search record without a 'results' list")
        for entry in entries[:MAX_PAPERS]:
            ref = _record_id(entry)
            if ref:
                gathered.to_look_up.append(ref)
        skipped = len(entries) - len(gathered.to_look_up)
    elif isinstance(payload, dict) and isinstance(payload.get("results"), list):
        entries = payload["results"]
        skipped = _add_papers(gathered, entries)
    elif isinstance(payload, list):
        entries = payload
        skipped = _add_papers(gathered, entries)
    else:
        raise InputError(f"{path}: not a lit-search results file (expected the JSON of a search, a search record "
                         "or a library export)")
    if len(entries) > MAX_PAPERS:
        raise InputError(f"{path}: {len(entries):,} entries; a push takes at most {MAX_PAPERS:,} papers")
    if skipped:
        gathered.notes.append(f"{path}: {skipped} of {len(entries)} entries are no papers (no title or ids) "
                              "and were skipped")
    if not gathered.papers and not gathered.to_look_up:
        raise InputError(f"{path}: no papers in this file")
    return gathered


def _sniffed(data: bytes, path: str) -> str | None:
    try:
        return sniff_format(decode_text(data, path))
    except InputError:  # not text in any encoding the readers know
        return None


def _bibliographic_file(path: str) -> Gathered:
    """The records of a BibTeX, RIS or CSV file, read as ``lit-search dedupe`` reads them (any
    encoding, the file's own ids kept); each is completed from its ids like a search's entry."""
    from ..biblio.readers import load_records

    loaded = load_records(path)
    if len(loaded.papers) > MAX_PAPERS:
        raise InputError(f"{path}: {len(loaded.papers):,} records; a push takes at most {MAX_PAPERS:,} papers")
    gathered = Gathered(notes=[f"{path}: {warning}" for warning in loaded.warnings])
    for paper in loaded.papers:
        if paper.title.strip():
            _add_paper(gathered, paper)
    skipped = sum(1 for paper in loaded.papers if not paper.title.strip())
    if skipped:
        gathered.notes.append(f"{path}: {skipped} of {len(loaded.papers)} records have no title and were skipped")
    if not gathered.papers:
        raise InputError(f"{path}: no papers in this file")
    return gathered


def library_papers(store: Any, refs: list[str] | None = None) -> tuple[list[Paper], list[str]]:
    """(the saved papers: all, or those ``refs`` name; the refs not in the library)."""
    if refs is None:
        return [paper_from_record(store.get_paper(p.id)) for p in store.list_papers()], []
    found, missing = [], []
    for ref in refs:
        record = store.get_paper(ref)
        if record is None:
            missing.append(ref)
        else:
            found.append(paper_from_record(record))
    return found, missing


def _add_papers(gathered: Gathered, entries: list[Any]) -> int:
    skipped = 0
    for entry in entries[:MAX_PAPERS]:
        if not isinstance(entry, dict) or not (isinstance(entry.get("title"), str) and entry["title"].strip()):
            skipped += 1
            continue
        paper = paper_from_record(entry)
        # An older search JSON (and a library record of version 1) kept five authors and no
        # volume: five may be a cut list.
        cut = "volume" not in entry and len(paper.authors) == OLD_SEARCH_JSON_AUTHORS
        _add_paper(gathered, paper, cut_authors=cut)
    return skipped


def _add_paper(gathered: Gathered, paper: Paper, cut_authors: bool = False) -> None:
    position = len(gathered.papers)
    gathered.papers.append(paper)
    if cut_authors:
        gathered.cut_authors.add(position)
    if cut_authors or needs_completing(paper):
        gathered.to_complete.append(position)


# What a citation needs, and the marks of a cut author list: each paper read is checked here;
# zotero/completion.py fills what is missing (and imports these, never the other way round).
CITATION_FIELDS = ("volume", "issue", "pages", "publication_date", "journal")
CUT_MARKS = ("others", "et al", "et al.")


def needs_completing(paper: Paper) -> bool:
    """Whether a citation of ``paper`` misses something its ids may give: a field of
    CITATION_FIELDS, a type, or authors (none, or a list ending in "others")."""
    return (any(not getattr(paper, name) for name in CITATION_FIELDS) or not paper.publication_types
            or authors_cut(paper))


def authors_cut(paper: Paper) -> bool:
    return not paper.authors or paper.authors[-1].strip().lower() in CUT_MARKS


def _record_id(entry: Any) -> str | None:
    """The strongest id of a search record's entry, as lit-search takes it on the command line."""
    if not isinstance(entry, dict):
        return None
    for name in RECORD_IDS:
        value = entry.get(name)
        if isinstance(value, str) and value.strip() and len(value) < 300:
            return {"doi": value, "pmid": f"PMID:{value}", "arxiv_id": f"arXiv:{value}", "paper_id": value,
                    "openalex_id": value}[name]
    return None


def _read_bounded(path: Path) -> bytes:
    """The file's bytes: a regular file of at most MAX_FILE_BYTES, checked before reading
    (a FIFO would block, /dev/zero never end, a folder not open)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: not a regular file (a pipe, a device or a socket); save the results to a file")
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(f"{path}: {info.st_size:,} bytes; a results file is at most {MAX_FILE_BYTES:,} bytes")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:  # it grew while being read
        raise InputError(f"{path}: more than {MAX_FILE_BYTES:,} bytes")
    return data

