"""OpenAlex's rules for search text, as its API enforces them since June 2026, for the fake
OpenAlex (fake_apis.py's /works, fake_openalex_entities.py's lists): a request that breaks one
gets HTTP 400 with OpenAlex's own error body and words, so a regression in what lit-search
sends loses OpenAlex in the suite exactly as it would against the real API.

Written from the behaviour of openalex-elastic-api (core/search.py, core/shared_view.py,
core/fields.py, app.py's error handler; read 2026-08):
- any list's ``search=`` (and a ``*.search`` filter): a wildcard opening a word is refused
  ("Leading wildcards are not supported …"), so is a ``*`` after fewer than 3 word characters
  ("A * wildcard needs at least 3 leading characters …"), so is a wildcard inside a quoted
  phrase of several words that is not the whole search;
- /works only: a ``*`` or ``?`` in an unquoted word of ``search=`` needs the no-stem search
  ("Wildcards (* or ?) require exact (no-stem) search … Use the search.exact= parameter
  instead …"); ``search.exact=`` takes it; a ``*.search`` filter names its ``.search.exact``
  sibling instead.
The 400 body is ``{"error": "Invalid query parameters error.", "message": …}``.
"""

from __future__ import annotations

import json
import re

from fake_server import Answer

ERROR = "Invalid query parameters error."
_QUOTED = re.compile(r'"([^"]*)"')
EXACT_FILTERS = {"default.search", "title.search", "abstract.search", "fulltext.search", "display_name.search",
                 "title_and_abstract.search"}


def refused(message: str) -> Answer:
    return Answer(400, json.dumps({"error": ERROR, "message": message}))


def _token_problem(word: str) -> str | None:
    if "*" not in word and "?" not in word:
        return None
    if len(word) > 1 and word[0] in "*?":
        return (f'Leading wildcards are not supported (too expensive): "{word}". Anchor the wildcard with at least '
                "3 leading characters, e.g. cycle*.")
    if word.find("*") > 0:
        before = re.search(r"(\w*)\*", word)
        if len(before.group(1) if before else "") < 3:
            return f'A * wildcard needs at least 3 leading characters: "{word}". Add characters before the *, e.g. abc*.'
    return None


def _shape_problem(terms: str) -> str | None:
    """The checks every list's search makes (any index)."""
    whole = terms.strip()
    for phrase in _QUOTED.findall(terms):
        if "*" not in phrase and "?" not in phrase:
            continue
        words = phrase.split()
        if len(words) == 1 or re.search(re.escape(f'"{phrase}"') + r"~\d", terms) or whole == f'"{phrase}"':
            problem = next(filter(None, map(_token_problem, words)), None)
            if problem:
                return problem
            continue
        return (f'Wildcards (* or ?) do not work inside this quoted phrase: "{phrase}". For a multi-word phrase use '
                'an adjacency phrase ("smart* phone") or proximity ("smart phone*"~3) as the whole search.')
    return next(filter(None, map(_token_problem, _QUOTED.sub(" ", terms).split())), None)


def _unquoted_wildcard(terms: str) -> bool:
    return any("*" in word or "?" in word for word in _QUOTED.sub(" ", terms).split())


def works_search_problem(params: dict[str, str | None]) -> Answer | None:
    """The 400 OpenAlex gives these /works parameters, or None when it takes them."""
    for name in ("search", "search.exact"):
        terms = params.get(name)
        if not terms:
            continue
        problem = _shape_problem(terms)
        if problem:
            return refused(problem)
        if name == "search" and _unquoted_wildcard(terms):
            return refused("Wildcards (* or ?) require exact (no-stem) search. The default search is stemmed, so the "
                           "literal text before the wildcard is removed when the work is indexed and the search "
                           "returns wrong results. Use the search.exact= parameter instead (or the "
                           f"default.search.exact filter), e.g. search.exact={terms}.")
    for part in re.split(r",(?![^()]*\))", params.get("filter") or ""):
        key, _, value = part.partition(":")
        if key in EXACT_FILTERS and _unquoted_wildcard(value):
            return refused(f'Wildcards (* or ?) require the exact (no-stem) field. "{key}" is stemmed, so the '
                           "literal text before the wildcard is removed when the work is indexed and the search "
                           f'returns wrong results. Use "{key}.exact" instead, e.g. {key}.exact:{value}.')
    return None


def list_search_problem(terms: str | None) -> Answer | None:
    """The 400 OpenAlex gives an entity list's ``search=`` (authors, sources, …), or None."""
    problem = _shape_problem(terms or "")
    return refused(problem) if problem else None
