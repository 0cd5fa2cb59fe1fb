"""A record as its file wrote it, and merging such records field by field.

The Paper model holds what searching and deduplicating need; a reviewer's export holds
more (publisher, ISBN, keywords, notes, file links, custom fields). A ``SourceRecord`` keeps
all of it: the format, the entry type, every field in file order under the file's own
names and in the file's own encoding (BibTeX values as TeX), and the entry's own text. So
``dedupe --merged`` writes a record without duplicates exactly as it was read, and merges a
cluster without dropping what only one member carried.

Merging rules (``merge_sources``): the most complete member (most non-empty fields; the
earliest on a tie) is the base. Every field another member has and the base lacks is added.
Where both have a value and they differ, the base's value stays, except that a page range
replaces a single page it starts with ("1616" and "1616-1620"), repeatable RIS tags (keywords,
links, notes) and BibTeX/CSV keyword lists are united, and an author list is taken whole from
one record (the base's, else the first member that has one), never mixed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .formats import READABLE_FORMATS

FORMATS = READABLE_FORMATS  # the formats a record can be written in as read

# RIS reference types -> BibTeX entry types, so every reader labels records alike.
RIS_TYPES = {"JOUR": "article", "JFULL": "article", "EJOUR": "article", "MGZN": "article", "NEWS": "article",
             "ABST": "article", "INPR": "article", "CONF": "inproceedings", "CPAPER": "inproceedings",
             "BOOK": "book", "EBOOK": "book", "EDBOOK": "book", "CHAP": "incollection", "ECHAP": "incollection",
             "THES": "phdthesis", "RPRT": "techreport", "UNPB": "unpublished", "MANSCPT": "unpublished"}

# RIS tags that repeat with one value each and are united when merging; authors are not
# (two spellings of one author would become two authors).
RIS_UNITED_TAGS = frozenset({"KW", "UR", "L1", "L2", "L3", "L4", "LK", "N1"})
RIS_AUTHOR_TAGS = frozenset({"AU", "A1"})
_LIST_FIELDS = frozenset({"keywords", "keyword", "mesh", "tags"})  # BibTeX/CSV fields holding a list
_PAGE_FIELDS = frozenset({"pages", "page", "sp"})
_LIST_SEPARATOR = re.compile(r"\s*[;,]\s*")
_RANGE = re.compile(r"^\s*(\S+?)\s*(?:-{1,2}|–|—)\s*(\S+)\s*$")


@dataclass
class SourceRecord:
    """One entry of an export, as written. ``fields`` are (name, value) pairs in file order;
    RIS repeats a tag per value. ``key``: the BibTeX key, else "". ``text``: the entry's own
    text (RIS: TY line to ER line; BibTeX: ``@type{…}``; CSV: "", a row is its fields).
    ``complete`` is False for a RIS record the file ends (or the next TY starts) before its ER."""

    format: str
    entry_type: str = ""
    fields: list[tuple[str, str]] = field(default_factory=list)
    key: str = ""
    text: str = ""
    complete: bool = True

    def values(self, name: str) -> list[str]:
        folded = name.lower()
        return [value for own, value in self.fields if own.lower() == folded]

    def first(self, name: str) -> str:
        return next((value for value in self.values(name) if value.strip()), "")

    @property
    def filled(self) -> int:
        return sum(1 for _, value in self.fields if value.strip())


def merge_sources(members: list[SourceRecord]) -> SourceRecord:
    """One record of a cluster's members (same format), by the rules in the module docstring."""
    order = sorted(range(len(members)), key=lambda i: (-members[i].filled, i))
    base = members[order[0]]
    merged = SourceRecord(base.format, base.entry_type or next((m.entry_type for m in members if m.entry_type), ""),
                          list(base.fields), base.key, "", all(m.complete for m in members))
    for index in order[1:]:
        _absorb(merged, members[index])
    return merged


def _absorb(merged: SourceRecord, other: SourceRecord) -> None:
    authors_known = any(name.upper() in RIS_AUTHOR_TAGS and value.strip() for name, value in merged.fields) \
        if merged.format == "ris" else None
    for name, value in other.fields:
        if not value.strip():
            continue
        positions = [i for i, (own, _) in enumerate(merged.fields) if own.lower() == name.lower()]
        present = [merged.fields[i][1] for i in positions if merged.fields[i][1].strip()]
        if merged.format == "ris" and name.upper() in RIS_AUTHOR_TAGS:
            if not authors_known:
                merged.fields.append((name, value))  # the first record with authors gives all of them
            continue
        if not present:
            _put(merged, positions, name, value)
        elif merged.format == "ris" and name.upper() in RIS_UNITED_TAGS:
            if _norm(value) not in {_norm(v) for v in present}:
                merged.fields.insert(positions[-1] + 1, (name, value))
        elif name.lower() in _LIST_FIELDS:
            merged.fields[positions[0]] = (merged.fields[positions[0]][0], _united_list(present[0], value))
        elif name.lower() in _PAGE_FIELDS and _extends_range(present[0], value):
            merged.fields[positions[0]] = (merged.fields[positions[0]][0], value)


def _put(merged: SourceRecord, positions: list[int], name: str, value: str) -> None:
    """Fill an empty field (a CSV cell) in place, else add the field."""
    if positions:
        merged.fields[positions[0]] = (merged.fields[positions[0]][0], value)
    else:
        merged.fields.append((name, value))


def _norm(value: str) -> str:
    return " ".join(value.split()).casefold()


def _united_list(kept: str, added: str) -> str:
    """"a; b" and "b, c" -> "a; b; c" (the kept list's separator and order first)."""
    separator = ", " if "," in kept and ";" not in kept else "; "
    items = [item for item in _LIST_SEPARATOR.split(kept.strip()) if item]
    known = {_norm(item) for item in items}
    for item in _LIST_SEPARATOR.split(added.strip()):
        if item and _norm(item) not in known:
            items.append(item)
            known.add(_norm(item))
    return separator.join(items)


def _extends_range(kept: str, other: str) -> bool:
    """``other`` is a page range starting at the single page ``kept``."""
    match = _RANGE.match(other)
    return bool(match) and not _RANGE.match(kept) and match.group(1).lstrip("0") == kept.strip().lstrip("0")
