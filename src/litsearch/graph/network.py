"""A citation network around a few seed papers.

Depth 1 holds the seeds, their references and the papers citing them. Depth 2 also
fetches the references of the seeds' most shared references: the lineage the seeds build
on. Every record collected is clustered with the merge rules, so one paper reached by
several routes (or providers) is one node. Edges run from the citing to the cited paper.
The drawings (Mermaid, DOT, Markdown, JSON) are in render/network.py.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from ..core.errors import FetchFailed, NotFound, UsageError
from ..core.identifiers import PaperRef, is_arxiv_doi, parse_paper_ref
from ..core.records import Paper
from ..core.text import fold_title, plain_text, short_author
from ..dedupe.clusters import find_clusters
from ..dedupe.merge import merge_cluster
from ..net.http import HttpClient
from .bundle import PaperBundle, fetch_paper_bundle, fetch_references_of
from .limits import (  # noqa: F401
    MAX_CITING_PER_SEED,
    MAX_EXPANDED_NODES,
    MAX_MERMAID_NODES,
    MAX_NETWORK_NODES,
    MAX_SEEDS,
    PARALLEL_FETCHES,
)

LABEL_TITLE_CHARS = 48

SEED_FILL, SEED_STROKE = "#fde68a", "#b45309"


@dataclass
class CitationNetwork:
    """Papers (nodes, keyed by a stable identity) and citation links between them."""

    seeds: list[str]  # node keys of the seeds, in the order given
    nodes: dict[str, Paper]  # node key -> merged record
    edges: list[tuple[str, str]]  # (citing key, cited key), unique, sorted
    depth: int = 1
    expanded: list[str] = field(default_factory=list)  # keys whose references were fetched at depth 2
    omitted: int = 0  # depth-2 papers left out by MAX_NETWORK_NODES
    notes: list[str] = field(default_factory=list)
    failed_seeds: list[str] = field(default_factory=list)  # the ids given that no provider could supply
    requests: dict[str, int] = field(default_factory=dict)  # per provider
    citing_coverage: list[str] = field(default_factory=list)  # per seed: what its citing list covers

    def seed_links(self, key: str) -> int:
        """How many seeds cite this paper or are cited by it."""
        seeds = set(self.seeds)
        linked = {a for a, b in self.edges if b == key and a in seeds} | {b for a, b in self.edges if a == key and b in seeds}
        return len(linked - {key})


# --------------------------------------------------------------------------- identity

def node_key(paper: Paper) -> str:
    """DOI, else arXiv id, else S2 id, else OpenAlex id (then PMID, then the folded title)."""
    if paper.doi and not is_arxiv_doi(paper.doi):
        return f"doi:{paper.doi}"
    if paper.arxiv_id:
        return f"arxiv:{paper.arxiv_id}"
    if paper.doi:
        return f"doi:{paper.doi}"
    for prefix, value in (("s2", paper.semantic_scholar_id), ("openalex", paper.openalex_id), ("pmid", paper.pmid)):
        if value:
            return f"{prefix}:{value}"
    return f"title:{fold_title(paper.title)[:80]}:{paper.year or ''}"


# --------------------------------------------------------------------------- building

@dataclass
class _Collected:
    """Every record met so far and the citation links between them, by record index."""

    records: list[Paper] = field(default_factory=list)
    levels: list[int] = field(default_factory=list)  # 0 seed, 1 depth 1, 2 depth 2
    priority: list[tuple[int, int]] = field(default_factory=list)  # order of depth-2 records under the cap
    links: list[tuple[int, int]] = field(default_factory=list)  # (citing, cited)

    def add(self, paper: Paper, level: int, priority: tuple[int, int] = (0, 0)) -> int:
        self.records.append(paper)
        self.levels.append(level)
        self.priority.append(priority)
        return len(self.records) - 1

    def add_bundle(self, bundle: PaperBundle) -> int:
        seed = self.add(bundle.paper, 0)
        for reference in bundle.references:
            self.links.append((seed, self.add(reference, 1)))
        for citing in bundle.citations[:MAX_CITING_PER_SEED]:  # the list is most cited first
            self.links.append((self.add(citing, 1), seed))
        return seed


@dataclass
class _Graph:
    network: CitationNetwork
    member_of: dict[str, int]  # node key -> one record index in it
    key_of_record: dict[int, str]  # record index -> its node key (also for nodes left out)


def _assemble(collected: _Collected, seed_records: list[int], node_cap: int | None) -> _Graph:
    """Cluster every record into nodes, map the links onto them, apply the depth-2 cap."""
    clusters = find_clusters(collected.records)
    keys_by_record: dict[int, str] = {}
    nodes: dict[str, Paper] = {}
    member_of: dict[str, int] = {}
    level_of: dict[str, int] = {}
    priority_of: dict[str, tuple[int, int]] = {}
    for cluster in clusters:
        members = [collected.records[i] for i in cluster.members]
        paper = members[0] if len(members) == 1 else merge_cluster(members)
        key = _unique_key(node_key(paper), nodes)
        nodes[key] = paper
        member_of[key] = cluster.members[0]
        level_of[key] = min(collected.levels[i] for i in cluster.members)
        priority_of[key] = min(collected.priority[i] for i in cluster.members)
        keys_by_record.update((i, key) for i in cluster.members)

    omitted = 0
    if node_cap is not None and len(nodes) > node_cap:
        late = sorted((k for k in nodes if level_of[k] == 2), key=lambda k: priority_of[k])
        keep_late = max(0, node_cap - (len(nodes) - len(late)))
        for key in late[keep_late:]:
            del nodes[key]
            omitted += 1

    seeds = list(dict.fromkeys(keys_by_record[i] for i in seed_records))
    edges = sorted({(keys_by_record[a], keys_by_record[b]) for a, b in collected.links
                    if keys_by_record[a] != keys_by_record[b]
                    and keys_by_record[a] in nodes and keys_by_record[b] in nodes})
    network = CitationNetwork(seeds=seeds, nodes=nodes, edges=edges, omitted=omitted)
    return _Graph(network, member_of, keys_by_record)


def _unique_key(key: str, taken: dict[str, Paper]) -> str:
    """Two clusters can share a key (one DOI on two different papers): number the second."""
    if key not in taken:
        return key
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


async def build_network(http: HttpClient, refs: list[str | PaperRef], depth: int = 1,
                        progress: Callable[[str], None] | None = None) -> CitationNetwork:
    """The network around the seed papers ``refs`` (any id form ``paper`` accepts).

    Raises ``UnknownIdError`` for text that is no paper id (before any request),
    ``UsageError`` for a bad depth or too many seeds, and, when not one seed could be had,
    ``FetchFailed`` (every lookup failed) or ``NotFound``. Seeds that fail alone become notes.
    """
    if depth not in (1, 2):
        raise UsageError(f"depth must be 1 or 2, not {depth}")
    parsed = list(dict.fromkeys(ref if isinstance(ref, PaperRef) else parse_paper_ref(ref) for ref in refs))
    if not parsed:
        raise UsageError("give at least one paper id")
    if len(parsed) > MAX_SEEDS:
        raise UsageError(f"{len(parsed)} seed papers given; the limit is {MAX_SEEDS}")

    bundles, notes, failures = await _fetch_seeds(http, parsed, progress)
    coverage = [_citing_words(bundle) for bundle in bundles]
    failed = [str(error) for error in failures]
    if not bundles:
        message = "no seed paper could be fetched: " + "; ".join(failed)
        if all(isinstance(error, FetchFailed) for error in failures):
            raise FetchFailed(message)
        raise NotFound(message)
    collected = _Collected()
    seed_records = [collected.add_bundle(bundle) for bundle in bundles]
    graph = _assemble(collected, seed_records, node_cap=None)

    expanded: list[str] = []
    if depth == 2:
        expanded = expansion_candidates(graph.network)
        if progress and expanded:
            progress(f"depth 2: fetching the references of {len(expanded)} of the seeds' references")
        notes += await _expand(http, graph, expanded, collected)
        expanded_records = [graph.member_of[key] for key in expanded]
        # Clustering again: a paper met at depth 2 may join an existing node (and give it a DOI).
        graph = _assemble(collected, seed_records, node_cap=MAX_NETWORK_NODES)
        expanded = [graph.key_of_record[index] for index in expanded_records]

    network = graph.network
    network.depth = depth
    network.expanded = [key for key in expanded if key in network.nodes]
    network.notes = notes
    network.failed_seeds = failed
    network.requests = dict(http.request_counts)
    network.citing_coverage = coverage
    if network.omitted:
        network.notes.append(f"depth 2 found {network.omitted} more papers than the cap of "
                             f"{MAX_NETWORK_NODES} allows; those from the later expansions and the "
                             f"least cited were left out")
    return network


async def _fetch_seeds(http: HttpClient, refs: list[PaperRef], progress: Callable[[str], None] | None
                       ) -> tuple[list[PaperBundle], list[str], list[NotFound | FetchFailed]]:
    """(bundles of the seeds found, notes, the error of each seed that failed)."""
    gate = asyncio.Semaphore(PARALLEL_FETCHES)

    async def fetch(ref: PaperRef) -> tuple[PaperRef, PaperBundle | None, NotFound | FetchFailed | None]:
        async with gate:
            try:
                return ref, await fetch_paper_bundle(http, ref, progress), None
            except (NotFound, FetchFailed) as exc:
                return ref, None, exc

    bundles, notes, failed = [], [], []
    for ref, bundle, error in await asyncio.gather(*(fetch(ref) for ref in refs)):
        if bundle is None:
            failed.append(error or NotFound(f"{ref.label}: not found"))
            continue
        bundles.append(bundle)
        notes.extend(f"{ref.label}: {note}" for note in bundle.notes)
    return bundles, notes, failed


def _citing_words(bundle: PaperBundle) -> str:
    """"Label: the 100 most cited of the 1,100 fetched (coverage)" for one seed."""
    drawn = min(len(bundle.citations), MAX_CITING_PER_SEED)
    head = f"{node_label(bundle.paper)}: "
    if not bundle.citations:
        return head + (bundle.citations_coverage or "no citing papers listed")
    of = f"the {drawn:,} most cited of {len(bundle.citations):,} fetched" if drawn < len(bundle.citations) \
        else f"{drawn:,} drawn"
    return head + f"{of} ({bundle.citations_coverage})"


def expansion_candidates(network: CitationNetwork, limit: int = MAX_EXPANDED_NODES) -> list[str]:
    """The seeds' references to expand at depth 2: cited by the most seeds, then most cited."""
    seeds = set(network.seeds)
    cited_by = Counter(cited for citing, cited in network.edges if citing in seeds and cited not in seeds)
    ranked = sorted(cited_by, key=lambda key: (-cited_by[key], -(network.nodes[key].citation_count or 0),
                                               fold_title(network.nodes[key].title), key))
    return ranked[:limit]


