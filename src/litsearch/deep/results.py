"""A session's results as a search result, so every search output serves them (the Markdown
table, the terminal view, JSON, BibTeX, RIS, CSL-JSON, CSV): the papers judged relevant, then
maybe, each group by its score; with ``include_unjudged``, the candidates not yet judged after
them, best first; with ``include_rejected``, the papers judged not relevant last (what a systematic
review's PRISMA flow and its audit count as excluded), by their score too."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.text import plural

from ..search.pipeline import SearchResult
from ..search.rank import RankedPaper
from .score import explain
from .session import Candidate, Session

ORDER = {"relevant": 0, "maybe": 1, None: 2, "not": 3}
# shown before each row's title, and an export's verdict tag; JSON and CSV keep the verdict itself ("not")
LABELS = {"relevant": "relevant", "maybe": "maybe", None: "not judged", "not": "not relevant"}
VERDICT_TAG = "lit-search verdict: "  # an export's keyword (a reference manager's tag): "lit-search verdict: maybe"


@dataclass
class DeepResult(SearchResult):
    """A SearchResult whose rows are a session's judged papers; ``candidates`` in the same order.
    Listing them sends no request: its footer says what the session did instead (``work_line``)."""

    candidates: list[Candidate] = field(default_factory=list)
    records_found: int = 0
    said: str = ""  # the session in a line: its verdicts, rounds, requests and stop

    pool_size: int = 0  # the session's candidates, judged or not

    @property
    def record_count(self) -> int:
        return self.records_found

    @property
    def source_said(self) -> str:
        # The session's pool, as its yield curve and report count it (the records its rounds
        # received, a paper reached many ways counted each way, are stated nowhere else).
        return f"of the session's {plural(self.pool_size, 'candidate')}"

    def work_line(self) -> str:
        return self.said

    # A CSV of a session's papers has these columns even when it lists none (files merged line up)
    export_columns = ("verdict", "judged_round", "why")

    def export_marks(self) -> list:
        """Each row's verdict in an export: a tag (VERDICT_TAG) in BibTeX, RIS and CSL-JSON, and the
        columns ``verdict``, ``judged_round`` and ``why`` in CSV (docs/deep.md, "Exports")."""
        from ..core.records import Marks

        return [Marks(keywords=(VERDICT_TAG + LABELS[c.verdict],),
                      columns=(("verdict", c.verdict or ""), ("judged_round", str(c.judged_round or "")),
                               ("why", c.why)))
                for c in self.candidates]


def ordered(session: Session, include_unjudged: bool, include_rejected: bool = False) -> list[Candidate]:
    listed = {"relevant", "maybe"} | ({None} if include_unjudged else set()) | ({"not"} if include_rejected else set())
    chosen = [c for c in session.candidates.values() if c.verdict in listed]
    return sorted(chosen, key=lambda c: (ORDER[c.verdict], -c.log_odds, int(c.key[1:])))


def providers_asked(session: Session) -> list[str]:
    """The providers the session asked, in order: those its searches ask, then any other it sent a
    request to or took a cached answer from (a citation chase, a recommendation, a lookup)."""
    asked = dict.fromkeys(session.search_providers)  # in order, each once (one asked and cached: once)
    for entry in session.rounds:
        asked.update(dict.fromkeys((*entry.requests, *entry.cached)))
    return list(asked)


def nothing_listed(include_unjudged: bool, include_rejected: bool = False) -> str:
    """What an empty listing says: never "No papers found. Try broader terms" (nothing was searched)."""
    judged = "No papers judged yet" if include_rejected else "No papers judged relevant or maybe yet"
    return judged + (", and no candidate is left to judge." if include_unjudged else ".")


def as_search_result(session: Session, include_unjudged: bool = False, include_rejected: bool = False) -> DeepResult:
    chosen = ordered(session, include_unjudged, include_rejected)
    explain(session, [c.key for c in chosen])  # where each came from, with every lead the session has now
    items = [RankedPaper(c.paper, [c.paper], relevance=c.score, score=c.score,
                         score_terms={"estimated_relevance": round(c.score, 4)}, label=LABELS[c.verdict])
             for c in chosen]
    heading = "relevant, then maybe" + (", then not yet judged" if include_unjudged else "") + \
        (", then not relevant" if include_rejected else "")
    result = DeepResult(query=f"{session.topic} (deep search: {heading})", variants=list(session.variants),
                        outcomes=[], results=items, provider_reason=None, search_time_ms=0, candidates=chosen,
                        records_found=sum(len(c.evidence) for c in session.candidates.values()),
                        pool_size=len(session.candidates),
                        said=session_line(session, include_unjudged, include_rejected),
                        filter_report=filters_said(session))
    return result


def filters_said(session: Session) -> list[str]:
    """The session's limits and filters in words ("year 1975–"), kept for every round."""
    return [session.filters.describe(name) for name in session.filters.active()]


