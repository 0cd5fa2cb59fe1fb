"""A deep-search session, round by round: ``start`` runs the first search and shows the first
batch; ``advance`` records the verdicts on a batch, decides whether the search is complete,
chases what was judged relevant, scores every candidate and shows the next batch.

The first batch is the search's own top rows (its ranking is the best evidence before any
verdict); every later batch is the unjudged candidates with the highest score
(deep/score.py). Both functions change the session in memory; the caller saves it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..core.errors import FetchFailed, NotCached, UsageError
from ..core.filters import Filters
from ..core.text import plural
from ..net.http import HttpClient
from ..search.options import MAX_VARIANTS
from ..providers.base import provider_label
from .expand import keeps, lasting, plan_round, provider_caps, query_arrivals, run_actions, topic_sentences
from .limits import CHASE_PASSES
from .pool import Pool
from .score import explain, next_order, score_candidates
from .session import Options, Round, Session, now_utc
from .stop import budget_spent, rule_now, saturation
from .verdicts import Verdicts, apply


@dataclass
class Timing:
    """Seconds of lit-search's own work in the last step (scoring, choosing, merging)."""

    own_seconds: float = 0.0
    weights: dict[str, float] = field(default_factory=dict)


async def start(http: HttpClient, topic: str, variants: list[str], filters: Filters, options: Options) -> Session:
    import asyncio

    from ..search.options import MAX_FETCH, checked_options
    from ..search.pipeline import run_search, with_resolved_filters
    from ..search.plan import detect_providers

    distinct: dict[str, str] = {topic.casefold(): topic}
    for variant in variants:  # a variant that is the topic (or another variant) in other case: once
        distinct.setdefault(variant.casefold(), variant)
    variants = list(distinct.values())[1:]
    # A topic of several sentences is also searched sentence by sentence (within the number of
    # queries one search takes): the session's own queries, not the user's variants.
    sentences = [s for s in topic_sentences(topic) if s.casefold() not in distinct][:MAX_VARIANTS - len(variants)]
    session = Session(topic=topic, variants=list(variants), filters=filters, options=options, created_at=now_utc())
    entry = Round(1)
    session.rounds.append(entry)
    before, before_cached = dict(http.request_counts), dict(http.cache_counts)
    search = checked_options(topic, variants=[*variants, *sentences], providers=options.providers, limit=MAX_FETCH,
                             filters=filters, verify=False, rerank=options.rerank)
    # Entity filters resolved once (kept for every round), so the searches below run at once.
    search = await with_resolved_filters(http, search)
    providers = search.providers or detect_providers(search.queries).providers
    result, (alone, alone_said) = await asyncio.gather(run_search(search, http.settings, http=http),
                                                       one_by_one(http, search, providers, entry))
    if result.all_failed and not alone:
        # Nothing was searched: a session "exhausted" at once would say the topic has no
        # literature, and `deep next` would refuse to go on. No file is written; try again.
        raise FetchFailed(nothing_searched(result.outcomes))
    session.filters = result.filters or search.filters
    session.queries = [topic, *variants, *sentences]
    session.search_providers = [o.provider for o in result.outcomes if o.returns == "papers"]
    arrivals = [(item.paper, {"round": 1, "via": "search", "query": topic, "rank": rank})
                for rank, item in enumerate(result.results, start=1)]
    arrivals += alone
    pool = Pool(session)
    new = pool.add(arrivals)
    entry.actions.append(f"search of {', '.join(provider_label(p) for p in session.search_providers) or 'nothing'}: "
                         f"{plural(len(result.results), 'paper')} after merging {plural(result.record_count, 'record')}")
    if sentences:
        entry.actions.append(f"the topic's {plural(len(sentences), 'sentence')} searched one by one too: "
                             + "; ".join(f"“{sentence}”" for sentence in sentences))
    if alone_said:
        entry.actions.append(alone_said)
    entry.notes += [f"failed: {item}" for item in failures(result.outcomes)]
    if result.rerank_note:
        entry.notes.append(result.rerank_note)
    entry.new_candidates = len(new)
    entry.requests = _spent(before, http.request_counts)
    entry.cached = _spent(before_cached, http.cache_counts)
    score_candidates(session)
    # The first batch is the search's own order, never more than the budget lets the judge read.
    session.batch = [key for key in new][: min(options.batch, options.max_judged)]
    for key in session.batch:
        session.candidates[key].shown_round = 1
    explain(session, session.batch)
    if not session.batch:
        passing = failures(result.outcomes, passing=True)
        if passing:
            # Nothing found, but a provider that failed for now might have found something: not
            # "exhausted" (the topic may have a literature), and no file: start it again later.
            raise FetchFailed("the search found nothing to judge while " + "; ".join(passing) + " failed, so no "
                              "session file was written; start it again later")
        session.done, session.stop_reason = True, "exhausted"
        entry.stop_check = "the search found nothing to judge"
    return session


