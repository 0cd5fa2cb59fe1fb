"""The steps every door runs (the command line, the MCP server, the Python API): start a
session, judge a batch and run the next round, read the results. The door gives the checked
arguments and a ``save`` that writes the session atomically (runtime/files.py); the session is
saved after the verdicts are recorded and again after the round, so a step stopped at any moment
leaves either state, never a verdict lost.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ..core.errors import UsageError
from ..core.filters import Filters
from ..core.text import plural
from ..net.http import HttpClient
from . import rounds
from .limits import check_options
from .session import Options, Session
from .session_file import SUFFIX, check_suffix, load
from .verdicts import resolve

Save = Callable[[Session], None]


def given_list(value: int | str | Sequence[int | str] | None, name: str) -> str | None:
    """A verdict list as the tools and the API take it (a comma string, a sequence of rows or ids,
    or one row) in the command line's form: "1,4,c12"; UsageError naming ``name`` for anything
    else (a float, bytes, a mapping: iterated or printed, each would name rows nobody meant)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return _row_text(value, name)
    if isinstance(value, (bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise UsageError(f"{name}: give rows or ids (a comma string \"1,4,c12\", a list, or one row), "
                         f"not {type(value).__name__}")
    items = list(value)
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise UsageError(f"{name}: a row is a whole number and an id is text, not {type(item).__name__} {item!r}")
    return ",".join(item if isinstance(item, str) else _row_text(item, name) for item in items)


def _row_text(row: int, name: str) -> str:
    try:
        return str(row)
    except ValueError:  # more digits than Python writes out (4,300): no batch has that row
        raise UsageError(f"{name}: a row of more than 4,300 digits is in no batch") from None


def session_path(value: str | os.PathLike) -> str:
    """A session file name as every door takes it: text, or a path object (pathlib.Path), as
    text; UsageError for anything else."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes) or not isinstance(value, str):
        raise UsageError(f"the session is a file name (text or a path), not {type(value).__name__}")
    return value


def check_new_session_path(path: str) -> None:
    """A session file to create: a .json name that does not exist yet (a session is never
    started over another file, nor over an earlier session's verdicts). Every door (the command
    line, the MCP tool, the Python API) checks the name here, before any request."""
    if not str(path).lower().endswith(SUFFIX):
        raise UsageError(f"--session {path}: a session file's name ends in {SUFFIX}")
    check_session_name(str(path))
    if os.path.islink(path) and not os.path.exists(path):
        raise UsageError(f"--session {path} is a link to {os.readlink(path)}, which does not exist; a session "
                         f"is not started through a broken link: name another file, or remove the link")
    if os.path.lexists(path):
        raise UsageError(f"--session {path} already exists; see where it stands with "
                         f"`lit-search deep next {shlex.quote(str(path))} --show`, or name a new file")
    other = _sharing_papers(Path(path))
    if other:  # on a file system that tells case apart, review.JSON and review.json are two sessions, one papers file
        raise UsageError(f"--session {path}: {other}, in the same folder, keeps its papers in the file this session "
                         f"would write ({Path(path).name[:-len(SUFFIX)]}.papers.jsonl); name a new file")
    folder = Path(path).parent if str(Path(path).parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"--session {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"--session {path}: the folder {folder} is not writable")


def _sharing_papers(path: Path) -> str | None:
    """Another document in ``path``'s folder whose papers file is this one's (its name in other
    case: ``review.JSON`` beside ``review.json``), else None. A papers file with no document (a
    ``deep start`` killed before its document was written) is replaced by the start, as before."""
    from .paper_store import papers_path

    try:
        names = os.listdir(path.parent)  # "." for a bare name
    except OSError:
        return None
    mine = papers_path(path.name)
    return next((name for name in sorted(names) if name != path.name and name.lower().endswith(SUFFIX)
                 and papers_path(name) == mine), None)


# The longest name a session writes beside its document: a temporary copy of its papers file
# (runtime/files.py: ".review.papers.jsonl.XXXXXXXX.tmp").
LONGEST_BESIDE = ".{papers}.XXXXXXXX.tmp"


def check_session_name(path: str) -> None:
    """The file name of a new session: something before ``.json`` (``.json`` alone, or dots and
    blanks, would make hidden files named like no session), no control or invisible characters
    (they would reach the "Next:" command and every listing of the folder), and short enough that
    every file the session writes beside it (its papers file, their temporary copies, its lock)
    fits the folder's limit on a name; else UsageError (a session whose papers file cannot be
    written would fail at its first save, after the whole first search)."""
    from .paper_store import papers_path

    name = Path(path).name
    if not name[: -len(SUFFIX)].strip(" ."):
        raise UsageError(f"--session {path}: name the session before {SUFFIX} (e.g. review.json)")
    if not name.isprintable():
        raise UsageError(f"--session {path!r}: a session file's name has no control or invisible characters")
    folder = Path(path).parent if str(Path(path).parent) else Path(".")
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    longest = LONGEST_BESIDE.format(papers=papers_path(name).name)
    size = len(os.fsencode(longest))
    if size > limit:
        raise UsageError(f"--session …{name[-40:]}: a name {plural(size - limit, 'byte')} too long: the session "
                         f"writes its papers file (NAME.papers.jsonl) and temporary copies of it beside it, whose "
                         f"names need {plural(size, 'byte')}, and this folder allows {limit:,}")


def open_session(path: str) -> Session:
    check_suffix(path)
    return load(path)


def shown_session(path: str) -> Session:
    """The session for ``--show``, read under its step lock: while another step runs, the batch
    on file is the one being judged and its next round is not yet saved, so what the file says
    (a round owed, say) would be wrong, and acting on it would judge a batch nobody saw."""
    from .step_lock import held

    check_suffix(path)  # before a lock file is made beside it
    with held(path):
        return load(path)


async def start_step(http: HttpClient, topic: str, variants: list[str], filters: Filters, options: Options,
                     save: Save) -> Session:
    session = await rounds.start(http, topic, variants, filters, options)
    save(session)
    return session


def checked(options: Options) -> Options:
    """``options`` when they are within their bounds (deep/limits.py), else UsageError naming the
    option as the command line does (the other doors say it in their words: deep/door_words.py).
    Every door checks a session's options here: ``start``'s and the new budgets of ``next``."""
    problem = check_options(options, lambda name: "--" + name.replace("_", "-"))
    if problem:
        raise UsageError(problem)
    return options


Limits = dict[str, "int | None"]  # "max_judged", "max_requests": new budgets given with a step


def new_options(session: Session, limits: Limits | None) -> Options | None:
    """The session's options with the budgets ``limits`` gives (None where none is given),
    checked as ``start`` checks them; UsageError when one is out of range."""
    given = {name: value for name, value in (limits or {}).items() if value is not None}
    if not given:
        return None
    options = checked(replace(session.options, **given))
    # A budget is a limit to go on to: one spent already would stop the session before it shows
    # anything (and said "go on with N above" a number below what it had done)
    spent = {"max_judged": (len(session.judged()), "paper is", "papers are", "judged"),
             "max_requests": (session.requests_sent, "request was", "requests were", "sent")}
    for name, value in given.items():
        done, one, many, how = spent[name]
        if value <= done:
            raise UsageError(f"--{name.replace('_', '-')} {value:,}: {plural(done, one, many)} {how} already; a new "
                             f"budget must be above {done:,}")
    # The step judges the batch shown before it goes on: a budget below that would be exceeded by
    # the step itself (it ended at 40 judged against a new limit of 25)
    judging = len(session.batch) if session.batch and not session.done else 0
    least = len(session.judged()) + judging
    if judging and given.get("max_judged") is not None and given["max_judged"] < least:
        raise UsageError(f"--max-judged {given['max_judged']:,}: {plural(len(session.judged()), 'paper is', 'papers are')} "
                         f"judged already and this step judges the {plural(judging, 'row')} of the batch; a new "
                         f"budget must be at least {least:,}")
    return options


def check_show(given: dict[str, object], flag: str = "show") -> None:
    """``show`` records nothing: UsageError naming what was given with it (by the door's names)."""
    asked = [name for name, value in given.items() if value is not None and value != [] and value != ""]
    if asked:
        raise UsageError(f"{flag} records nothing; leave out {', '.join(asked)}")  # not a count


def way_on(session: Session) -> str:
    """What takes a complete session further: the limit it reached, or other words."""
    from .stop import budget_limit

    return f"a larger {budget_limit(session)[0]}" if session.stop_reason == "budget" else "new queries (--variant)"


def check_step(session: Session, lists: dict[str, str | None], rest: str, queries: list[str],
               path: str = "FILE", limits: Limits | None = None) -> None:
    """Every problem with a ``next`` step, before any request or write: verdicts for a complete
    session, verdicts while a round is owed, a bad list (deep/verdicts.py), too many waiting
    queries, a budget out of range or one that would not reopen a session stopped by its budget.
    ``path`` names the session in the commands a message suggests."""
    quoted = shlex.quote(str(path))
    options = new_options(session, limits)
    if session.done:
        if any(lists.values()):
            raise UsageError(f"this session is complete ({session.stop_reason}); see its results with "
                             f"`lit-search deep results {quoted}`, or go on with {way_on(session)}")
        if options and not queries and session.stop_reason == "exhausted":
            # No candidate is left to judge: a larger budget finds none (it added an empty round
            # each time it was given); other words can
            raise UsageError("this session is complete (exhausted): no candidate is left to judge, so a larger "
                             "budget finds none; go on with new queries (--variant)")
        if queries or options:
            still = rounds.budget_left(session, options or session.options)
            if still:
                limit = "--max-judged" if "--max-judged" in still else "--max-requests"
                raise UsageError(f"this session stopped at its budget and {still}; give a larger {limit} to go on")
            rounds.check_queries(session, queries)
        return
    if rounds.awaiting_round(session) and any(lists.values()):
        raise UsageError(f"there is no batch to judge: the verdicts are recorded and the next round has not shown one "
                         f"(the step was stopped, its requests failed, or its chasing found nothing new yet): run "
                         f"`lit-search deep next {quoted}` (no verdicts) to run it and see the next batch")
    resolve(session, lists, rest)
    rounds.check_queries(session, queries)


async def next_step(http: HttpClient, session: Session, lists: dict[str, str | None], rest: str,
                    queries: list[str], save: Save, limits: Limits | None = None) -> Session:
    """Record the verdicts (every list checked before anything changes), save, run the next round
    unless the session stopped, save. A complete session asked again without verdicts is shown as
    it is, and goes on with new queries or a larger budget; a step stopped after its verdicts runs
    the round it owes when asked again."""
    asked = any(lists.values()) or bool(queries)
    options = new_options(session, limits)
    if session.done:
        if not (queries or options):
            return session
        rounds.reopen(session, queries, options)
        save(session)
    else:
        if options:
            session.options = options
        if not (rounds.awaiting_round(session) and not asked):
            rounds.judge(session, resolve(session, lists, rest), queries)
            save(session)
    if not session.done:
        await rounds.expand(http, session)
        save(session)
    return session
