"""Europe PMC's /search answers, parsed (pure functions, fed the real recorded bodies in tests).

A page is ``{hitCount, nextCursorMark, nextPageUrl, request, resultList: {result: [...]}}``; each
result is ``lite`` (key metadata), ``core`` (also the abstract, the full author list, MeSH,
full-text links and comments/corrections) or ``idlist`` (ids only, so no record). Field names
and their nesting: ../shared/reference/apis-more.md §1 "Record fields" (Europe PMC Web Service
Reference Guide 6.9, checked against the recorded answers in ../shared/fixtures/europepmc/).

What a record says beyond PubMed's: preprints (source ``PPR``, with their server in
``bookOrReportDetails.publisher``) and the link between a preprint and its published version
(``commentCorrectionList``: "Preprint of" on the preprint, "Preprint in" on the article).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ..core.errors import ProviderError
from ..core.identifiers import (  # noqa: F401 (the version links' keys are part of this parser's surface)
    PREPRINT_ID,
    PREPRINT_OF_ARTICLE,
    PUBLISHED_PMCID,
    PUBLISHED_PMID,
    arxiv_id_from_doi,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)
from ..core.records import Paper
from ..core.text import plain_text
from ..core.updates import (
    PUBMED_RETRACTED_TYPE,
    RETRACTION,
    combined_retracted,
    doi_in_citation,
    europepmc_comment_type,
    update,
)
from ..core.urls import http_url
from ._common import (
    Parsed,
    api_error,
    as_count,
    as_date,
    as_dict,
    as_int,
    as_list,
    as_year,
    clean,
    json_object,
    parse_each,
)

NAME = "europepmc"
RECORD_URL = "https://europepmc.org/article/{source}/{id}"
FULL_TEXT_URL = "https://europepmc.org/articles/{pmcid}"
PREPRINT_SOURCE = "PPR"  # Europe PMC's source code for preprints (apis-more.md §1, SRC:)
MEDLINE_SOURCE = "MED"

# Keys this parser adds to ``external_ids`` beside doi/pmid/pmcid: Europe PMC's own key, and
# the preprint's id and the links to the other version in core/identifiers.py's vocabulary
# (PREPRINT_ID; PUBLISHED_PMID or PUBLISHED_PMCID on a preprint, PREPRINT_OF_ARTICLE on an
# article). None of them is a spelling of a known id kind, so none is ever taken for the
# record's own DOI or PMID: the version links name *another* record.
EUROPEPMC_ID = "europepmc"  # "SRC:id", Europe PMC's own key for every record (EXT_ID + SRC)

_PREPRINT_OF, _PREPRINT_IN = "preprint of", "preprint in"
# A withdrawn or removed preprint keeps its record with one of these publication types
# (versionList pubTypeList, EPMC-RG); Crossref's vocabulary counts both as retractions.
_WITHDRAWN_TYPES = {"preprint-withdrawal", "preprint-removal"}
# Free-to-read full-text links (EPMC-RG "Availability Codes"): open access, free, unrestricted.
# F2…F36 ("free after N months") may still be under embargo, S is subscription.
_FREE_CODES = {"OA", "F", "U"}
_STYLE_ORDER = {"pdf": 0, "html": 1, "doi": 2}
# Preprint servers by DOI prefix, for a preprint whose record does not name its server.
_SERVER_BY_DOI_PREFIX = {"10.21203": "Research Square", "10.20944": "Preprints.org", "10.2139": "SSRN",
                         "10.26434": "ChemRxiv", "10.48550": "arXiv"}
_HEADING = re.compile(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]\s*>", re.I | re.S)


@dataclass
class SearchPage:
    """One page of a /search answer: its records (ranked from ``first_rank``), the total hit
    count, the cursor of the next page (None at the end) and every result's ``(source, id)``
    in order (all an ``idlist`` answer carries)."""

    records: Parsed
    hit_count: int
    next_cursor: str | None
    ids: list[tuple[str, str]] = field(default_factory=list)
    size: int = 0  # results on this page, parsed or skipped


# ---------------------------------------------------------------- the page

def parse_search(body: bytes | str, first_rank: int = 1) -> SearchPage:
    """A /search JSON answer as a ``SearchPage``; ProviderError for XML (``format=json`` was
    not honoured), HTML, text, or JSON without a result list (an error payload)."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else str(body)
    if text.lstrip().startswith(("<?xml", "<responseWrapper")):
        raise ProviderError("unexpected response (XML, not the JSON asked for with format=json)")
    payload = json_object(text)
    result_list = payload.get("resultList")
    if not isinstance(result_list, dict):
        raise _error_of(payload)
    results = result_list.get("result")
    if results is None:
        results = []
    if not isinstance(results, list):
        raise ProviderError("unexpected response (resultList.result is not a list)")
    records = parse_each(results, lambda obj, position: parse_result(obj, rank=first_rank + position - 1))
    ids = [(source, ident) for obj in results if (source := clean(as_dict(obj).get("source")))
           and (ident := clean(as_dict(obj).get("id")))]
    hit_count = as_int(payload.get("hitCount"))
    return SearchPage(records, hit_count if hit_count is not None and hit_count >= 0 else len(results),
                      _next_cursor(payload, results), ids, len(results))


