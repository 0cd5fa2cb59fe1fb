"""Crossref /works: relevance search, single-DOI lookup, and DOI verification (answers parsed in
crossref_parse.py)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from ..core.config import Settings
from ..core.errors import ProviderError
from ..core.filters import Filters
from ..core.identifiers import is_arxiv_doi, normalize_doi
from ..core.records import Paper
from ..core.services import NOTICES
from ..core.text import fold_title
from ..core.updates import combined_retracted, merged_updates
from ..core.urls import id_in_path
from ..net.http import FetchedResponse, ProviderSession
from ._common import skipped_notes
from .base import PROBE_DOI, PROBE_STATUSES, Provider, ProviderAnswer
from .crossref_declaration import SERVICE
from .crossref_parse import (  # noqa: F401 (the parsers are part of this provider's surface)
    DATE_FIELDS,
    NAME,
    first_text,
    jats_to_text,
    message_of,
    notices_about,
    parse_single,
    parse_work,
    parse_works,
    work_title,
    work_updates,
    work_year,
)

WORKS_PATH = "/works"
MAX_ROWS = 100  # lit-search shows at most 100 papers (--limit); Crossref itself allows 1,000

# Root-level fields the parser reads; all of them, score included, are on Crossref's list of
# selectable fields for /works routes. (select is not allowed on /works/{doi}.)
SELECT_FIELDS = ",".join((
    "DOI", "title", "author", "issued", "published", "published-print", "published-online",
    "container-title", "abstract", "is-referenced-by-count", "type", "volume", "issue", "page",
    "URL", "score", "updated-by",
))

# A cited title and Crossref's title for the same DOI differ in case, punctuation, markup and
# the odd word ("&" vs "and", a dropped subtitle). 90 on token_sort_ratio of folded titles
# tolerates that, while a different paper (a wrong or mistyped DOI) scores far below it.
TITLE_MATCH_THRESHOLD = 90
# token_sort_ratio already scores such pairs below the threshold; the guard states the rule
# outright, so "X" never verifies "X: a survey of …" whichever scorer is used.
MIN_TITLE_LENGTH_RATIO = 0.8
# Print and online publication often fall in different years.
YEAR_TOLERANCE = 1

# DataCite (not Crossref) registers these prefixes, so Crossref's 404 says nothing about them.
DATACITE_PREFIXES = frozenset({
    "10.48550",  # arXiv
    "10.5281",   # Zenodo
    "10.6084",   # figshare
})

_BOOLEAN_WORD = re.compile(r"^(?:AND|OR|NOT)$")
_QUERY_PUNCTUATION = re.compile(r'["()]')


# ---------------------------------------------------------------- query building (pure)

def combine_queries(variants: list[str]) -> str:
    """One ``query=`` matching any variant: the variants' distinct words, space-separated.

    Crossref's ``query`` has no boolean syntax: it is a bag of words, and each record is
    ranked by how well its metadata matches them. The union of the variants' words
    therefore finds papers matching any variant and ranks those matching more words first.
    Repeated words are dropped (they would only weigh those words more), and so are
    quotes, parentheses and AND/OR/NOT, which Crossref would read as plain words.
    """
    words: list[str] = []
    seen: set[str] = set()
    for variant in variants:
        for word in _QUERY_PUNCTUATION.sub(" ", variant or "").split():
            if _BOOLEAN_WORD.match(word) or word.lower() in seen:
                continue
            seen.add(word.lower())
            words.append(word)
    if not words:
        raise ValueError("no search terms left in the query variants")
    return " ".join(words)


# ---------------------------------------------------------------- HTTP flow

_CROSSREF_TYPES = {"article": "journal-article", "conference": "proceedings-article", "preprint": "posted-content"}


def filter_params(filters: Filters | None) -> tuple[dict[str, str], set[str]]:
    """``filter=`` (dates, types) plus field queries for author and venue. Field queries
    only rank, they do not exclude, so author and venue are still checked after fetching."""
    params: dict[str, str] = {}
    parts: list[str] = []
    native: set[str] = set()
    if not filters:
        return params, native
    if filters.date_from:
        parts.append(f"from-pub-date:{filters.date_from.isoformat()}")
    if filters.date_to:
        parts.append(f"until-pub-date:{filters.date_to.isoformat()}")
    if filters.date_from or filters.date_to:
        native.add("date")
    if filters.types and all(t in _CROSSREF_TYPES for t in filters.types):
        parts.extend(f"type:{_CROSSREF_TYPES[t]}" for t in filters.types)  # a repeated filter is an OR
        native.add("type")
    if filters.preprints:  # --preprints; Crossref has no negative type filter (--no-preprints: after fetching)
        if not filters.types:
            parts.append(f"type:{_CROSSREF_TYPES['preprint']}")
        native.add("preprints")
    if parts:
        params["filter"] = ",".join(parts)
    if filters.author:
        params["query.author"] = filters.author
    if filters.venue:
        params["query.container-title"] = filters.venue
    return params, native


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> ProviderAnswer:
    """Relevance-ranked ``/works?query=``, first page only (at most 100 records)."""
    extra, native = filter_params(filters)
    params: dict[str, Any] = {
        "query": query,
        "rows": max(1, min(int(limit), MAX_ROWS)),
        "select": SELECT_FIELDS,
        **extra,
    }
    params.update(_identity(session.settings))
    response = await session.get(session.url(WORKS_PATH), params=params)
    records = parse_works(response.content)
    # Never more than asked, whatever the server sends.
    return ProviderAnswer(records[: params["rows"]], frozenset(native), skipped_notes(records))


async def get_work(session: ProviderSession, doi: str) -> Paper | None:
    """The Crossref record of one DOI; None when Crossref does not know it."""
    message = await _fetch_work(session, _require_doi(doi))
    if message is None:
        return None
    paper = parse_work(message)
    if paper is not None:
        paper.score = None  # see parse_single
    return paper


async def verify_doi(session: ProviderSession, doi: str, expected_title: str | None = None,
                     expected_year: int | None = None) -> dict[str, Any]:
    """Does ``doi`` exist at Crossref, and is it the paper the citation says it is?

    ``verified`` is True (exists and, when given, title and year agree), False (unknown DOI
    or a different paper) or None (not checkable here: a DataCite DOI, or no title to compare).
    """
    bare = normalize_doi(doi)
    if bare is None:
        return _verdict(doi, False, "not a DOI")
    if is_arxiv_doi(bare):
        return _verdict(bare, None, "arXiv DOI, registered with DataCite, not Crossref: not checked")
    message = await _fetch_work(session, bare)
    if message is None:
        return _absent(bare)
    return _compare(bare, message, expected_title, expected_year)


async def verify_dois(session: ProviderSession,
                      items: list[tuple[str, str | None, int | None]]) -> dict[str, dict[str, Any]]:
    """``verify_doi`` for many DOIs at once, keyed by the DOI as given.

    The session's pace policy keeps Crossref at its polite rate; a failed lookup gives
    ``verified: None`` with the reason instead of an exception.
    """
    return (await _verify_each(session, items)).verdicts


@dataclass
class DoiChecks:
    """Crossref's verdict on each DOI (keyed by the DOI as given), and the DOIs Crossref
    could not be asked about (unreachable, budget spent), whose verdict is None."""

    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    unreachable: set[str] = field(default_factory=set)


async def _verify_each(session: ProviderSession, items: list[tuple[str, str | None, int | None]]) -> DoiChecks:
    """One lookup per DOI, concurrently within Crossref's pace."""
    unique: dict[str, tuple[str | None, int | None]] = {}
    for doi, title, year in items:
        unique.setdefault(doi, (title, year))
    checks = DoiChecks()

    async def verify_one(doi: str, title: str | None, year: int | None) -> None:
        try:
            checks.verdicts[doi] = await verify_doi(session, doi, title, year)
        except ProviderError as error:
            checks.verdicts[doi] = _verdict(normalize_doi(doi) or doi, None, f"Crossref lookup failed: {error}")
            checks.unreachable.add(doi)

    await asyncio.gather(*(verify_one(doi, title, year) for doi, (title, year) in unique.items()))
    checks.verdicts = {doi: checks.verdicts[doi] for doi in unique}  # in the order given
    return checks


