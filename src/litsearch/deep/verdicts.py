"""The judge's verdicts on a batch: ``--relevant``, ``--maybe`` and ``--not`` lists, the rest.

A LIST is comma-separated batch row numbers (1-based, as the batch was printed), ranges of
rows (``3-5``: rows 3, 4 and 5; judges write them, and no id has that form) or paper ids (a DOI,
``PMID:…``, an arXiv id, an OpenAlex W-id, a Semantic Scholar id, or the ``key`` the batch's
JSON gives each row, ``c48``: a bare number is always a row). An id may name any candidate of
the session, in the batch or not: naming a paper judged earlier changes its verdict (the change
is noted in the round and said by the step). Every problem (row 0, a row not in the batch, a
range backwards or past the batch, an id no candidate has, a paper named in two lists) is a
UsageError, raised before anything is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import UnknownIdError, UsageError
from ..core.identifiers import parse_paper_ref
from ..core.lists import comma_items, is_decimal, looks_numeric
from ..core.text import plural
from .pool import Pool
from .session import VERDICTS, Session

MAX_LIST_ITEMS = 1_000
# A range of rows: "3-5", or with the dash the messages print ("rows 1–20"). Digits of any
# script are caught here so that "١-٣" gets the row message, not "unknown id".
ROW_RANGE = re.compile(r"(\w+)\s*[-–]\s*(\w+)")
CANDIDATE_KEY = re.compile(r"c[1-9][0-9]*")  # the batch JSON's "key"


@dataclass
class Verdicts:
    """Candidate key -> verdict, and the notes to keep (changed verdicts)."""

    given: dict[str, str]
    notes: list[str]


def resolve(session: Session, lists: dict[str, str | None], rest: str) -> Verdicts:
    """The verdicts the lists give, every row of the batch not named taking ``rest``."""
    if rest not in ("not", "maybe"):
        raise UsageError(f"--rest must be not or maybe, not {rest!r}")
    pool = Pool(session)
    given: dict[str, str] = {}
    named_in: dict[str, str] = {}
    for verdict in VERDICTS:
        for item in _items(lists.get(verdict), verdict):
            for key in _candidate_keys(session, pool, item, verdict):
                if key in named_in and named_in[key] != verdict:
                    raise UsageError(f"{_shown(item)} is named in both --{named_in[key]} and --{verdict}")
                named_in[key] = verdict
                given[key] = verdict
    notes = []
    batch = set(session.batch)
    if session.batch and not batch & set(named_in):
        # A step given only --variant or a budget, or only corrections of papers read earlier,
        # judges the batch too: said, or a correction silently rejects the batch on screen
        said = "not relevant" if rest == "not" else "maybe"
        which = "no row was named" if not named_in else "no row of the batch was named, only papers read before"
        notes.append(f"{which}: {plural(len(session.batch), 'row')} of round {session.round}'s batch "
                     f"{'was' if len(session.batch) == 1 else 'were'} judged {said}, as rows not named are")
    for key in named_in:
        if key not in batch and session.candidates[key].verdict is None:
            notes.append(f"“{_title(session, key)}” was judged by its id without being shown in a batch")
    for key in session.batch:
        given.setdefault(key, rest)
    for key, verdict in given.items():
        earlier = session.candidates[key].verdict
        if earlier and earlier != verdict:
            round_read = session.candidates[key].judged_round
            notes.append(f"“{_title(session, key)}” (read in round {round_read}): verdict changed from {earlier} "
                         f"to {verdict}")
    return Verdicts(given, notes)


def _items(text: str | None, verdict: str) -> list[str]:
    """A LIST's items (core/lists.py: an empty LIST names nothing, an empty item is an error)."""
    if text is None:
        return []
    try:
        items = comma_items(str(text), f"--{verdict}", "1,4,9")
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    if len(items) > MAX_LIST_ITEMS:
        raise UsageError(f"--{verdict} names {plural(len(items), 'paper')}; at most {MAX_LIST_ITEMS:,} at once")
    return items