def _next_cursor(payload: dict[str, Any], results: list[Any]) -> str | None:
    """The cursorMark of the next page, or None at the end: "when both [nextCursorMark and
    nextPageUrl] are absent, you have reached the end" (EPMC-66, apis-more.md §1 "Paging").
    An empty page, or a cursor equal to the one asked with (the search index's own end
    marker), also ends it, so a paging loop cannot spin."""
    cursor = clean(payload.get("nextCursorMark"))
    if not cursor or not results:
        return None
    # The request echo carries the cursor URL-encoded ("%2A"); the API wants it decoded.
    asked = clean(as_dict(payload.get("request")).get("cursorMark"))
    return None if asked and unquote(asked) == unquote(cursor) else cursor


def _error_of(payload: dict[str, Any]) -> ProviderError:
    # No Europe PMC error body was ever recorded (fixtures/PROVENANCE.md); these are the
    # names its other services and clients use. Anything else is "unexpected".
    for name in ("errMsg", "errorMessage", "message", "error"):
        words = clean(payload.get(name))
        if words:
            return api_error(words)
    return ProviderError("unexpected response (no resultList)")


# ---------------------------------------------------------------- one record

def parse_result(obj: Any, rank: int | None = None) -> Paper | None:
    """One result (core or lite) as a ``Paper``; None for a null entry or one without a title
    (every ``idlist`` result)."""
    if not isinstance(obj, dict):
        return None
    title = plain_text(obj.get("title"))
    if not title:
        return None
    source = (clean(obj.get("source")) or "").upper()
    ident = clean(obj.get("id"))
    preprint = is_preprint(obj)
    types = publication_types(obj)
    if preprint and not any(kind.lower() == "preprint" for kind in types):
        types.append("preprint")
    doi = normalize_doi(clean(obj.get("doi")))
    pmid = _pmid(obj.get("pmid"))
    pmcid = _pmcid(obj, source, ident)
    journal = _venue(obj, preprint, doi)
    updates = notices(obj)
    withdrawn, withdrawn_on = _withdrawal(obj, types)
    if withdrawn:
        updates.append(update(RETRACTION, None, withdrawn_on, NAME))
    year = _year(obj)
    return Paper(
        provider=NAME,
        title=title,
        authors=author_names(obj),
        year=year,
        publication_date=_publication_date(obj, source, year),
        journal=journal,
        doi=doi,
        pmid=pmid,
        arxiv_id=arxiv_id_from_doi(doi),
        abstract=abstract_text(obj.get("abstractText")),
        citation_count=as_count(obj.get("citedByCount")),
        oa_url=open_access_url(obj, pmcid),
        publication_types=types,
        external_ids=_external_ids(obj, source, ident, doi, pmid, pmcid, preprint),
        volume=clean(as_dict(obj.get("journalInfo")).get("volume")) or clean(obj.get("journalVolume")),
        issue=clean(as_dict(obj.get("journalInfo")).get("issue")) or clean(obj.get("issue")),
        pages=clean(obj.get("pageInfo")),
        url=RECORD_URL.format(source=source, id=ident) if source and ident and re.fullmatch(r"[\w.-]+", ident)
        else None,
        rank=rank,
        retracted=_retracted(source, types, updates),
        updates=updates,
    )


def is_preprint(obj: dict[str, Any]) -> bool:
    """Source ``PPR``, or a publication type that says preprint."""
    if (clean(obj.get("source")) or "").upper() == PREPRINT_SOURCE:
        return True
    return any(kind.lower() == "preprint" for kind in publication_types(obj))


def publication_types(obj: dict[str, Any]) -> list[str]:
    """``pubTypeList.pubType`` (core) or the "; "-joined ``pubType`` (lite), as given."""
    listed = as_list(as_dict(obj.get("pubTypeList")).get("pubType"))
    if not listed and isinstance(obj.get("pubType"), str):
        listed = obj["pubType"].split(";")
    return list(dict.fromkeys(kind for value in listed if (kind := clean(value))))


