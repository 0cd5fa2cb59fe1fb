"""Fetching each kind of copy through the one HTTP layer (pacing, retries, time budget, size cap,
redaction), then handing the bytes to its parser.

Each ``fetch_*`` returns a ``FullText`` with its ``Source`` set, or raises: ``NoFullText`` when
the source has no open text of this paper (404, front matter only, a landing page), and
``ProviderError``/``ValueError`` when it failed (network, server error, an unreadable answer).
Requests to third-party hosts (the copies Unpaywall names, arXiv) carry no contact email: the
User-Agent names lit-search only. PDFs are parsed in a worker thread within the time budget.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable
from urllib.parse import quote

import httpx

from ..core.errors import ProviderError
from ..core.services import PacePolicy
from ..net.http import ANONYMOUS_AGENT, FetchedResponse, ProviderSession, trusted_origin
from .choice import Candidate, Location
from .document import FullText, NoFullText, Source
from .htmlpage import parse_article_page, pdf_link
from .jats import jats_license, parse_jats
from .latexml import parse_latexml
from .pdf import parse_pdf

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
    return _jats(response, Source("PubMed Central", f"https://pmc.ncbi.nlm.nih.gov/articles/{pmcid}/", "jats"))


async def fetch_europepmc(session: ProviderSession, pmcid: str) -> FullText:
    """Europe PMC ``/{PMCID}/fullTextXML`` (open-access subset only: others answer 404)."""
    response = await session.request("GET", session.url(f"/{quote(pmcid, safe='')}/fullTextXML"),
                                     accept_status=NOT_THERE, **_API_REQUEST)
    _check_found(response, "Europe PMC has no open-access full text of this PMCID")
    return _jats(response, Source("Europe PMC", f"https://europepmc.org/article/PMC/{pmcid}", "jats"))


async def fetch_arxiv_html(session: ProviderSession, arxiv_id: str) -> FullText:
    """arXiv's LaTeXML rendering, ``/html/ID`` (not every paper has one)."""
    response = await session.get(session.url(f"/html/{quote(arxiv_id, safe='/')}"), accept_status=NOT_THERE,
                                 headers=_third_party("text/html"), other_origins=True)
    _check_found(response, "arXiv has no HTML rendering of this paper")
    document = parse_latexml(_decoded(response))
    document.source = Source("arXiv (HTML)", f"https://arxiv.org/html/{arxiv_id}", "latexml", _arxiv_license(arxiv_id))
    return document


async def fetch_arxiv_pdf(session: ProviderSession, arxiv_id: str) -> FullText:
    response = await session.get(session.url(f"/pdf/{quote(arxiv_id, safe='/')}"), accept_status=NOT_THERE,
                                 headers=_third_party("application/pdf"), other_origins=True)
    _check_found(response, "arXiv has no PDF of this id")
    document = await parse_pdf_bounded(response.content, session.remaining())
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
            try:
                document = parse_article_page(_decoded(response))
                document.source = Source(_host(response.url), response.url, "html", location.license, location.version)
                return document
            except NoFullText as exc:
                reasons.append(str(exc))
                if not pdf_url:
                    pdf_url = pdf_link(_decoded(response), response.url)
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
    document = await parse_pdf_bounded(response.content, session.remaining())
    document.source = Source(_host(response.url), response.url, "pdf", location.license, location.version)
    return document


async def parse_pdf_bounded(data: bytes, seconds: float) -> FullText:
    """``parse_pdf`` in a daemon thread, given at most ``seconds``: a PDF built to keep the
    parser busy costs its time budget, not the command (the thread is left behind)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[FullText] = loop.create_future()

    def settle(setter: Callable[[Any], None], value: Any) -> None:
        if not done.done():
            setter(value)

    def work() -> None:
        try:
            result: Any = parse_pdf(data)
            setter = done.set_result
        except BaseException as exc:  # handed to the waiting coroutine, which reports it
            result, setter = exc, done.set_exception
        try:
            loop.call_soon_threadsafe(settle, setter, result)
        except RuntimeError:  # the loop has closed: nobody waits any more
            pass

    threading.Thread(target=work, name="lit-search-pdf", daemon=True).start()
    try:
        return await asyncio.wait_for(done, timeout=max(seconds, 0.5))
    except asyncio.TimeoutError:
        raise ProviderError(f"reading the PDF's text took longer than {max(seconds, 0.5):.0f} s") from None


# ---------------------------------------------------------------- helpers

def _jats(response: FetchedResponse, source: Source) -> FullText:
    document = parse_jats(response.content)
    source.license = jats_license(response.content)
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


def _decoded(response: FetchedResponse) -> str:
    charset = ""
    if "charset=" in response.content_type:
        charset = response.content_type.split("charset=", 1)[1].split(";")[0].strip().strip('"')
    try:
        return response.content.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return response.content.decode("utf-8", errors="replace")


def _host(url: str) -> str:
    host = httpx.URL(url).host
    return host[4:] if host.startswith("www.") else host


def _arxiv_license(arxiv_id: str) -> str:
    return f"as stated on https://arxiv.org/abs/{arxiv_id} (arXiv's licence or the authors' choice)"