def failures(outcomes, passing: bool = False) -> list[str]:
    """The providers a search's outcomes say failed, each "Label (why)"; with ``passing``, only
    those whose failure asking again may get past."""
    return [f"{provider_label(o.provider)} ({o.error})" for o in outcomes
            if o.error and (not passing or (o.failure is not None and not lasting(o.failure)))]


def nothing_searched(outcomes) -> str:
    """Why a start whose every provider failed wrote nothing, and when to start it again (first:
    a long line is cut at its end). Offline, with no provider's answer in the cache, "later"
    would fail again: online, then."""
    missed = [o.failure for o in outcomes if o.failure is not None]
    if missed and all(isinstance(failure, NotCached) for failure in missed):
        return ("offline, and no provider's answer for this topic is in the cache, so nothing was searched and no "
                "session file was written; start it again online (not offline)")
    return ("every provider failed, so nothing was searched and no session file was written; start it again later: "
            + "; ".join(failures(outcomes)))


async def one_by_one(http: HttpClient, search, providers: list[str], entry: Round) -> tuple[list, str | None]:
    """The first round's further queries (the user's variants, the topic's sentences) searched
    one at a time where a provider cannot fold them into one query, while the round's search
    runs: that search asks such a provider the topic alone (Semantic Scholar's relevance search
    has no OR), so without this none of them would reach it. Every provider then answers every
    query, folded or one by one, at its own pace (a request each). Returns the arrivals and what
    was asked, in words (None when nothing was)."""
    import asyncio

    from ..providers.base import get_provider

    queries = search.queries[1:]
    alone = [name for name in providers if get_provider(name).returns == "papers"
             and get_provider(name).plan_query(search.queries)[1] != "combined"]
    if not alone or not queries:
        return [], None

    async def one(query: str) -> list:
        result, arrivals = await query_arrivals(http, query, alone, search.filters, 1, "search")
        entry.notes += [f"failed: {provider_label(o.provider)} ({o.error}) for “{query}”"
                        for o in result.outcomes if o.error]
        return arrivals

    found = await asyncio.gather(*(one(query) for query in queries))
    said = (f"{', '.join(provider_label(p) for p in alone)}: {plural(len(queries), 'further query', 'further queries')} "
            f"searched one by one (no OR to fold them into the topic's search): {plural(sum(map(len, found)), 'paper')}")
    return [arrival for arrivals in found for arrival in arrivals], said


def judge(session: Session, verdicts: Verdicts, judge_queries: list[str]) -> Session:
    """Record ``verdicts`` (and the judge's new queries, searched in the next round), then stop
    when a budget is spent or the search is saturated. No request is sent: the caller saves the
    session here, so a step killed later never loses a verdict."""
    if session.done:
        raise UsageError(f"this session is complete ({session.stop_reason}); see its results with "
                         f"`lit-search deep results FILE`")
    waiting, left_out = check_queries(session, judge_queries)
    apply(session, verdicts)
    if session.rounds:
        session.rounds[-1].notes += left_out
    session.said = verdicts.notes + left_out
    session.pending_queries = waiting
    spent = budget_spent(session)
    if spent:
        return _stopped(session, "budget", spent)
    saturated, said = saturation(session)
    if saturated and not session.pending_queries:
        return _stopped(session, "saturated", said)
    if session.rounds:
        session.rounds[-1].stop_check = said
    return session


def budget_left(session: Session, options: Options) -> str | None:
    """Why a session stopped at its budget would stop again at once under ``options`` (in
    words), or None when those leave room to go on."""
    if session.stop_reason != "budget":
        return None
    running, session.options = session.options, options
    try:
        return budget_spent(session)
    finally:
        session.options = running