def author_names(obj: dict[str, Any]) -> list[str]:
    """"Given Family" from ``authorList`` (core; the full list, groups by ``collectiveName``),
    else the names of the comma-separated ``authorString`` as given ("Smith JA")."""
    names = []
    for author in as_list(as_dict(obj.get("authorList")).get("author")):
        author = as_dict(author)
        person = " ".join(part for part in (clean(author.get("firstName")), clean(author.get("lastName"))) if part)
        name = clean(author.get("collectiveName")) or person or clean(author.get("fullName"))
        if name:
            names.append(name)
    if names:
        return names
    listed = clean(obj.get("authorString")) or ""
    return [name for part in listed.rstrip(".").split(",") if (name := clean(part))]


def abstract_text(value: Any) -> str | None:
    """Plain text of ``abstractText``: its HTML section headings (``<h4>Methods</h4>``) become
    "Methods: ", inline markup (``<i>``, ``<sub>``) goes."""
    if not isinstance(value, str) or not value.strip():
        return None

    def heading(match: re.Match[str]) -> str:
        words = (plain_text(match.group(1)) or "").rstrip(" :.")
        return " " if words.lower() in ("", "abstract") else f" {words}: "

    return plain_text(_HEADING.sub(heading, value))


def mesh_terms(obj: dict[str, Any]) -> list[str]:
    """MeSH descriptors of a core record, a major topic marked ``*`` and each qualifier as
    ``Descriptor/qualifier`` (PubMed's display). ``Paper`` has no field for subject terms yet,
    so the provider does not pass them on (see docs/europepmc.md)."""
    terms = []
    for heading in as_list(as_dict(obj.get("meshHeadingList")).get("meshHeading")):
        heading = as_dict(heading)
        name = clean(heading.get("descriptorName"))
        if not name:
            continue
        major = "*" if heading.get("majorTopic_YN") == "Y" else ""
        qualifiers = [as_dict(q) for q in as_list(as_dict(heading.get("meshQualifierList")).get("meshQualifier"))]
        terms.append(f"{name}{major}")
        terms += [f"{name}/{word}{'*' if q.get('majorTopic_YN') == 'Y' else ''}"
                  for q in qualifiers if (word := clean(q.get("qualifierName")))]
    return terms


