"""A citation network drawn: a Mermaid flowchart in Markdown with the table of shared
references, Graphviz DOT, and JSON."""

from __future__ import annotations

import re
from typing import Any

from ..core.records import Paper
from ..core.text import fold_title, plain_text
from ..core.urls import doi_url
from ..graph.network import (
    MAX_MERMAID_NODES,
    SEED_FILL,
    SEED_STROKE,
    CitationNetwork,
    node_label,
    shared_reference_keys,
    shared_references,
)
from .markup import authors_cell, markdown_text
from .paper import record_dict


def node_order(network: CitationNetwork) -> list[str]:
    """Seeds first (as given), then by links to seeds, citations, year, title: the drawing
    order, which also numbers the nodes."""
    seeds = [key for key in network.seeds if key in network.nodes]
    links = {key: network.seed_links(key) for key in network.nodes}
    others = sorted((key for key in network.nodes if key not in set(seeds)),
                    key=lambda k: (-links[k], -(network.nodes[k].citation_count or 0),
                                   -(network.nodes[k].year or 0), fold_title(network.nodes[k].title), k))
    return seeds + others


def node_ids(network: CitationNetwork) -> dict[str, str]:
    """Stable ids n1, n2, … in ``node_order``: the same network always numbers the same way."""
    return {key: f"n{number}" for number, key in enumerate(node_order(network), start=1)}


# Everything that could end a quoted Mermaid label, start a directive (%%{…}%%), an HTML tag,
# an entity or a Markdown string, or close the ``` fence around the block, as Mermaid's own
# entity codes (#NN; decimal), which it decodes for display.
_MERMAID_SPECIAL = re.compile(r'["#;\[\]|<>`&{}%\\]')


def mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid node label: one line, special characters as #NN; codes."""
    flat = " ".join((plain_text(text) or "").split())
    return _MERMAID_SPECIAL.sub(lambda match: f"#{ord(match.group())};", flat)


def to_mermaid(network: CitationNetwork, max_nodes: int = MAX_MERMAID_NODES) -> str:
    """A ```mermaid flowchart (left to right) block; seeds highlighted; at most ``max_nodes``."""
    ids = node_ids(network)
    shown = node_order(network)[:max_nodes]
    drawn = set(shown)
    lines = ["```mermaid", "flowchart LR"]
    lines += [f'    {ids[key]}["{mermaid_text(node_label(network.nodes[key]))}"]' for key in shown]
    lines += [f"    {ids[a]} --> {ids[b]}" for a, b in _edges_in_drawing_order(network, ids) if a in drawn and b in drawn]
    seeds = [ids[key] for key in network.seeds if key in drawn]
    if seeds:
        lines.append(f"    classDef seed fill:{SEED_FILL},stroke:{SEED_STROKE},stroke-width:3px")
        lines.append(f"    class {','.join(seeds)} seed")
    hidden = len(network.nodes) - len(shown)
    if hidden:
        lines.append(f"    %% {hidden} more papers not drawn (the drawing stops at {max_nodes}); "
                     f"the JSON and DOT outputs have every paper")
    lines.append("```")
    return "\n".join(lines) + "\n"


def _edges_in_drawing_order(network: CitationNetwork, ids: dict[str, str]) -> list[tuple[str, str]]:
    """Edges sorted by their nodes' numbers, so each paper's links are listed together."""
    number = {key: int(node_id[1:]) for key, node_id in ids.items()}
    return sorted(network.edges, key=lambda edge: (number[edge[0]], number[edge[1]]))


