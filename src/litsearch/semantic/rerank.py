"""Re-rank the top of a lexical order by meaning: the one function every door calls
(``rerank_papers``; the search pipeline, snowball and deep search).

The top ``CANDIDATES`` papers of the order given are embedded with the topic (and each variant),
and each paper's cosine similarity, averaged over the queries, becomes its ``semantic`` score
term; the candidates are then ordered by the fusion of their lexical score and that similarity
(fusion.py). Papers whose title is the query (``title_match``, a known-item search) stay first,
and the papers past the candidates keep their places. Nothing here can fail a search: a model
that is missing, damaged, of the wrong shape, too big for the free memory or too slow for the
time budget leaves the order as it was, with one line saying why.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Hashable, Mapping, Protocol, Sequence

from ..core.errors import ConfigError
from .encoder import EXTRA_HINT, ModelUnusable, OutOfTime, available_memory, load_encoder, missing_libraries
from .location import RERANK_MODEL_VARIABLE, locate_model

SEMANTIC_TERM = "semantic"
# Papers embedded per search: the top 30 of the lexical order. Measured on the judged
# collections, the fusion's gain in nDCG@10 comes from papers the lexical model ranks 11-30;
# 50 adds little and costs two thirds more (docs/ranking.md, "Meaning").
CANDIDATES = 30
BUDGET_VARIABLE = "LITSEARCH_RERANK_BUDGET"
THREADS_VARIABLE = "LITSEARCH_RERANK_THREADS"
DEFAULT_BUDGET_SECONDS = 15.0  # model load included; about 2 CPU seconds on a current laptop
MAX_THREADS = 2  # embedding threads by default: a search shares the machine with its user


@dataclass(frozen=True)
class RerankSettings:
    budget_seconds: float = DEFAULT_BUDGET_SECONDS
    threads: int = 1

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> "RerankSettings":
        """The variables checked once; a value that cannot be used is a ConfigError naming it."""
        budget = _number(env, BUDGET_VARIABLE, DEFAULT_BUDGET_SECONDS, float)
        threads = _number(env, THREADS_VARIABLE, min(MAX_THREADS, os.cpu_count() or 1), int)
        return cls(budget_seconds=budget, threads=threads)


def _number(env: Mapping[str, str], name: str, default, kind):
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value > 0 or value != value or value == float("inf"):
        unit = "seconds" if kind is float else "threads"
        raise ConfigError(f"{name} must be a positive number of {unit}, not {text[:40]!r}")
    return value


class RankedPaper(Protocol):
    """What the re-ranker reads of a ranked paper (search/rank.py's RankedPaper, a dataclass):
    declared here so this folder sits below search/, which calls it, and imports nothing back."""

    paper: Any
    score: float
    score_terms: dict[str, float]


@dataclass
class Reranked:
    papers: list[RankedPaper]
    applied: bool  # the order is the fused one
    note: str | None = None  # one line when the re-ranker did not run, saying why
    embedded: int = 0  # papers embedded


def default_mode(env: Mapping[str, str] = os.environ) -> str:
    """``semantic`` when the libraries and a usable model are here, else ``none``."""
    location = locate_model(env)
    if location is None or not location.usable or missing_libraries():
        return "none"
    return "semantic"


def fell_back(reason: str) -> str:
    return f"semantic re-ranking off: {reason}; lexical order kept"


def paper_text(item: RankedPaper) -> str:
    """What the model reads of a paper: its title, then its abstract (or TLDR)."""
    paper = item.paper
    body = paper.abstract or paper.tldr or ""
    title = paper.title or ""
    return f"{title}. {body}".strip(" .") if body else title


def rerank_papers(topic: str, papers: Sequence[RankedPaper], *, variants: Sequence[str] = (),
                  settings: RerankSettings | None = None, env: Mapping[str, str] = os.environ,
                  lexical: Callable[[RankedPaper], float] = lambda item: item.score,
                  band: Callable[[RankedPaper], Hashable] | None = None,
                  clock: Callable[[], float] = time.monotonic,
                  memory: Callable[[], int | None] = available_memory) -> Reranked:
    """``papers`` (in today's order) with the top ``CANDIDATES`` re-ordered by the fusion of
    ``lexical(item)`` and the meaning match, each carrying its ``semantic`` score term; or the
    same list, unchanged, with a one-line note. ``band``: papers re-ordered only among those of
    the same band (snowball: the number of seeds a paper reaches)."""
    papers = list(papers)
    settings = settings or RerankSettings.from_env(env)
    started = clock()
    out_of_time = lambda: clock() - started > settings.budget_seconds  # noqa: E731
    head = papers[:CANDIDATES]
    if not head:
        return Reranked(papers, applied=False)
    missing = missing_libraries()
    if missing:
        return Reranked(papers, False, fell_back(f"{', '.join(missing)} not installed ({EXTRA_HINT})"))
    location = locate_model(env)
    if location is None:
        return Reranked(papers, False, fell_back("no model installed (run `lit-search doctor --install semantic`, "
                                                 f"or set {RERANK_MODEL_VARIABLE})"))
    queries = list(dict.fromkeys(text for text in (topic, *variants) if text and text.strip()))
    try:
        encoder = load_encoder(location, settings.threads, memory)
        if out_of_time():
            raise OutOfTime
        query_vectors = encoder.embed(queries, out_of_time)
        paper_vectors = encoder.embed([paper_text(item) for item in head], out_of_time)
    except ModelUnusable as failure:
        return Reranked(papers, False, fell_back(str(failure)))
    except OutOfTime:
        return Reranked(papers, False, fell_back(f"it took longer than {settings.budget_seconds:g} s "
                                                 f"({BUDGET_VARIABLE})"))
    except MemoryError:
        return Reranked(papers, False, fell_back("too little memory to run the model"))
    except Exception as error:  # a model that loaded but fails on these texts
        return Reranked(papers, False, fell_back(f"the model failed ({type(error).__name__})"))
    similarity = (paper_vectors @ query_vectors.T).mean(axis=1).clip(-1.0, 1.0).tolist()
    marked = [replace(item, score_terms={**item.score_terms, SEMANTIC_TERM: round(max(0.0, value), 4)})
              for item, value in zip(head, similarity)]
    reordered = _fused(marked, similarity, lexical, band)
    return Reranked(reordered + papers[CANDIDATES:], applied=True, embedded=len(head))


def _fused(head: list[RankedPaper], similarity: list[float], lexical: Callable[[RankedPaper], float],
           band: Callable[[RankedPaper], Hashable] | None) -> list[RankedPaper]:
    """Known items first, as they were; each band's other papers in the fused order, the bands
    where they were."""
    from .fusion import fused_order

    known = [i for i, item in enumerate(head) if item.score_terms.get("title_match", 0) > 0]
    slots: dict[Hashable, list[int]] = {}
    for i, item in enumerate(head):
        if i not in known:
            slots.setdefault(band(item) if band else None, []).append(i)
    order = list(range(len(head)))
    for positions in slots.values():
        fused = fused_order([lexical(head[i]) for i in positions], [similarity[i] for i in positions])
        for slot, chosen in zip(positions, fused):
            order[slot] = positions[chosen]
    ordered = [head[i] for i in order]
    if band is not None:  # known items keep their places within the bands
        return ordered
    return [ordered[i] for i in known] + [item for i, item in enumerate(ordered) if i not in known]