def notices(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Retraction, erratum and concern notices about this record from ``commentCorrectionList``."""
    found = []
    for item in _comment_corrections(obj):
        kind = europepmc_comment_type(clean(item.get("type")))  # core/updates.py: the one vocabulary
        if kind:
            source = (clean(item.get("source")) or "").upper()
            found.append(update(kind, doi_in_citation(clean(item.get("reference"))), None, NAME,
                                notice_pmid=normalize_pmid(clean(item.get("id"))) if source == MEDLINE_SOURCE else None))
    return found


def version_links(obj: dict[str, Any]) -> dict[str, str]:
    """The other version of this paper that Europe PMC links (apis-more.md §1 "Preprint →
    published version"): on a preprint, "Preprint of" names the article (``published_pmid``
    for a MEDLINE record, ``published_pmcid`` for a PMC one); on an article, "Preprint in"
    names the preprint (``preprint_ppr``). Europe PMC makes some of these links by a title
    and first-author match; the dedupe engine still compares the two records."""
    links: dict[str, str] = {}
    for item in _comment_corrections(obj):
        kind = (clean(item.get("type")) or "").lower()
        source = (clean(item.get("source")) or "").upper()
        ident = clean(item.get("id")) or ""
        if kind == _PREPRINT_OF and source == MEDLINE_SOURCE and (pmid := _pmid(ident)):
            links.setdefault(PUBLISHED_PMID, pmid)
        elif kind == _PREPRINT_OF and source == "PMC" and re.fullmatch(r"(?i)PMC\d+", ident):
            links.setdefault(PUBLISHED_PMCID, ident.upper())
        elif kind == _PREPRINT_IN and source == PREPRINT_SOURCE and re.fullmatch(r"(?i)PPR\d+", ident):
            links.setdefault(PREPRINT_OF_ARTICLE, ident.upper())
    return links


def open_access_url(obj: dict[str, Any], pmcid: str | None = None) -> str | None:
    """A free full text: the best free link of ``fullTextUrlList`` (a PDF before HTML before a
    DOI landing page); else, for an open-access record with a PMCID, its Europe PMC page."""
    links = []
    for entry in as_list(as_dict(obj.get("fullTextUrlList")).get("fullTextUrl")):
        entry = as_dict(entry)
        url = http_url(entry.get("url"))
        if url and clean(entry.get("availabilityCode")) in _FREE_CODES:
            links.append((_STYLE_ORDER.get(clean(entry.get("documentStyle")) or "", 3), url))
    if links:
        return min(links, key=lambda link: link[0])[1]
    if clean(obj.get("isOpenAccess")) == "Y" and pmcid:
        return FULL_TEXT_URL.format(pmcid=pmcid)
    return None


# ---------------------------------------------------------------- small helpers

def _comment_corrections(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [as_dict(item) for item in as_list(as_dict(obj.get("commentCorrectionList")).get("commentCorrection"))]


def _venue(obj: dict[str, Any], preprint: bool, doi: str | None) -> str | None:
    """The journal; for a preprint its server, marked: "bioRxiv (preprint)"; for a book
    chapter (GeneReviews and other NCBI Bookshelf records) the book."""
    details = as_dict(obj.get("bookOrReportDetails"))
    if preprint:
        server = clean(details.get("publisher")) or _SERVER_BY_DOI_PREFIX.get((doi or "").split("/", 1)[0])
        return f"{server} (preprint)" if server else "Preprint"
    journal = as_dict(as_dict(obj.get("journalInfo")).get("journal"))
    return (clean(journal.get("title")) or clean(journal.get("isoabbreviation"))
            or clean(journal.get("medlineAbbreviation")) or clean(obj.get("journalTitle"))
            or clean(details.get("comprisingTitle")))


def _pmcid(obj: dict[str, Any], source: str, ident: str | None) -> str | None:
    raw = clean(obj.get("pmcid")) or (ident if source == "PMC" else None)
    return normalize_pmcid(raw) if raw and re.fullmatch(r"(?i)(PMC)?\d+", raw) else None


def _year(obj: dict[str, Any]) -> int | None:
    return (as_year(clean(obj.get("pubYear"))) or as_year(as_dict(obj.get("journalInfo")).get("yearOfPublication"))
            or as_year(as_dict(obj.get("bookOrReportDetails")).get("yearOfPublication"))
            or as_year((clean(obj.get("firstPublicationDate")) or "")[:4]))


def _publication_date(obj: dict[str, Any], source: str, year: int | None) -> str | None:
    """A real day of publication, or None.

    A preprint's ``firstPublicationDate`` is the day it was posted. For articles Europe PMC
    fills a missing day with 01 ("2025 Dec" becomes ``printPublicationDate`` 2025-12-01), so a
    print date counts only when ``dateOfPublication`` names the day; else the online date of
    the citation year (as the PubMed parser does)."""
    if source == PREPRINT_SOURCE:
        return as_date(clean(obj.get("firstPublicationDate")))
    journal_info = as_dict(obj.get("journalInfo"))
    printed = as_date(clean(journal_info.get("printPublicationDate")))
    if printed and re.fullmatch(r"\d{4} \w+ \d{1,2}", clean(journal_info.get("dateOfPublication")) or ""):
        return printed
    online = as_date(clean(obj.get("electronicPublicationDate")))
    return online if online and len(online) == 10 and (year is None or online.startswith(str(year))) else None


def _pmid(value: Any) -> str | None:
    text = clean(value)
    return normalize_pmid(text) if text and re.fullmatch(r"\d{1,9}", text) else None


def _withdrawal(obj: dict[str, Any], types: list[str]) -> tuple[bool, str | None]:
    """(withdrawn or removed, the day of the withdrawal version when the record gives it)."""
    if any(kind.lower() in _WITHDRAWN_TYPES for kind in types):
        return True, None
    for version in as_list(as_dict(obj.get("versionList")).get("version")):
        version = as_dict(version)
        if {kind.lower() for kind in publication_types(version)} & _WITHDRAWN_TYPES:
            return True, as_date(clean(version.get("firstPublishDate")))
    return False, None


def _retracted(source: str, types: list[str], updates: list[dict[str, Any]]) -> bool | None:
    """True on a retraction notice or MEDLINE's "Retracted Publication" type; False for a
    MEDLINE record without them (MEDLINE marks every retracted article); else unknown."""
    if any(kind.lower() == PUBMED_RETRACTED_TYPE.lower() for kind in types):
        return True
    return combined_retracted([False] if source == MEDLINE_SOURCE else [], updates)


def _external_ids(obj: dict[str, Any], source: str, ident: str | None, doi: str | None, pmid: str | None,
                  pmcid: str | None, preprint: bool) -> dict[str, str]:
    ids: dict[str, str] = {}
    if doi:
        ids["doi"] = doi
    if pmid:
        ids["pmid"] = pmid
    if pmcid:
        ids["pmcid"] = pmcid
    if source and ident:
        ids[EUROPEPMC_ID] = f"{source}:{ident}"
    if preprint and source == PREPRINT_SOURCE and ident and re.fullmatch(r"(?i)PPR\d+", ident):
        ids[PREPRINT_ID] = ident.upper()
    ids.update(version_links(obj))
    return ids
