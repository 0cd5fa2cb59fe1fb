"""arXiv's Atom feeds, parsed (pure functions, fed real recorded feeds in tests).

arXiv reports errors inside a normal-looking feed with HTTP 200 (one entry titled "Error"),
and answers plain text "Rate exceeded." when throttled; both are turned into
``ProviderError`` here, because feedparser accepts them silently. Messages do not repeat the
provider's name: callers prefix it.
"""

from __future__ import annotations

import io
import re
from typing import Any, Iterable

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi, split_arxiv_id
from ..core.records import Paper
from ..core.text import one_line, plain_text
from ..core.urls import http_url
from ._common import as_date, as_dict, as_int, as_list, as_year, clean, parse_each, shorten

NAME = "arxiv"
ATOM_NS = "http://www.w3.org/2005/Atom"
ARXIV_NS = "http://arxiv.org/schemas/atom"
ABS_URL = "https://arxiv.org/abs/{arxiv_id}"


# ---------------------------------------------------------------- parsing (pure)

def parse_feed(body: str | bytes) -> list[Paper]:
    """Records of an arXiv Atom feed, ranked by position (1-based); ``[]`` for an empty feed."""
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    _check_is_atom_feed(raw)
    import feedparser  # imported when a feed arrives, not at start-up

    # A stream, never a str: feedparser.parse() fetches URL-like strings and opens
    # strings that name a local file.
    feed = feedparser.parse(io.BytesIO(raw))
    if feed.bozo and not feed.entries:
        raise ProviderError(f"unreadable feed ({shorten(feed.get('bozo_exception'))})")
    _raise_if_empty_page(feed)
    prefix = _arxiv_prefix(feed.get("namespaces") or {})
    for entry in feed.entries:
        _raise_if_error_entry(entry)
    return parse_each(feed.entries, lambda entry, position: _paper_from_entry(entry, prefix, position))


def _check_is_atom_feed(raw: bytes) -> None:
    """Refuse anything but a plain Atom feed before feedparser sees it.

    feedparser would parse "Rate exceeded." or an HTML page as an empty feed, and may
    expand entities declared in a DOCTYPE; defusedxml refuses those declarations
    outright (arXiv feeds never have one), so an entity bomb is never expanded.
    """
    from xml.etree.ElementTree import (
        ParseError,  # the XML libraries load with the first answer
    )

    import defusedxml
    import defusedxml.ElementTree as SafeET

    text = raw.lstrip()
    if not text.startswith(b"<"):
        raise ProviderError(_plain_text_reason(text))
    if re.match(rb"<!doctype\s+html|<html[\s>]", text[:200], re.I):
        raise ProviderError("arXiv answered an HTML page, not an Atom feed")
    try:
        root = SafeET.fromstring(raw, forbid_dtd=True)
    except defusedxml.DefusedXmlException as error:
        raise ProviderError(f"refused a feed with a {_refusal(error)}") from None
    except ParseError as error:
        raise ProviderError(f"malformed XML from arXiv ({error})") from None
    if root.tag != f"{{{ATOM_NS}}}feed":
        raise ProviderError(f"arXiv answered <{root.tag}>, not an Atom feed")


def _plain_text_reason(text: bytes) -> str:
    message = " ".join(text.decode("utf-8", "replace").split())
    if "rate exceeded" in message.lower():
        return "rate exceeded (arXiv allows one request every 3 s)"
    return f"arXiv answered plain text, not an Atom feed: {message[:120]!r}" if message else \
        "arXiv answered an empty body"


def _refusal(error: Exception) -> str:
    import defusedxml

    if isinstance(error, defusedxml.DTDForbidden):
        return "DOCTYPE declaration"
    if isinstance(error, defusedxml.EntitiesForbidden):
        return "ENTITY declaration"
    return f"forbidden XML construct ({type(error).__name__})"


def _raise_if_empty_page(feed: Any) -> None:
    """arXiv sometimes sends a page with no entries although it counts results past its start.

    Returning [] would pass for "nothing found"; it is a transient failure instead.
    """
    total = as_int(feed.feed.get("opensearch_totalresults"))
    start = as_int(feed.feed.get("opensearch_startindex")) or 0
    if not feed.entries and total and total > start:
        raise ProviderError(f"arXiv sent an empty page although it reports {total} results; try again")


def _raise_if_error_entry(entry: Any) -> None:
    """arXiv's error answer: one entry titled "Error" whose id points into /api/errors."""
    if "/api/errors" in str(entry.get("id", "")):
        reason = _unfold(entry.get("summary")) or "unspecified error"
        raise ProviderError(reason)


def _paper_from_entry(entry: Any, prefix: str, position: int) -> Paper | None:
    title = _entry_text(entry, "title")
    if not title:
        return None
    arxiv_id, version = split_arxiv_id(entry.get("id"))
    external_ids: dict[str, str] = {}
    if arxiv_id:
        external_ids["arXiv"] = arxiv_id + (version or "")
    primary_category = clean(as_dict(entry.get(f"{prefix}_primary_category")).get("term"))
    if primary_category:
        external_ids["arxiv_primary_category"] = primary_category
    published = str(entry.get("published") or "")
    return Paper(
        provider=NAME,
        title=title,
        authors=[name for author in as_list(entry.get("authors")) if (name := _unfold(as_dict(author).get("name")))],
        year=as_year(published[:4]) if published[:4].isdigit() else None,
        publication_date=as_date(published[:10]),
        journal=_unfold(entry.get(f"{prefix}_journal_ref")),
        # arxiv:doi is the published version's DOI, present only when the authors gave it.
        doi=normalize_doi(clean(entry.get(f"{prefix}_doi"))),
        arxiv_id=arxiv_id,
        abstract=_entry_text(entry, "summary"),
        oa_url=_pdf_link(as_list(entry.get("links"))),
        publication_types=["preprint"],
        external_ids=external_ids,
        url=ABS_URL.format(arxiv_id=arxiv_id) if arxiv_id else http_url(entry.get("link")),
        rank=position,
    )


def _entry_text(entry: Any, field: str) -> str | None:
    """Title or summary as one line; markup removed only when the feed declares it HTML.

    arXiv sends type="text", which feedparser has already unescaped, so "x<y" is real
    text there and must not go through tag stripping.
    """
    value = entry.get(field)
    detail = entry.get(f"{field}_detail") or {}
    if "html" in str(detail.get("type", "")):
        return plain_text(value)
    return _unfold(value)


def _pdf_link(links: Iterable[Any]) -> str | None:
    for link in links:
        if as_dict(link).get("title") == "pdf" and http_url(link.get("href")):
            return http_url(link.get("href"))
    return None


def _arxiv_prefix(namespaces: dict[str, str]) -> str:
    """feedparser names arXiv's elements after the prefix the document declared (usually "arxiv")."""
    for prefix, uri in namespaces.items():
        if uri == ARXIV_NS and prefix:
            return prefix
    return "arxiv"


def _unfold(value: Any) -> str | None:
    """arXiv hard-wraps titles and abstracts; join the lines into one."""
    return one_line(value)
