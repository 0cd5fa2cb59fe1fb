"""The dedupe report: every cluster of duplicates with the reasons, the uncertain pairs kept
apart, the pairs held apart only by a veto (for a reviewer to decide), what the engine
learned about the input, and the summary line."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.records import Paper
from ..core.text import plain_text
from ..dedupe.clusters import DedupeResult

REPORT_TITLE_CHARS = 110


def summary_line(record_count: int, result: DedupeResult) -> str:
    clusters = len(result.clusters)
    vetoed = sum(1 for pair in result.uncertain_pairs if pair.veto)
    line = (f"{record_count} records → {clusters} clusters, {record_count - clusters} duplicates removed, "
            f"{len(result.uncertain_pairs) - vetoed} uncertain pairs")
    return line + (f", {vetoed} held apart only by a veto (see --report)" if vetoed else "")


def _shown(text: str | None, limit: int = REPORT_TITLE_CHARS) -> str:
    """One printable line of untrusted text (markup and control characters removed), shortened."""
    clean = plain_text(text) or "(untitled)"
    return clean if len(clean) <= limit else clean[: limit - 1].rstrip() + "…"


def render_report(records: Sequence[Paper], ids: Sequence[str], result: DedupeResult) -> str:
    """Clusters of 2+ records with their reasons, then the uncertain pairs, then the summary line."""
    groups = [cluster for cluster in result.clusters if len(cluster.members) > 1]
    id_width = max((len(_shown(ids[m], 40)) for c in groups for m in c.members), default=0)
    lines = [f"Clusters of duplicates ({len(groups)})", ""]
    for cluster in groups:
        lines.append(f"cluster {_shown(ids[cluster.members[0]], 40)} ({len(cluster.members)} records)")
        lines += [f"  {_shown(ids[m], 40):<{id_width}}  {_shown(records[m].title)}" for m in cluster.members]
        lines += [f"  why: {_shown(reason, 300)}" for reason in cluster.reasons]
        lines.append("")
    vetoed = [pair for pair in result.uncertain_pairs if pair.veto]
    uncertain = [pair for pair in result.uncertain_pairs if not pair.veto]
    lines += [f"Uncertain pairs (not merged) ({len(uncertain)})", ""]
    for pair in uncertain:
        lines += _pair_lines(records, ids, pair)
        lines.append(f"  title similarity {pair.title_similarity:.0f}%; kept apart: {_shown(pair.reason, 300)}")
        lines.append("")
    lines += [f"Pairs held apart only by a veto ({len(vetoed)})", ""]
    for pair in vetoed:
        lines += _pair_lines(records, ids, pair)
        lines.append(f"  veto: {_shown(pair.veto, 120)}; otherwise: {_shown(pair.reason, 300)}")
        lines.append("")
    lines += [f"note: {_shown(note, 300)}" for note in result.notes]
    lines.append(summary_line(len(records), result))
    return "\n".join(lines) + "\n"


def _pair_lines(records: Sequence[Paper], ids: Sequence[str], pair) -> list[str]:
    return [f"  {_shown(ids[pair.first], 40)}  {_shown(records[pair.first].title)}",
            f"  {_shown(ids[pair.second], 40)}  {_shown(records[pair.second].title)}"]
