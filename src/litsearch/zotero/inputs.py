"""The papers a push sends: ids (library papers first, else looked up), a results file, the library.

``--from FILE`` takes what lit-search writes: the JSON of a search, snowball or ``rerun``
(``--format json``: its ``results``), a search record (``--record``: ids only, so each paper is
looked up), or ``library export --format json`` (a list of saved records). The file must be a
regular file of at most 50 MB (a FIFO, a device or a folder is refused before anything is read)
in UTF-8 JSON. An entry that is no paper is skipped and counted, never dropped unsaid.

The search JSON keeps five authors per paper. Papers with five (their list may be cut) and an
OpenAlex id are completed from OpenAlex in one request per 50 (every author, volume, issue,
pages, type); a paper that cannot be completed keeps what the file has, and a note says so.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.records import Paper
from ..core.text import fold_title
from ..library.record import paper_from_record

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_PAPERS = 10_000
SEARCH_JSON_AUTHORS = 5  # render/search_json.py keeps the first five
RECORD_IDS = ("doi", "pmid", "arxiv_id", "paper_id", "openalex_id")


@dataclass
class Gathered:
    papers: list[Paper] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    to_look_up: list[str] = field(default_factory=list)  # ids (from a search record) still to fetch
    to_complete: list[int] = field(default_factory=list)  # positions whose author list may be cut


def read_results_file(path: str) -> Gathered:
    """The papers in a file lit-search wrote (see the module docstring). InputError (exit 2)
    for a file that cannot be read as one, naming the file and the problem."""
    data = _read_bounded(Path(path))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text (is it a binary file?)") from None
    try:
        payload = json.loads(text)
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to be lit-search's") from None
    except ValueError as exc:
        raise InputError(f"{path}: not JSON ({str(exc)[:80]})") from None
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
        skipped = _add_papers(gathered, entries, complete=True)
    elif isinstance(payload, list):
        entries = payload
        skipped = _add_papers(gathered, entries, complete=False)
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


def complete_from_openalex(papers: list[Paper], positions: list[int], works: list[Paper]) -> int:
    """Fill cut author lists and missing details from OpenAlex's records of the same works
    (matched by OpenAlex id and title); returns how many papers were completed."""
    by_id = {work.openalex_id: work for work in works if work.openalex_id}
    completed = 0
    for position in positions:
        paper = papers[position]
        work = by_id.get(paper.openalex_id)
        if work is None or fold_title(work.title) != fold_title(paper.title):
            continue
        if len(work.authors) >= len(paper.authors):
            paper.authors = list(work.authors)
        for name in ("volume", "issue", "pages", "publication_date"):
            if not getattr(paper, name) and getattr(work, name):
                setattr(paper, name, getattr(work, name))
        if not paper.publication_types:
            paper.publication_types = list(work.publication_types)
        completed += 1
    return completed


def _add_papers(gathered: Gathered, entries: list[Any], complete: bool) -> int:
    skipped = 0
    for entry in entries[:MAX_PAPERS]:
        if not isinstance(entry, dict) or not (isinstance(entry.get("title"), str) and entry["title"].strip()):
            skipped += 1
            continue
        paper = paper_from_record(entry)
        if complete and len(paper.authors) == SEARCH_JSON_AUTHORS:
            gathered.to_complete.append(len(gathered.papers))
        gathered.papers.append(paper)
    return skipped


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