VERIFY_BATCH = 20  # DOIs per /works?filter=doi:… call; keeps the URL well under 4 KB
# updated-by / update-to: the retraction and correction notices come in the same call.
_VERIFY_SELECT = "DOI,title,subtitle,issued,published,published-print,published-online,update-to,updated-by"


async def verify_many(session: ProviderSession, items: list[tuple[str, str | None, int | None]]) -> DoiChecks:
    """Like ``verify_dois`` but batched, in one round: one ``filter=doi:a,doi:b,…`` call per 20
    DOIs, all at once, so a 20-row table costs one request. A DOI the batch does not return
    is not at Crossref (the filter reads the same index as ``/works/{doi}``): its verdict
    needs no second call (a DataCite prefix makes it "not checked"). arXiv DOIs are never
    sent; a DOI with a comma (it would split the filter) is looked up alone, in the same round."""
    wanted: dict[str, tuple[str | None, int | None]] = {}
    results: dict[str, dict[str, Any]] = {}
    for doi, title, year in items:
        bare = normalize_doi(doi)
        if bare is None:
            results[doi] = _verdict(doi, False, "not a DOI")
        elif is_arxiv_doi(bare):
            results[doi] = _verdict(bare, None, "arXiv DOI, registered with DataCite, not Crossref: not checked")
        else:
            wanted.setdefault(bare, (title, year))
    batchable = [doi for doi in wanted if "," not in doi]
    batches = [batchable[start:start + VERIFY_BATCH] for start in range(0, len(batchable), VERIFY_BATCH)]
    alone = [(doi, *wanted[doi]) for doi in wanted if "," in doi]
    answers = await asyncio.gather(*(_verify_batch(session, batch) for batch in batches),
                                   _verify_each(session, alone), return_exceptions=False)
    checks = answers[-1]
    # A notice among the answers names the DOI it updates (update-to): that paper gets it too.
    notices: dict[str, list[dict[str, Any]]] = {}
    for found in answers[:-1]:
        for item in found.values() if isinstance(found, dict) else []:
            for target, notice in notices_about(item):
                notices.setdefault(target, []).append(notice)
    for batch, found in zip(batches, answers[:-1]):
        for doi in batch:
            title, year = wanted[doi]
            if isinstance(found, ProviderError):
                checks.verdicts[doi] = _verdict(doi, None, f"Crossref lookup failed: {found}")
                checks.unreachable.add(doi)
            elif doi in found:
                checks.verdicts[doi] = _compare(doi, found[doi], title, year)
                updates = merged_updates(work_updates(found[doi])["updates"], notices.get(doi, []))
                checks.verdicts[doi].update(updates=updates, retracted=combined_retracted([False], updates))
            else:
                checks.verdicts[doi] = _absent(doi)
    results.update(checks.verdicts)
    return DoiChecks(results, checks.unreachable)


