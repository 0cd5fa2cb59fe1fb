"""The shape a search record must have to be read back (``report``, ``rerun``).

A record is a file anyone can edit, so what it says is checked as the command line's own
input is: every field that ``report`` and ``rerun`` read has its type, every list its cap
(a hand-edited record with 300 seeds must not send 463 requests), and what ``rerun`` sends
again goes through the command line's validators (search/options.py, graph/limits.py,
core/identifiers.py). A problem is one line naming the field, quoting at most a short
excerpt of the value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..core.environment import excerpt

MAX_LISTED = 10_000  # results, found papers, requests per provider: far more than a search makes
MAX_TEXT = 100_000  # characters in any one text field (a title, a URL, a parameter)
SCALAR = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class ListOf:
    item: Any
    cap: int = MAX_LISTED


@dataclass(frozen=True)
class MapOf:
    value: Any


@dataclass(frozen=True)
class Fields:
    """An object with these fields (name -> spec); ``required`` must be present."""
    fields: dict[str, Any]
    required: tuple[str, ...] = ()


TEXT_OR_NONE = (str, type(None))
INT_OR_NONE = (int, type(None))
REQUEST = Fields({"method": str, "url": str, "params": MapOf((*SCALAR, ListOf(SCALAR, 1_000))),
                  "status": INT_OR_NONE, "error": TEXT_OR_NONE, "from_cache": bool})
PAPER = Fields({"title": TEXT_OR_NONE, "year": INT_OR_NONE, "rank": int, "doi": TEXT_OR_NONE,
                "pmid": TEXT_OR_NONE, "arxiv_id": TEXT_OR_NONE, "paper_id": TEXT_OR_NONE,
                "openalex_id": TEXT_OR_NONE, "retracted": bool})
COUNT = int
RECORD = Fields({
    "record_version": int, "kind": str, "tool": MapOf(SCALAR), "searched_at": str, "topic": TEXT_OR_NONE,
    "variants": ListOf(str, 100),
    # A filter is a value or a list of words; "resolved" maps an entity filter to [OpenAlex id, name].
    "options": Fields({"providers": ListOf(str, 100), "limit": int, "sort": str, "filters": MapOf(
        (*SCALAR, ListOf(str, 100), MapOf(ListOf(str, 2)))), "verify": bool, "exclude_retracted": bool,
        "direction": str, "topic": TEXT_OR_NONE, "rerank": str}),
    "providers": ListOf(Fields({"name": str, "count": int, "error": TEXT_OR_NONE,
                                "requests": ListOf(REQUEST)}, required=("name",)), 100),
    "enrichment": ListOf(Fields({"name": str, "requests": ListOf(REQUEST)}, required=("name",)), 100),
    "filters_applied": ListOf(str, 100),
    "counts": Fields({"identified": COUNT, "per_source": MapOf(int), "duplicates_removed": COUNT,
                      "after_duplicates_removed": COUNT, "seeds_removed": COUNT, "filtered_out": COUNT,
                      "excluded_retracted": COUNT, "shown": COUNT},
                     required=("identified", "per_source", "duplicates_removed", "after_duplicates_removed",
                               "shown")),
    "results": ListOf(PAPER), "found": ListOf(PAPER),
    # Seeds are not capped here: rerun says how many the record holds against the limit.
    "seeds": ListOf(Fields({"id": str, "title": TEXT_OR_NONE, "error": TEXT_OR_NONE}, required=("id",)),
                    MAX_LISTED),
}, required=("record_version", "kind", "counts", "providers", "options"))


def shape_problem(value: Any, spec: Any = RECORD, where: str = "") -> str | None:
    """What is wrong with ``value`` against ``spec``, in words; None when it fits. Fields
    the spec does not name are left alone (a newer minor addition, a note of the user's)."""
    # A file that fits (nearly always) is checked without building the path of every value it
    # holds (a deep-search session has hundreds of thousands); one that does not is walked again
    # to name where.
    if fits(value, spec):
        return None
    return _problem(value, spec, where)


def fits(value: Any, spec: Any) -> bool:
    """Whether ``shape_problem`` finds nothing wrong: the same rules, without the words."""
    return _checker(spec)(value)


def _problem(value: Any, spec: Any, where: str) -> str | None:
    if isinstance(spec, Fields):
        if not isinstance(value, dict):
            return f"'{where or 'the record'}' is not an object"
        for name, inner in spec.fields.items():
            if name in value and (problem := _problem(value[name], inner, _join(where, name))):
                return problem
        for name in spec.required:
            if name not in value:
                return f"'{_join(where, name)}' is missing"
        return None
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            return f"'{where}' is not a list"
        if len(value) > spec.cap:
            return f"'{where}' holds {len(value):,} entries; at most {spec.cap:,} are read"
        for position, item in enumerate(value):
            if problem := _problem(item, spec.item, f"{where}[{position}]"):
                return problem
        return None
    if isinstance(spec, MapOf):
        if not isinstance(value, dict):
            return f"'{where}' is not an object"
        if len(value) > MAX_LISTED:
            return f"'{where}' holds {len(value):,} entries; at most {MAX_LISTED:,} are read"
        for name, item in value.items():
            if problem := _problem(item, spec.value, f"{where}.{excerpt(str(name), 40)}"):
                return problem
        return None
    kinds = spec if isinstance(spec, tuple) else (spec,)
    plain = tuple(kind for kind in kinds if isinstance(kind, type))
    nested = [kind for kind in kinds if not isinstance(kind, type)]
    # bool is an int to Python, never a count or a year to a record.
    if isinstance(value, plain) and not (isinstance(value, bool) and bool not in plain):
        if isinstance(value, str) and len(value) > MAX_TEXT:
            return f"'{where}' is {len(value):,} characters long; at most {MAX_TEXT:,} are read"
        return None
    for inner in nested:
        if _problem(value, inner, where) is None:
            return None
    return f"'{where}' should be {_names(kinds)}, not {_described(value)}"


_CHECKERS: dict[int, tuple[Any, Callable[[Any], bool]]] = {}  # id(spec) -> (spec, its checker)


def _checker(spec: Any) -> Callable[[Any], bool]:
    """``spec`` made into one function, once per spec (the specs are module constants)."""
    known = _CHECKERS.get(id(spec))
    if known is not None and known[0] is spec:
        return known[1]
    if isinstance(spec, Fields):
        check = _fields_checker(spec)
    elif isinstance(spec, (ListOf, MapOf)):
        check = _collection_checker(spec)
    else:
        check = _value_checker(spec if isinstance(spec, tuple) else (spec,))
    _CHECKERS[id(spec)] = (spec, check)
    return check


def _fields_checker(spec: Fields) -> Callable[[Any], bool]:
    named = [(name, _checker(inner)) for name, inner in spec.fields.items()]
    required = spec.required

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name, inner in named:
            if name in value and not inner(value[name]):
                return False
        return all(name in value for name in required)
    return check


def _collection_checker(spec: ListOf | MapOf) -> Callable[[Any], bool]:
    item_spec = spec.item if isinstance(spec, ListOf) else spec.value
    inner = _checker(item_spec)
    kind, cap = (list, spec.cap) if isinstance(spec, ListOf) else (dict, MAX_LISTED)
    # Items of JSON's own scalar types the spec names (a list of texts, a map of counts) are
    # told apart by their types all at once; anything else is checked item by item.
    kinds = item_spec if isinstance(item_spec, tuple) else (item_spec,)
    at_once = frozenset(k for k in kinds if k in (str, int, float, type(None))) \
        if all(isinstance(k, type) for k in kinds) else frozenset()

    def check(value: Any) -> bool:
        if not isinstance(value, kind) or len(value) > cap:
            return False
        items = value if kind is list else value.values()
        if at_once:
            found = set(map(type, items))
            if found <= at_once:
                return str not in found or max(len(item) for item in items if type(item) is str) <= MAX_TEXT
        for item in items:
            if not inner(item):
                return False
        return True
    return check


def _value_checker(kinds: tuple) -> Callable[[Any], bool]:
    plain = tuple(kind for kind in kinds if isinstance(kind, type))
    nested = [_checker(kind) for kind in kinds if not isinstance(kind, type)]
    bool_allowed = bool in plain
    exact = frozenset(kind for kind in plain if kind in (str, int, float, type(None)))

    def check(value: Any) -> bool:
        kind = type(value)
        if kind in exact:  # the common case, JSON's own types: no subclass, no bool
            return kind is not str or len(value) <= MAX_TEXT
        if isinstance(value, plain) and (bool_allowed or not isinstance(value, bool)):
            return not (isinstance(value, str) and len(value) > MAX_TEXT)
        return any(inner(value) for inner in nested)
    return check


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _names(kinds: tuple) -> str:
    words = {str: "text", int: "a whole number", float: "a number", bool: "true or false", type(None): "null"}
    if int in kinds and float in kinds:  # "a whole number or a number" says a number twice
        kinds = tuple(kind for kind in kinds if kind is not int)
    return " or ".join(words.get(kind, "a list") if isinstance(kind, type)
                       else "an object" if isinstance(kind, MapOf) else "a list" for kind in kinds)


def _described(value: Any) -> str:
    """The value a field holds, in the file's own words (JSON's null, true and false)."""
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return excerpt(repr(value), 40)


_SURROGATE = re.compile("[\ud800-\udfff]")


def unwritable_text(value: Any, where: str = "") -> str | None:
    """Where ``value`` (decoded JSON) holds half of a character, in words; None when it holds
    none. JSON can name a lone surrogate with an escape (``"\\ud800"``), and no UTF-8 file can
    hold one: a deep session read with one could never be saved again (its next step ended in an
    internal error), and a search record's report showed a replacement character in its place.
    Checked by the C encoder at once; walked to name the place only when it fails."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return None
    except (UnicodeEncodeError, RecursionError):
        pass
    pending = [(value, where)]
    while pending:
        value, where = pending.pop()
        if isinstance(value, str):
            found = _SURROGATE.search(value)
            if found:
                return f"'{where}' holds {found[0]!r}, half of a character (a lone surrogate), which no file can hold"
        elif isinstance(value, dict):
            for name, item in reversed(value.items()):
                named = f"{where}.{_key_shown(name)}" if where else _key_shown(name)
                found = _SURROGATE.search(name)
                if found:
                    return (f"'{where or 'the document'}' holds a name with {found[0]!r}, half of a character (a "
                            f"lone surrogate), which no file can hold")
                pending.append((item, named))
        elif isinstance(value, list):
            pending.extend((item, f"{where}[{position}]") for position, item in reversed(list(enumerate(value))))
    return None


def _key_shown(name: str) -> str:
    return name if name.isprintable() and len(name) <= 40 else excerpt(name, 40)
