"""Output formats by name and by file extension, shared by the search, the library and dedupe."""

from __future__ import annotations

from typing import Sequence

from ..core.records import Paper

EXPORT_FORMATS = ("bibtex", "ris", "csl-json")
# Longest suffix first: "refs.csl.json" is CSL-JSON, "results.json" is lit-search's JSON.
_EXTENSIONS = ((".csl.json", "csl-json"), (".csljson", "csl-json"), (".bib", "bibtex"), (".bibtex", "bibtex"),
               (".ris", "ris"), (".json", "json"), (".md", "markdown"), (".markdown", "markdown"))


def format_from_path(path: str) -> str | None:
    lowered = path.lower()
    for suffix, name in _EXTENSIONS:
        if lowered.endswith(suffix):
            return name
    return None


def export_papers(papers: Sequence[Paper], fmt: str) -> str:
    from .writers import (  # only when something is exported
        to_bibtex,
        to_csl_json,
        to_ris,
    )

    writers = {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}
    return writers[fmt](list(papers))
