"""Output formats by name and by file extension, shared by the search, the library and dedupe."""

from __future__ import annotations

from typing import Sequence

from ..core.records import Paper

EXPORT_FORMATS = ("bibtex", "ris", "csl-json")
# Longest suffix first: "refs.csl.json" is CSL-JSON, "results.json" is lit-search's JSON.
_EXTENSIONS = ((".csl.json", "csl-json"), (".csljson", "csl-json"), (".bib", "bibtex"), (".bibtex", "bibtex"),
               (".ris", "ris"), (".json", "json"), (".md", "markdown"), (".markdown", "markdown"))


FORMAT_LABELS = {"markdown": "Markdown", "json": "JSON", "bibtex": "BibTeX", "ris": "RIS", "csl-json": "CSL-JSON"}


def format_from_path(path: str) -> str | None:
    lowered = str(path).lower()
    for suffix, name in _EXTENSIONS:
        if lowered.endswith(suffix):
            return name
    return None


def extensions_for(formats: Sequence[str]) -> str:
    """"``.md``, ``.json`` or ``.bib``": the extensions that name ``formats``, for messages."""
    shown = [suffix for suffix, name in _EXTENSIONS if name in formats and suffix not in (".csljson", ".bibtex",
                                                                                          ".markdown")]
    return ", ".join(shown[:-1]) + (" or " if len(shown) > 1 else "") + shown[-1]


def export_papers(papers: Sequence[Paper], fmt: str) -> str:
    from .writers import (  # only when something is exported
        to_bibtex,
        to_csl_json,
        to_ris,
    )

    writers = {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}
    return writers[fmt](list(papers))