def reopen(session: Session, queries: list[str], options: Options | None) -> None:
    """A complete session goes on: the judge's new queries (searched next round) or a larger
    budget; the last round's notes say why it was reopened, and its stop check is the rule's
    check under the new options (the stop it had said, "… the limit set by --max-requests (10)
    is reached", would be printed under the next batch as if it still held)."""
    waiting = {query.casefold() for query in session.pending_queries}
    session.pending_queries, left_out = check_queries(session, queries)
    # The judge's queries that will be searched: not one searched already, nor one waiting already.
    added = {query.casefold() for query in session.pending_queries} - waiting
    said = [plural(len(added), "new query", "new queries")] if added else []
    if options is not None:
        # In words every door reads alike: the session file is one, whichever door goes on with it.
        said += [f"{limit} {getattr(session.options, name):,} → {getattr(options, name):,}"
                 for name, limit in (("max_judged", "papers to judge at most"), ("max_requests", "requests at most"))
                 if getattr(options, name) != getattr(session.options, name)]
        session.options = options
    reopened = f"reopened after the stop ({session.stop_reason}): {', '.join(said) or 'asked again'}"
    if session.rounds:
        session.rounds[-1].notes += [reopened, *left_out]
    session.said = [reopened, *left_out]  # the step says it too: its stop line is the rule's check again
    session.done, session.stop_reason = False, None
    if session.rounds:
        session.rounds[-1].stop_check = saturation(session)[1]


def check_queries(session: Session, judge_queries: list[str]) -> tuple[list[str], list[str]]:
    """The queries waiting for the next round with the judge's, at most MAX_VARIANTS; and a note
    for each of the judge's left out (the judge gave it to be searched, so it is told why not).
    A query searched already (the topic, a variant, an earlier query), in any case, is not
    searched again; one waiting already, or given twice, is searched once."""
    searched = {query.casefold() for query in [session.topic, *session.variants, *session.queries]}
    waiting: dict[str, str] = {}
    for query in session.pending_queries:
        if query.casefold() not in searched:
            waiting.setdefault(query.casefold(), query)
    pending = set(waiting)
    notes: dict[str, str] = {}
    for query in judge_queries:
        key = query.casefold()
        why = "searched already" if key in searched else "waiting already for the next round" if key in pending else ""
        if why:
            notes.setdefault(key, f"the judge's query “{query}” not searched again: {why}")
        else:
            waiting.setdefault(key, query)  # given twice: searched once, no note
    if len(waiting) > MAX_VARIANTS:
        raise UsageError(f"{plural(len(waiting), 'query', 'queries')} would wait for the next round; "
                         f"at most {MAX_VARIANTS}")
    return list(waiting.values()), list(notes.values())


