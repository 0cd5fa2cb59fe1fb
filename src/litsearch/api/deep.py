"""Deep search from Python: the command's steps (``lit-search deep``) on a session file, returning
the same JSON documents as dicts.

    from litsearch.api import deep_start, deep_next, deep_results

    step = deep_start("statins for primary prevention", "statins.json", variants=["HMG-CoA reductase"])
    while not step["done"]:
        verdicts = my_judge(step["batch"])           # rows judged relevant, e.g. [1, 4, 9]
        step = deep_next("statins.json", relevant=verdicts)
    included = deep_results("statins.json")["results"]
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Mapping, Sequence

from ..core.config import Settings
from ..core.errors import UsageError
from ..deep.session import Options
from ..deep.session_file import save
from ..deep.step_lock import held
from ..runtime.files import write_file_atomically
from ._run import run_sync, settings as environment_settings


FILTER_NAMES = {"year", "since", "until", "venue", "author", "open_access", "types", "min_citations", "preprints", "open",
                "citations", "country", "continent", "source", "institution", "topic", "publisher", "funder"}


def _saver(path: str):
    return lambda session: save(path, session, write_file_atomically)


def _checked(call):
    """ValueError with the command's message for a bad argument (as api.search does), in the
    API's words (max_judged, not_, deep_next(…, show=True): deep/door_words.py)."""
    from ..deep.door_words import PYTHON_API, in_door_words

    try:
        return call()
    except UsageError as problem:
        raise ValueError(in_door_words(str(problem), PYTHON_API)) from None


def deep_start(topic: str, session: str | os.PathLike, *, variants: str | Sequence[str] = (), batch: int = 20,
               max_judged: int = 300, max_requests: int = Options.max_requests,
               round_requests: int = Options.round_requests, stop_window: int = Options.stop_window,
               stop_yield: int = Options.stop_yield, providers: Sequence[str] | None = None,
               filters: Mapping[str, Any] | None = None, rerank: str | None = None,
               settings: Settings | None = None) -> dict[str, Any]:
    """Search ``topic``, create the ``session`` file (.json; it must not exist) and return the first
    step: ``batch`` (rows to judge), ``done``, ``yield``… (``lit-search deep start --format json``).
    ``variants``: other phrasings (one string is one phrasing); ``max_requests``,
    ``round_requests``, ``stop_window``, ``stop_yield``: as the command's options of those names.
    ``filters``: the search's, by name (year="2019-", types=["review"], venue=…); ``rerank``:
    "semantic" or "none" (default: the optional re-ranker when installed)."""
    from ..deep import steps
    from ..search.options import checked_options

    session = _checked(lambda: steps.session_path(session))

    def prepare():
        if not isinstance(topic, str):  # said before the filters are (checked_options checks it again, after)
            raise UsageError(f"the topic is text, not {type(topic).__name__}")
        if filters is not None and not isinstance(filters, Mapping):
            raise UsageError(f"filters is a mapping of filter names to values (filters={{'year': '2019-'}}), "
                             f"not {type(filters).__name__}")
        given = dict(filters or {})
        unknown = sorted(set(given) - FILTER_NAMES)
        if unknown:
            raise UsageError(f"unknown filter {unknown[0]!r}; the filters are {', '.join(sorted(FILTER_NAMES))}")
        checked = checked_options(topic, variants=variants, providers=providers, filters=given,
                                  rerank=rerank)
        options = steps.checked(Options(batch=batch, max_judged=max_judged, max_requests=max_requests,
                                        round_requests=round_requests, stop_window=stop_window,
                                        stop_yield=stop_yield, providers=checked.providers, rerank=rerank))
        steps.check_new_session_path(session)
        return checked.topic, checked.variants, checked.filters, options

    cleaned, others, checked, options = _checked(prepare)
    config = settings or environment_settings()
    with contextlib.ExitStack() as step:
        _checked(lambda: step.enter_context(held(session)))
        _checked(lambda: steps.check_new_session_path(session))  # another start may have made it meanwhile
        found = run_sync(_online(config, lambda http: steps.start_step(http, cleaned, others, checked, options,
                                                                       _saver(session))))
    return _step(found, session)


