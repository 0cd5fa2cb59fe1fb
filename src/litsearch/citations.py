"""One paper's merged record, its references and the papers that cite it.

Semantic Scholar answers first: ``/paper/{id}`` for the record, ``/paper/{id}/references``
and ``/paper/{id}/citations`` for the lists. OpenAlex is asked for the same record in
parallel; its ``referenced_works`` (resolved with one ``openalex_id:`` OR-filter call per 50
ids) and its ``cites:`` filter are the fallback when Semantic Scholar fails, does not know
the paper, or lists nothing. A provider failure becomes a note. Only a paper that no
provider could find (or no provider could be asked about) is an error: ``PaperNotFound``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, TypeVar
from urllib.parse import quote

from .http import HttpClient, ProviderError, ProviderSession
from .identifiers import (
    arxiv_id_from_doi,
    is_arxiv_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    split_arxiv_id,
)
from .merge import find_clusters, merge_cluster
from .providers import openalex, semantic_scholar
from .providers.openalex import SELECT_FIELDS, WORKS_PATH, _identity_params, parse_works
from .providers.semantic_scholar import PAPER_PATH, SEARCH_FIELDS, _auth_headers, parse_paper
from .records import Paper
from .text import fold_title

log = logging.getLogger("litsearch")

S2 = semantic_scholar.NAME
OPENALEX = openalex.NAME
PROVIDER_LABELS = {S2: "Semantic Scholar", OPENALEX: "OpenAlex"}

# Fields of each paper in a /references or /citations page (paperId always comes along).
S2_LIST_FIELDS = "title,year,authors,externalIds,citationCount,venue"
# One page per list: enough to pick the most cited few, and every S2 request costs a
# second at its pace whatever the page size (the API allows up to 1,000).
S2_LIST_LIMIT = 100
# referenceCount gives the true total when the list is longer than one page.
S2_RECORD_FIELDS = SEARCH_FIELDS + ",referenceCount"

# OpenAlex OR-filters take at most 50 values, so 50 ids per list call.
OPENALEX_ID_BATCH = 50
OPENALEX_CITING_PER_PAGE = 50
# A long review lists hundreds of works; 200 ids (4 list calls) cover nearly every paper
# while keeping one lookup cheap. The true total is still reported.
OPENALEX_MAX_REFERENCES = 200
# relevance_score exists only with a search; referenced_works is what the fallback needs.
OPENALEX_WORK_SELECT = ",".join(
    [name for name in SELECT_FIELDS.split(",") if name != "relevance_score"]
    + ["referenced_works", "referenced_works_count"])
# List entries skip the abstract: the tables never show it and it is most of the bytes.
OPENALEX_LIST_SELECT = ",".join(
    name for name in SELECT_FIELDS.split(",") if name not in ("relevance_score", "abstract_inverted_index"))

NOT_FOUND = frozenset({404})
MAX_ID_CHARS = 300


class UnknownIdError(ValueError):
    """The text is not a paper id this tool understands (a usage error, exit 2)."""


class PaperNotFound(Exception):
    """No provider found the paper, or none could be asked (exit 3); the message says which."""


# --------------------------------------------------------------------------- paper ids

@dataclass(frozen=True)
class PaperRef:
    """A paper id the user gave, classified and normalized.

    ``kind`` is doi, pmid, arxiv, s2 (40-hex paperId), corpusid or openalex; ``value`` is
    the bare normalized id (lower-case DOI, digits, versionless arXiv id, W…).
    """

    kind: str
    value: str

    @property
    def label(self) -> str:
        names = {"doi": "DOI", "pmid": "PMID", "arxiv": "arXiv", "s2": "Semantic Scholar id",
                 "corpusid": "CorpusId", "openalex": "OpenAlex id"}
        return f"{names[self.kind]} {self.value}"

    @property
    def s2_id(self) -> str | None:
        """The id in /paper/{id} form, or None when S2 cannot look this kind up (OpenAlex W…)."""
        return {"doi": f"DOI:{self.value}", "pmid": f"PMID:{self.value}", "arxiv": f"ARXIV:{self.value}",
                "s2": self.value, "corpusid": f"CorpusId:{self.value}"}.get(self.kind)

    @property
    def openalex_id(self) -> str | None:
        """The id in /works/{id} form, or None for S2-only ids. OpenAlex has no arXiv id
        field, but it files every arXiv paper under arXiv's DataCite DOI."""
        return {"doi": f"doi:{self.value}", "pmid": f"pmid:{self.value}",
                "arxiv": f"doi:10.48550/arxiv.{self.value}", "openalex": self.value}.get(self.kind)


