"""A paper's identifiers and links as Markdown links: the one place URL fields become links
(the prose around them is defanged by markup.py)."""

from __future__ import annotations

import re

from ..core.records import Paper
from ..core.urls import citation_uri, doi_url, is_pdf_url
from .markup import markdown_text, safe_url

# Each id is linked only in the shape its normalizer guarantees; anything else stays text.
_ID_LINKS = (
    ("DOI", "doi", None, None),
    ("PMID", "pmid", re.compile(r"^\d{1,9}$"), "https://pubmed.ncbi.nlm.nih.gov/{}/"),
    ("arXiv", "arxiv_id", re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z\-]+/\d{7})$"), "https://arxiv.org/abs/{}"),
    ("Semantic Scholar", "semantic_scholar_id", re.compile(r"^[0-9a-f]{40}$"),
     "https://www.semanticscholar.org/paper/{}"),
    ("OpenAlex", "openalex_id", re.compile(r"^W\d+$"), "https://openalex.org/{}"),
)


def id_links(paper: Paper) -> list[str]:
    links = []
    for label, attribute, shape, template in _ID_LINKS:
        value = getattr(paper, attribute)
        if not value:
            continue
        if attribute == "doi":
            links.append(f"{label} [{markdown_text(value)}]({doi_url(value)})")
        elif shape.match(value):
            links.append(f"{label} [{markdown_text(value)}]({template.format(value)})")
        else:
            links.append(f"{label} {markdown_text(value)}")
    return links




def open_access_link(url: str | None, is_pdf: bool | None = None) -> str | None:
    """``[PDF](…)`` or ``[page](…)`` for an http(s) open-access URL, else None."""
    safe = safe_url(url)
    if not safe:
        return None
    return f"[{'PDF' if (is_pdf or is_pdf_url(safe)) else 'page'}]({safe})"


def link_lines(paper: Paper, oa_is_pdf: bool | None = None) -> list[str]:
    """The record's identifier, citation and open-access lines."""
    lines = [f"- **Identifiers:** {' · '.join(id_links(paper)) or '–'}"]
    uri = safe_url(citation_uri(paper))
    if uri:
        lines.append(f"- **Cite as:** <{uri}>")
    open_access = open_access_link(paper.oa_url, oa_is_pdf)
    if open_access:
        lines.append(f"- **Open access:** {open_access}")
    return lines
