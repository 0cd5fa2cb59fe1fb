"""Crossref's answers, parsed (pure functions, fed real bodies in tests): lists of works,
one work, JATS abstracts, dates, authors, and the API's error payloads."""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import ProviderError
from ..core.identifiers import arxiv_id_from_doi, normalize_doi
from ..core.records import Paper
from ..core.text import plain_text
from ..core.updates import combined_retracted, crossref_type, update
from ..core.urls import http_url
from ._common import (
    api_error,
    as_count,
    as_date,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_year,
    clean,
    json_object,
    parse_each,
)

NAME = "crossref"
# Dates in the order that best approximates "year of publication". `created` and `deposited`
# are when the record was registered, not published, so they are never used.
DATE_FIELDS = ("issued", "published", "published-print", "published-online")

_JATS_HEADING = re.compile(r"<(?:jats:)?title\b[^>]*>(.*?)</(?:jats:)?title>", re.I | re.S)


def parse_works(body: bytes | str) -> list[Paper]:
    """Records of a ``/works?query=`` answer (``message.items``), ranked by position."""
    message = message_of(body)
    items = message.get("items") if isinstance(message, dict) else None
    if not isinstance(items, list):
        raise ProviderError("unexpected response (no list of works)")
    return parse_each(items, lambda item, position: parse_work(item, rank=position))


def parse_single(body: bytes | str) -> Paper | None:
    """The record of a ``/works/{doi}`` answer (``message``); None if it has no title."""
    message = message_of(body)
    if not isinstance(message, dict) or "DOI" not in message:
        raise ProviderError("unexpected response (not a work)")
    paper = parse_work(message)
    if paper is not None:
        paper.score = None  # a single-DOI answer carries score 1: there was no query to rank
    return paper


def parse_work(obj: Any, rank: int | None = None) -> Paper | None:
    """One Crossref work as a ``Paper``; None for a null entry or a work without a title."""
    if not isinstance(obj, dict):
        return None
    title = work_title(obj)
    if not title:
        return None
    doi = normalize_doi(clean(obj.get("DOI")))
    date_parts = _publication_date_parts(obj)
    work_type = clean(obj.get("type"))
    return Paper(
        provider=NAME,
        title=title,
        authors=_author_names(obj.get("author")),
        year=date_parts[0] if date_parts else None,
        publication_date=_iso_date(date_parts),
        journal=first_text(obj.get("container-title")),
        doi=doi,
        arxiv_id=arxiv_id_from_doi(doi),
        abstract=jats_to_text(clean(obj.get("abstract"))),
        citation_count=as_count(obj.get("is-referenced-by-count")),
        publication_types=[work_type] if work_type else [],
        external_ids={"doi": doi} if doi else {},
        volume=clean(obj.get("volume")),
        issue=clean(obj.get("issue")),
        pages=clean(obj.get("page")),
        url=http_url(obj.get("URL")),
        rank=rank,
        score=as_float(obj.get("score")),
        **work_updates(obj),
    )


def work_updates(obj: dict[str, Any]) -> dict[str, Any]:
    """``retracted`` and ``updates`` of a work from its ``updated-by`` list (the notices about
    it, which Crossref now fills from publishers and Retraction Watch). A work Crossref
    answers for without a retraction notice is not retracted as far as Crossref knows."""
    updates = [notice for item in as_list(obj.get("updated-by")) if (notice := _notice(item))]
    return {"retracted": combined_retracted([False], updates), "updates": updates}