async def _expand(http: HttpClient, graph: _Graph, keys: list[str], collected: _Collected) -> list[str]:
    """Fetch the references of ``keys`` and add them (level 2) to ``collected``; returns notes."""
    gate = asyncio.Semaphore(PARALLEL_FETCHES)

    async def fetch(key: str) -> tuple[list[Paper], list[str]]:
        async with gate:
            return await fetch_references_of(http, graph.network.nodes[key])

    notes: list[str] = []
    results = await asyncio.gather(*(fetch(key) for key in keys))
    for rank, (key, (references, reference_notes)) in enumerate(zip(keys, results)):
        citing = graph.member_of[key]
        for position, reference in enumerate(references):
            collected.links.append((citing, collected.add(reference, 2, (rank, position))))
        label = node_label(graph.network.nodes[key])
        notes.extend(f"{label}: {note}" for note in reference_notes)
    return notes


def shared_references(network: CitationNetwork) -> list[tuple[Paper, int]]:
    """Papers cited by two or more seeds with that number: what the seeds all build on.
    Most seeds first, then most cited."""
    return [(network.nodes[key], count) for key, count in shared_reference_keys(network)]


def shared_reference_keys(network: CitationNetwork) -> list[tuple[str, int]]:
    seeds = set(network.seeds)
    counts = Counter(cited for citing, cited in set(network.edges) if citing in seeds)
    shared = [(key, n) for key, n in counts.items() if n >= 2]
    return sorted(shared, key=lambda item: (-item[1], -(network.nodes[item[0]].citation_count or 0),
                                            fold_title(network.nodes[item[0]].title), item[0]))



# --------------------------------------------------------------------------- labels

def first_author_surname(authors: list[str]) -> str:
    """'Ashish Vaswani' -> 'Vaswani'; 'Hsu PD' -> 'Hsu'; '' when there are no authors."""
    short = short_author(authors[0]) if authors else ""
    surname, _, initials = short.rpartition(" ")
    return surname if surname and initials.isupper() and len(initials) <= 4 else short


def node_label(paper: Paper, title_chars: int = LABEL_TITLE_CHARS) -> str:
    """'FirstAuthor Year: short title' in plain text (each renderer escapes it)."""
    title = plain_text(paper.title) or "(untitled)"
    if len(title) > title_chars:
        cut = title[: title_chars - 1]
        if title[len(cut)] != " ":  # cut inside a word: drop the partial word
            cut = cut.rsplit(" ", 1)[0]
        title = cut.rstrip(" ,;:.-") + "…"
    head = " ".join(part for part in (first_author_surname(paper.authors), str(paper.year or "n.d.")) if part)
    return f"{head}: {title}"