async def _verify_batch(session: ProviderSession, dois: list[str]) -> dict[str, dict[str, Any]] | ProviderError:
    """The works Crossref has among ``dois`` (one filter call), or the error that call met."""
    params = {"filter": ",".join(f"doi:{doi}" for doi in dois), "rows": str(len(dois)),
              "select": _VERIFY_SELECT, **_identity(session.settings)}
    try:
        response = await session.get(session.url(WORKS_PATH), params=params)
        message = message_of(response.content)
    except ProviderError as error:
        return error
    found = {}
    for item in (message.get("items") or []) if isinstance(message, dict) else []:
        doi = normalize_doi(item.get("DOI")) if isinstance(item, dict) else None
        if doi:
            found[doi] = item
    return found


def _absent(doi: str) -> dict[str, Any]:
    """The verdict on a DOI Crossref does not have."""
    if _doi_prefix(doi) in DATACITE_PREFIXES:
        return _verdict(doi, None, "DataCite DOI, not at Crossref: not checked")
    return _verdict(doi, False, "DOI not found at Crossref")


def title_similarity(expected: str | None, found: str | None) -> float:
    """0-100: token_sort_ratio of the folded titles; 0 when their lengths are too far apart."""
    a, b = fold_title(expected), fold_title(found)
    if not a or not b:
        return 0.0
    if min(len(a), len(b)) / max(len(a), len(b)) < MIN_TITLE_LENGTH_RATIO:
        return 0.0
    from rapidfuzz import fuzz  # only when a title is compared

    return round(fuzz.token_sort_ratio(a, b), 1)


