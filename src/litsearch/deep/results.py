"""A session's results as a search result, so every search output serves them (the Markdown
table, the terminal view, JSON, BibTeX, RIS, CSL-JSON, CSV): the papers judged relevant, then
maybe, each group by its score; with ``include_unjudged``, the candidates not yet judged after
them, best first."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..search.pipeline import SearchResult
from ..search.rank import RankedPaper
from .score import explain
from .session import Candidate, Session

ORDER = {"relevant": 0, "maybe": 1, None: 2}
LABELS = {"relevant": "relevant", "maybe": "maybe", None: "not judged"}  # shown before each row's title


@dataclass
class DeepResult(SearchResult):
    """A SearchResult whose rows are a session's judged papers; ``candidates`` in the same order."""

    candidates: list[Candidate] = field(default_factory=list)
    records_found: int = 0

    @property
    def record_count(self) -> int:
        return self.records_found


def ordered(session: Session, include_unjudged: bool) -> list[Candidate]:
    chosen = [c for c in session.candidates.values()
              if c.verdict in ("relevant", "maybe") or (include_unjudged and c.verdict is None)]
    return sorted(chosen, key=lambda c: (ORDER[c.verdict], -c.log_odds, int(c.key[1:])))


def as_search_result(session: Session, include_unjudged: bool = False) -> DeepResult:
    chosen = ordered(session, include_unjudged)
    explain(session, [c.key for c in chosen])  # where each came from, with every lead the session has now
    items = [RankedPaper(c.paper, [c.paper], relevance=c.score, score=c.score,
                         score_terms={"estimated_relevance": round(c.score, 4)}, label=LABELS[c.verdict])
             for c in chosen]
    relevant, maybe = len(session.judged("relevant")), len(session.judged("maybe"))
    notes = [f"deep-search session: {len(session.judged())} papers judged ({relevant} relevant, {maybe} maybe) "
             f"over {len(session.rounds)} rounds; " + (f"stopped: {session.stop_reason}" if session.done
                                                      else f"still open at round {session.round}"),
             "rows: the papers judged relevant, then maybe" + (", then the unjudged candidates by their score"
                                                                 if include_unjudged else "")]
    result = DeepResult(query=f"{session.topic} (deep search: relevant, then maybe)", variants=list(session.variants), outcomes=[], results=items,
                        provider_reason=None, search_time_ms=0, candidates=chosen,
                        records_found=sum(len(c.evidence) for c in session.candidates.values()))
    result.enrichment.notes.extend(notes)
    return result
