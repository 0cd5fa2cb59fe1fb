"""The search pipeline: plan -> fetch (all providers in parallel) -> merge -> rank ->
filter -> enrich (Crossref DOI checks, Unpaywall links) for the rows shown.

Each provider's outcome is a value (records, or an error with a one-line reason);
one provider failing never sinks the search.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..core.config import Settings
from ..core.errors import NotCached, ProviderError
from ..core.filters import OPENALEX_ONLY_FILTERS, Filters, passes
from ..core.records import Paper
from ..core.text import plural
from ..net.http import HttpClient
from ..providers.base import QueryMode, Returns, SearchRequest, get_provider
from .aliases import check_providers, only_openalex_note, resolve_filters
from .enrich import EnrichmentReport, enrich_shown, find_open_access
from .offline import answer_from_cache
from .options import SearchOptions
from .plan import ProviderRequest, detect_providers, plan_requests
from .rank import RankedPaper, provider_relevance, relevance_of, score_of, score_terms, sort_ranked

log = logging.getLogger("litsearch")

# The hard stop for a provider is its budget plus this margin (covers parsing and pacing).
BUDGET_MARGIN_SECONDS = 2.0

@dataclass
class ProviderOutcome:
    provider: str
    query: str
    mode: QueryMode
    records: list[Any] = field(default_factory=list)  # Papers, or web hits for a provider returning "web"
    # Why the provider gave nothing, kept as the typed error (its status, whether a retry may
    # help, NotCached …); its one line (key advice added, keys removed) is what outputs say.
    failure: ProviderError | None = None
    notes: list[str] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0
    cached: int = 0  # answers served from the local cache
    native_filters: frozenset[str] = frozenset()
    returns: Returns = "papers"  # what the provider gives: "papers" or "web" hits
    in_relevance_order: bool = True  # False: the answer came newest or most cited first (S2 bulk)

    @property
    def error(self) -> str | None:
        """The failure in one line, as every output says it; None when the provider answered."""
        return self.failure.message if self.failure is not None else None


@dataclass
class SearchResult:
    query: str
    variants: list[str]
    outcomes: list[ProviderOutcome]
    results: list[RankedPaper]
    provider_reason: str | None
    search_time_ms: int
    filter_report: list[str] = field(default_factory=list)
    enrichment: EnrichmentReport = field(default_factory=EnrichmentReport)
    filtered_out: int = 0
    offline: bool = False  # answered from the cache alone (--offline)
    excluded_retracted: int = 0  # retracted papers left out (--exclude-retracted)
    after_dedupe: int | None = None  # papers once duplicates were merged, before the filters
    reranked: bool = False  # the top of the order was fused with the semantic re-ranker's
    rerank_note: str | None = None  # why the re-ranker did not run, when it was to run
    sent: list[dict] = field(default_factory=list)  # every request, as HttpClient.log_request noted it
    filters: Filters | None = None  # as applied: entity filters resolved to OpenAlex ids

    def __repr__(self) -> str:
        # In a notebook the generated repr printed every provider record (270,000 characters for
        # one search): what it is, in a line; its fields are there to read one by one.
        providers = ", ".join(f"{o.provider} {len(o.records)}" for o in self.outcomes)
        return (f"<{type(self).__name__} {self.query!r}: {len(self.results)} papers from "
                f"{self.record_count} records ({providers})>")

    @property
    def total_count(self) -> int:
        return len(self.results)

    @property
    def record_count(self) -> int:
        """The provider records identified (a snowball's result counts its lists: graph/chased.py)."""
        return sum(len(o.records) for o in self.outcomes)

    @property
    def source_said(self) -> str:
        """Where the rows came from, after "Showing 20 of 48 papers" in every view."""
        return f"merged from {plural(self.record_count, 'provider record')}"

    @property
    def request_count(self) -> int:
        return sum(o.requests for o in self.outcomes) + sum(self.enrichment.requests.values())

    @property
    def paper_outcomes(self) -> list[ProviderOutcome]:
        return [o for o in self.outcomes if o.returns == "papers"]

    @property
    def web_hits(self) -> list:
        return [hit for o in self.outcomes if o.returns == "web" for hit in o.records]

    @property
    def all_failed(self) -> bool:
        papers = self.paper_outcomes
        return bool(papers) and all(o.error for o in papers)

    def export_marks(self) -> list | None:
        """What an export carries of each row beyond its record (biblio/writers.py Marks): nothing
        for a search; a deep search's results carry their verdicts (deep/results.py)."""
        return None

    def work_line(self) -> str:
        """The footer's last line: what getting this result cost ("12 requests in 3.4 s")."""
        from ..core.text import plural

        return f"{plural(self.request_count, 'request')} in {self.search_time_ms / 1000:.1f} s"


async def _fetch_provider(http: HttpClient, plan: ProviderRequest, options: SearchOptions) -> ProviderOutcome:
    provider = get_provider(plan.provider)
    outcome = ProviderOutcome(plan.provider, plan.query, plan.mode, returns=provider.returns)
    session = http.session(plan.provider)
    started = time.monotonic()
    limit = options.fetch_per_provider
    request = SearchRequest(plan.query, limit, options.filters, combined=plan.mode == "combined",
                            variants=tuple(options.queries), sort=options.sort)
    try:
        try:
            answer = await provider.search(session, request)
        except NotCached as missed:
            answer = await answer_from_cache(provider, session, request, missed)
        # An answer in another order than relevance (Semantic Scholar's bulk search, sorted by
        # citations or date as the user asked, up to 1,000 papers) is kept whole: the ranking
        # scores every paper of the pool itself.
        outcome.records = answer.records if not answer.ranked else answer.records[:limit]
        outcome.in_relevance_order = answer.ranked
        outcome.native_filters = answer.native_filters
        outcome.notes = [http.settings.redact(" ".join(note.split())) for note in answer.notes]
    except ProviderError as exc:
        outcome.failure = exc.with_message(provider.explain(exc, http.settings))
    except Exception as exc:  # a parser bug must not sink the other providers
        log.debug("provider %s crashed", plan.provider, exc_info=True)
        outcome.failure = ProviderError(f"internal error ({type(exc).__name__}: {str(exc)[:120]})",
                                        provider=plan.provider)
    if outcome.failure is not None:
        await session.forget_cached_answers()
        outcome.failure = outcome.failure.with_message(http.settings.redact(" ".join(outcome.failure.message.split())))
    outcome.requests = session.requests_sent
    outcome.cached = session.cache_hits
    outcome.seconds = time.monotonic() - started
    return outcome


def search_deadline(http: HttpClient) -> float:
    """One deadline for a whole search from now (HttpClient's clock): the providers' budget
    plus the margin. Enrichment works within what is left of it, so the budgets never add up."""
    return http.clock() + http.settings.provider_budget + BUDGET_MARGIN_SECONDS


def without_retracted(items: list[RankedPaper]) -> tuple[list[RankedPaper], int]:
    """(the items no source marks retracted, how many were left out)."""
    kept = [item for item in items if not item.paper.retracted]
    return kept, len(items) - len(kept)


async def _bounded(http: HttpClient, plan: ProviderRequest, options: SearchOptions) -> ProviderOutcome:
    """A provider that overruns its budget (plus margin) is cut off and reported."""
    limit = http.settings.provider_budget + BUDGET_MARGIN_SECONDS
    try:
        return await asyncio.wait_for(_fetch_provider(http, plan, options), timeout=limit)
    except asyncio.TimeoutError:
        return ProviderOutcome(plan.provider, plan.query, plan.mode,
                               failure=ProviderError(f"gave up after {limit:.0f} s (time budget)",
                                                     provider=plan.provider, retryable=True),
                               requests=http.request_counts.get(plan.provider, 0), seconds=limit)


def import_merge_engine() -> None:
    """Load the merge engine (its patterns and rapidfuzz): not needed before the first answer."""
    import importlib

    importlib.import_module("litsearch.dedupe.clusters")


def merge_and_rank(outcomes: list[ProviderOutcome], sort: str, queries: list[str]) -> list[RankedPaper]:
    """Merge the providers' records into papers and rank them against ``queries`` (the topic
    and its variants); the parsed records are left as they were."""
    from ..dedupe.clusters import find_clusters
    from ..dedupe.merge import merge_cluster

    records: list[Paper] = []
    relevance: list[float] = []
    for outcome in outcomes:
        records.extend(outcome.records)
        relevance.extend(provider_relevance(outcome.records, outcome.in_relevance_order))
    merged = []
    for cluster in find_clusters(records):
        hits = [records[i] for i in cluster.members]
        scores: dict[str, float] = {}
        for i in cluster.members:
            name = records[i].provider
            scores[name] = max(scores.get(name, 0.0), relevance[i])
        merged.append((merge_cluster(hits), hits, list(cluster.reasons), scores))
    answered = sum(1 for outcome in outcomes if not outcome.error)
    terms = score_terms([paper for paper, *_ in merged], [scores for *_, scores in merged], queries, answered)
    ranked = [RankedPaper(paper, hits, reasons, scores, relevance=relevance_of(paper_terms),
                          score=score_of(paper_terms), score_terms=paper_terms)
              for (paper, hits, reasons, scores), paper_terms in zip(merged, terms)]
    return sort_ranked(ranked, sort)


def apply_filters(items: list[RankedPaper], outcomes: list[ProviderOutcome],
                  filters: Filters) -> tuple[list[RankedPaper], list[str]]:
    """Keep the papers that pass every filter (rule: ``filters.passes``), and say where
    each filter was applied."""
    native = {o.provider: o.native_filters for o in outcomes if not o.error}
    kept = []
    for item in items:
        records = [item.paper, *item.hits]
        finders = {hit.provider for hit in item.hits}
        if all(passes(records, filters, name, vouched=any(name in native.get(p, ()) for p in finders))
               for name in filters.active()):
            kept.append(item)
    report = []
    for name in filters.active():
        by_api = [p for p in native if name in native[p]]
        after = [p for p in native if name not in native[p]]
        line = f"{filters.describe(name)}: "
        line += f"applied by {', '.join(by_api)}" if by_api else "no provider applies it itself"
        if after and name in OPENALEX_ONLY_FILTERS:
            line += "; " + only_openalex_note(name, after)
        elif after:
            line += f"; applied after fetching for {', '.join(after)}"
        report.append(line)
    return kept, report


async def reranked_by_meaning(options: SearchOptions,
                              items: list[RankedPaper]) -> tuple[list[RankedPaper], bool, str | None]:
    """(the items, re-ranked or not, whether they were, a one-line note): the optional semantic
    re-ranker on the top of a relevance order (semantic/rerank.py), in a worker thread so a
    server's other calls go on while it embeds."""
    from ..semantic.rerank import default_mode, rerank_papers

    mode = options.rerank or default_mode()
    if mode != "semantic" or not items:
        return items, False, None
    if options.sort != "relevance":
        note = f"semantic re-ranking applies to --sort relevance; the {options.sort} order is kept"
        return items, False, note if options.rerank else None
    done = await asyncio.to_thread(rerank_papers, options.topic, items, variants=options.queries[1:])
    return done.papers, done.applied, done.note


class SearchProgress(Protocol):
    """Who wants to hear how a search goes (a live status line; nothing by default)."""

    def started(self, providers: list[str]) -> None: ...
    def finished(self, outcome: ProviderOutcome) -> None: ...
    def enriching(self, rows: int) -> None: ...
    def enriched(self, report: EnrichmentReport) -> None: ...


class _Silent:
    def started(self, providers: list[str]) -> None:
        pass

    def finished(self, outcome: ProviderOutcome) -> None:
        pass

    def enriching(self, rows: int) -> None:
        pass

    def enriched(self, report: EnrichmentReport) -> None:
        pass


async def run_search(options: SearchOptions, settings: Settings, http: HttpClient | None = None,
                     cache=None, progress: SearchProgress | None = None) -> SearchResult:
    """The whole pipeline; ``cache`` is a ``litsearch.net.cache.ResponseCache`` (or None);
    ``progress`` hears of each provider's start and end and of the enrichment."""
    progress = progress or _Silent()
    if http is None:
        async with HttpClient(settings, cache=cache) as client:
            return await _run_search(options, client, progress)
    return await _run_search(options, http, progress)


async def with_resolved_filters(http: HttpClient, options: SearchOptions) -> SearchOptions:
    """``options`` with each entity filter resolved to its OpenAlex id (search/aliases.py)."""
    check_providers(options.filters, options.providers)
    resolved = await resolve_filters(http, options.filters)
    return options if resolved is options.filters else replace(options, filters=resolved)


async def _ended(tasks: list[asyncio.Future]) -> None:
    """Every provider's task over before the search returns or unwinds: a search cancelled (Ctrl-C,
    SIGTERM, a caller's timeout) must not leave its requests running past it, into a response
    cache and an HTTP client its caller has closed by then ("cache disabled: the database is
    closed" after the interrupt's line)."""
    unfinished = [task for task in tasks if not task.done()]
    for task in unfinished:
        task.cancel()
    if unfinished:
        await asyncio.wait(unfinished)


async def _reported(work, progress: SearchProgress) -> ProviderOutcome:
    outcome = await work
    progress.finished(outcome)
    return outcome


async def _run_search(options: SearchOptions, http: HttpClient, progress: SearchProgress) -> SearchResult:
    started = time.monotonic()
    options = await with_resolved_filters(http, options)  # entity filters -> OpenAlex ids, before any search
    queries = options.queries
    reason = None
    providers = options.providers
    if providers is None:
        choice = detect_providers(queries)
        providers, reason = choice.providers, choice.reason
    plans = plan_requests(providers, queries, options.sort)
    deadline = search_deadline(http)
    progress.started([plan.provider for plan in plans])
    tasks = [asyncio.ensure_future(_reported(_bounded(http, plan, options), progress)) for plan in plans]
    try:
        # The merge engine loads while the slower providers are still answering: after the first
        # answer, so it never delays a request.
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        import_merge_engine()
        outcomes = [await task for task in tasks]
    finally:
        await _ended(tasks)
    paper_outcomes = [o for o in outcomes if o.returns == "papers"]
    ranked = merge_and_rank(paper_outcomes, options.sort, options.queries)
    filters = options.filters
    enrichment = EnrichmentReport()
    kept, filter_report = apply_filters(ranked, paper_outcomes, filters)
    if filters.open_access and options.find_open_access:
        # Unpaywall may find a free copy for papers no provider marked open: ask, then filter again.
        kept_ids = {id(item) for item in kept}
        undecided = [position for position, item in enumerate(ranked)
                     if id(item) not in kept_ids and not item.paper.oa_url][: 2 * options.limit]
        if undecided:
            asked = await find_open_access(http, [ranked[position] for position in undecided], enrichment, deadline)
            for position, item in zip(undecided, asked):
                ranked[position] = item
            kept, filter_report = apply_filters(ranked, paper_outcomes, filters)
    filtered_out = len(ranked) - len(kept)
    excluded = 0
    if options.exclude_retracted:  # what OpenAlex and PubMed already said, before choosing the rows
        kept, excluded = without_retracted(kept)
    kept, reranked, rerank_note = await reranked_by_meaning(options, kept)
    if rerank_note:
        enrichment.notes.append(rerank_note)
    shown, rest = kept[: options.limit], kept[options.limit:]
    if shown and (options.find_open_access or options.verify):
        progress.enriching(len(shown))
    shown = await enrich_shown(http, shown, enrichment, open_access=options.find_open_access,
                               verify=options.verify, deadline=deadline)
    progress.enriched(enrichment)
    if options.exclude_retracted:  # and what Crossref's notices said about the shown rows
        shown, dropped = without_retracted(shown)
        excluded += dropped
    kept = shown + rest
    return SearchResult(
        query=options.topic,
        variants=queries[1:],
        outcomes=outcomes,
        results=kept,
        provider_reason=reason,
        search_time_ms=int((time.monotonic() - started) * 1000),
        filter_report=filter_report,
        enrichment=enrichment,
        filtered_out=filtered_out,
        offline=bool(http.cache is not None and http.cache.offline),
        excluded_retracted=excluded,
        after_dedupe=len(ranked),
        reranked=reranked,
        rerank_note=rerank_note,
        sent=list(http.sent),
        filters=filters,
    )
