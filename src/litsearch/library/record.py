"""The library's own record schema: what a saved paper is, built from a search result or a
paper, read back as a Paper for exports, and merged when the same paper is saved again.

Records are JSON objects with ``record_version``. Version 2 (this one) keeps every author
and every field of the paper; records without ``record_version`` are version 1 (saved by
lit-search 0.1, in the search JSON's shape, authors cut to five) and are read the same way.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Iterable, Mapping

from ..core.identifiers import is_arxiv_doi
from ..core.records import ATTRIBUTES, JSON_NAMES, Paper
from ..core.updates import UPDATE_TYPES, merged_updates

RECORD_VERSION = 2
# Every Paper field but the per-answer ones (which provider, its rank and score), by its JSON
# name: Semantic Scholar's id is "paper_id" in every saved record, as it always was, so the
# attribute's new name (semantic_scholar_id) needed no new record version.
PAPER_FIELDS = tuple(JSON_NAMES.get(f.name, f.name) for f in fields(Paper)
                     if f.name not in ("provider", "rank", "score"))
_LIST_FIELDS = ("authors", "publication_types")


def saved_record(paper: Paper, *, found_by: Iterable[str] = (), doi_verified: bool | None = None) -> dict[str, Any]:
    """The record the library keeps for ``paper``: every field of it, which providers found
    it and Crossref's verdict on its DOI (None when not checked)."""
    record: dict[str, Any] = {"record_version": RECORD_VERSION}
    for name in PAPER_FIELDS:
        value = getattr(paper, ATTRIBUTES.get(name, name))
        record[name] = list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
    record["found_by"] = list(dict.fromkeys(found_by))
    record["doi_verified"] = doi_verified
    return record


def paper_from_record(record: Mapping[str, Any]) -> Paper:
    """A saved record (any version) as a Paper, for exports, display and the dedupe engine.

    Each field is read as its type or not at all: a value of another type (a number where
    text belongs, text where a count belongs, from an older version or another program's
    write) costs only that field, never the reading of the record."""
    values: dict[str, Any] = {}
    for name in PAPER_FIELDS:
        value = record.get(name)
        if name in _TEXT_FIELDS:
            value = _as_text(value)
        elif name in _NUMBER_FIELDS:
            value = _as_int(value)
        elif name in _LIST_FIELDS:
            value = [str(item) for item in value] if isinstance(value, list) else []
        elif name == "external_ids":
            value = {str(k): str(v) for k, v in value.items() if v is not None} if isinstance(value, Mapping) else {}
        elif name == "updates":  # records saved before notices were kept have none
            value = [dict(item) for item in value if isinstance(item, Mapping) and item.get("type") in UPDATE_TYPES] \
                if isinstance(value, list) else []
        elif name == "retracted":
            value = value if isinstance(value, bool) else None
        values[ATTRIBUTES.get(name, name)] = value
    values["title"] = values["title"] or ""
    return Paper(provider="library", **values)


_NUMBER_FIELDS = ("year", "citation_count", "influential_citation_count")
_TEXT_FIELDS = tuple(name for name in PAPER_FIELDS if name not in _NUMBER_FIELDS + _LIST_FIELDS
                     + ("external_ids", "updates", "retracted"))


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _as_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = value.strip() if isinstance(value, str) else ""
    return int(text) if text.isascii() and text.isdigit() else None


def same_work(saved: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a saved record and a new one that share an identifier are one work, judged
    by the engine that merges search results. A DOI shared by clearly different titles
    (one DOI for a whole congress supplement's abstracts) does not make them one paper."""
    from ..dedupe.clusters import find_clusters  # only saving needs the engine

    return len(find_clusters([paper_from_record(saved), paper_from_record(new)])) == 1


_LONGER_TEXT = ("abstract", "tldr")
_HIGHER_COUNT = ("citation_count", "influential_citation_count")


def merge_records(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The saved record updated with a new record of the same paper, keeping richer values:
    the longer abstract and author list, the higher citation counts, a publisher DOI over
    an arXiv DOI, every external id; otherwise the saved value unless it is empty."""
    merged = dict(old)
    for key, value in new.items():
        merged[key] = _richer(key, old.get(key), value)
    return merged


def _richer(key: str, old: Any, new: Any) -> Any:
    if _empty(new):
        return old
    if _empty(old):
        return new
    if key == "retracted":  # news of a retraction is kept, whichever record brought it
        return True if True in (old, new) else new
    if key == "updates" and isinstance(old, list) and isinstance(new, list):
        return merged_updates(old, new)
    if key == "external_ids" and isinstance(old, Mapping) and isinstance(new, Mapping):
        return {**new, **old}
    if key == "doi":
        return new if is_arxiv_doi(str(old)) and not is_arxiv_doi(str(new)) else old
    if key in _HIGHER_COUNT:
        return max(old, new, key=lambda v: v if isinstance(v, (int, float)) else -1)
    if key in _LONGER_TEXT or key == "authors":
        return new if type(new) is type(old) and isinstance(new, (str, list)) and len(new) > len(old) else old
    return old


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}
