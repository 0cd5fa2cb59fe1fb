"""One round of chasing: from the papers judged relevant (and, weaker, maybe) to new candidates.

What a round asks, in this order, until its request budget is spent (the rest waits for the
next round, so nothing is skipped, only later):

1. the queries the judge added (``deep next --variant``): one search each, every provider the
   session searches;
2. for every paper judged relevant and not yet chased: its references and the papers citing it
   (up to ``PER_SEED`` each) from every provider with the ``links`` capability that can address
   it (Semantic Scholar by any id, OpenAlex by its W-id, Europe PMC for MED, PMC and preprint
   records);
3. "more like these": one recommendation request with the relevant papers as positives and the
   rejected ones as negatives, whenever the judged set changed (``recommend`` capability);
4. one semantic search with the text of the newest relevant paper not yet used
   (``semantic_search`` capability);
5. the papers most often cited together with the relevant ones (co-citation: cited by at least
   two of the papers that cite a relevant paper) that no answer has brought yet, fetched by id
   (``COCITED_PER_ROUND`` a round, from providers whose lists name ids: OpenAlex);
6. one new query from the words the relevant papers share that the topic lacks
   (deep/textmodel.py ``distinctive_terms``), when such words appear;
7. the references and citing papers of the papers judged maybe.

Every provider keeps its own pace (the HTTP layer); a round asks a provider at most what it
can answer in ``ROUND_SECONDS`` at that pace, and all providers work at once.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import LitSearchError, NotCached, ProviderError
from ..core.filters import Filters, passes
from ..core.records import Paper
from ..core.services import LINKS, RECOMMEND, SEMANTIC_SEARCH
from ..core.text import plural
from ..net.http import HttpClient
from ..providers.base import Provider, providers_for
from .limits import PER_SEED, RECOMMENDATIONS, ROUND_SECONDS, SEMANTIC_RESULTS
from .session import Candidate, Round, Session
from .textmodel import distinctive_terms, query_counts, surface_forms, topic_terms

DIRECTIONS = ("references", "citing")
SEARCH_LIMIT = 100  # records a round's query asks of each provider, as a search does
COCITED_PER_ROUND = 100  # co-cited works fetched in one round (one OpenAlex call per 100)
MIN_COCITATIONS = 2
MIN_RELEVANT_FOR_QUERY = 4  # relevant papers before their shared words make a query
JUDGE_QUERY = "the judge query"  # how a round's actions name a query the judge gave (shown first under a batch)


@dataclass
class Action:
    kind: str  # "search", "links", "recommend", "semantic"
    provider: str | None = None
    direction: str | None = None
    seeds: list[str] = field(default_factory=list)  # candidate keys
    queries: list[str] = field(default_factory=list)
    cost: int = 1
    label: str = ""  # what is recorded on each seed once done ("links:openalex:citing")
    origin: str = ""  # "judge", "derived": where a query came from


def link_label(provider: str, direction: str) -> str:
    return f"links:{provider}:{direction}"


def link_providers(session: Session) -> list[Provider]:
    """The providers that chase links for this session: every one with the capability, or,
    when the user named providers, those of them that have it."""
    found = providers_for(LINKS)
    named = session.options.providers
    return [p for p in found if named is None or p.name in named]


def chase_done(session: Session, candidate: Candidate) -> bool:
    """Whether every link list any provider can give for ``candidate`` has been asked."""
    return all(link_label(p.name, d) in candidate.chased
               for p in link_providers(session) if p.can_link(candidate.paper) for d in DIRECTIONS)


def plan_round(session: Session, judge_queries: list[str], search_providers: list[str],
               caps: dict[str, int], total: int | None = None) -> tuple[list[Action], list[str]]:
    """The actions of this round within its budgets (``total`` requests, by default the round's
    own budget), and a note of what waits."""
    wanted: list[Action] = []
    search_cost = len(search_providers) + (1 if "pubmed" in search_providers else 0)
    for query in judge_queries:
        wanted.append(Action("search", queries=[query], cost=search_cost, origin="judge"))
    relevant = sorted(session.judged("relevant"), key=lambda c: (c.judged_round or 0, int(c.key[1:])))
    maybe = sorted(session.judged("maybe"), key=lambda c: (c.judged_round or 0, int(c.key[1:])))
    wanted += _link_actions(session, relevant)
    wanted += _recommendation(session)
    wanted += _semantic(session, relevant)
    wanted += _cocited(session)
    derived = derived_query(session)
    if derived:
        wanted.append(Action("search", queries=[derived], cost=search_cost, origin="derived"))
    wanted += _link_actions(session, maybe)
    return _within_budget(wanted, session.options.round_requests if total is None else total, caps,
                          search_providers)


def _link_actions(session: Session, seeds: list[Candidate]) -> list[Action]:
    actions: dict[tuple[str, str], Action] = {}
    for candidate in seeds:
        for provider in link_providers(session):
            if not provider.can_link(candidate.paper):
                continue
            for direction in DIRECTIONS:
                label = link_label(provider.name, direction)
                if label in candidate.chased:
                    continue
                action = actions.setdefault((provider.name, direction),
                                            Action("links", provider.name, direction, label=label, cost=0))
                action.seeds.append(candidate.key)
    # One action per seed for the budget (a provider may batch them: OpenAlex's references), the
    # first of a group one more where the provider asks the seeds' own reference lists first.
    extra = {provider.name: provider.references_list_first for provider in link_providers(session)}
    return [Action("links", action.provider, action.direction, seeds=[seed], label=action.label,
                   cost=1 + (n == 0 and action.direction == "references" and extra.get(action.provider, False)))
            for action in actions.values() for n, seed in enumerate(action.seeds)]


def _recommendation(session: Session) -> list[Action]:
    relevant = [c.key for c in session.judged("relevant")]
    if not relevant:
        return []
    fingerprint = f"{len(relevant)}:{len(session.judged('not'))}"
    if session.recommended_with == fingerprint:
        return []
    return [Action("recommend", p.name, label=fingerprint) for p in providers_for(RECOMMEND)
            if session.options.providers is None or p.name in session.options.providers]


def _semantic(session: Session, relevant: list[Candidate]) -> list[Action]:
    actions = []
    for provider in providers_for(SEMANTIC_SEARCH):
        if session.options.providers is not None and provider.name not in session.options.providers:
            continue
        label = f"semantic:{provider.name}"
        unused = [c for c in reversed(relevant) if label not in c.chased and (c.paper.abstract or c.paper.title)]
        if unused:
            actions.append(Action("semantic", provider.name, seeds=[unused[0].key], label=label))
    return actions


def cocited_ids(session: Session) -> list[str]:
    """W-ids cited by at least MIN_COCITATIONS papers that also cite a relevant paper, not yet
    in the pool nor asked, most co-cited first."""
    relevant = {c.paper.openalex_id for c in session.judged("relevant") if c.paper.openalex_id}
    if not relevant:
        return []
    known = {c.paper.openalex_id for c in session.candidates.values() if c.paper.openalex_id}
    known.update(session.asked_ids)
    counts: dict[str, int] = {}
    for candidate in session.candidates.values():
        if candidate.refs and relevant.intersection(candidate.refs):
            for work in candidate.refs:
                if work not in known:
                    counts[work] = counts.get(work, 0) + 1
    ranked = sorted((work for work, n in counts.items() if n >= MIN_COCITATIONS), key=lambda w: (-counts[w], w))
    return ranked[:COCITED_PER_ROUND]


def _cocited(session: Session) -> list[Action]:
    wanted = cocited_ids(session)
    if not wanted:
        return []
    return [Action("cocited", p.name, seeds=wanted, cost=1, label="cocited") for p in link_providers(session)
            if p.fetches_listed_ids][:1]


def derived_query(session: Session) -> str | None:
    """A query of the words the relevant papers share and the topic lacks, unless searched."""
    relevant = session.judged("relevant")
    if len(relevant) < MIN_RELEVANT_FOR_QUERY:
        return None
    known = set()
    for text in [session.topic, *session.variants, *session.queries]:
        known.update(query_counts(text))
    others = [c.terms for c in session.candidates.values() if c.verdict != "relevant"]
    stems = distinctive_terms([c.terms for c in relevant], others, known, limit=3)
    if not stems:
        return None
    words = surface_forms([c.paper for c in relevant], stems)
    query = " ".join(words[stem] for stem in stems if stem in words)
    folded = {q.casefold() for q in session.queries}
    return query if query and query.casefold() not in folded else None


# Tokens that end with a full stop without ending a sentence.
ABBREVIATIONS = frozenset("e.g i.e etc vs al cf fig figs eq no approx ca resp".split())
# A sentence that says what is not wanted ("We are not interested in the dynamics of arm motion")
# is never searched on its own: alone, it would fetch exactly what the user ruled out.
NEGATIONS = frozenset("not never nor except excluding exclude excludes don't doesn't isn't aren't won't".split())
MIN_SENTENCE_TERMS = 2  # words that can name a subject a sentence of the topic needs to be searched alone


def topic_sentences(topic: str) -> list[str]:
    """The sentences (or ";"-clauses) of a topic written as several, each with at least
    MIN_SENTENCE_TERMS words that can name a subject (not "A systematic review and
    meta-analysis" after a question); none when the topic is one. A topic of several sentences
    names several facets ("Shape descriptions. Measures of circularity. Shape matching."): the
    whole of it, as one query, ranks first the papers that touch many facets at once, and a
    paper on one facet alone only far down. Each sentence searched on its own finds those."""
    sentences, current = [], []
    for token in topic.split():
        current.append(token)
        core = token.rstrip(".;?!").strip("([{\"'").casefold()
        # Not an end: an abbreviation, an initial ("J. Smith"), a dotted acronym ("U.S.")
        ends = token.endswith((".", ";", "?", "!")) and core not in ABBREVIATIONS and not (
            len(core) == 1 and core.isalpha()) and not (token.endswith(".") and "." in core)
        if ends:
            sentences.append(" ".join(current).rstrip(".;?! "))
            current = []
    if current:
        sentences.append(" ".join(current).rstrip(".;?! "))
    kept = [sentence for sentence in sentences if len(topic_terms(sentence)) >= MIN_SENTENCE_TERMS
            and not NEGATIONS.intersection(word.strip("()[]\"',.;:?!").casefold().replace("’", "'")
                                           for word in sentence.split())]
    return kept if len(kept) >= 2 else []


def _within_budget(wanted: list[Action], total: int, caps: dict[str, int],
                   search_providers: list[str]) -> tuple[list[Action], list[str]]:
    chosen, spent, by_provider, waiting = [], 0, {}, 0
    waits: set[tuple] = set()  # link groups whose first action, the one counting the group's extra request, waits
    for action in wanted:
        providers = search_providers if action.kind == "search" else [action.provider or ""]
        group = (action.kind, action.provider, action.direction)
        fits = spent + action.cost <= total and all(by_provider.get(p, 0) + 1 <= caps.get(p, total)
                                                     for p in providers) and group not in waits
        if not fits and action.kind == "links" and action.cost > 1:
            waits.add(group)
        if fits or (action.kind == "search" and action.origin == "judge"):  # the judge's own queries never wait
            chosen.append(action)
            spent += action.cost
            for p in providers:
                by_provider[p] = by_provider.get(p, 0) + (action.cost if action.kind != "search" else 1)
        else:
            waiting += 1
    notes = [f"{plural(waiting, 'request')} left for the next round: this round may send {plural(total, 'request')}, "
             f"each provider at most what its pace allows in {ROUND_SECONDS:.0f} s"] if waiting else []
    return chosen, notes


def provider_caps(http: HttpClient, total: int) -> dict[str, int]:
    caps = {}
    for provider in providers_for(LINKS) + providers_for(RECOMMEND) + providers_for(SEMANTIC_SEARCH):
        interval = http.policy(provider.name).min_interval
        caps[provider.name] = min(total, max(2, math.floor(ROUND_SECONDS / interval) if interval > 0 else total))
    return caps


# ---------------------------------------------------------------- running a round's actions

Arrival = tuple[Paper, dict[str, Any]]


@dataclass
class Found:
    """What a round's actions brought: records with their evidence, and the reference lists
    (W-id -> the W-ids it cites) the answers carried."""

    arrivals: list[Arrival] = field(default_factory=list)
    cited: dict[str, list[str]] = field(default_factory=dict)
    # Failures that asking again may get past (a rate limit, a server error, a timeout, an
    # answer not in the cache offline), in one line each: what they would have brought is
    # still owed, and a round that ends with nothing to show is tried again, not "exhausted".
    passing: list[str] = field(default_factory=list)


def lasting(error: Exception) -> bool:
    """A provider's refusal that asking again would meet again (HTTP 400, 404…): its lead counts
    as asked, so one paper a provider cannot answer for never holds the session back."""
    return isinstance(error, ProviderError) and not error.retryable and not isinstance(error, NotCached)


async def run_actions(http: HttpClient, session: Session, actions: list[Action], entry: Round,
                      search_providers: list[str]) -> Found:
    """Run the actions (every provider at once, each at its pace); the records they found with
    their evidence. A failure is a note in the round, never the end of the session: a passing
    one leaves its lead to the next round (``Found.passing``), a lasting one counts it asked."""
    grouped: dict[tuple[str, str], list[Action]] = {}
    others = []
    for action in actions:
        if action.kind == "links":
            grouped.setdefault((action.provider or "", action.direction or ""), []).append(action)
        else:
            others.append(action)
    found = Found()
    jobs = [_links(http, session, provider, direction, group, entry, found)
            for (provider, direction), group in grouped.items()]
    jobs += [_other(http, session, action, entry, search_providers, found) for action in others]
    for arrivals in await asyncio.gather(*jobs):
        found.arrivals.extend(arrivals)
    return found


async def _links(http: HttpClient, session: Session, provider_name: str, direction: str, group: list[Action],
                 entry: Round, found: Found) -> list[Arrival]:
    from ..providers.base import get_provider

    provider = get_provider(provider_name)
    seeds = [session.candidates[action.seeds[0]] for action in group]
    label = group[0].label
    try:
        lists = await provider.linked_many(http.session(provider_name, budget=2 * ROUND_SECONDS),
                                           [seed.paper for seed in seeds], direction, PER_SEED, found.cited)
    except LitSearchError as error:
        failure = _failure(f"{provider.label} {direction} of {plural(len(seeds), 'paper')}", error, entry, found)
        lists = [None] * len(seeds)
        failed = failure == "passing"
    else:
        failed = False
    arrivals: list[Arrival] = []
    for seed, papers in zip(seeds, lists):
        if not failed:
            seed.chased.append(label)  # asked, whatever the answer (a lasting refusal too): not asked again
        for rank, paper in enumerate(papers or [], start=1):
            arrivals.append((paper, {"round": entry.number, "via": direction, "provider": provider_name,
                                     "seed": seed.key, "rank": rank}))
    entry.actions.append(f"{provider.label}: {direction.replace('citing', 'citing papers')} of "
                         f"{plural(len(seeds), 'paper')}"
                         + (" (failed)" if failed else f", {sum(len(p or []) for p in lists)} found"))
    return arrivals


async def _other(http: HttpClient, session: Session, action: Action, entry: Round,
                 search_providers: list[str], found: Found) -> list[Arrival]:
    try:
        if action.kind == "search":
            return await _search(http, session, action, entry, search_providers, found)
        if action.kind == "recommend":
            return await _recommend(http, session, action, entry)
        if action.kind == "cocited":
            return await _cocited_records(http, session, action, entry, found.cited)
        return await _semantic_search(http, session, action, entry, found.cited)
    except LitSearchError as error:
        if _failure(f"{action.kind} ({action.provider or 'search'})", error, entry, found) == "lasting":
            _asked(session, action)
        return []


def _failure(what: str, error: Exception, entry: Round, found: Found) -> str:
    """Note a failed request in the round: "lasting" when asking again would meet it again, else
    "passing" (its lead is asked again next round; ``Found.passing`` says so)."""
    return _noted(f"{what} failed: {_one_line(error)}", lasting(error), entry, found)


def _noted(line: str, for_good: bool, entry: Round, found: Found) -> str:
    if for_good:
        entry.notes.append(line + " (not asked again)")
        return "lasting"
    entry.notes.append(line)
    found.passing.append(line)
    return "passing"


def _asked(session: Session, action: Action) -> None:
    """Record ``action`` as asked though it failed for good, as its success would have."""
    if action.kind == "recommend":
        session.recommended_with = action.label
    elif action.kind == "cocited":
        session.asked_ids.extend(action.seeds)
    elif action.kind == "semantic":
        session.candidates[action.seeds[0]].chased.append(action.label)


async def _recommend(http: HttpClient, session: Session, action: Action, entry: Round) -> list[Arrival]:
    from ..providers.base import get_provider

    provider = get_provider(action.provider or "")
    positives = [c.paper for c in sorted(session.judged("relevant"), key=lambda c: -(c.judged_round or 0))]
    negatives = [c.paper for c in sorted(session.judged("not"), key=lambda c: -(c.judged_round or 0))]
    papers = await provider.recommend(http.session(provider.name, budget=2 * ROUND_SECONDS), positives, negatives,
                                      RECOMMENDATIONS)
    session.recommended_with = action.label
    entry.actions.append(f"{provider.label}: more like the {plural(len(positives), 'relevant paper')}, unlike "
                         f"{len(negatives):,} rejected: {len(papers):,} found")
    return [(paper, {"round": entry.number, "via": "recommended", "provider": provider.name, "rank": rank})
            for rank, paper in enumerate(papers, start=1)]


async def _cocited_records(http: HttpClient, session: Session, action: Action, entry: Round,
                           cited: dict[str, list[str]]) -> list[Arrival]:
    from ..providers.base import get_provider

    provider = get_provider(action.provider or "")
    papers = await provider.records_by_id(http.session(provider.name, budget=2 * ROUND_SECONDS), action.seeds, cited)
    session.asked_ids.extend(action.seeds)  # asked once answered (a failure that may pass asks them again)
    entry.actions.append(f"{provider.label}: {plural(len(action.seeds), 'work')} cited together with the relevant "
                         f"papers: {len(papers):,} found")
    return [(paper, {"round": entry.number, "via": "cocited", "provider": provider.name}) for paper in papers]


async def _semantic_search(http: HttpClient, session: Session, action: Action, entry: Round,
                           cited: dict[str, list[str]]) -> list[Arrival]:
    from ..providers.base import get_provider

    provider = get_provider(action.provider or "")
    seed = session.candidates[action.seeds[0]]
    text = " ".join(part for part in (seed.paper.title, seed.paper.abstract) if part)
    papers = await provider.similar_to_text(http.session(provider.name, budget=2 * ROUND_SECONDS), text,
                                            SEMANTIC_RESULTS, cited)
    seed.chased.append(action.label)
    title = seed.paper.title or "a relevant paper"
    entry.actions.append(f"{provider.label}: semantic search for the text of “{title[:60]}{'…' if len(title) > 60 else ''}”: "
                         f"{len(papers)} found")
    return [(paper, {"round": entry.number, "via": "semantic", "provider": provider.name, "seed": seed.key,
                     "rank": rank}) for rank, paper in enumerate(papers, start=1)]


async def _search(http: HttpClient, session: Session, action: Action, entry: Round,
                  search_providers: list[str], found: Found) -> list[Arrival]:
    query = action.queries[0]
    result, arrivals = await query_arrivals(http, query, search_providers, session.filters, entry.number, "query")
    failed = [o.provider for o in result.outcomes if o.error]
    failures = [o.failure for o in result.outcomes if o.failure is not None]
    if result.all_failed and not all(lasting(failure) for failure in failures):
        # Not searched: the judge's query waits for the next round, a derived one is derived again.
        if action.origin == "judge":
            session.pending_queries.append(query)
        reasons = "; ".join(f"{o.provider} ({o.error})" for o in result.outcomes if o.error)
        _noted(f"the query “{query}” failed at every provider, asked again next round: {_one_line(reasons)}",
               False, entry, found)
        return []
    session.queries.append(query)
    entry.queries.append(query)
    entry.actions.append(f"{JUDGE_QUERY if action.origin == 'judge' else 'new query'} “{query}”: "
                         + plural(len(result.results), "paper") + (f" ({', '.join(failed)} failed)" if failed else ""))
    return arrivals


def judge_query_of(action: str) -> str | None:
    """The query of a round's action that searched one the judge gave (as ``_search`` writes it:
    "the judge query “…”: 12 papers"), else None."""
    opening = f"{JUDGE_QUERY} “"
    if not action.startswith(opening) or "”: " not in action:
        return None
    return action[len(opening):].rpartition("”: ")[0]


async def query_arrivals(http: HttpClient, query: str, providers: list[str], filters: Filters, round_number: int,
                         via: str) -> tuple[Any, list[Arrival]]:
    """One query searched at ``providers`` (every one the query brings when empty), as a search
    does but without its checks at Crossref or re-ranking: the search's result, and its rows as
    arrivals of round ``round_number`` found ``via`` (their rank the search's)."""
    from ..search.options import checked_options
    from ..search.pipeline import run_search

    options = checked_options(query, providers=list(providers) or None, limit=SEARCH_LIMIT, filters=filters,
                              verify=False, rerank="none")
    result = await run_search(options, http.settings, http=http)
    return result, [(item.paper, {"round": round_number, "via": via, "query": query, "rank": rank})
                    for rank, item in enumerate(result.results, start=1)]


def _one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"


def keeps(paper: Paper, filters: Filters) -> bool:
    """Whether a chased record passes the session's filters: each filter it carries the data
    for (years, venue, author, types, citations, preprints); one it has no data for passes, and
    open access is left to the results (lists rarely say where a free copy is)."""
    return all(name == "open_access" or passes([paper], filters, name, vouched=True) for name in filters.active())
