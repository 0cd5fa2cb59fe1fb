"""Citation chasing: from seed papers to one deduplicated, ranked list of the papers they cite
(backward) and the papers citing them (forward).

Each seed is looked up as `paper` does (every provider that can look papers up; the lists from
the first that has them), with its reference list and its citing papers: all of them, or at least the most cited
(graph/citing.py says how, and each seed's coverage is stated in the footer). Every candidate then goes
through the search's merge engine with the seeds themselves, so a paper reached from several
seeds, or from both providers, is one row; a cluster holding a seed is the seed, not a find.
Rank: how many seeds a paper connects to, then relevance to ``topic`` (the search's lexical
relevance: its words in the title, counted double, or the abstract), then citations. Each
result says ``via``: which seeds, in which direction.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable

from ..core.errors import ExitCode, LitSearchError
from ..core.identifiers import PaperRef
from ..core.records import Paper
from ..core.text import fold_title
from ..core.services import CITES
from ..net.http import HttpClient
from ..providers.base import providers_for
from ..search.rank import RankedPaper, relevance_of, score_terms
from .bundle import PaperBundle, fetch_paper_bundle
from .limits import PARALLEL_FETCHES

DIRECTIONS = ("backward", "forward", "both")


def references_cap() -> str:
    """What one seed's reference list can bring: the first list provider's one page."""
    first = next(iter(providers_for(CITES)), None)
    return f"up to {first.references_page_size} references per seed" if first else "no reference lists"


@dataclass
class Seed:
    label: str  # as the user gave it (a DOI, PMID, …)
    paper: Paper | None = None  # the seed's merged record
    error: str | None = None
    not_found: bool = False  # no provider has it (as `paper` would say, exit 5), rather than a failure


@dataclass
class SnowballResult:
    seeds: list[Seed]
    direction: str
    topic: str | None
    results: list[RankedPaper]
    references_found: int = 0
    citing_found: int = 0
    seed_records: int = 0  # records found that were a seed itself (left out)
    notes: list[str] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    citing_coverage: list[str] = field(default_factory=list)  # per seed: what its citing list covers
    reranked: bool = False  # the top papers were re-ranked by meaning (semantic/rerank.py)
    rerank_note: str | None = None  # why the re-ranker did not run, when it was to run

    def reach(self) -> str:
        """What was fetched, for the footer: the reference cap and each seed's citing coverage."""
        parts = []
        if self.direction in ("backward", "both"):
            parts.append(f"references: {references_cap()}")
        if self.direction in ("forward", "both"):
            parts.append("citing papers: " + ("; ".join(self.citing_coverage) or "none fetched"))
        return "; ".join(parts)

    @property
    def all_failed(self) -> bool:
        return all(seed.paper is None for seed in self.seeds)

    @property
    def exit_code(self) -> ExitCode:
        """As `paper` for the same ids: 5 when no provider has any seed, 3 when no seed could
        be fetched for another reason, else 0."""
        if not self.all_failed:
            return ExitCode.OK
        return ExitCode.NOT_FOUND if all(seed.not_found for seed in self.seeds) else ExitCode.ALL_FAILED


