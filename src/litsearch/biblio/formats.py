"""Every file format lit-search reads or writes, in one table: its name, its label, the
extensions that name it, and what it is for (read by ``dedupe``, written by an export, written
by ``dedupe --merged``). The search, the library, dedupe and the readers all ask this table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..core.records import Paper


@dataclass(frozen=True)
class FileFormat:
    """``extensions``: the first is the one messages show. ``merged``: how ``dedupe --merged`` writes it, "source" (the
    records as they were written) or "papers" (the merged papers); None when it does not."""

    name: str
    label: str
    extensions: tuple[str, ...]
    readable: bool = False  # dedupe reads it
    export: bool = False  # a search, a snowball or the library exports papers in it
    merged: str | None = None


FORMATS = (
    FileFormat("bibtex", "BibTeX", (".bib", ".bibtex"), readable=True, export=True, merged="source"),
    FileFormat("ris", "RIS", (".ris",), readable=True, export=True, merged="source"),
    FileFormat("csl-json", "CSL-JSON", (".csl.json", ".csljson"), export=True, merged="papers"),
    FileFormat("csv", "CSV", (".csv",), readable=True, export=True, merged="source"),
    FileFormat("json", "JSON", (".json",)),
    FileFormat("markdown", "Markdown", (".md", ".markdown")),
)
BY_NAME = {found.name: found for found in FORMATS}
EXPORT_FORMATS = tuple(found.name for found in FORMATS if found.export)
READABLE_FORMATS = tuple(found.name for found in FORMATS if found.readable)
MERGED_FORMATS = tuple(found.name for found in FORMATS if found.merged)
FORMAT_LABELS = {found.name: found.label for found in FORMATS}
# dedupe --merged writes no lit-search JSON: a ".json" there is CSL-JSON (merged.csl.json too).
MERGED_JSON = "csl-json"


def format_from_path(path: str) -> str | None:
    """The format a file name's extension names (the longest extension that matches:
    "refs.csl.json" is CSL-JSON, "results.json" lit-search's JSON)."""
    lowered = str(path).lower()
    matches = [(len(extension), found.name) for found in FORMATS for extension in found.extensions
               if lowered.endswith(extension)]
    return max(matches)[1] if matches else None


def readable_from_path(path: str) -> str | None:
    """The input format of a file name dedupe reads (None: sniffed from the text)."""
    named = format_from_path(path)
    return named if named in READABLE_FORMATS else None


def merged_from_path(path: str) -> str | None:
    """The format ``dedupe --merged`` writes to ``path``, or None when it writes none there."""
    named = format_from_path(path)
    if named == "json":
        return MERGED_JSON
    return named if named and BY_NAME[named].merged else None


def extensions_for(formats: Sequence[str], last: str = " or ") -> str:
    """"``.md``, ``.json`` or ``.bib``": the extensions that name ``formats``, for messages and
    help (``last``: what comes before the last one)."""
    shown = [found.extensions[0] for found in sorted(FORMATS, key=lambda found: _shown_order(found.name))
             if found.name in formats]
    return ", ".join(shown[:-1]) + (last if len(shown) > 1 else "") + shown[-1]


def _shown_order(name: str) -> int:
    order = ("markdown", "json", "bibtex", "ris", "csl-json", "csv")
    return order.index(name) if name in order else len(order)


def export_papers(papers: Sequence[Paper], fmt: str, marks: Sequence | None = None, columns: Sequence[str] = ()) -> str:
    """``papers`` in an export format; ``marks`` (biblio/writers.py Marks, one per paper): what the
    listing says of each beyond its record (a deep search's verdict), kept as the format keeps it;
    ``columns``: the marks' CSV columns, written even when no paper is."""
    from .writers import (  # only when something is exported
        to_bibtex,
        to_csl_json,
        to_csv,
        to_ris,
    )

    writers = {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json,
               "csv": lambda rows, marks: to_csv(rows, marks=marks, columns=columns)}
    return writers[fmt](list(papers), marks=None if marks is None else list(marks))