def dot_text(text: str) -> str:
    """Text safe inside a double-quoted DOT string: one line, backslashes and quotes escaped
    (a backslash would otherwise start a Graphviz escape such as \\N)."""
    flat = " ".join((plain_text(text) or "").split())
    return flat.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(network: CitationNetwork) -> str:
    """The whole network as a Graphviz digraph (every node, seeds filled)."""
    ids = node_ids(network)
    lines = ["digraph citations {", "  rankdir=LR;", '  node [shape=box, style="rounded", fontsize=10];']
    seeds = set(network.seeds)
    for key in node_order(network):
        attributes = f'label="{dot_text(node_label(network.nodes[key]))}"'
        if key in seeds:
            attributes += f', style="rounded,filled,bold", fillcolor="{SEED_FILL}", color="{SEED_STROKE}"'
        lines.append(f"  {ids[key]} [{attributes}];")
    lines += [f"  {ids[a]} -> {ids[b]};" for a, b in _edges_in_drawing_order(network, ids)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def network_markdown(network: CitationNetwork) -> str:
    """The seeds, the Mermaid picture, the shared-references table, counts and notes."""
    ids = node_ids(network)
    parts = [f"## Citation network of {len(network.seeds)} seed paper{'s' if len(network.seeds) != 1 else ''}", ""]
    for number, key in enumerate(network.seeds, start=1):
        parts.append(f"{number}. **{ids[key]}** {_paper_line(network.nodes[key])}")
    parts += ["", to_mermaid(network), _shared_table(network), "---"]
    parts += [f"- {line}" for line in _summary_lines(network)]
    return "\n".join(parts) + "\n"


def _paper_line(paper: Paper) -> str:
    title = markdown_text(paper.title, 200) or "(untitled)"
    year = f" ({paper.year})" if paper.year else ""
    doi = f" [{markdown_text(paper.doi)}]({doi_url(paper.doi)})" if paper.doi else ""
    return f"{authors_cell(paper.authors)}{year}. {title}.{doi}"


def _shared_table(network: CitationNetwork) -> str:
    heading = "### Shared references: the papers these all build on\n"
    if len(network.seeds) < 2:
        return heading + "\nShared references need two or more seed papers.\n"
    shared = shared_references(network)
    if not shared:
        return heading + "\nNo reference is cited by more than one seed.\n"
    rows = ["| # | Shared reference | Year | Cited by seeds | Cites |", "|---|---|---|---|---|"]
    for number, (paper, count) in enumerate(shared, start=1):
        cites = f"{paper.citation_count:,}" if paper.citation_count is not None else "–"
        rows.append(f"| {number} | {_paper_line(paper)} | {paper.year or '–'} | "
                    f"{count} of {len(network.seeds)} | {cites} |")
    return heading + "\n" + "\n".join(rows) + "\n"


def _summary_lines(network: CitationNetwork) -> list[str]:
    lines = [f"{len(network.seeds)} seeds, {len(network.nodes)} papers, {len(network.edges)} citation links "
             f"(depth {network.depth}); arrows point from the citing paper to the cited one"]
    if network.expanded:
        lines.append(f"depth 2: the references of {len(network.expanded)} of the seeds' references were added")
    if network.requests:
        total = sum(network.requests.values())
        detail = ", ".join(f"{name} {count}" for name, count in sorted(network.requests.items()))
        lines.append(f"{total} requests ({detail})")
    lines += [markdown_text(f"citing papers of {line}") for line in network.citing_coverage]
    lines += [markdown_text(f"failed: {line}") for line in network.failed_seeds]
    lines += [markdown_text(note) for note in network.notes]
    return lines


def network_payload(network: CitationNetwork) -> dict[str, Any]:
    """Nodes (with their n-ids and records), edges citing -> cited, shared references, notes."""
    ids = node_ids(network)
    seeds = set(network.seeds)
    return {
        "depth": network.depth,
        "seeds": [ids[key] for key in network.seeds],
        "node_count": len(network.nodes),
        "edge_count": len(network.edges),
        "nodes": [{"id": ids[key], "key": key, "seed": key in seeds, **record_dict(network.nodes[key])}
                  for key in ids],
        "edges": [{"citing": ids[a], "cited": ids[b]} for a, b in network.edges],
        "shared_references": [{"id": ids[key], "cited_by_seeds": count}
                              for key, count in shared_reference_keys(network)],
        "expanded": [ids[key] for key in network.expanded],
        "omitted_by_cap": network.omitted,
        "citing_coverage": network.citing_coverage,
        "failed_seeds": network.failed_seeds,
        "notes": network.notes,
        "requests": network.requests,
    }


