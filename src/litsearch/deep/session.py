"""A deep-search session: what was asked, every candidate with the evidence that brought it and
its verdict, the rounds, and the current batch. The session file is the user's data.

Its document is replaced atomically after every step (a kill leaves the last complete step),
and read back as the command line's own input is: a regular file within a size bound, every
field checked for its type and every list for its cap, so a damaged or hand-edited file is one
clear line (exit 2), never a traceback or a run of a thousand requests. Here: the session in
memory, the shapes, and the whole document (version 1, every record in it); the file on disk
is the document of what changes beside a papers file (version 2: deep/session_file.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

from .. import __version__
from ..core.environment import excerpt
from ..core.errors import InputError
from ..core.files import MB
from ..core.filters import ENTITY_FILTERS, Filters
from ..core.records import ATTRIBUTES, JSON_NAMES, Paper
from ..core.text import plural
from ..providers import registry
from ..search.record import filters_as_dict, filters_from_dict
from ..search.record_shape import INT_OR_NONE, TEXT_OR_NONE, Fields, ListOf, MapOf, shape_problem, unwritable_text

KIND = "deep-search session"
VERSION = 2  # the document of what changes, beside a papers file (deep/paper_store.py)
WHOLE_VERSION = 1  # one document holding every record (read; written before a papers file is replaced)
VERDICTS = ("relevant", "maybe", "not")
MAX_FILE_BYTES = 200 * MB
MAX_CANDIDATES = 20_000  # read back; a session keeps far fewer (deep/pool.py MAX_POOL)
MAX_ROUNDS = 1_000
MAX_PENDING = 8  # the judge's queries waiting for a round (search/options.py MAX_VARIANTS)
MAX_REFS = 2_000  # W-ids kept of one candidate's reference list
MAX_RANK = 10**9  # an evidence entry's place in a list: far beyond any list a provider gives


@dataclass
class Options:
    """How the session runs; set at start, kept in the file."""

    batch: int = 20
    max_judged: int = 300
    round_requests: int = 60  # requests one round may send, every provider together
    max_requests: int = 2_000  # requests the whole session may send
    stop_window: int = 80  # the stop rule looks at the last this many judged papers …
    stop_yield: int = 2  # … and calls the search saturated when at most this many were relevant
    providers: list[str] | None = None  # None: chosen from the topic, as a search does
    verify: bool = False  # DOI checks are for the results, not for every round
    rerank: str | None = None  # "semantic", "none", or None: this installation's default each round


@dataclass
class Candidate:
    key: str  # "c1", "c2", … in the order they arrived
    paper: Paper  # the merged record
    terms: dict[str, int]  # its text's kept terms (deep/textmodel.py)
    evidence: list[dict[str, Any]] = field(default_factory=list)  # how it was reached, one entry per way
    verdict: str | None = None
    judged_round: int | None = None
    shown_round: int | None = None
    score: float = 0.0  # the estimated chance of being relevant (deep/score.py)
    log_odds: float = 0.0  # the same as log-odds: candidates are ordered by it (no ties near 1)
    why: str = ""  # where it came from, in words: set when it is shown, and by the results (deep/score.py explain)
    chased: list[str] = field(default_factory=list)  # expansions done from it ("links:openalex", …)
    refs: list[str] = field(default_factory=list)  # the OpenAlex W-ids it cites, when an answer said
    meaning: float | None = field(default=None, compare=False)  # the re-ranker's similarity this step (not saved)


@dataclass
class Round:
    number: int
    new_candidates: int = 0
    requests: dict[str, int] = field(default_factory=dict)  # sent, per provider
    cached: dict[str, int] = field(default_factory=dict)  # answered from the response cache instead
    judged: int = 0  # verdicts given on this round's batch
    relevant: int = 0
    maybe: int = 0
    actions: list[str] = field(default_factory=list)  # what was asked, in words
    queries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stop_check: str = ""


@dataclass
class Session:
    topic: str
    variants: list[str]
    filters: Filters
    options: Options
    created_at: str = ""
    candidates: dict[str, Candidate] = field(default_factory=dict)
    batch: list[str] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    done: bool = False
    stop_reason: str | None = None
    queries: list[str] = field(default_factory=list)  # every query searched, in order
    search_providers: list[str] = field(default_factory=list)  # the providers a search of this session asks
    asked_ids: list[str] = field(default_factory=list)  # W-ids fetched as co-cited papers (never asked twice)
    pending_queries: list[str] = field(default_factory=list)  # the judge's queries, searched next round
    recommended_with: str = ""  # the judged set the last recommendation request was made for
    next_number: int = 1
    store: Any = field(default=None, repr=False, compare=False)  # its papers file, once read or saved
    # (papers judged, features) of the last scoring in this process, for explaining what is shown
    # (deep/score.py explain); never saved
    scored: Any = field(default=None, repr=False, compare=False)
    # What this step did that its batch does not show (a verdict changed by id, a query left out
    # as searched already): said with the step's answer in every door; never saved (the round's
    # notes keep them for the report)
    said: list[str] = field(default_factory=list, repr=False, compare=False)

    # ----- what the rest of the package reads

    @property
    def round(self) -> int:
        return len(self.rounds)

    def judged(self, verdict: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates.values() if c.verdict and (verdict is None or c.verdict == verdict)]

    def unjudged(self) -> list[Candidate]:
        return [c for c in self.candidates.values() if c.verdict is None]

    @property
    def requests(self) -> dict[str, int]:
        """Requests sent per provider over the session."""
        return _totals(entry.requests for entry in self.rounds)

    @property
    def requests_sent(self) -> int:
        """Requests sent over the session, every provider together (what --max-requests counts)."""
        return sum(self.requests.values())

    @property
    def cached(self) -> dict[str, int]:
        """Answers per provider taken from the response cache over the session (no request sent:
        the answer may be older than the session)."""
        return _totals(entry.cached for entry in self.rounds)

    def new_key(self) -> str:
        key = f"c{self.next_number}"
        self.next_number += 1
        return key


def _totals(counts) -> dict[str, int]:
    total: dict[str, int] = {}
    for each in counts:
        for provider, count in each.items():
            total[provider] = total.get(provider, 0) + count
    return total


def now_utc() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------- to and from the file

PAPER_FIELDS = tuple(Paper(provider="", title="").to_dict())  # the record's JSON names ("paper_id" …)
_PAPER_NAMES = tuple((f.name, JSON_NAMES.get(f.name, f.name)) for f in fields(Paper))  # (attribute, JSON name)
_PAPER_FIELD_SET = frozenset(PAPER_FIELDS)
_EMPTY = (None, [], {}, "")


def paper_as_dict(paper: Paper) -> dict[str, Any]:
    """The record without its empty fields (a session holds thousands): what ``Paper.to_dict``
    gives, read field by field (its deep copy of every value was most of a session's writing)."""
    found = {}
    for attribute, name in _PAPER_NAMES:
        value = getattr(paper, attribute)
        if value not in _EMPTY:
            found[name] = _copied(value) if isinstance(value, (list, dict)) else value
    return found


def _copied(value: Any) -> Any:
    """Lists and maps copied as ``to_dict`` copies them: the document never shares the session's."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, dict):
        return {name: _copied(item) for name, item in value.items()}
    return value


def document_fields(session: Session, version: int) -> dict[str, Any]:
    """What either version of the document holds before its records: everything but the candidates."""
    return {
        "kind": KIND, "version": version, "tool": {"name": "lit-search", "version": __version__},
        "created_at": session.created_at, "saved_at": now_utc(),
        "topic": session.topic, "variants": session.variants, "filters": filters_as_dict(session.filters),
        "options": session.options.__dict__,
        "done": session.done, "stop_reason": session.stop_reason, "queries": session.queries,
        "search_providers": session.search_providers, "asked_ids": session.asked_ids,
        "pending_queries": session.pending_queries, "recommended_with": session.recommended_with,
        "next_number": session.next_number, "batch": session.batch,
        "rounds": [entry.__dict__ for entry in session.rounds],
    }


def candidate_state(c: Candidate) -> dict[str, Any]:
    """A candidate's fields that change from step to step (its record aside)."""
    return {"evidence": c.evidence, "verdict": c.verdict, "judged_round": c.judged_round,
            "shown_round": c.shown_round, "score": round(c.score, 6), "log_odds": round(c.log_odds, 4),
            "why": c.why, "chased": c.chased, **({"refs": c.refs} if c.refs else {})}


def as_document(session: Session) -> dict[str, Any]:
    return {
        **document_fields(session, WHOLE_VERSION),
        "candidates": [{"key": c.key, "paper": paper_as_dict(c.paper), "terms": c.terms, **candidate_state(c)}
                       for c in session.candidates.values()],
    }


SCALAR = (str, int, float, bool, type(None))
_TEXTS = ("publication_date", "journal", "doi", "pmid", "paper_id", "arxiv_id", "openalex_id", "abstract", "tldr",
          "oa_url", "volume", "issue", "pages", "url")
PAPER_SHAPE = Fields({
    "provider": str, "title": str, "authors": ListOf(str, 10_000), "year": INT_OR_NONE,
    **{name: TEXT_OR_NONE for name in _TEXTS},
    "citation_count": INT_OR_NONE, "influential_citation_count": INT_OR_NONE, "rank": INT_OR_NONE,
    "score": (int, float, type(None)), "retracted": (bool, type(None)), "publication_types": ListOf(str, 100),
    "external_ids": MapOf(str), "updates": ListOf(MapOf((*SCALAR, ListOf(SCALAR, 100))), 100),
})  # no field required: an empty title (a file may hold one) is saved as every empty field is, left out
CANDIDATE_SHAPE = Fields({"key": str, "paper": PAPER_SHAPE, "terms": MapOf(int),
                          "evidence": ListOf(MapOf(SCALAR), 1_000), "verdict": TEXT_OR_NONE,
                          "judged_round": INT_OR_NONE, "shown_round": INT_OR_NONE, "score": (int, float),
                          "log_odds": (int, float),
                          "why": str, "chased": ListOf(str, 100), "refs": ListOf(str, MAX_REFS)},
                         required=("key", "paper"))
# Each filter with the type Filters gives it (search/record.py filters_as_dict): one of another type
# was read as no filter, and the next save wrote it so (a "min_citations": "5" typed by hand, gone)
FILTERS_SHAPE = Fields({"date_from": TEXT_OR_NONE, "date_to": TEXT_OR_NONE, "venue": TEXT_OR_NONE,
                        "author": TEXT_OR_NONE, "open_access": bool, "types": ListOf(str, 100),
                        "preprints": (bool, type(None)), "min_citations": INT_OR_NONE, "max_citations": INT_OR_NONE,
                        **{name: TEXT_OR_NONE for name in ENTITY_FILTERS}, "countries": ListOf(str, 100),
                        "continents": ListOf(str, 100), "resolved": MapOf(ListOf(str, 2))})
ROUND_SHAPE = Fields({"number": int, "new_candidates": int, "requests": MapOf(int), "cached": MapOf(int),
                      "judged": int, "relevant": int,
                      "maybe": int, "actions": ListOf(str, 1_000), "queries": ListOf(str, 100),
                      "notes": ListOf(str, 1_000), "stop_check": str}, required=("number",))
SESSION_SHAPE = Fields({
    "kind": str, "version": int, "created_at": str, "topic": str, "variants": ListOf(str, 100),
    "filters": FILTERS_SHAPE,
    "options": Fields({"batch": int, "max_judged": int, "round_requests": int, "max_requests": int,
                       "stop_window": int,
                       "stop_yield": int, "providers": (ListOf(str, 100), type(None)), "verify": bool,
                       "rerank": TEXT_OR_NONE}),
    "done": bool, "stop_reason": TEXT_OR_NONE, "queries": ListOf(str, 10_000), "next_number": int,
    "search_providers": ListOf(str, 100), "asked_ids": ListOf(str, 100_000), "pending_queries": ListOf(str, MAX_PENDING),
    "recommended_with": str,
    "batch": ListOf(str, 1_000), "rounds": ListOf(ROUND_SHAPE, MAX_ROUNDS),
    "candidates": ListOf(CANDIDATE_SHAPE, MAX_CANDIDATES),
}, required=("kind", "version", "topic", "options", "candidates", "rounds"))


def from_document(document: Any, shown: str) -> Session:
    """The session a whole document (version 1: every record in it) holds, or InputError naming
    what is wrong (one line). A session file of version 2 is read by deep/session_file.py."""
    check_kind(document, shown, (WHOLE_VERSION,))
    problem = shape_problem(document, SESSION_SHAPE) or unwritable_text(document)
    if problem:
        raise InputError(f"{shown}: damaged session: {problem}")
    return session_of(document, document["candidates"], shown)


def check_kind(document: Any, shown: str, versions: tuple[int, ...]) -> None:
    if not isinstance(document, dict) or document.get("kind") != KIND:
        raise InputError(f"{shown}: not a lit-search deep-search session (start one with `lit-search deep start`)")
    if document.get("version") not in versions:
        raise InputError(f"{shown}: a session of version {document.get('version')!r}; this lit-search reads "
                         f"versions {WHOLE_VERSION} and {VERSION}")


def _filters(values: dict[str, Any], shown: str) -> Filters:
    """The session's filters (FILTERS_SHAPE checked their types); a count below 0, which
    ``filters_from_dict`` reads as no filter, is named instead."""
    for name in ("min_citations", "max_citations"):
        if (values.get(name) or 0) < 0:
            raise InputError(f"{shown}: damaged session: filter {name} {values[name]:,} is below 0")
    try:
        return filters_from_dict(values)
    except InputError as error:  # a date that is none: said as every other damage is, naming the file
        raise InputError(f"{shown}: damaged session: {error}") from None


def session_of(document: dict[str, Any], entries: list[dict[str, Any]], shown: str) -> Session:
    """The session of a checked document whose candidate ``entries`` each hold their paper and terms."""
    options = Options(**{k: v for k, v in document["options"].items() if k in Options.__dataclass_fields__})
    _check_options(options, shown)
    session = Session(topic=document["topic"], variants=list(document.get("variants") or []),
                      filters=_filters(document.get("filters") or {}, shown), options=options,
                      created_at=str(document.get("created_at") or ""), done=bool(document.get("done")),
                      stop_reason=document.get("stop_reason"), queries=list(document.get("queries") or []),
                      search_providers=list(document.get("search_providers") or []),
                      asked_ids=list(document.get("asked_ids") or []),
                      pending_queries=list(document.get("pending_queries") or []),
                      recommended_with=str(document.get("recommended_with") or ""),
                      next_number=document.get("next_number", 1))
    for entry in entries:
        candidate = _candidate(entry, shown)
        if candidate.key in session.candidates:
            raise InputError(f"{shown}: damaged session: candidate {candidate.key!r} appears twice")
        session.candidates[candidate.key] = candidate
    session.rounds = [Round(**{k: v for k, v in entry.items() if k in Round.__dataclass_fields__})
                      for entry in document["rounds"]]
    session.batch = list(document.get("batch") or [])
    unknown = [name for name in session.search_providers + (options.providers or [])
               if name not in registry.searchable()]
    if unknown:
        raise InputError(f"{shown}: damaged session: unknown provider {unknown[0]!r}")
    if options.rerank not in (None, "semantic", "none"):
        raise InputError(f"{shown}: damaged session: unknown rerank {options.rerank!r}")
    if session.stop_reason not in (None, "saturated", "budget", "exhausted"):
        raise InputError(f"{shown}: damaged session: unknown stop_reason {session.stop_reason!r}")
    problem = _state_problem(session)
    if problem:
        raise InputError(f"{shown}: damaged session: {problem}")
    return session


def _state_problem(session: Session) -> str | None:
    """What no step leaves behind, in words (a session edited by hand, or by another program):
    an empty topic; rounds not numbered 1, 2, … in order; requests counted for a provider nobody
    declared; a candidate whose key is malformed or not below next_number, whose rounds are not
    the session's, or whose score is no number; a batch naming a paper twice, one not among the
    candidates or judged already (it would be shown, and counted, again), a batch larger than
    --batch; a complete session with a batch or without its stop reason, or an open one with a
    stop reason. None when the state is one a step can leave."""
    if not session.topic.strip():
        return "an empty topic"
    if session.next_number < 1:  # the next paper would be given a key no session has (c0, c-3)
        return f"next_number {session.next_number:,}, not a candidate number (1, 2, …)"
    numbers = [entry.number for entry in session.rounds]
    if numbers != list(range(1, len(numbers) + 1)):
        return f"rounds numbered {', '.join(map(str, numbers[:6]))}{'…' if len(numbers) > 6 else ''}, not 1, 2, … in order"
    unknown = sorted({name for entry in session.rounds for name in (*entry.requests, *entry.cached)} -
                     set(registry.services()))
    if unknown:
        return f"requests counted for unknown provider {unknown[0]!r}"
    for candidate in session.candidates.values():
        problem = _candidate_problem(candidate, session)
        if problem:
            return f"candidate {candidate.key!r} {problem}"
    seen: set[str] = set()
    for key in session.batch:
        candidate = session.candidates.get(key)
        if candidate is None:
            return f"the batch names unknown candidate {key!r}"
        if key in seen:
            return f"the batch names candidate {key!r} twice"
        if candidate.verdict is not None:
            return f"the batch names candidate {key!r}, judged already ({candidate.verdict})"
        seen.add(key)
    if len(session.batch) > session.options.batch:
        return f"a batch of {plural(len(session.batch), 'paper')}, more than its --batch ({session.options.batch:,})"
    if session.done and session.batch:
        return "a complete session with a batch to judge"
    if session.done != (session.stop_reason is not None):
        return ("a complete session without its stop_reason" if session.done
                else f"stop_reason {session.stop_reason!r} on a session that is not complete")
    return None


def _candidate_problem(candidate: Candidate, session: Session) -> str | None:
    """What is wrong with one candidate's state, in words after its key, or None. Its key is the
    next_number it was given (a new paper given a key in use would take that paper's verdict)."""
    number = candidate.key[1:]
    if not (candidate.key.startswith("c") and number.isascii() and number.isdigit() and number[0] != "0"):
        return "is not a candidate key (c1, c2, …)"
    if int(number) >= session.next_number:
        return f"is not below next_number ({session.next_number:,}): a new paper would be given a key in use"
    for name in ("judged_round", "shown_round"):
        value = getattr(candidate, name)
        if value is not None and not 1 <= value <= len(session.rounds):
            rounds = f"1–{len(session.rounds):,}" if session.rounds else "it has none"
            return f"has {name} {value:,}, not a round of the session ({rounds})"
    if not (math.isfinite(candidate.score) and math.isfinite(candidate.log_odds)):
        return "has a score that is no number"
    problem = _evidence_problem(candidate.evidence)
    if problem:
        return problem
    # A verdict is never taken back to none: a paper read in a round, with none, would count in
    # that round's judged papers and never be shown again
    if candidate.verdict is None and candidate.judged_round is not None:
        return f"has judged_round {candidate.judged_round:,} and no verdict"
    # Nor a verdict without the round it was given in (every version has written both): the
    # budget would count it and no round's yield would, so the two would disagree from then on
    if candidate.verdict is not None and candidate.judged_round is None:
        return f"has verdict {candidate.verdict!r} and no judged_round"
    return None


def _evidence_problem(evidence: list[dict[str, Any]]) -> str | None:
    """What is wrong with the evidence entries' values the steps read (deep/score.py; CANDIDATE_SHAPE
    checked that each is a scalar), in words after a candidate's key, or None: a rank of text or a
    seed of a number stopped `deep results` with a TypeError, a rank past a float's range the scoring
    with an OverflowError. A loop of its own: the shape checker took five times as long."""
    for position, entry in enumerate(evidence):
        rank, seed, provider = entry.get("rank"), entry.get("seed"), entry.get("provider")
        if rank is not None and (type(rank) is not int or not -MAX_RANK <= rank <= MAX_RANK):
            return f"has evidence[{position}] ranked {excerpt(repr(rank), 20)}, not a place in a list (1, 2, …)"
        if seed is not None and type(seed) is not str:
            return f"has evidence[{position}] whose seed is {excerpt(repr(seed), 20)}, not a candidate's key"
        if provider is not None and type(provider) is not str:
            return f"has evidence[{position}] whose provider is {excerpt(repr(provider), 20)}, not a provider's name"
    return None


def _candidate(entry: dict[str, Any], shown: str) -> Candidate:
    if entry.get("verdict") not in (None, *VERDICTS):
        raise InputError(f"{shown}: damaged session: candidate {entry['key']!r} has verdict {entry['verdict']!r}")
    fields_read = {ATTRIBUTES.get(k, k): v for k, v in entry["paper"].items() if k in _PAPER_FIELD_SET}
    if not fields_read.get("provider"):  # none, or "" (an empty field, left out when saved): the merged record
        fields_read["provider"] = "merged"
    fields_read.setdefault("title", "")
    paper = Paper(**fields_read)
    return Candidate(key=entry["key"], paper=paper, terms=dict(entry.get("terms") or {}),
                     evidence=list(entry.get("evidence") or []), verdict=entry.get("verdict"),
                     judged_round=entry.get("judged_round"), shown_round=entry.get("shown_round"),
                     score=_number(entry.get("score")), log_odds=_number(entry.get("log_odds")),
                     why=str(entry.get("why") or ""),
                     chased=list(entry.get("chased") or []), refs=list(entry.get("refs") or []))


def _number(value: int | float | None) -> float:
    """A score as a float; NaN (no number: _candidate_problem names it) for a whole number too
    large for one (1 followed by 400 zeros), as for NaN itself."""
    try:
        return float(value or 0.0)
    except OverflowError:
        return math.nan


def _check_options(options: Options, shown: str) -> None:
    from .limits import check_options

    problem = check_options(options)
    if problem:
        raise InputError(f"{shown}: damaged session: {problem}")


def as_text(session: Session) -> str:
    """The whole session as one document of version 1 (the doors save version 2 with
    deep/session_file.py ``save``; this is its first step when the papers file is written whole)."""
    return json.dumps(as_document(session), ensure_ascii=False, separators=(",", ":"))
