"""PubMed through NCBI E-utilities: esearch for the ids (relevance order), then one efetch
for the records. efetch's XML carries everything esummary would (title, authors, journal,
dates, DOI, PMCID, publication types) plus the abstract, so a search costs two paced
requests. The answers are parsed in pubmed_parse.py.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..core.filters import Filters
from ..core.records import Paper
from ..net.http import FetchedResponse, ProviderSession
from ._boolean import balanced, join_tokens, without_dangling
from ._common import skipped_notes
from .base import PROBE_STATUSES, Provider, ProviderAnswer
from .pubmed_declaration import SERVICE
from .pubmed_parse import (  # noqa: F401 (the parsers are part of this provider's surface)
    NAME,
    PUBMED_URL,
    parse_efetch,
    parse_esearch,
    parse_esearch_page,
    records_in_order,
)

TOOL = "lit-search"
MAX_RESULTS = 100
# NCBI asks for POST once an id list gets long (the URL would pass server limits).
POST_THRESHOLD = 200

_OPERATORS = {"AND", "OR", "NOT"}
# arXiv's ANDNOT means the same as PubMed's NOT.
_OPERATOR_ALIASES = {"ANDNOT": "NOT"}


# ---------------------------------------------------------------- query syntax

def combine_queries(variants: Iterable[str]) -> str:
    """One PubMed term matching any variant: ``(v1) OR (v2)``.

    Each variant keeps its parentheses when they balance and loses them all when they
    do not; quotes and brackets likewise. Only upper-case AND/OR/NOT act as operators
    in PubMed, so those are kept (dangling ones dropped) and every other word is a term.
    """
    cleaned: list[str] = []
    for variant in variants:
        text = _clean_variant(variant)
        if text and text not in cleaned:
            cleaned.append(text)
    if len(cleaned) == 1:
        return cleaned[0]
    return " OR ".join(f"({text})" for text in cleaned)


def _clean_variant(variant: str) -> str:
    text = " ".join(str(variant or "").split())
    if not balanced(text, "(", ")"):
        text = text.replace("(", " ").replace(")", " ")
    if not balanced(text, "[", "]"):
        text = text.replace("[", " ").replace("]", " ")
    if text.count('"') % 2:
        text = text.replace('"', " ")
    # Space out parentheses so operators next to them are seen as words.
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    return join_tokens(_drop_dangling_operators(tokens))


def _drop_dangling_operators(tokens: list[str]) -> list[str]:
    """Remove operators with no term on one side (``AND x``, ``x OR OR y``, ``(AND x)``) and ``()``."""
    return without_dangling([_OPERATOR_ALIASES.get(token, token) for token in tokens], _OPERATORS, _dangling)


def _dangling(token: str, before: str | None, after: str | None) -> bool:
    return before is None or before == "(" or before in _OPERATORS or after is None or after == ")"


# ---------------------------------------------------------------- HTTP flow

_PUBMED_TYPES = {"article": "journal article[pt]", "review": "review[pt]", "preprint": "preprint[pt]",
                 "conference": "congress[pt]"}


def _tag_value(text: str) -> str:
    """A user's name or venue as a quoted PubMed term (quotes and brackets would break it)."""
    return '"' + re.sub(r'["\[\]()]', " ", text).strip() + '"'


def author_term(name: str) -> str:
    """A name as PubMed's author search reads it. Quotes switch off its name expansion
    ("Smith"[au] matches only authors indexed as plain "Smith"), so a surname goes bare
    (``Smith[au]`` finds Smith J, Smith JA …) and "Given Family" becomes ``Family GI[au]``;
    only a longer name (particles, compound surnames) is quoted whole."""
    words = re.sub(r'["\[\]()]', " ", name).replace(",", " ").split()
    if not words:
        return ""
    if len(words) == 1:
        return f"{words[0]}[au]"
    if "," in name and len(words) == 2:  # "Hinton, Geoffrey"
        family, given = words
        return f"{family} {given[0].upper()}[au]"
    if len(words) == 2:
        given, family = words
        initials = given.replace(".", "")
        initials = initials if initials.isupper() and len(initials) <= 3 else given[0].upper()
        return f"{family} {initials}[au]"
    return f'"{" ".join(words)}"[au]'