async def snowball(http: HttpClient, refs: list[tuple[str, PaperRef]], direction: str = "both",
                   topic: str | None = None, progress: Callable[[str], None] | None = None,
                   rerank: str | None = None) -> SnowballResult:
    """Fetch every seed's lists (a few seeds at a time), merge and rank the candidates; with a
    topic, ``rerank`` "semantic" (None: where the re-ranker is installed) re-ranks the top by
    meaning among the papers reaching the same number of seeds."""
    gate = asyncio.Semaphore(PARALLEL_FETCHES)

    async def fetch(label: str, ref: PaperRef) -> tuple[Seed, PaperBundle | None]:
        async with gate:
            try:
                bundle = await fetch_paper_bundle(http, ref, progress)
            except LitSearchError as error:
                return Seed(label, error=str(error), not_found=error.exit_code == ExitCode.NOT_FOUND), None
            return Seed(label, paper=bundle.paper), bundle

    fetched = await asyncio.gather(*(fetch(label, ref) for label, ref in refs))
    seeds = [seed for seed, _ in fetched]
    candidates: list[tuple[Paper, int, str]] = []  # (record, seed number, "backward"/"forward")
    result = SnowballResult(seeds, direction, topic, [])
    for number, (seed, bundle) in enumerate(fetched):
        if bundle is None:
            continue
        result.notes += [f"seed {number + 1} ({seed.label}): {note}" for note in bundle.notes]
        if direction in ("backward", "both"):
            candidates += [(paper, number, "backward") for paper in bundle.references]
            result.references_found += len(bundle.references)
        if direction in ("forward", "both"):
            candidates += [(paper, number, "forward") for paper in bundle.citations]
            result.citing_found += len(bundle.citations)
            result.citing_coverage.append(f"seed {number + 1}: {bundle.citations_coverage or 'none listed'}")
    result.results, result.seed_records = _merged_and_ranked(seeds, candidates, topic)
    if topic:
        await _reranked(result, topic, rerank)
    result.requests = dict(http.request_counts)
    return result


async def _reranked(result: SnowballResult, topic: str, rerank: str | None) -> None:
    from ..semantic.rerank import default_mode, rerank_papers

    if (rerank or default_mode()) != "semantic" or not result.results:
        return
    done = await asyncio.to_thread(rerank_papers, topic, result.results, lexical=lambda item: item.relevance,
                                   band=lambda item: item.score)
    result.results, result.reranked, result.rerank_note = done.papers, done.applied, done.note
    if done.note:
        result.notes.append(done.note)


def _merged_and_ranked(seeds: list[Seed], candidates: list[tuple[Paper, int, str]],
                       topic: str | None) -> tuple[list[RankedPaper], int]:
    """(the ranked finds, how many found records were a seed)."""
    from ..dedupe.clusters import find_clusters
    from ..dedupe.merge import merge_cluster

    seed_papers = [seed.paper for seed in seeds if seed.paper is not None]
    records = seed_papers + [paper for paper, _, _ in candidates]
    finds, seed_records = [], 0
    for cluster in find_clusters(records):
        if any(member < len(seed_papers) for member in cluster.members):
            seed_records += sum(1 for member in cluster.members if member >= len(seed_papers))
            continue  # the seed itself (or another record of it): not a find
        members = [candidates[member - len(seed_papers)] for member in cluster.members]
        papers = [paper for paper, _, _ in members]
        paper = papers[0] if len(papers) == 1 else merge_cluster(papers)
        finds.append((paper, papers, list(cluster.reasons), _via(seeds, members)))
    # Within the same number of seeds reached, the papers closest to the topic first: the
    # search's own relevance model over these finds (no topic: every paper 0, citations decide).
    found_by = [{p.provider: 1.0 for p in papers} for _, papers, _, _ in finds]
    terms = score_terms([paper for paper, *_ in finds], found_by, [topic] if topic else [], 1)
    ranked = []
    for (paper, papers, reasons, via), paper_found_by, paper_terms in zip(finds, found_by, terms):
        connected = len({entry["seed"] for entry in via})
        ranked.append(RankedPaper(paper, papers, merge_reasons=reasons, provider_scores=paper_found_by,
                                  relevance=relevance_of(paper_terms) if topic else 0.0, score=float(connected),
                                  score_terms=paper_terms if topic else {}, via=via))
    ranked.sort(key=lambda item: (-item.score, -item.relevance, -(item.paper.citation_count or 0),
                                  fold_title(item.paper.title)))
    return ranked, seed_records


def _via(seeds: list[Seed], members: list[tuple[Paper, int, str]]) -> list[dict[str, str]]:
    """Which seeds a paper connects to and how: "backward" (the seed cites it), "forward"
    (it cites the seed), or both."""
    directions: dict[int, set[str]] = {}
    for _, number, direction in members:
        directions.setdefault(number, set()).add(direction)
    return [{"seed": seeds[number].label,
             "direction": "both" if len(found) == 2 else next(iter(found))}
            for number, found in sorted(directions.items())]

