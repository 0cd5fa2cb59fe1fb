"""``read_paper``: the full text of a legally open copy of one paper, sectioned and within limits.

The id decides where to look (``choice.py``): a PMCID goes to PubMed Central and Europe PMC, an
arXiv id to arXiv; any other id is looked up in Semantic Scholar and OpenAlex for its PMCID,
arXiv id and DOI and for the open copies they name (Semantic Scholar's openAccessPdf, OpenAlex's
open locations), tried after PMC, Europe PMC and arXiv; then the DOI's open-access locations
from Unpaywall (it needs LITSEARCH_EMAIL), those not tried already. Copies are tried best first;
each failure becomes a note. A document read once is kept in the local cache (``cache.py``).

Errors: ``UnknownIdError`` for text that is no id, ``NotFound`` when no open copy is known (or
the paper is unknown), ``FetchFailed`` when copies exist but none could be fetched, ``NotCached``
with --offline for a paper not read before.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import quote

import httpx

from ..core.config import Settings
from ..core.errors import FetchFailed, NotCached, NotFound, ProviderError, UnknownIdError
from ..core.identifiers import PaperRef, id_kind, is_arxiv_doi, parse_paper_ref, parse_pmcid_ref
from ..core.records import Paper
from ..net.http import HttpClient
from ..net.pacing import PacePolicy
from .cache import DocumentCache
from .choice import Candidate, Location, PaperIds, plan, unpaywall_locations
from .document import FullText, NoFullText
from .fetchers import PACES, fetch_candidate
from .limits import Selection, limit_sections, select_sections

DEFAULT_MAX_CHARS = 50_000  # about 12,000 tokens: a paper's main sections, not always its references
DOCUMENT_MAX_BYTES = 50 * 1024 * 1024  # a full text may be a large PDF; searches keep the 10 MB cap


@dataclass
class ReadResult:
    """What ``read_paper`` gives: the document (every section, whole), the ``selection`` shown
    within the limits, where the copy came from, and notes (copies tried before, lookups)."""

    ref: PaperRef
    document: FullText
    selection: Selection
    requested: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    from_cache: bool = False
    record: Paper | None = None  # the paper's metadata when it was looked up


def parse_read_ref(text: str) -> PaperRef:
    """A PMCID, or any id ``parse_paper_ref`` knows (DOI, PMID, arXiv, S2, OpenAlex)."""
    found = parse_pmcid_ref(text)
    if found:
        return found
    try:
        return parse_paper_ref(text)
    except UnknownIdError as exc:  # the message lists the ids this command takes: PMCIDs too
        raise UnknownIdError(str(exc).replace("use a DOI", "use a PMCID (PMC…), a DOI", 1)) from None


async def read_paper(ref: str | PaperRef, sections: list[str] | tuple[str, ...] = (),
                     max_chars: int | None = DEFAULT_MAX_CHARS, *, settings: Settings,
                     cache_mode: str = "normal", store: Any = None, policies: Mapping[str, PacePolicy] | None = None,
                     progress: Callable[[str], None] | None = None, connections: Any = None) -> ReadResult:
    """Read one paper (see the module docstring). ``sections``: names to show (all when empty);
    ``max_chars``: the limit on the sections' text (None or 0: none); ``store``: an open
    ``Store`` for the response and document caches (None: no cache); ``policies``: pace
    overrides (tests); ``connections``: an httpx client a long-lived process keeps."""
    from ..net.cache import ResponseCache  # the command's modes: normal, refresh, off, offline

    paper_ref = ref if isinstance(ref, PaperRef) else parse_read_ref(ref)
    documents = DocumentCache(store, cache_mode)
    responses = ResponseCache(store, cache_mode, max_bytes=settings.cache_max_bytes)
    text_settings = dataclasses.replace(settings, max_response_bytes=DOCUMENT_MAX_BYTES)
    paces = {**PACES, **(policies or {})}
    async with HttpClient(settings, cache=responses, policies=policies, connections=connections) as meta_http, \
            HttpClient(text_settings, policies=paces, connections=connections) as text_http:
        document, notes, from_cache, record = await read_document(paper_ref, meta_http, text_http, documents,
                                                                  progress=progress)
    wanted = select_sections(document, list(sections))
    selection = limit_sections(document, wanted, max_chars)
    return ReadResult(paper_ref, document, selection, list(sections), notes, from_cache, record)


async def read_document(ref: PaperRef, meta_http: HttpClient, text_http: HttpClient, documents: DocumentCache,
                        progress: Callable[[str], None] | None = None
                        ) -> tuple[FullText, list[str], bool, Paper | None]:
    """(document, notes, from the cache, the looked-up record) for one paper."""
    say = progress or (lambda message: None)
    key = f"{ref.kind}:{ref.value}"
    cached = documents.get(key)
    if cached is not None:
        return cached, [], True, None
    if documents.mode == "offline":
        raise NotCached(f"offline: {ref.label} has not been read before (no cached text)", provider="fulltext")
    notes: list[str] = []
    lookups_failed: list[str] = []  # lookups that failed (not "unknown"): nothing found is then not proof
    record, ids, named = await _identify(ref, meta_http, notes, lookups_failed, say)
    tried: list[tuple[Candidate, str, bool]] = []  # (copy, reason, failed rather than absent)

    def sessions(name: str):
        return text_http.session(name)

    document = await _first_readable(plan(ids, named), sessions, tried, say)
    if document is None and ids.doi and not is_arxiv_doi(ids.doi):
        locations = await _unpaywall_locations(ids, meta_http, notes, lookups_failed, say)
        already = {url for candidate, _, _ in tried for url in _urls(candidate)}
        fresh = [c for c in plan(PaperIds(doi=ids.doi), locations) if not set(_urls(c)) & already]
        document = await _first_readable(fresh, sessions, tried, say)
    notes += [f"{candidate.label}: {reason}" for candidate, reason, _ in tried]
    if document is None:
        raise _nothing_readable(ref, tried, notes, lookups_failed)
    _fill_metadata(document, record, ids)
    documents.put(key, document)
    return document, notes, False, record


async def _identify(ref: PaperRef, http: HttpClient, notes: list[str], failed: list[str],
                    say: Callable[[str], None]) -> tuple[Paper | None, PaperIds, list[Location]]:
    """The ids that lead to a full text (the given one, and for other ids those of the record)
    and the open copies the lookup providers named, in their order."""
    if ref.kind == "pmcid":
        return None, PaperIds.of(pmcid=ref.value), []
    if ref.kind == "arxiv":
        return None, PaperIds.of(arxiv_id=ref.value), []
    from ..graph.bundle import look_up_paper  # only a DOI, PMID or S2/OpenAlex id needs the lookup

    try:
        found = await look_up_paper(http, ref, progress=say)
    except (NotFound, FetchFailed) as exc:
        if ref.kind != "doi":
            raise
        notes.append(f"looking up the paper: {exc}")
        if isinstance(exc, FetchFailed):
            failed.append("Semantic Scholar and OpenAlex")
        return None, PaperIds.of(doi=ref.value), []
    record = found.paper
    notes += found.notes
    pmcid = record.external_ids.get("pmcid") or next(
        (value for name, value in record.external_ids.items() if (kind := id_kind(name)) and kind.field == "pmcid"),
        None)
    ids = PaperIds.of(pmcid=pmcid, arxiv_id=record.arxiv_id, doi=record.doi or (ref.value if ref.kind == "doi" else None),
                      pmid=record.pmid)
    named = [Location(copy.landing_url, copy.pdf_url, copy.license, copy.version, copy.host, provider)
             for provider, copy in found.open_copies]
    return record, ids, named


async def _unpaywall_locations(ids: PaperIds, http: HttpClient, notes: list[str], failed: list[str],
                               say: Callable[[str], None]) -> list[Location]:
    """Unpaywall's open-access locations of the DOI (it needs LITSEARCH_EMAIL; without it, a
    note says it was not asked)."""
    if not http.settings.email:
        notes.append("Unpaywall was not asked (it needs LITSEARCH_EMAIL)")
        return []
    say(f"asking Unpaywall for open-access copies of {ids.doi}")
    session = http.session("unpaywall")
    try:
        # Unpaywall never redirects; a redirect elsewhere is not followed with the email.
        response = await session.request("GET", session.url(f"/v2/{quote(ids.doi or '', safe='/')}"),
                                         params={"email": http.settings.email}, accept_status=frozenset({404, 422}),
                                         follow_redirects=False)
        if response.status in (404, 422):
            notes.append(f"Unpaywall does not know {ids.doi} (HTTP {response.status})")
            return []
        return unpaywall_locations(response.content)
    except (ProviderError, ValueError, httpx.HTTPError) as exc:  # httpx: a redirect loop, a corrupt body
        notes.append(f"Unpaywall failed: {' '.join(str(exc).split())[:200] or type(exc).__name__}")
        failed.append("Unpaywall")
        return []


def _urls(candidate: Candidate) -> list[str]:
    """The links an open-access candidate would fetch (a copy two sources name is tried once)."""
    location = candidate.location
    return [url for url in (location.landing_url, location.pdf_url) if url] if location else []


async def _first_readable(candidates: list[Candidate], sessions: Callable[[str], Any],
                          tried: list[tuple[Candidate, str, bool]], say: Callable[[str], None]) -> FullText | None:
    for candidate in candidates:
        say(f"reading {candidate.label}" + (f" {candidate.identifier}" if candidate.identifier else ""))
        try:
            return await fetch_candidate(sessions, candidate)
        except NoFullText as exc:
            tried.append((candidate, str(exc), False))
        except (ProviderError, ValueError) as exc:
            tried.append((candidate, str(exc), True))
    return None


def _nothing_readable(ref: PaperRef, tried: list[tuple[Candidate, str, bool]], notes: list[str],
                      lookups_failed: list[str]) -> Exception:
    """FetchFailed (exit 3) when a source or lookup failed, so an open copy may exist; NotFound
    (exit 5) when every source said it has none."""
    detail = "; ".join(notes)
    if lookups_failed and not any(failed for _, _, failed in tried):
        return FetchFailed(f"could not read {ref.label}: {detail}")
    if not tried:
        return NotFound(f"no open copy of {ref.label} is known (no PMCID or arXiv id, and no open-access "
                        f"location found)" + (f": {detail}" if detail else ""))
    if any(failed for _, _, failed in tried):
        return FetchFailed(f"could not read {ref.label}: {detail}")
    return NotFound(f"no open copy of {ref.label} could be read: {detail}")


def _fill_metadata(document: FullText, record: Paper | None, ids: PaperIds) -> None:
    """Title, authors and ids from the paper's record where the copy lacks them (PDFs often do)."""
    if record is not None:
        document.title = document.title or record.title or None
        if not document.authors and record.authors:
            document.authors = list(record.authors)
    for name in ("doi", "pmid", "pmcid", "arxiv_id"):
        value = getattr(ids, name)
        if value and name not in document.identifiers:
            document.identifiers[name] = value
