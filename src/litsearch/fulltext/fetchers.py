"""Fetching each kind of copy through the one HTTP layer (pacing, retries, time budget, size cap,
redaction), then handing the bytes to its parser.

Each ``fetch_*`` returns a ``FullText`` with its ``Source`` set, or raises: ``NoFullText`` when
the source has no open text of this paper (404, front matter only, a landing page), and
``ProviderError``/``ValueError`` when it failed (network, server error, an unreadable answer).
Requests to third-party hosts (the copies Unpaywall names, arXiv) carry no contact email: the
User-Agent names lit-search only. Every copy is parsed in a child process within what is left of
the time budget (isolated.py).
"""

from __future__ import annotations

from typing import Callable
from urllib.parse import quote

import httpx

from ..core.errors import ProviderError
from ..core.services import PacePolicy
from ..net.http import ANONYMOUS_AGENT, FetchedResponse, ProviderSession, trusted_origin
from .choice import Candidate, Location
from .document import FullText, NoFullText, Source
from .isolated import Parsed, parse_isolated

# The services full texts come from (each declares its base URL and pace: providers/registry.py).
PUBMED = "pubmed"
EUROPEPMC = "europepmc"
ARXIV_WEB = "arxiv_web"
OPEN_ACCESS = "open_access"
# Overrides of the declared paces for the text client: none, unless a test speeds them up.
PACES: dict[str, PacePolicy] = {}
NOT_THERE = frozenset({404, 410})
TOOL = "lit-search"
# The full-text APIs never redirect: one that does is not followed (the request carries the key
# and email in its parameters), and no contact email rides in the User-Agent.
_API_REQUEST = {"follow_redirects": False, "headers": {"User-Agent": ANONYMOUS_AGENT}}


async def fetch_candidate(sessions: Callable[[str], ProviderSession], candidate: Candidate) -> FullText:
    """The document from one candidate copy (see the module docstring for what it raises)."""
    try:
        if candidate.kind == "pmc":
            return await fetch_pmc(sessions(PUBMED), candidate.identifier)
        if candidate.kind == "europepmc":
            return await fetch_europepmc(sessions(EUROPEPMC), candidate.identifier)
        if candidate.kind == "arxiv_html":
            return await fetch_arxiv_html(sessions(ARXIV_WEB), candidate.identifier)
        if candidate.kind == "arxiv_pdf":
            return await fetch_arxiv_pdf(sessions(ARXIV_WEB), candidate.identifier)
        if candidate.kind == "open_access" and candidate.location is not None:
            return await fetch_open_access(sessions(OPEN_ACCESS), candidate.location)
    except httpx.HTTPError as exc:  # a redirect loop, a corrupt compressed body: a failure, not a crash
        raise ProviderError(f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}") from None
    raise ValueError(f"unknown kind of copy {candidate.kind!r}")


async def fetch_pmc(session: ProviderSession, pmcid: str) -> FullText:
    """NCBI efetch ``db=pmc`` (the PMC UID is the PMCID's digits)."""
    params = {"db": "pmc", "id": pmcid.removeprefix("PMC"), "retmode": "xml", "tool": TOOL,
              **session.identity_params()}  # email and key, as PubMed's declaration sends them
    response = await session.request("GET", session.url("/efetch.fcgi"), params=params, accept_status=NOT_THERE,
                                     **_API_REQUEST)
    _check_found(response, "PubMed Central has no record of this PMCID")
    return await _jats(session, response, Source("PubMed Central", f"https://pmc.ncbi.nlm.nih.gov/articles/{pmcid}/", "jats"))


async def fetch_europepmc(session: ProviderSession, pmcid: str) -> FullText:
    """Europe PMC ``/{PMCID}/fullTextXML`` (open-access subset only: others answer 404)."""
    response = await session.request("GET", session.url(f"/{quote(pmcid, safe='')}/fullTextXML"),
                                     accept_status=NOT_THERE, **_API_REQUEST)
    _check_found(response, "Europe PMC has no open-access full text of this PMCID")
    return await _jats(session, response, Source("Europe PMC", f"https://europepmc.org/article/PMC/{pmcid}", "jats"))


async def fetch_arxiv_html(session: ProviderSession, arxiv_id: str) -> FullText:
    """arXiv's LaTeXML rendering, ``/html/ID`` (not every paper has one)."""
    response = await session.get(session.url(f"/html/{quote(arxiv_id, safe='/')}"), accept_status=NOT_THERE,
                                 headers=_third_party("text/html"), other_origins=True)
    _check_found(response, "arXiv has no HTML rendering of this paper")
    document = _found(await _parsed(session, "latexml", response))
    document.source = Source("arXiv (HTML)", f"https://arxiv.org/html/{arxiv_id}", "latexml", _arxiv_license(arxiv_id))
    return document


