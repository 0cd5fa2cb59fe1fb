"""The account of a Zotero push, for a terminal or the model: each paper skipped as a duplicate
(and what it matched) or failed (and why), then one summary line. Titles are third-party text:
one line each, control characters removed."""

from __future__ import annotations

from typing import Any

from ..core.text import one_line

TITLE_CHARS = 100


def push_report(summary: Any) -> str:
    lines = []
    for outcome in summary.outcomes:
        if outcome.status == "created":
            continue
        title = one_line(outcome.title) or "Untitled"
        title = title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS - 1] + "…"
        what = "skipped" if outcome.status == "duplicate" else "FAILED"
        added = " (added to the collection)" if outcome.added_to_collection else ""
        lines.append(f"{what}: {title} — {one_line(outcome.reason) or 'no reason given'}{added}")
    lines.append(summary.line())
    return "\n".join(lines) + "\n"