def _compare(doi: str, message: dict[str, Any], expected_title: str | None,
             expected_year: int | None) -> dict[str, Any]:
    found_title = work_title(message)
    found_year = work_year(message)
    result = _verdict(doi, True, "DOI exists at Crossref", found_title, found_year)
    if expected_title and not found_title:
        result.update(verified=None, reason="Crossref has the DOI but no title to compare")
        return result
    agreed, problems = [], []
    if expected_title:
        similarity = max(title_similarity(expected_title, candidate) for candidate in _title_candidates(message))
        result["title_similarity"] = similarity
        if similarity >= TITLE_MATCH_THRESHOLD:
            agreed.append("title")
        else:
            problems.append(f"title differs (similarity {similarity:g} < {TITLE_MATCH_THRESHOLD}): "
                            f"expected {expected_title!r}, Crossref has {found_title!r}")
    if expected_year is not None and found_year is not None:
        if abs(expected_year - found_year) <= YEAR_TOLERANCE:
            agreed.append("year")
        else:
            problems.append(f"year differs: expected {expected_year}, Crossref has {found_year}")
    if problems:
        result.update(verified=False, reason="; ".join(problems))
    elif agreed:
        result["reason"] = " and ".join(agreed) + (" match" if len(agreed) > 1 else " matches")
    return result


def _title_candidates(message: dict[str, Any]) -> list[str]:
    """The title, and title plus subtitle: Crossref keeps subtitles in their own field,
    while citations usually join them with a colon."""
    title = work_title(message) or ""
    subtitle = first_text(message.get("subtitle"))
    return [title, f"{title}: {subtitle}"] if subtitle else [title]


def _verdict(doi: str, verified: bool | None, reason: str, crossref_title: str | None = None,
             crossref_year: int | None = None) -> dict[str, Any]:
    return {"doi": doi, "verified": verified, "reason": reason, "crossref_title": crossref_title,
            "crossref_year": crossref_year, "title_similarity": None}


async def _fetch_work(session: ProviderSession, doi: str) -> dict[str, Any] | None:
    """The ``message`` of ``/works/{doi}``, or None on Crossref's 404 ("Resource not found.")."""
    url = session.url(f"{WORKS_PATH}/{id_in_path(doi, keep='/')}")
    response = await session.get(url, params=_identity(session.settings), accept_status=frozenset({404}))
    if response.status == 404:
        return None
    message = message_of(response.content)
    if not isinstance(message, dict):
        raise ProviderError("unexpected response (not a work)")
    return message


def _identity(settings: Settings) -> dict[str, str]:
    return settings.identity(NAME)[0]  # mailto, as the declaration says


def _require_doi(doi: str) -> str:
    bare = normalize_doi(doi)
    if bare is None:
        raise ProviderError(f"not a DOI: {doi!r}", provider=NAME)
    return bare


def _doi_prefix(doi: str) -> str:
    return doi.split("/", 1)[0]


# ---------------------------------------------------------------- the provider

class Crossref(Provider):
    service = SERVICE
    combine = staticmethod(combine_queries)
    search_function = staticmethod(search)
    rank_for = {NOTICES: 0}  # the DOI's own notices (updated-by) first, then PubMed's

    async def notices(self, session: ProviderSession, paper: Paper) -> Paper | None:
        """Crossref's record of the paper's DOI: its ``updated-by`` retraction and correction
        notices (arXiv's DataCite DOIs are not at Crossref)."""
        if not paper.doi or is_arxiv_doi(paper.doi):
            return None
        return await get_work(session, paper.doi)

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        return await session.get(session.url(f"{WORKS_PATH}/{PROBE_DOI}"), params=_identity(session.settings),
                                 accept_status=PROBE_STATUSES, retries=0)


PROVIDER = Crossref()
