"""The formats a search's result (or a snowball's, or a rerun's) is written in, and the one
renderer every door uses: the Markdown table, JSON, or an export."""

from __future__ import annotations

from typing import Any

from ..biblio.formats import EXPORT_FORMATS

TERMINAL_VIEW = "table"  # --format table: the view for a person at a terminal (render/terminal*.py)
RESULT_FORMATS = ("markdown", TERMINAL_VIEW, "json") + EXPORT_FORMATS  # what a result can be written as


def render_result(result: Any, limit: int, fmt: str, include_abstracts: bool, nothing_found: str | None = None,
                  names: Any = None) -> str:
    """A search's (or a snowball's) result in ``fmt``: markdown, json or an export format.
    ``names``: the door's ArgumentNames for what an empty result advises (the command line's
    when None)."""
    if fmt == "json":
        from ..render.search_json import render_json

        return render_json(result, limit, include_abstracts=include_abstracts)
    if fmt in EXPORT_FORMATS:
        from ..biblio.formats import export_papers

        marks = result.export_marks()  # what the rows say beyond their records (a deep search's verdicts)
        return export_papers([item.paper for item in result.results[:limit]], fmt,
                             None if marks is None else marks[:limit], getattr(result, "export_columns", ()))
    from ..render.table import render_markdown

    return render_markdown(result, limit, include_abstracts=include_abstracts, nothing_found=nothing_found, names=names)
