"""Links: the http(s) URLs a record may carry, DOI and landing-page URLs, PDF detection."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from .errors import ProviderError

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_pdf_url(url: str | None) -> bool:
    """Whether a link points at a PDF file: by its path (``….pdf``, a ``/pdf/`` folder), or by a
    ``pdf`` query parameter, as Europe PMC's PDF links ask for one (``/articles/PMC…?pdf=render``)."""
    if not url:
        return False
    path, _, query = url.lower().split("#", 1)[0].partition("?")
    asks_for_pdf = any(part.split("=", 1)[0] == "pdf" for part in query.split("&"))
    return path.endswith(".pdf") or "/pdf/" in path or asks_for_pdf


def doi_url(doi: str) -> str:
    # errors="replace": a lone surrogate (from a damaged file or answer) cannot be UTF-8 encoded.
    return "https://doi.org/" + quote(doi, safe="/:;", errors="replace")


def citation_uri(paper) -> str | None:
    """The paper's canonical link: its DOI, else PubMed, arXiv or Semantic Scholar page."""
    if paper.doi:
        return doi_url(paper.doi)
    if paper.pmid:
        return f"https://pubmed.ncbi.nlm.nih.gov/{paper.pmid}/"
    if paper.arxiv_id:
        return f"https://arxiv.org/abs/{paper.arxiv_id}"
    if paper.semantic_scholar_id:
        return f"https://www.semanticscholar.org/paper/{paper.semantic_scholar_id}"
    return None


def http_url(value: Any) -> str | None:
    """An absolute http(s) URL with a host, or None (javascript:, data:, relative …)."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    # Whitespace or control characters inside a URL would break out of a Markdown link.
    if not url or re.search(r"[\s\x00-\x1f\x7f]", url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return url


def id_in_path(identifier: str, keep: str = "") -> str:
    """An id as the encoded tail of a request path: every character but ``keep`` (``/`` in a
    DOI, ``:`` in ``DOI:10.1/x``) percent-encoded, ``%`` included, so a server decoding once
    gets the id back and nothing more. An id that could still climb out of the path (a ``.``
    or ``..`` segment in any spelling, percent-encoded or not) or that holds control
    characters is refused: ProviderError, nothing sent."""
    text = str(identifier)
    if not text or _CONTROL.search(text) or any(_is_dot_segment(part) for part in re.split(r"[/:]", text)):
        shown = text if len(text) <= 60 else text[:59] + "…"
        raise ProviderError(f"the id {shown!r} cannot be put in a request URL (it would leave its path)")
    return quote(text, safe=keep, errors="replace")


def _is_dot_segment(part: str) -> bool:
    """'.' or '..' once every layer of percent-encoding is removed ('%2e%2e', '%252e.')."""
    for _ in range(5):
        decoded = unquote(part)
        if decoded == part:
            break
        part = decoded
    return part.strip() in (".", "..") or "/" in part and any(
        piece.strip() in (".", "..") for piece in part.split("/"))