_PREFIXED = re.compile(r"^(doi|pmid|arxiv|corpusid)\s*:\s*(\S.*)$", re.I)
_DOI_URL = re.compile(r"^(?:https?://)?(?:dx\.)?doi\.org/", re.I)
_ARXIV_URL = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.I)
_PUBMED_URL = re.compile(
    r"^(?:https?://)?(?:pubmed\.ncbi\.nlm\.nih\.gov|(?:www\.)?ncbi\.nlm\.nih\.gov/pubmed)/(\d{1,9})/?(?:[?#].*)?$",
    re.I)
_S2_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?semanticscholar\.org/paper/(?:[^/?#]+/)?([0-9a-f]{40})/?(?:[?#].*)?$", re.I)
_OPENALEX_ID = re.compile(r"^(?:(?:https?://)?(?:api\.)?openalex\.org/(?:works/)?)?(W\d{2,12})/?$", re.I)
_SHA = re.compile(r"^[0-9a-f]{40}$", re.I)
_PMID = re.compile(r"^\d{1,9}$")
_CORPUS_ID = re.compile(r"^\d{1,12}$")

ID_HELP = ("a DOI (10.…, doi:…, https://doi.org/…), a PMID (digits, PMID:…), an arXiv id (2101.00001, "
           "arXiv:…, arxiv.org URL), a Semantic Scholar id (40 hex characters, CorpusId:…) "
           "or an OpenAlex id (W…)")


def parse_paper_ref(text: str) -> PaperRef:
    """Classify a paper id in any of its usual spellings; ``UnknownIdError`` when it is none.

    A bare number is a PMID (Semantic Scholar corpus ids need their ``CorpusId:`` prefix),
    and arXiv's own DOIs (10.48550/arXiv.…) count as arXiv ids.
    """
    raw = " ".join(str(text or "").split())
    if not raw:
        raise UnknownIdError("the paper id is empty")
    if len(raw) > MAX_ID_CHARS:
        raise UnknownIdError(f"the paper id is {len(raw):,} characters long; ids are at most {MAX_ID_CHARS}")
    ref = _prefixed_ref(raw) or _url_ref(raw) or _bare_ref(raw)
    if ref is None:
        raise UnknownIdError(f"unrecognised paper id {raw!r}: use {ID_HELP}")
    arxiv_id = arxiv_id_from_doi(ref.value) if ref.kind == "doi" else None
    return PaperRef("arxiv", arxiv_id) if arxiv_id else ref


def _prefixed_ref(raw: str) -> PaperRef | None:
    match = _PREFIXED.match(raw)
    if not match:
        return None
    kind, rest = match.group(1).lower(), match.group(2).strip()
    value = {
        "doi": lambda: normalize_doi(rest),
        "pmid": lambda: rest if _PMID.match(rest) else None,
        "arxiv": lambda: normalize_arxiv_id(rest),
        "corpusid": lambda: rest if _CORPUS_ID.match(rest) else None,
    }[kind]()
    if value is None:
        raise UnknownIdError(f"{raw!r} is not a valid {match.group(1)} id: use {ID_HELP}")
    return PaperRef(kind, str(int(value)) if kind in ("pmid", "corpusid") else value)


def _url_ref(raw: str) -> PaperRef | None:
    if _DOI_URL.match(raw):
        doi = normalize_doi(raw)
        return PaperRef("doi", doi) if doi else None
    if _ARXIV_URL.match(raw):
        arxiv_id = normalize_arxiv_id(raw)
        return PaperRef("arxiv", arxiv_id) if arxiv_id else None
    if match := _PUBMED_URL.match(raw):
        return PaperRef("pmid", str(int(match.group(1))))
    if match := _S2_URL.match(raw):
        return PaperRef("s2", match.group(1).lower())
    if match := _OPENALEX_ID.match(raw):
        return PaperRef("openalex", match.group(1).upper())
    return None


def _bare_ref(raw: str) -> PaperRef | None:
    if _SHA.match(raw):
        return PaperRef("s2", raw.lower())
    if _PMID.match(raw):
        return PaperRef("pmid", str(int(raw)))
    doi = normalize_doi(raw)
    if doi:
        return PaperRef("doi", doi)
    arxiv_id, _version = split_arxiv_id(raw)
    return PaperRef("arxiv", arxiv_id) if arxiv_id else None


def s2_ids_of(paper: Paper) -> list[str]:
    """The ids /paper/{id} accepts for a known paper, most specific first."""
    ids = [paper.paper_id if paper.paper_id and _SHA.match(paper.paper_id) else None,
           # arXiv's own DOIs are better asked as ARXIV: (S2 files preprints under the arXiv id)
           f"DOI:{paper.doi}" if paper.doi and not is_arxiv_doi(paper.doi) else None,
           f"ARXIV:{paper.arxiv_id}" if paper.arxiv_id else None,
           f"PMID:{paper.pmid}" if paper.pmid else None]
    return [i for i in ids if i]


def openalex_ids_of(paper: Paper) -> list[str]:
    """The ids /works/{id} accepts for a known paper, most specific first."""
    ids = [paper.openalex_id,
           f"doi:{paper.doi}" if paper.doi else None,
           f"pmid:{paper.pmid}" if paper.pmid else None,
           f"doi:10.48550/arxiv.{paper.arxiv_id}" if paper.arxiv_id else None]
    return list(dict.fromkeys(i for i in ids if i))


# --------------------------------------------------------------------------- parsing (pure)

def parse_s2_references(body: bytes | str) -> list[Paper]:
    """The papers of a /paper/{id}/references page (``data[].citedPaper``), ranked by position."""
    return _parse_s2_links(body, "citedPaper")


def parse_s2_citations(body: bytes | str) -> list[Paper]:
    """The papers of a /paper/{id}/citations page (``data[].citingPaper``), ranked by position."""
    return _parse_s2_links(body, "citingPaper")


def _parse_s2_links(body: bytes | str, side: str) -> list[Paper]:
    payload = _s2_json_object(body)
    entries = payload.get("data")
    if entries is None:  # a paper with nothing listed may come back without "data"
        return []
    if not isinstance(entries, list):
        raise ProviderError("unexpected response ('data' is not a list)")
    papers = (parse_paper(entry.get(side) if isinstance(entry, dict) else None, rank=position)
              for position, entry in enumerate(entries, start=1))
    return [paper for paper in papers if paper is not None]


def parse_s2_record(body: bytes | str) -> tuple[Paper, int | None]:
    """One /paper/{id} answer: the record and its ``referenceCount`` (None when absent)."""
    payload = _s2_json_object(body)
    paper = parse_paper(payload)
    if paper is None:
        raise ProviderError("unexpected response (a paper without a title)")
    return paper, _count(payload.get("referenceCount"))


def _s2_json_object(body: bytes | str) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, TypeError):
        raise ProviderError("unexpected response (not JSON)") from None
    if not isinstance(payload, dict):
        raise ProviderError("unexpected response (JSON is not an object)")
    if "error" in payload and "data" not in payload and "title" not in payload:
        message = " ".join(str(payload.get("error")).split())[:160]
        raise ProviderError(f"API error: {message}")
    return payload


@dataclass
class OpenAlexWork:
    """One OpenAlex work: the record, the W-ids it cites and how many it cites in total."""

    paper: Paper
    referenced_ids: list[str]
    referenced_count: int | None = None


def parse_openalex_work(body: bytes | str) -> OpenAlexWork:
    """One /works/{id} answer with its ``referenced_works``."""
    papers = parse_works(body)  # rejects HTML pages, error payloads and non-JSON
    if not papers:
        raise ProviderError("unexpected response (a work without a title)")
    payload = json.loads(body)
    referenced = referenced_work_ids(payload)
    total = _count(payload.get("referenced_works_count"))
    return OpenAlexWork(papers[0], referenced, total if total is not None else len(referenced))


def referenced_work_ids(work: Any) -> list[str]:
    """The bare W-ids of a work's ``referenced_works`` (given as URLs), in order, once each."""
    values = work.get("referenced_works") if isinstance(work, dict) else None
    ids = (normalize_openalex_id(value) for value in values or [] if isinstance(value, str))
    return list(dict.fromkeys(work_id for work_id in ids if work_id))


def openalex_id_batches(ids: list[str], size: int = OPENALEX_ID_BATCH) -> list[list[str]]:
    """The ids in consecutive groups of at most ``size`` (one OR-filter call each)."""
    return [ids[start:start + size] for start in range(0, len(ids), size)]


def merge_duplicates(papers: list[Paper]) -> list[Paper]:
    """One record per paper: a list can hold one paper twice (preprint and journal version)."""
    merged = []
    for cluster in find_clusters(papers):
        members = [papers[i] for i in cluster.members]
        merged.append(members[0] if len(members) == 1 else merge_cluster(members))
    return merged


def rank_by_citations(papers: list[Paper]) -> list[Paper]:
    """Most cited first; papers without a count last; then newer, then by title (stable order)."""
    return sorted(papers, key=lambda p: (p.citation_count is None, -(p.citation_count or 0),
                                         -(p.year or 0), fold_title(p.title)))


def _count(value: Any) -> int | None:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- HTTP flow

async def fetch_s2_record(session: ProviderSession, s2_id: str) -> tuple[Paper, int | None] | None:
    """The S2 record and its reference count; None when S2 does not know the paper."""
    response = await session.get(_s2_url(session, s2_id), params={"fields": S2_RECORD_FIELDS},
                                 headers=_auth_headers(session), accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    return parse_s2_record(response.content)


async def fetch_s2_references(session: ProviderSession, s2_id: str) -> list[Paper] | None:
    """The first page of the paper's references; None when S2 does not know the paper."""
    body = await _s2_list(session, s2_id, "references")
    return parse_s2_references(body) if body is not None else None


async def fetch_s2_citations(session: ProviderSession, s2_id: str) -> list[Paper] | None:
    """The first page of the papers citing it; None when S2 does not know the paper."""
    body = await _s2_list(session, s2_id, "citations")
    return parse_s2_citations(body) if body is not None else None


async def _s2_list(session: ProviderSession, s2_id: str, direction: str) -> bytes | None:
    params = {"fields": S2_LIST_FIELDS, "limit": S2_LIST_LIMIT, "offset": 0}
    response = await session.get(_s2_url(session, s2_id, "/" + direction), params=params,
                                 headers=_auth_headers(session), accept_status=NOT_FOUND)
    return None if response.status == 404 else response.content


def _s2_url(session: ProviderSession, s2_id: str, suffix: str = "") -> str:
    # "/" and ":" stay (S2 expects DOI:10.1/x); "?", "#" and spaces would end the path early.
    return session.http.settings.url(S2, PAPER_PATH + quote(s2_id, safe="/:") + suffix)


async def fetch_openalex_work(session: ProviderSession, openalex_id: str) -> OpenAlexWork | None:
    """The work with its referenced W-ids; None when OpenAlex does not know it."""
    settings = session.http.settings
    url = settings.url(OPENALEX, f"{WORKS_PATH}/{quote(openalex_id, safe='/:')}")
    params = {"select": OPENALEX_WORK_SELECT, **_identity_params(settings)}
    response = await session.get(url, params=params, accept_status=NOT_FOUND)
    if response.status == 404:
        return None
    return parse_openalex_work(response.content)


async def fetch_openalex_works(session: ProviderSession, work_ids: list[str]) -> list[Paper]:
    """The records of the given W-ids: one ``openalex_id:W1|W2|…`` call per 50 ids."""
    settings = session.http.settings
    papers: list[Paper] = []
    for batch in openalex_id_batches(work_ids):
        params = {"filter": "openalex_id:" + "|".join(batch), "per_page": len(batch),
                  "select": OPENALEX_LIST_SELECT, **_identity_params(settings)}
        response = await session.get(settings.url(OPENALEX, WORKS_PATH), params=params)
        papers.extend(parse_works(response.content))
    return papers


async def fetch_openalex_citing(session: ProviderSession, work_id: str) -> list[Paper]:
    """The most cited works that cite ``work_id`` (first page, most cited first)."""
    settings = session.http.settings
    params = {"filter": f"cites:{work_id}", "sort": "cited_by_count:desc",
              "per_page": OPENALEX_CITING_PER_PAGE, "select": OPENALEX_LIST_SELECT, **_identity_params(settings)}
    response = await session.get(settings.url(OPENALEX, WORKS_PATH), params=params)
    return parse_works(response.content)[:OPENALEX_CITING_PER_PAGE]


# --------------------------------------------------------------------------- the bundle

@dataclass
class PaperBundle:
    """A paper's merged record with its references and citing papers, each list merged and
    ranked by citations. The counts are the totals the providers report, which can exceed
    the fetched lists (one page each)."""

    paper: Paper
    references: list[Paper]
    citations: list[Paper]
    reference_count: int
    citation_count: int
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # providers whose record was merged
    records: list[Paper] = field(default_factory=list)  # those providers' own records
    references_from: str | None = None  # provider that supplied the reference list
    citations_from: str | None = None


T = TypeVar("T")


class _Attempts:
    """Runs provider calls, turning each failure into a note instead of an exception."""

    def __init__(self, settings) -> None:
        self.settings = settings
        self.notes: list[str] = []
        self.failed: dict[str, str] = {}  # provider -> first failure reason

    async def run(self, provider: str, what: str, call: Awaitable[T]) -> tuple[bool, T | None]:
        """(True, result) on success; (False, None) after noting the failure."""
        try:
            return True, await call
        except ProviderError as exc:
            reason = str(exc)
        except Exception as exc:  # a parser bug must not sink the other provider
            log.debug("%s: %s crashed", provider, what, exc_info=True)
            reason = f"internal error ({type(exc).__name__}: {str(exc)[:120]})"
        reason = self.settings.redact(" ".join(reason.split()))
        self.failed.setdefault(provider, reason)
        self.note(f"{PROVIDER_LABELS[provider]}: {what} failed: {reason}")
        return False, None

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)


@dataclass
class _Lookup:
    """What each provider said about the paper itself."""

    s2: tuple[Paper, int | None] | None = None
    openalex: OpenAlexWork | None = None
    s2_tried: set[str] = field(default_factory=set)
    openalex_tried: set[str] = field(default_factory=set)
    s2_failed: bool = False
    openalex_failed: bool = False


async def fetch_paper_bundle(http: HttpClient, ref: str | PaperRef,
                             progress: Callable[[str], None] | None = None) -> PaperBundle:
    """Look the paper up everywhere, merge the records, fetch and rank both lists.

    Raises ``UnknownIdError`` for text that is no paper id (nothing is sent) and
    ``PaperNotFound`` when no provider has the paper or none could be asked.
    """
    paper_ref = ref if isinstance(ref, PaperRef) else parse_paper_ref(ref)
    s2_session, oa_session = http.session(S2), http.session(OPENALEX)
    attempts = _Attempts(http.settings)
    if progress:
        progress(f"looking up {paper_ref.label} in Semantic Scholar and OpenAlex")
    lookup = await _look_up(s2_session, oa_session, paper_ref, attempts)
    if lookup.s2 is None and lookup.openalex is None:
        raise PaperNotFound(_not_found_message(paper_ref, lookup, attempts))
    paper, records = _merged_record(lookup, attempts)

    # The lists are asked of S2 only when S2 knows the paper (by its own id, most specific).
    s2_id = s2_ids_of(lookup.s2[0])[0] if lookup.s2 and s2_ids_of(lookup.s2[0]) else None
    work = lookup.openalex
    (references, references_from), (citations, citations_from) = await asyncio.gather(
        _reference_list(s2_session, oa_session, s2_id, _known(work), attempts),
        _citation_list(s2_session, oa_session, s2_id, work, attempts),
    )
    reported_reference_counts = [lookup.s2[1] if lookup.s2 else None, work.referenced_count if work else None]
    reference_count = max([len(references)] + [n for n in reported_reference_counts if n is not None])
    citation_count = max(paper.citation_count or 0, len(citations))
    return PaperBundle(
        paper=paper, references=references, citations=citations,
        reference_count=reference_count, citation_count=citation_count,
        notes=attempts.notes, sources=[record.provider for record in records], records=records,
        references_from=references_from, citations_from=citations_from,
    )


async def _look_up(s2: ProviderSession, oa: ProviderSession, ref: PaperRef, attempts: _Attempts) -> _Lookup:
    """Both providers in parallel by the given id; then, for a provider that could not use
    that id or did not know it, one more try with an id the other provider's record gave."""
    lookup = _Lookup()
    await asyncio.gather(_ask_s2(s2, ref.s2_id, lookup, attempts), _ask_openalex(oa, ref.openalex_id, lookup, attempts))
    follow_ups = []
    if lookup.s2 is None and not lookup.s2_failed and lookup.openalex:
        untried = [i for i in s2_ids_of(lookup.openalex.paper) if i not in lookup.s2_tried]
        follow_ups.append(_ask_s2(s2, untried[0] if untried else None, lookup, attempts))
    if lookup.openalex is None and not lookup.openalex_failed and lookup.s2:
        untried = [i for i in openalex_ids_of(lookup.s2[0]) if i not in lookup.openalex_tried]
        follow_ups.append(_ask_openalex(oa, untried[0] if untried else None, lookup, attempts))
    await asyncio.gather(*follow_ups)
    return lookup


async def _ask_s2(session: ProviderSession, s2_id: str | None, lookup: _Lookup, attempts: _Attempts) -> None:
    if s2_id is None:
        return
    lookup.s2_tried.add(s2_id)
    ok, found = await attempts.run(S2, f"looking up {s2_id}", fetch_s2_record(session, s2_id))
    lookup.s2_failed = lookup.s2_failed or not ok
    lookup.s2 = lookup.s2 or found


async def _ask_openalex(session: ProviderSession, openalex_id: str | None, lookup: _Lookup,
                        attempts: _Attempts) -> None:
    if openalex_id is None:
        return
    lookup.openalex_tried.add(openalex_id)
    ok, found = await attempts.run(OPENALEX, f"looking up {openalex_id}", fetch_openalex_work(session, openalex_id))
    lookup.openalex_failed = lookup.openalex_failed or not ok
    lookup.openalex = lookup.openalex or found


def _merged_record(lookup: _Lookup, attempts: _Attempts) -> tuple[Paper, list[Paper]]:
    """(one record from both providers, the records merged). When the merge rules say the two
    are different papers (one DOI given to a whole supplement, say), Semantic Scholar's record
    stands alone and OpenAlex's work is dropped, lists included."""
    records = [record for record in (lookup.s2[0] if lookup.s2 else None,
                                     lookup.openalex.paper if lookup.openalex else None) if record]
    if len(records) == 1:
        return records[0], records
    if len(find_clusters(records)) > 1:
        attempts.note(f"OpenAlex's record for this id looks like a different paper "
                      f"({records[1].title[:80]!r}); it was not merged")
        lookup.openalex = None
        return records[0], records[:1]
    return merge_cluster(records), records


def _not_found_message(ref: PaperRef, lookup: _Lookup, attempts: _Attempts) -> str:
    """"could not fetch …" when every provider asked failed, else "… was not found in …"."""
    asked = [p for p, tried in ((S2, lookup.s2_tried), (OPENALEX, lookup.openalex_tried)) if tried]
    failures = "; ".join(f"{PROVIDER_LABELS[p]}: {reason}" for p, reason in attempts.failed.items())
    if all(p in attempts.failed for p in asked):
        return f"could not fetch {ref.label}: {failures}"
    where = " or ".join(PROVIDER_LABELS[p] for p in asked)
    return f"{ref.label} was not found in {where}" + (f" ({failures})" if failures else "")


def _known(work: OpenAlexWork | None) -> Callable[[], Awaitable[OpenAlexWork | None]]:
    async def get() -> OpenAlexWork | None:
        return work
    return get


async def _reference_list(s2: ProviderSession, oa: ProviderSession, s2_id: str | None,
                          get_work: Callable[[], Awaitable[OpenAlexWork | None]],
                          attempts: _Attempts) -> tuple[list[Paper], str | None]:
    """(references, provider) from S2; from OpenAlex when S2 fails, lacks the paper or lists none.

    ``get_work`` gives the OpenAlex work (looked up only when it is needed)."""
    s2_answered = False  # S2 knows the paper and lists no references
    if s2_id:
        ok, found = await attempts.run(S2, "references", fetch_s2_references(s2, s2_id))
        if found:
            return rank_by_citations(merge_duplicates(found)), S2
        s2_answered = ok and found is not None
    work = await get_work()
    if work is None or not work.referenced_ids:
        return [], (S2 if s2_answered else None)
    wanted = work.referenced_ids[:OPENALEX_MAX_REFERENCES]
    ok, found = await attempts.run(OPENALEX, "references", fetch_openalex_works(oa, wanted))
    if not ok:
        return [], None
    if s2_answered:
        attempts.note("Semantic Scholar lists no references for this paper; OpenAlex's are shown")
    if len(work.referenced_ids) > len(wanted):
        attempts.note(f"OpenAlex lists {len(work.referenced_ids)} references; the first {len(wanted)} were fetched")
    if len(found or []) < len(wanted):
        attempts.note(f"OpenAlex has usable records for {len(found or [])} of the {len(wanted)} works it lists "
                      f"as references")
    return rank_by_citations(merge_duplicates(found or [])), OPENALEX


async def _citation_list(s2: ProviderSession, oa: ProviderSession, s2_id: str | None,
                         work: OpenAlexWork | None, attempts: _Attempts) -> tuple[list[Paper], str | None]:
    """(citing papers, provider) from S2; from OpenAlex when S2 fails, lacks the paper or lists none."""
    s2_answered = False  # S2 knows the paper and lists no citing papers
    if s2_id:
        ok, found = await attempts.run(S2, "citing papers", fetch_s2_citations(s2, s2_id))
        if found:
            return rank_by_citations(merge_duplicates(found)), S2
        s2_answered = ok and found is not None
    if work is None or work.paper.openalex_id is None or work.paper.citation_count == 0:
        return [], (S2 if s2_answered else None)
    ok, found = await attempts.run(OPENALEX, "citing papers", fetch_openalex_citing(oa, work.paper.openalex_id))
    if not ok:
        return [], None
    if found and s2_answered:
        attempts.note("Semantic Scholar lists no citing papers for this paper; OpenAlex's are shown")
    return rank_by_citations(merge_duplicates(found or [])), OPENALEX


async def fetch_references_of(http: HttpClient, paper: Paper) -> tuple[list[Paper], list[str]]:
    """References of a paper already known (a network node): S2 by its best id, else OpenAlex
    (the work is looked up only when S2 cannot answer). Returns (references, notes)."""
    s2_session, oa_session = http.session(S2), http.session(OPENALEX)
    attempts = _Attempts(http.settings)
    s2_ids = s2_ids_of(paper)
    cached: list[OpenAlexWork | None] = []

    async def get_work() -> OpenAlexWork | None:
        if not cached:
            openalex_ids = openalex_ids_of(paper)
            work = None
            if openalex_ids:
                _ok, work = await attempts.run(OPENALEX, f"looking up {openalex_ids[0]}",
                                               fetch_openalex_work(oa_session, openalex_ids[0]))
            cached.append(work)
        return cached[0]

    references, _source = await _reference_list(s2_session, oa_session, s2_ids[0] if s2_ids else None,
                                                get_work, attempts)
    return references, attempts.notes
