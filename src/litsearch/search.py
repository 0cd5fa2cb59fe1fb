"""The search pipeline: plan -> fetch (all providers in parallel) -> merge -> rank.

Each provider's outcome is a value (records, or an error with a one-line reason);
one provider failing never sinks the search.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from .config import Settings
from .http import HttpClient, ProviderError
from .merge import find_clusters, merge_cluster
from .plan import ProviderRequest, detect_providers, plan_requests
from .providers import load_provider
from .rank import RankedPaper, provider_relevance, rank_by_lexical_relevance, score_paper, sort_ranked
from .records import Paper

log = logging.getLogger("litsearch")

MAX_QUERY_CHARS = 1000
MAX_VARIANTS = 8
# Records asked of each provider: more than shown, so merging and ranking have choice.
MIN_FETCH, MAX_FETCH = 25, 100
BULK_RECORDS = 1000
# The hard stop for a provider is its budget plus this margin (covers parsing and pacing).
BUDGET_MARGIN_SECONDS = 2.0


@dataclass
class SearchOptions:
    topic: str
    variants: list[str] = field(default_factory=list)
    providers: list[str] | None = None  # None = detect from the topic ("auto")
    limit: int = 20
    sort: str = "relevance"

    @property
    def queries(self) -> list[str]:
        seen, queries = set(), []
        for text in [self.topic, *self.variants]:
            key = text.casefold()
            if text and key not in seen:
                seen.add(key)
                queries.append(text)
        return queries

    @property
    def fetch_per_provider(self) -> int:
        return max(MIN_FETCH, min(MAX_FETCH, 2 * self.limit))


@dataclass
class ProviderOutcome:
    provider: str
    query: str
    mode: str
    records: list[Paper] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0


@dataclass
class SearchResult:
    query: str
    variants: list[str]
    outcomes: list[ProviderOutcome]
    results: list[RankedPaper]
    provider_reason: str | None
    search_time_ms: int

    @property
    def total_count(self) -> int:
        return len(self.results)

    @property
    def record_count(self) -> int:
        return sum(len(o.records) for o in self.outcomes)

    @property
    def request_count(self) -> int:
        return sum(o.requests for o in self.outcomes)

    @property
    def all_failed(self) -> bool:
        return bool(self.outcomes) and all(o.error for o in self.outcomes)


async def _fetch_provider(http: HttpClient, plan: ProviderRequest, options: SearchOptions) -> ProviderOutcome:
    outcome = ProviderOutcome(plan.provider, plan.query, plan.mode)
    session = http.session(plan.provider)
    started = time.monotonic()
    try:
        module = load_provider(plan.provider)
        limit = options.fetch_per_provider
        if plan.mode == "combined" and plan.provider == "semantic_scholar":
            # The bulk endpoint understands OR but has no relevance order: rank locally.
            # One bulk call returns up to 1,000 papers: rank all of them, then keep the best.
            records = await module.search_bulk(session, plan.query, BULK_RECORDS)
            records = rank_by_lexical_relevance(records, options.queries)[:limit]
        else:
            records = await module.search(session, plan.query, limit)
        outcome.records = records
    except ProviderError as exc:
        outcome.error = str(exc)
    except Exception as exc:  # a parser bug must not sink the other providers
        log.debug("provider %s crashed", plan.provider, exc_info=True)
        outcome.error = f"internal error ({type(exc).__name__}: {str(exc)[:120]})"
    outcome.requests = session.requests_sent
    outcome.notes = list(session.notes)
    outcome.seconds = time.monotonic() - started
    if outcome.error:
        outcome.error = http.settings.redact(" ".join(outcome.error.split()))
    return outcome


async def _bounded(http: HttpClient, plan: ProviderRequest, options: SearchOptions) -> ProviderOutcome:
    """A provider that overruns its budget (plus margin) is cut off and reported."""
    limit = http.settings.provider_budget + BUDGET_MARGIN_SECONDS
    try:
        return await asyncio.wait_for(_fetch_provider(http, plan, options), timeout=limit)
    except asyncio.TimeoutError:
        return ProviderOutcome(plan.provider, plan.query, plan.mode,
                               error=f"gave up after {limit:.0f} s (time budget)",
                               requests=http.request_counts.get(plan.provider, 0), seconds=limit)


def merge_and_rank(outcomes: list[ProviderOutcome], sort: str) -> list[RankedPaper]:
    records: list[Paper] = []
    relevance: list[float] = []
    for outcome in outcomes:
        records.extend(outcome.records)
        relevance.extend(provider_relevance(outcome.records))
    ranked = []
    for cluster in find_clusters(records):
        hits = [records[i] for i in cluster.members]
        scores: dict[str, float] = {}
        for i in cluster.members:
            name = records[i].provider
            scores[name] = max(scores.get(name, 0.0), relevance[i])
        item = RankedPaper(merge_cluster(hits), hits, list(cluster.reasons), scores)
        score_paper(item)
        ranked.append(item)
    return sort_ranked(ranked, sort)


async def run_search(options: SearchOptions, settings: Settings, http: HttpClient | None = None) -> SearchResult:
    started = time.monotonic()
    queries = options.queries
    reason = None
    providers = options.providers
    if providers is None:
        choice = detect_providers(queries)
        providers, reason = choice.providers, choice.reason
    plans = plan_requests(providers, queries)
    if http is None:
        async with HttpClient(settings) as client:
            outcomes = await asyncio.gather(*(_bounded(client, p, options) for p in plans))
    else:
        outcomes = await asyncio.gather(*(_bounded(http, p, options) for p in plans))
    results = merge_and_rank(list(outcomes), options.sort)
    return SearchResult(
        query=options.topic,
        variants=queries[1:],
        outcomes=list(outcomes),
        results=results,
        provider_reason=reason,
        search_time_ms=int((time.monotonic() - started) * 1000),
    )
