"""When a deep search is complete, and the yield curve that shows it.

Three ways to stop, checked after every set of verdicts:

- ``budget``: the judge has read ``--max-judged`` papers, or the session has sent
  ``--max-requests`` requests;
- ``saturated``: the last ``--stop-window`` papers judged (whole batches, the newest first)
  after the batch that held the first paper judged relevant or maybe held at most
  ``--stop-yield`` relevant ones, and every paper judged relevant has been chased (its
  references, its citing papers, the "more like these" and semantic searches, the new queries
  its words suggested). Only the batches after a first find count: before it, the batches are
  the searches' own order and nothing was chased, so their yield says nothing of whether the
  chasing has run dry (a session whose first 80 papers held one stray "relevant" stopped there,
  one batch before its first true find). The yield allowed is not zero because a judge errs
  both ways: an occasional stray "relevant" among papers that are not must not keep a finished
  search going forever;
- ``exhausted``: once the round's chasing is done, no unjudged candidate is left.
"""

from __future__ import annotations

from ..core.text import plural
from .session import Session


def first_find(session: Session) -> int | None:
    """The index of the first round whose batch held a paper judged relevant or maybe; None
    when no round's did."""
    return next((index for index, entry in enumerate(session.rounds) if entry.relevant or entry.maybe), None)


def chase_rounds(session: Session) -> list:
    """The rounds after the first find: the rounds whose batches the chasing chose. Before a
    first find the batches are the searches' own order, and their yield says nothing of whether
    the chasing has run dry."""
    found = first_find(session)
    return [] if found is None else session.rounds[found + 1:]


def recent_yield(session: Session, window: int) -> tuple[int, int]:
    """(papers judged, relevant among them) over the newest whole rounds covering ``window``,
    of the rounds since the first find (``chase_rounds``)."""
    judged = relevant = 0
    for entry in reversed(chase_rounds(session)):
        if not entry.judged:
            continue
        judged += entry.judged
        relevant += entry.relevant
        if judged >= window:
            break
    return judged, relevant


def pending_chases(session: Session) -> int:
    """Papers judged relevant whose chasing is not finished."""
    from .expand import chase_done

    return sum(1 for candidate in session.judged("relevant") if not chase_done(session, candidate))


def budget_spent(session: Session) -> str | None:
    options = session.options
    judged = len(session.judged())
    if judged >= options.max_judged:
        return f"{plural(judged, 'paper')} judged: the limit set by --max-judged ({options.max_judged:,}) is reached"
    requests = session.requests_sent
    if requests >= options.max_requests:
        return f"{plural(requests, 'request')} sent: the limit set by --max-requests ({options.max_requests:,}) is reached"
    return None


def budget_limit(session: Session) -> tuple[str, int]:
    """The option whose limit a session stopped at its budget reached (``--max-judged`` when both),
    and that limit."""
    options = session.options
    if len(session.judged()) >= options.max_judged:
        return "--max-judged", options.max_judged
    return "--max-requests", options.max_requests


def saturation(session: Session) -> tuple[bool, str]:
    """(saturated, the check in words)."""
    window, allowed = session.options.stop_window, session.options.stop_yield
    judged, relevant = recent_yield(session, window)
    pending = pending_chases(session)
    rule = (f"saturated at ≤ {allowed:,} of the last {window:,} judged after the first find, "
            "every relevant paper chased")
    if first_find(session) is None:
        # No route from a relevant paper was ever taken: the searches' own order has run on
        # without a find, which says the topic's words may not be the literature's, not that
        # the chasing has run dry.
        return False, f"nothing judged relevant or maybe yet, so nothing has been chased ({rule})"
    if judged < window:  # "last 0 judged after the first find: 0 relevant …; not yet 80" read as jargon
        return False, (f"{plural(judged, 'paper')} judged after the first find ({relevant:,} relevant), fewer than "
                       f"the {window:,} the rule needs ({rule})")
    said = f"last {judged:,} judged after the first find: {relevant:,} relevant ({rule})"
    if pending:
        return False, said + f"; {plural(pending, 'relevant paper')} still to chase"
    return relevant <= allowed, said


def rule_now(session: Session) -> str:
    """The stop rule's check as a new batch is shown, after the round's chasing (a relevant
    paper "still to chase" when the verdicts came may be chased now). Met already (its leads
    chased since, or a judge's query searched), it is checked again once this batch is judged."""
    met, said = saturation(session)
    return f"{said}; met before this batch, so its verdicts decide whether the search goes on" if met else said


def yield_curve(session: Session) -> list[dict[str, int]]:
    """Per round: papers judged, relevant, new candidates, requests (the JSON's ``yield``), and
    maybe (as the report's table has it)."""
    return [{"round": entry.number, "judged": entry.judged, "relevant": entry.relevant,
             "new_candidates": entry.new_candidates, "requests": sum(entry.requests.values()), "maybe": entry.maybe}
            for entry in session.rounds]
