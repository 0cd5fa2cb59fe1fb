"""One page of a search's (or a snowball's) result as a tool result: the Markdown table of the
rows that fit the budget, their slim summaries, where the filters were applied, what failed,
and the cursor to the next rows."""

from __future__ import annotations

from typing import Any

from ..core.errors import FetchFailed, UsageError
from .cursors import encode_cursor
from .paging import largest_fit
from .runtime import current, result_size, tool_result
from .summaries import paper_summary


def search_page(tool: str, arguments: dict[str, Any], search_id: str, result, limit: int, offset: int,
                include_abstracts: bool):
    """The rows ``offset``.. of the ``limit`` shown, as many as fit the character budget."""
    from ..render.table import render_markdown
    from ..search.options import MCP_TOOL

    if result.all_failed:
        reasons = "; ".join(f"{o.provider}: {o.error}" for o in result.paper_outcomes if o.error)
        raise FetchFailed(f"every provider failed ({reasons})")
    shown = result.results[:limit]
    if offset and offset >= len(shown):
        raise UsageError(f"the cursor points past the last of the {len(shown)} papers")
    budget = current().max_chars

    def page(count: int) -> tuple[str, dict[str, Any]]:
        text = render_markdown(result, count, include_abstracts=include_abstracts, start=offset, names=MCP_TOOL)
        following = offset + count
        data = {
            "search_id": search_id,
            "query": result.query,
            "rows": f"{offset + 1}-{following}" if count else "0",
            "shown": len(shown),
            "found": result.total_count,
            "papers": [paper_summary(item, offset + position)
                       for position, item in enumerate(shown[offset:following], start=1)],
            "filters": list(result.filter_report),
            "errors": [{"provider": o.provider, "message": o.error} for o in result.outcomes if o.error],
            "notes": [f"{o.provider}: {note}" for o in result.outcomes for note in o.notes]
                     + list(result.enrichment.notes),
            "next_cursor": encode_cursor(tool, arguments, following) if following < len(shown) else None,
        }
        return text, data

    count = largest_fit(len(shown) - offset, lambda n: result_size(*page(n)), budget) if shown else 0
    text, data = page(count)
    return tool_result(text, data)