def _candidate_keys(session: Session, pool: Pool, item: str, verdict: str) -> list[str]:
    """The candidates one item names: one row, a range of rows, or one paper."""
    span = ROW_RANGE.fullmatch(item)
    if span and looks_numeric(span[1]) and looks_numeric(span[2]):
        first, last = _row(session, span[1], verdict), _row(session, span[2], verdict)
        if first > last:
            raise UsageError(f"--{verdict}: the range {_shown(item)} runs backwards; write it {last}-{first}")
        return session.batch[first - 1:last]
    if looks_numeric(item):
        return [session.batch[_row(session, item, verdict) - 1]]
    parts = item.split()
    if len(parts) > 1 and all(looks_numeric(part) or CANDIDATE_KEY.fullmatch(part) or _is_range(part) for part in parts):
        # "1 2" as one item (quoted, or a tool's string): rows meant, written as a sentence would
        raise UsageError(f"--{verdict}: {_shown(item)}: separate the rows of a list with commas: "
                         f"--{verdict} {','.join(parts)}")
    return [_paper_key(session, pool, item, verdict)]


def _is_range(item: str) -> bool:
    span = ROW_RANGE.fullmatch(item)
    return bool(span) and looks_numeric(span[1]) and looks_numeric(span[2])


def _row(session: Session, item: str, verdict: str) -> int:
    """A row of the batch: digits 0-9 as printed, so "01" or "١" is a typo, not row 1."""
    if not is_decimal(item):
        raise UsageError(f"--{verdict}: {_shown(item)} is not a row number; rows are written as printed "
                         f"(1, 2, … in the digits 0-9, without leading zeros)")
    row = int(item) if len(item) <= 20 else None  # more digits: past every batch (and int() reads 4,300 at most)
    if row is None or not 1 <= row <= len(session.batch):
        rows = ("row 1 alone" if len(session.batch) == 1 else f"rows 1–{len(session.batch)}") if session.batch \
            else "no rows: the session has no batch"
        hint = f"; a PMID is written PMID:{row}" if row is not None and row > len(session.batch) else ""
        raise UsageError(f"--{verdict}: row {_shown(item) if row is None else row} is not in the batch ({rows}){hint}")
    return row


def _paper_key(session: Session, pool: Pool, item: str, verdict: str) -> str:
    if CANDIDATE_KEY.fullmatch(item):
        if item not in session.candidates:
            raise UsageError(f"--{verdict}: {_shown(item)} is not a paper of this session (use the batch's row "
                             f"numbers or the ids it shows)")
        return item
    try:
        ref = parse_paper_ref(item)
    except UnknownIdError as error:  # it names the id forms; a LIST also takes rows, ranges and keys
        raise UsageError(f"--{verdict}: {error}; or a row of the batch (1), a range of rows (3-5) or the key its "
                         f"JSON gives (c48)") from None
    found = pool.by_key.get(f"{ref.field}:{ref.value.lower()}")
    if found is None:
        raise UsageError(f"--{verdict}: {_shown(item)} is not a paper of this session (use the batch's row "
                         f"numbers or the ids it shows)")
    return found


def _shown(item: str) -> str:
    text = " ".join(item.split())
    return repr(text if len(text) <= 60 else text[:59] + "…")


def _title(session: Session, key: str) -> str:
    title = session.candidates[key].paper.title or ""
    return title if len(title) <= 50 else title[:49] + "…"


def apply(session: Session, verdicts: Verdicts) -> None:
    """Record the verdicts in the round whose batch they judge. A paper judged before keeps the
    round it was read in and takes its new verdict; every round's counts are then those of the
    verdicts as they stand, so the yield curve, the report and the stop rule never count a paper
    twice, nor a verdict that was taken back."""
    number = session.round
    current = session.rounds[-1] if session.rounds else None
    for key, verdict in verdicts.given.items():
        candidate = session.candidates[key]
        if candidate.verdict is None or candidate.judged_round is None:
            candidate.judged_round = number
        candidate.verdict = verdict
    if current is not None:
        current.notes += verdicts.notes
    recount(session)
    session.batch = []


def recount(session: Session) -> None:
    """Each round's judged, relevant and maybe: its papers' verdicts as they stand now."""
    counts: dict[int, list[int]] = {}
    for candidate in session.candidates.values():
        if candidate.verdict is not None and candidate.judged_round is not None:
            entry = counts.setdefault(candidate.judged_round, [0, 0, 0])
            entry[0] += 1
            entry[1] += candidate.verdict == "relevant"
            entry[2] += candidate.verdict == "maybe"
    for entry in session.rounds:
        entry.judged, entry.relevant, entry.maybe = counts.get(entry.number, [0, 0, 0])