def _step(session, path: str) -> dict[str, Any]:
    """The step's document; the stop rule's check in the API's words ("the limit set by
    max_judged (40)"), as the MCP tools retell theirs. ``next`` stays the command-line equivalent."""
    from ..deep.door_words import PYTHON_API, in_door_words
    from ..render.deep import step_payload

    return step_payload(session, path, lambda text: in_door_words(text, PYTHON_API))


def deep_next(session: str | os.PathLike, *, relevant: str | Sequence[int | str] | None = None,
              maybe: str | Sequence[int | str] | None = None, not_: str | Sequence[int | str] | None = None,
              rest: str = "not", variants: str | Sequence[str] = (), max_judged: int | None = None,
              max_requests: int | None = None, show: bool = False, settings: Settings | None = None) -> dict[str, Any]:
    """Record verdicts on the current batch (rows or ids; ``not_`` is ``--not``) and run the next
    round: the next step's dict, or the stop (``done``, ``stop_reason``). ``variants`` or a larger
    ``max_judged``/``max_requests`` take a complete session further. ``show=True`` records nothing
    and returns where the session stands (``--show``)."""
    from ..deep import steps
    from ..search.options import PYTHON, clean_phrasings

    session = _checked(lambda: steps.session_path(session))
    queries = _checked(lambda: clean_phrasings(variants, PYTHON))
    if show:
        _checked(lambda: steps.check_show({"relevant": relevant, "maybe": maybe, "not_": not_,
                                           "variants": queries or None,
                                           "rest": None if rest == "not" else rest,  # the default: not told apart
                                           "max_judged": max_judged,
                                           "max_requests": max_requests}))
        return _step(_checked(lambda: steps.shown_session(session)), session)

    lists = _checked(lambda: {"relevant": steps.given_list(relevant, "relevant"),
                              "maybe": steps.given_list(maybe, "maybe"), "not": steps.given_list(not_, "not_")})
    limits = {"max_judged": max_judged, "max_requests": max_requests}

    def prepare():
        found = steps.open_session(session)
        steps.check_step(found, lists, rest, queries, session, limits)
        return found

    config = settings or environment_settings()
    with contextlib.ExitStack() as step:  # from reading the session to its last save: one step at a time
        _checked(lambda: step.enter_context(held(session)))
        found = _checked(prepare)
        advanced = run_sync(_online(config, lambda http: steps.next_step(http, found, lists, rest, queries,
                                                                         _saver(session), limits)))
    return _step(advanced, session)


def deep_results(session: str | os.PathLike, *, include_unjudged: bool = False, fmt: str = "json",
                 include_rejected: bool = False) -> dict[str, Any] | str:
    """The papers judged relevant, then maybe (``include_unjudged``: then the candidates not judged;
    ``include_rejected``: then the papers judged not relevant): the JSON document as a dict
    (``fmt="json"``), or the text of markdown, bibtex, ris, csl-json or csv."""
    from ..deep import steps
    from ..deep.results import as_search_result
    from ..render.deep import results_json
    from ..runtime.results import RESULT_FORMATS, render_result

    session = _checked(lambda: steps.session_path(session))
    if fmt not in RESULT_FORMATS or fmt == "table":
        raise ValueError(f"fmt must be one of {', '.join(f for f in RESULT_FORMATS if f != 'table')}, not {fmt!r}")
    found = _checked(lambda: steps.open_session(session))
    result = as_search_result(found, include_unjudged=include_unjudged, include_rejected=include_rejected)
    if fmt == "json":
        return results_json(result, found, session)
    return render_result(result, max(1, len(result.results)), fmt, include_abstracts=True)


async def _online(settings: Settings, work):
    from ..runtime.online import online

    return await online(settings, lambda http, _store: work(http))