def notices_about(obj: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(updated DOI, notice) for each ``update-to`` entry of a notice: a retraction notice
    names the DOI it retracts."""
    notice_doi = normalize_doi(clean(obj.get("DOI")))
    found = []
    for item in as_list(obj.get("update-to")):
        target = normalize_doi(clean(as_dict(item).get("DOI")))
        notice = _notice({**as_dict(item), "DOI": notice_doi})
        if target and notice:
            found.append((target, notice))
    return found


def _notice(item: Any) -> dict[str, Any] | None:
    item = as_dict(item)
    kind = crossref_type(item.get("type"))
    if kind is None:
        return None
    source = clean(item.get("source"))
    return update(kind, normalize_doi(clean(item.get("DOI"))), _iso_date(_date_parts(item.get("updated"))),
                  "crossref" + (f" ({source})" if source else ""))


def _date_parts(value: Any) -> list[int] | None:
    rows = as_list(as_dict(value).get("date-parts"))
    parts = as_list(rows[0]) if rows else []
    numbers = [number for part in parts[:3] if (number := as_int(part)) is not None]
    return numbers if numbers and as_year(numbers[0]) is not None else None


def work_title(obj: dict[str, Any]) -> str | None:
    """Plain text of the first non-empty entry of Crossref's ``title`` list."""
    return first_text(obj.get("title"))


def work_year(obj: dict[str, Any]) -> int | None:
    date_parts = _publication_date_parts(obj)
    return date_parts[0] if date_parts else None


def jats_to_text(abstract: str | None) -> str | None:
    """Plain text of a JATS abstract.

    An "Abstract" heading repeats what the field already says and is dropped; other
    section headings ("Background", "Significance") become "Heading: ". An abstract
    that is only the word "Abstract" is a placeholder and gives None.
    """
    if not abstract:
        return None

    def heading(match: re.Match[str]) -> str:
        text = (plain_text(match.group(1)) or "").rstrip(" :.")
        if text.lower() in ("", "abstract", "summary"):
            return " "
        return f" {text}: "

    text = plain_text(_JATS_HEADING.sub(heading, abstract))
    # Some publishers deposit the bare word as a placeholder: "<jats:p>Abstract</jats:p>".
    return None if text and text.rstrip(".:").lower() == "abstract" else text


def message_of(body: bytes | str) -> Any:
    """The ``message`` of an ``ok`` answer, or ProviderError for HTML, text and error payloads."""
    payload = json_object(body)
    if payload.get("status") != "ok":
        raise api_error(_apimessage_of(payload))
    return payload.get("message")


def _apimessage_of(payload: dict[str, Any]) -> str:
    """The API's words from a failure body: ``{"status": "failed", "message": [{type, message}]}``
    or ``{"status": "error", "message": {"name": …, "description": …}}``."""
    message = payload.get("message")
    entries = message if isinstance(message, list) else [message]
    parts = []
    for entry in entries:
        if isinstance(entry, dict):
            words = [str(entry[key]) for key in ("type", "name", "message", "description") if entry.get(key)]
            parts.append(": ".join(words))
        elif entry:
            parts.append(str(entry))
    return " ".join("; ".join(parts).split()) or str(payload.get("message-type") or "")


def first_text(values: Any) -> str | None:
    if isinstance(values, str):
        values = [values]
    for value in as_list(values):
        text = plain_text(value)
        if text:
            return text
    return None


def _author_names(authors: Any) -> list[str]:
    """"Given Family" for people, ``name`` for organisations (consortia, committees)."""
    names = []
    for author in as_list(authors):
        if not isinstance(author, dict):
            continue
        person = " ".join(part for part in (clean(author.get("given")), clean(author.get("family"))) if part)
        name = person or clean(author.get("name"))
        if name:
            names.append(name)
    return names


def _publication_date_parts(obj: dict[str, Any]) -> list[int] | None:
    """``[year]``, ``[year, month]`` or ``[year, month, day]`` from the first usable date.

    Crossref writes unknown dates as ``{"date-parts": [[null]]}`` and may null whole fields.
    """
    for name in DATE_FIELDS:
        date_parts = as_list(as_dict(obj.get(name)).get("date-parts"))
        parts = as_list(date_parts[0]) if date_parts else []
        numbers = []
        for part in parts[:3]:
            number = as_int(part)
            if number is None:
                break
            numbers.append(number)
        if numbers and as_year(numbers[0]) is not None and as_date(_iso_date(numbers)):
            return numbers
    return None


def _iso_date(parts: list[int] | None) -> str | None:
    if not parts:
        return None
    return "-".join([f"{parts[0]:04d}"] + [f"{part:02d}" for part in parts[1:3]])