def queries_said(session: Session) -> str:
    """Every query the session searched, by where it came from (a review's methods must tell the
    search terms given from those the tool made): "the topic “…”; the variants given at the start “…”; the
    topic's sentences, each alone, “…”; the judge's queries “…”; derived by lit-search from the
    words the relevant papers share, “…”"."""
    groups = query_groups(session)
    words = {"topic": ("the topic",) * 2, "variants": ("the variant given at the start", "the variants given at the start"),
             "sentences": ("the topic's sentence, alone", "the topic's sentences, each alone"),
             "judge": ("the judge's query", "the judge's queries"),
             "derived": ("derived by lit-search from the words the relevant papers share",) * 2}
    return "; ".join(f"{words[group][len(queries) > 1]} " + ", ".join(f"“{q}”" for q in queries)
                     for group, queries in groups.items() if queries) or "none"


def query_groups(session: Session) -> dict[str, list[str]]:
    """Every query the session searched, in the order searched, by where it came from: "topic",
    "variants" (given at the start, by the user or the model), "sentences" (the topic's, each alone), "judge", "derived" (by
    lit-search). The judge's are told from the derived ones by the round's record of them
    (expand.JUDGE_QUERY)."""
    from .expand import judge_query_of

    later = {query for entry in session.rounds[1:] for query in entry.queries}
    judged = {found for entry in session.rounds for found in map(judge_query_of, entry.actions) if found}
    variants = set(session.variants)
    groups: dict[str, list[str]] = {"topic": [], "variants": [], "sentences": [], "judge": [], "derived": []}
    for query in session.queries:
        group = ("topic" if query == session.topic else "variants" if query in variants and query not in later
                 else "sentences" if query not in later else "judge" if query in judged else "derived")
        if query not in groups[group]:
            groups[group].append(query)
    return groups


def verdicts_said(session: Session) -> str:
    """"3 relevant, 2 maybe, 1 not relevant": the session's verdicts, counted."""
    counts = [len(session.judged(verdict)) for verdict in ("relevant", "maybe", "not")]
    return "{:,} relevant, {:,} maybe, {:,} not relevant".format(*counts)


def session_line(session: Session, include_unjudged: bool = False, include_rejected: bool = False) -> str:
    """The session in one line, under its results: the verdicts, the rounds, the requests it sent
    (and the answers it took from the response cache instead), where it stands, what the rows are."""
    requests = plural(session.requests_sent, "request") + " sent"
    cached = sum(session.cached.values())
    if cached:
        requests += f" (and {plural(cached, 'answer')} from the response cache)"
    state = f"stopped: {session.stop_reason}" if session.done else f"still open at round {session.round:,}"
    rows = "the papers judged relevant, then maybe" + (", then the unjudged candidates by their score"
                                                      if include_unjudged else "") + \
        (", then those judged not relevant by their score" if include_rejected else "")
    return (f"Deep-search session: {plural(len(session.judged()), 'paper')} judged ({verdicts_said(session)}) over {plural(len(session.rounds), 'round')}, {requests}; {state}. Rows: {rows}; "
            f"listing them sent no request.")
