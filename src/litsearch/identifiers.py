"""Normalize the identifiers each API spells its own way (DOI, arXiv, PMID, OpenAlex)."""

from __future__ import annotations

import re
from urllib.parse import unquote

_DOI_PREFIXES = re.compile(
    r"^\s*(?:doi:\s*|https?://(?:dx\.)?doi\.org/|https?://doi\.org/|doi\.org/)", re.I
)
_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?", re.I)
# Old-style ids: "hep-th/9901001"; a subject class ("math.GT/0309136") is not part of the id.
_ARXIV_OLD = re.compile(r"([a-z\-]+)(?:\.[A-Z]{2})?/(\d{7})(v\d+)?", re.I)


def normalize_doi(value: str | None) -> str | None:
    """Bare, lower-case DOI from any of the forms APIs and exports use.

    Accepts ``10.1/x``, ``doi:10.1/x``, ``https://doi.org/10.1/x`` (also
    percent-encoded and upper-case). Returns None for anything that is not a DOI.
    """
    if not value:
        return None
    text = unquote(str(value).strip())
    text = _DOI_PREFIXES.sub("", text).strip().rstrip(".;,")
    text = text.lower()
    if not _DOI_SHAPE.match(text):
        return None
    return text


def is_arxiv_doi(doi: str | None) -> bool:
    """True for DataCite DOIs arXiv mints for every preprint (10.48550/arXiv.*)."""
    return bool(doi and _ARXIV_DOI.match(doi))


def arxiv_id_from_doi(doi: str | None) -> str | None:
    match = _ARXIV_DOI.match(doi or "")
    return normalize_arxiv_id(match.group(1)) if match else None


def split_arxiv_id(value: str | None) -> tuple[str | None, str | None]:
    """(versionless id, version) from ``2101.00001v2``, an abs/pdf URL or ``arXiv:…``."""
    if not value:
        return None, None
    text = str(value).strip()
    text = re.sub(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", "", text, flags=re.I)
    text = re.sub(r"^arxiv:", "", text, flags=re.I)
    text = re.sub(r"\.pdf$", "", text, flags=re.I)
    match = _ARXIV_NEW.fullmatch(text)
    if match:
        return match.group(1), match.group(2) or None
    match = _ARXIV_OLD.fullmatch(text)
    if match:
        return f"{match.group(1).lower()}/{match.group(2)}", match.group(3) or None
    return None, None


def normalize_arxiv_id(value: str | None) -> str | None:
    """Versionless arXiv id (``2101.00001``, ``hep-th/9901001``) or None."""
    return split_arxiv_id(value)[0]


def normalize_pmid(value: str | int | None) -> str | None:
    """Digits of a PMID from ``123``, ``PMID:123`` or a pubmed.ncbi.nlm.nih.gov URL."""
    if value is None:
        return None
    match = re.search(r"(\d{1,9})/?\s*$", str(value).strip())
    return str(int(match.group(1))) if match else None


def normalize_openalex_id(value: str | None) -> str | None:
    """``W123…`` from ``https://openalex.org/W123…`` (works only)."""
    if not value:
        return None
    match = re.search(r"(W\d+)\s*$", str(value).strip(), re.I)
    return match.group(1).upper() if match else None


def is_pdf_url(url: str | None) -> bool:
    """Whether a link points at a PDF file (by its path: ``….pdf`` or a ``/pdf/`` folder)."""
    if not url:
        return False
    path = url.lower().split("?", 1)[0]
    return path.endswith(".pdf") or "/pdf/" in path
