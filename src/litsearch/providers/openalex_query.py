"""OpenAlex's search text: what its ``search=`` takes since June 2026 (pure).

OpenAlex answers HTTP 400 to a ``?`` or ``*`` outside quotes in a works search ("Wildcards
(* or ?) require exact (no-stem) search … Use the search.exact= parameter instead"), to a
wildcard that opens a word or follows fewer than three letters on any list, and reads ``~`` as
its fuzzy and proximity operators (its source, ``core/search.py`` of openalex-elastic-api; its
help pages on searching). A question ("do turing patterns form in skin?"), a pasted "?" or a
truncation star would lose OpenAlex for the whole search. So every search text lit-search
builds for OpenAlex (a works search, its variants OR'ed, a name resolved to an id, an entity
list's search, an autocomplete lookup) passes through here first, and never carries a bare
``?``, ``*`` or ``~``:

- ``?`` ending a word (or standing alone) is a question mark: removed, nothing to say;
  anywhere else it would be a one-letter wildcard, which lit-search does not send: removed,
  with a note;
- ``~`` (fuzzy ``word~``, proximity ``"a b"~3``) is removed with its number, with a note;
- ``*`` ending a word of at least three letters (``transcriptom*``) is a deliberate truncation:
  a works search keeps it and goes to ``search.exact`` (OpenAlex's no-stem search, where a
  wildcard works); names have no such search, so there it is removed with a note, as is any
  other ``*`` (opening a word, after fewer than three letters, inside a word or quotes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPERATORS = frozenset({"AND", "OR", "NOT"})
MIN_PREFIX = 3  # OpenAlex: "A * wildcard needs at least 3 leading characters"
_QUOTED = re.compile(r'"[^"]*"')
_TILDE = re.compile(r"~\d*(?:\.\d+)?")
_TRUNCATION = re.compile(r"^(.*?)(\w{%d,})\*([)\]},;:.!]*)$" % MIN_PREFIX)
_CLOSING = ')]},;:.!"\''
_IN_WORD_QUESTION = re.compile(r"[(\[]*\w[\w?'-]*\w")  # wom?n: a one-letter wildcard, not a question


@dataclass(frozen=True)
class SearchText:
    """What to send: the text, whether it goes as ``search.exact`` (a truncation star kept),
    and one note per thing removed that the user may have meant."""

    text: str
    exact: bool = False
    notes: tuple[str, ...] = ()


def works_search_text(text: str) -> SearchText:
    """A works search (``/works?search=``): a deliberate truncation star is kept and the text
    goes as ``search.exact``."""
    return _searchable(text, keep_truncation=True)


def name_search_text(text: str) -> str:
    """A name search (entity lists, name resolution, autocomplete): no wildcard at all."""
    return _searchable(text, keep_truncation=False).text


def name_search_notes(text: str) -> list[str]:
    return list(_searchable(text, keep_truncation=False).notes)


def _searchable(text: str, keep_truncation: bool) -> SearchText:
    notes: list[str] = []
    pieces: list[str] = []
    position = 0
    for match in _QUOTED.finditer(text):  # paired quotes: a phrase takes no wildcard at all
        pieces.append(_unquoted(text[position:match.start()], keep_truncation, notes))
        pieces.append(_phrase(match.group(0), notes))
        position = match.end()
    pieces.append(_unquoted(text[position:], keep_truncation, notes))
    cleaned = _tidy(" ".join(pieces))
    exact = keep_truncation and ("*" in cleaned or "?" in cleaned)
    if exact:
        notes.append("OpenAlex searched with search.exact (no stemming), where its wildcards work")
    return SearchText(cleaned, exact, tuple(dict.fromkeys(notes)))


def _unquoted(part: str, keep_truncation: bool, notes: list[str]) -> str:
    if "~" in part:
        for found in _TILDE.findall(part):
            notes.append(f"{found!r} removed: OpenAlex's fuzzy and proximity ~ is not sent")
        part = _TILDE.sub(" ", part)
    return " ".join(_token(token, keep_truncation, notes) for token in part.split())


def _wildcard_question(word: str) -> bool:
    """A ``?`` inside a word (a one-letter wildcard), not the question mark ending it."""
    return "?" in word.rstrip(_CLOSING + "?")


def _token(token: str, keep_truncation: bool, notes: list[str]) -> str:
    if "?" in token:
        stripped = token.rstrip(_CLOSING + "?")
        token = stripped + token[len(stripped):].replace("?", "")  # the question mark ending it
        if "?" in stripped and not (keep_truncation and _IN_WORD_QUESTION.fullmatch(stripped)):
            notes.append(f"{stripped!r}: OpenAlex takes a ? wildcard only inside a word, in a works search; "
                         "searched without it")
            token = token.replace("?", "")
    if "*" not in token:
        return token
    kept = _TRUNCATION.match(token)
    if keep_truncation and kept and "*" not in kept.group(1) + kept.group(2):
        return token
    if kept and "*" not in kept.group(1):
        notes.append(f"{token!r}: OpenAlex searches names without wildcards; searched for "
                     f"{kept.group(1) + kept.group(2) + kept.group(3)!r}")
    else:
        notes.append(f"{token!r}: OpenAlex takes a * wildcard only at the end of a word of {MIN_PREFIX} or "
                     "more letters; searched without it")
    return token.replace("*", "")


def _phrase(phrase: str, notes: list[str]) -> str:
    inner = phrase[1:-1]
    if "*" in inner or any(_wildcard_question(word) for word in inner.split()):
        notes.append(f"{phrase}: OpenAlex takes no wildcard inside quotes; searched without it")
    return '"' + inner.replace("*", "").replace("?", "").replace("~", " ") + '"'


def _tidy(text: str) -> str:
    """Whitespace folded; empty phrases and groups, and boolean operators left with nothing on
    one side, removed (a removed word must not leave ``cells AND`` behind)."""
    text = re.sub(r'"\s*"|\(\s*\)', " ", text)
    tokens = re.findall(r'"[^"]*"|\(|\)|[^\s()"]+|"', text)
    changed = True
    while changed:
        changed = False
        for index, token in enumerate(tokens):
            if token not in OPERATORS:
                continue
            before = tokens[index - 1] if index else "("
            after = tokens[index + 1] if index + 1 < len(tokens) else ")"
            # AND/OR need a term on each side ("AND NOT x" is one); NOT needs one after it.
            dangling = after in OPERATORS or after == ")" if token == "NOT" else (
                before in OPERATORS or before == "(" or after in ("AND", "OR", ")"))
            if dangling:
                del tokens[index]
                changed = True
                break
        if not changed:
            joined = " ".join(tokens)
            emptied = re.sub(r"\(\s*\)", " ", joined)
            if emptied != joined:
                tokens = re.findall(r'"[^"]*"|\(|\)|[^\s()"]+|"', emptied)
                changed = True
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", " ".join(tokens))).strip()