def filter_terms(filters: Filters | None) -> tuple[str, dict[str, str], set[str]]:
    """Extra ``term`` clauses, extra parameters, and which filters they cover.
    Citation counts are the one filter PubMed cannot apply."""
    clauses: list[str] = []
    params: dict[str, str] = {}
    native: set[str] = set()
    if not filters:
        return "", params, native
    if filters.date_from or filters.date_to:
        # Publication date range; both ends are required by E-utilities.
        params["datetype"] = "pdat"
        params["mindate"] = (filters.date_from.strftime("%Y/%m/%d") if filters.date_from else "1800/01/01")
        params["maxdate"] = (filters.date_to.strftime("%Y/%m/%d") if filters.date_to else "3000/12/31")
        native.add("date")
    if filters.author:
        clauses.append(author_term(filters.author))
        native.add("author")
    if filters.venue:
        clauses.append(f"{_tag_value(filters.venue)}[journal]")
        native.add("venue")
    if filters.open_access:
        clauses.append("free full text[sb]")
        native.add("open_access")
    if filters.types:
        clauses.append("(" + " OR ".join(_PUBMED_TYPES[t] for t in filters.types) + ")")
        native.add("type")
    excluded = ""
    if filters.preprints is not None:  # --preprints / --no-preprints: PubMed's preprint[pt]
        if filters.preprints:
            clauses.append(_PUBMED_TYPES["preprint"])
        else:
            excluded = f" NOT {_PUBMED_TYPES['preprint']}"
        native.add("preprints")
    return "".join(f" AND {clause}" for clause in clauses) + excluded, params, native


async def search(session: ProviderSession, query: str, limit: int, filters: Filters | None = None) -> ProviderAnswer:
    """Up to ``limit`` (at most 100) PubMed records for ``query``, in relevance order."""
    term = " ".join(str(query or "").split())
    retmax = min(int(limit), MAX_RESULTS)
    extra_terms, extra_params, native = filter_terms(filters)
    if not term or retmax < 1:
        return ProviderAnswer([], frozenset(native))
    if extra_terms:
        term = f"({term}){extra_terms}"
    params = {"db": "pubmed", "term": term, "retmode": "json", "retmax": str(retmax),
              "sort": "relevance", **extra_params, **_identity(session)}
    response = await session.get(session.url("/esearch.fcgi"), params=params)
    pmids = parse_esearch(response.text)[:retmax]
    if not pmids:
        return ProviderAnswer([], frozenset(native))
    records, notes = await fetch_records(session, pmids)
    return ProviderAnswer(records, frozenset(native), notes)


async def fetch_records(session: ProviderSession, pmids: list[str]) -> tuple[list[Paper], list[str]]:
    """(records for known PMIDs in the given order, notes): one efetch call, whose XML holds
    the whole record (no esummary round trip)."""
    response = await _request_ids(session, "/efetch.fcgi", pmids, {"rettype": "abstract", "retmode": "xml"})
    records = records_in_order(pmids, parse_efetch(response.content))
    return records, skipped_notes(records)


async def fetch_notice_records(session: ProviderSession, pmids: list[str]) -> dict[str, Paper]:
    """PubMed's record of each PMID it knows (by PMID), for what it says about the paper:
    "Retracted Publication" and the CommentsCorrections notices. One efetch for all of them
    (POST past 200 ids), paced like every NCBI call (3/s, 10/s with a key: NCBI KA-05510)."""
    wanted = list(dict.fromkeys(pmids))
    if not wanted:
        return {}
    response = await _request_ids(session, "/efetch.fcgi", wanted, {"rettype": "abstract", "retmode": "xml"})
    return dict(parse_efetch(response.content))


async def _request_ids(session: ProviderSession, path: str, pmids: list[str], extra: dict[str, str]):
    url = session.url(path)
    params = {"db": "pubmed", "id": ",".join(pmids), **extra, **_identity(session)}
    if len(pmids) > POST_THRESHOLD:
        return await session.post(url, data=params)
    return await session.get(url, params=params)


def _identity(session: ProviderSession) -> dict[str, str]:
    """tool, email and key, which NCBI asks for on every call (the key raises the rate limit)."""
    return {"tool": TOOL, **session.identity_params()}


# ---------------------------------------------------------------- the provider

class PubMed(Provider):
    service = SERVICE
    combine = staticmethod(combine_queries)
    search_function = staticmethod(search)

    async def notices(self, session: ProviderSession, paper: Paper) -> Paper | None:
        """PubMed's record of the paper's PMID: "Retracted Publication" and CommentsCorrections,
        which OpenAlex and Crossref can lack (MEDLINE marks every retracted article)."""
        if not paper.pmid:
            return None
        return (await fetch_notice_records(session, [paper.pmid])).get(paper.pmid)

    async def probe(self, session: ProviderSession) -> FetchedResponse:
        params = {"db": "pubmed", "term": "crispr", "retmax": "0", "retmode": "json", **_identity(session)}
        return await session.get(session.url("/esearch.fcgi"), params=params,
                                 accept_status=PROBE_STATUSES, retries=0)


PROVIDER = PubMed()