async def expand(http: HttpClient, session: Session, timing: Timing | None = None) -> Session:
    """The next round: chase, score, choose the next batch (or stop, exhausted)."""
    timing = timing or Timing()
    entry = Round(len(session.rounds) + 1)
    session.rounds.append(entry)
    before, before_cached = dict(http.request_counts), dict(http.cache_counts)
    passing: list[str] = []  # failures that may pass (expand.Found.passing), every pass's
    left_out = 0  # records the session's filters leave out
    timing.own_seconds = 0.0
    for passes in range(1, CHASE_PASSES + 1):
        # A round sends at most what is left of the session's budget too, so that --max-requests
        # is not overshot by a round's worth (the judge's own queries still go: they never wait).
        allowed = min(session.options.round_requests,
                      max(1, session.options.max_requests - session.requests_sent))
        caps = provider_caps(http, allowed)
        queries, session.pending_queries = session.pending_queries, []
        actions, waiting = plan_round(session, queries, session.search_providers, caps, allowed)
        found = await run_actions(http, session, actions, entry, session.search_providers)
        passing += found.passing
        entry.requests = _spent(before, http.request_counts)
        entry.cached = _spent(before_cached, http.cache_counts)
        started = time.process_time()
        kept = [(paper, evidence) for paper, evidence in found.arrivals if keeps(paper, session.filters)]
        left_out += len(found.arrivals) - len(kept)
        pool = Pool(session)
        entry.new_candidates += len(pool.add(kept))
        pool.add_references(found.cited)
        timing.own_seconds += time.process_time() - started
        # Chased again at once when the round's budget left leads waiting and nothing is left
        # to judge: "exhausted" would be untrue while a lead is unasked. Not after a failure that
        # may pass: its lead would be asked again at once, and again, while the provider is down.
        if not (waiting and actions and not found.passing and not session.unjudged() and not budget_spent(session)):
            break
    started = time.process_time()
    if passes > 1:
        # Said, or the report's table shows a round sending twice its stated budget unexplained.
        entry.notes.append(f"chased in {passes} passes, as nothing was left to judge after the first; each pass "
                           f"within the round's budget ({plural(session.options.round_requests, 'request')}): "
                           f"{plural(sum(entry.requests.values()), 'request')} in all")
    entry.notes += waiting
    if left_out:
        entry.notes.append(f"{plural(left_out, 'record')} left out by the filters")
    timing.weights = score_candidates(session)
    set_aside = pool.set_aside()
    if set_aside:
        entry.notes.append(f"{plural(set_aside, 'candidate')} with the least evidence set aside (the pool keeps "
                           f"{len(session.candidates):,})")
    room = session.options.max_judged - len(session.judged())
    if room <= 0:  # a file whose budget was lowered by hand: the budget's stop, never a batch cut from the end
        return _stopped(session, "budget", budget_spent(session) or "the --max-judged budget is spent")
    unjudged = next_order(session)
    timing.own_seconds += time.process_time() - started  # the re-ranker's seconds are its own
    unjudged = await by_meaning(session, unjudged, entry)
    started = time.process_time()
    session.batch = [c.key for c in unjudged[: min(session.options.batch, room)]]
    for key in session.batch:
        session.candidates[key].shown_round = entry.number
    explain(session, session.batch)
    entry.stop_check = rule_now(session)
    timing.own_seconds += time.process_time() - started
    if not session.batch:
        if passing:
            # Not exhausted: leads are still owed. Nothing of this round is saved (the caller
            # saved the verdicts), so the next step runs the round again.
            raise FetchFailed(f"no candidate left to judge and {plural(len(passing), 'request')} of this round "
                              f"failed ({passing[0]}{'; …' if len(passing) > 1 else ''}); every verdict "
                              f"is kept: ask for the next step again, with no verdicts, to run the round again")
        if waiting and actions and not budget_spent(session):
            # Leads still wait after the passes a step allows: not exhausted; the next step chases them.
            entry.notes.append(f"nothing new to judge after {plural(passes, 'pass', 'passes')} of chasing; leads "
                               f"still wait for the next step")
            return session
        return _stopped(session, "exhausted", "no unjudged candidate is left after chasing every lead")
    return session


async def advance(http: HttpClient, session: Session, verdicts: Verdicts, judge_queries: list[str],
                  timing: Timing | None = None) -> Session:
    """``judge`` then, unless the session stopped, ``expand`` (in one go: the benchmark's way)."""
    judge(session, verdicts, judge_queries)
    return session if session.done else await expand(http, session, timing)


def awaiting_round(session: Session) -> bool:
    """Verdicts recorded, the next round not yet run (a step was stopped between the two)."""
    return not session.done and not session.batch and bool(session.rounds)


async def by_meaning(session: Session, ordered: list, entry: Round) -> list:
    """The candidates with the top of their order fused with the optional semantic re-ranker
    (semantic/rerank.py: the topic's meaning against each title and abstract), when the session
    asks for it or this installation has it; the order as it was, and a note, when it cannot run."""
    import asyncio

    from ..search.rank import RankedPaper
    from ..semantic.rerank import default_mode, rerank_papers

    mode = session.options.rerank or default_mode()
    if mode != "semantic" or not ordered:
        return ordered
    items = [RankedPaper(c.paper, [c.paper], relevance=c.score, score=c.score) for c in ordered]
    by_paper = {id(candidate.paper): candidate for candidate in ordered}
    done = await asyncio.to_thread(rerank_papers, session.topic, items, variants=session.variants)
    if done.note:
        entry.notes.append(done.note)
    if not done.applied:
        return ordered
    found = []
    for item in done.papers:
        candidate = by_paper[id(item.paper)]
        candidate.meaning = item.score_terms.get("semantic")  # said in its why if it is shown
        found.append(candidate)
    return found


def _stopped(session: Session, reason: str, said: str) -> Session:
    session.done, session.stop_reason, session.batch = True, reason, []
    if session.rounds:
        session.rounds[-1].stop_check = said
    return session


def _spent(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {name: count - before.get(name, 0) for name, count in after.items() if count - before.get(name, 0)}