async def fetch_arxiv_pdf(session: ProviderSession, arxiv_id: str) -> FullText:
    response = await session.get(session.url(f"/pdf/{quote(arxiv_id, safe='/')}"), accept_status=NOT_THERE,
                                 headers=_third_party("application/pdf"), other_origins=True)
    _check_found(response, "arXiv has no PDF of this id")
    document = _found(await _parsed(session, "pdf", response))
    document.source = Source("arXiv (PDF)", f"https://arxiv.org/pdf/{arxiv_id}", "pdf", _arxiv_license(arxiv_id))
    return document


async def fetch_open_access(session: ProviderSession, location: Location) -> FullText:
    """A location Unpaywall names: its landing page when that holds the article (HTML first),
    else its PDF, or the PDF the page declares."""
    reasons: list[str] = []
    pdf_url, pdf_named_by = location.pdf_url, location.named_by
    if location.landing_url:
        response = await session.get(location.landing_url, accept_status=NOT_THERE, headers=_third_party("text/html"),
                                     other_origins=True, named_by=location.named_by)
        if response.status in NOT_THERE:
            reasons.append(f"the page answered HTTP {response.status}")
        elif _is_pdf(response):
            return await _pdf_copy(session, response, location)
        else:
            parsed = await _parsed(session, "html", response)
            if parsed.document is not None:
                document = parsed.document
                document.source = Source(_host(response.url), response.url, "html", location.license, location.version)
                return document
            reasons.append(parsed.none or "the page shows no article text")
            if not pdf_url and parsed.pdf_url:
                pdf_url = parsed.pdf_url
                # The page named it: it keeps the namer's trust only when it is on that origin too.
                on_namer = location.named_by and trusted_origin(session.settings, location.named_by, response.url)
                pdf_named_by = location.named_by if on_namer else None
    if pdf_url:
        response = await session.get(pdf_url, accept_status=NOT_THERE, headers=_third_party("application/pdf"),
                                     other_origins=True, named_by=pdf_named_by)
        if response.status not in NOT_THERE:
            if not _is_pdf(response):
                raise NoFullText(f"{_host(response.url)} answered with a web page, not the PDF (it may need a login)")
            return await _pdf_copy(session, response, location)
        reasons.append(f"the PDF link answered HTTP {response.status}")
    raise NoFullText("; ".join(reasons) or "no link to follow")


async def _pdf_copy(session: ProviderSession, response: FetchedResponse, location: Location) -> FullText:
    document = _found(await _parsed(session, "pdf", response))
    document.source = Source(_host(response.url), response.url, "pdf", location.license, location.version)
    return document


async def _parsed(session: ProviderSession, kind: str, response: FetchedResponse) -> Parsed:
    """The answer parsed in a child process within what is left of the source's time budget
    (isolated.py): a copy built to keep a parser busy costs that budget, never the command."""
    return await parse_isolated(kind, response.content, session.remaining(), content_type=response.content_type,
                                url=response.url)


def _found(parsed: Parsed) -> FullText:
    if parsed.document is None:
        raise NoFullText(parsed.none or "the copy holds no text to read")
    return parsed.document


# ---------------------------------------------------------------- helpers

async def _jats(session: ProviderSession, response: FetchedResponse, source: Source) -> FullText:
    parsed = await _parsed(session, "jats", response)
    document = _found(parsed)
    source.license = parsed.license
    document.source = source
    return document


def _check_found(response: FetchedResponse, message: str) -> None:
    if response.status in NOT_THERE:
        raise NoFullText(message)


def _third_party(accept: str) -> dict[str, str]:
    """Headers for hosts that are no API lit-search is configured for: no contact email."""
    return {"User-Agent": ANONYMOUS_AGENT, "Accept": f"{accept},*/*;q=0.5"}


def _is_pdf(response: FetchedResponse) -> bool:
    return response.content[:1024].lstrip().startswith(b"%PDF-") or (
        "pdf" in response.content_type and b"%PDF-" in response.content[:1024])


def _host(url: str) -> str:
    host = httpx.URL(url).host
    return host[4:] if host.startswith("www.") else host


def _arxiv_license(arxiv_id: str) -> str:
    return f"as stated on https://arxiv.org/abs/{arxiv_id} (arXiv's licence or the authors' choice)"
