"""Render a search result through the Jinja templates in ``templates/``.

Untrusted text (titles, abstracts, venues, names) is escaped here so that it can
never break the table, become a live link or image, or pass as markup: only URL
fields the APIs gave (DOI, open-access link) become links.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from .identifiers import is_arxiv_doi, is_pdf_url
from .rank import RankedPaper
from .text import plain_text

SNIPPET_WORDS = 100
# After the DOI link: verified at Crossref, not found or not matching, or not checked.
DOI_MARKS = {True: " ✓", False: " ⚠", None: ""}
MAX_TITLE_CHARS = 250
MAX_VENUE_CHARS = 60
AUTHORS_SHOWN = 3
JSON_AUTHORS = 5

# Characters that can start Markdown syntax inside a line: emphasis, code, links and
# images, HTML, table cells, strikethrough, math. "(" needs no escape once "[" has one.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>!|~$])")
_URL_SCHEME = re.compile(r"\b(https?|ftp|file|javascript|data|mailto)(:)(//)?", re.I)
_BARE_WWW = re.compile(r"\bwww\.", re.I)


def _template_dirs() -> list[str]:
    here = Path(__file__).resolve().parent
    # Installed: templates ship as the litsearch.templates package; in a checkout: ./templates.
    candidates = [here / "templates", here.parent.parent / "templates"]
    return [str(path) for path in candidates if path.is_dir()]


def markdown_text(value: Any, max_chars: int | None = None) -> str:
    """Plain, single-line, Markdown-inert text for a table cell or quoted snippet."""
    text = plain_text(str(value)) if value is not None else ""
    text = text or ""
    if max_chars and len(text) > max_chars:
        text = text[: max_chars - 1].rstrip() + "…"
    # Defang URLs so renderers do not autolink text the source gave as prose.
    text = _URL_SCHEME.sub(lambda m: m.group(1) + "[:]" + ("//" if m.group(3) else ""), text)
    text = _BARE_WWW.sub("www[.]", text)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def safe_url(url: str | None) -> str | None:
    """An http(s) URL made safe inside a Markdown link target, or None."""
    if not url or not re.match(r"^https?://[^\s]+$", url.strip(), re.I):
        return None
    return quote(url.strip(), safe=":/?&=%#~+,;@!$*'-._")


def doi_url(doi: str) -> str:
    return "https://doi.org/" + quote(doi, safe="/:;")


def short_author(name: str) -> str:
    """'Ashish Vaswani' -> 'Vaswani A'; 'Smith, John R.' -> 'Smith JR'; 'Smith J' stays."""
    name = " ".join((plain_text(name) or "").split())
    if not name:
        return ""
    if "," in name:
        surname, given = [part.strip() for part in name.split(",", 1)]
    else:
        parts = name.split(" ")
        if len(parts) == 1:
            return name
        if len(parts) == 2 and parts[1].isupper() and len(parts[1]) <= 3:
            return name  # already "Smith JR" (PubMed style)
        surname, given = parts[-1], " ".join(parts[:-1])
    initials = "".join(chunk[0] for chunk in re.split(r"[\s.\-]+", given) if chunk)
    return f"{surname} {initials.upper()}".strip()


def authors_cell(authors: list[str]) -> str:
    shown = [short_author(a) for a in authors[:AUTHORS_SHOWN]]
    text = ", ".join(a for a in shown if a)
    if len(authors) > AUTHORS_SHOWN:
        text += " et al."
    return markdown_text(text) if text else "–"


def snippet(text: str | None, words: int = SNIPPET_WORDS) -> str | None:
    clean = plain_text(text)
    if not clean:
        return None
    tokens = clean.split()
    cut = " ".join(tokens[:words]) + (" …" if len(tokens) > words else "")
    return markdown_text(cut)


def citation_uri(paper) -> str | None:
    if paper.doi:
        return doi_url(paper.doi)
    if paper.pmid:
        return f"https://pubmed.ncbi.nlm.nih.gov/{paper.pmid}/"
    if paper.arxiv_id:
        return f"https://arxiv.org/abs/{paper.arxiv_id}"
    if paper.paper_id:
        return f"https://www.semanticscholar.org/paper/{paper.paper_id}"
    return None


def table_row(position: int, item: RankedPaper) -> dict[str, Any]:
    paper = item.paper
    oa = safe_url(paper.oa_url)
    return {
        "position": position,
        "authors": authors_cell(paper.authors),
        "title": markdown_text(paper.title, MAX_TITLE_CHARS) or "(untitled)",
        "year": paper.year or "–",
        "venue": markdown_text(paper.journal, MAX_VENUE_CHARS) or "–",
        "cites": f"{paper.citation_count:,}" if paper.citation_count is not None else "–",
        "doi_text": markdown_text(paper.doi) if paper.doi else None,
        "doi_url": doi_url(paper.doi) if paper.doi else None,
        "doi_mark": DOI_MARKS[item.doi_verified],
        "oa_label": ("PDF" if (item.oa_is_pdf or is_pdf_url(oa)) else "page") if oa else None,
        "oa_url": oa,
        "snippet": snippet(paper.abstract or paper.tldr),
        "snippet_is_tldr": not paper.abstract and bool(paper.tldr),
    }


# Providers spell id names differently (S2 "PubMed", OpenAlex "pmid"): one spelling each.
_ID_NAMES = {"doi": "DOI", "pubmed": "PMID", "pmid": "PMID", "pmcid": "PMCID", "pubmedcentral": "PMCID",
             "arxiv": "ArXiv", "openalex": "OpenAlex", "mag": "MAG", "corpusid": "CorpusId",
             "dblp": "DBLP", "acl": "ACL", "s2": "S2"}


def canonical_external_ids(paper) -> dict[str, str]:
    ids: dict[str, str] = {}
    for name, value in paper.external_ids.items():
        key = _ID_NAMES.get(name.lower().replace("_", ""), name)
        if value not in (None, "") and key not in ids:
            ids[key] = str(value)
    # The normalized top-level ids win over the raw spellings.
    for key, value in (("DOI", paper.doi), ("PMID", paper.pmid), ("ArXiv", paper.arxiv_id),
                       ("OpenAlex", paper.openalex_id), ("S2", paper.paper_id)):
        if value:
            ids[key] = value
    return dict(sorted(ids.items()))


def result_dict(item: RankedPaper, include_abstract: bool = True) -> dict[str, Any]:
    """One result in the JSON schema (see README, "JSON output")."""
    paper = item.paper
    external_ids = canonical_external_ids(paper)
    return {
        "doi": paper.doi,
        "pmid": paper.pmid,
        "paper_id": paper.paper_id,
        "arxiv_id": paper.arxiv_id,
        "openalex_id": paper.openalex_id,
        "title": plain_text(paper.title),
        "authors": paper.authors[:JSON_AUTHORS],
        "year": paper.year,
        "journal": paper.journal,
        "abstract": plain_text(paper.abstract) if include_abstract else None,
        "tldr": plain_text(paper.tldr) if include_abstract else None,
        "citation_count": paper.citation_count,
        "influential_citation_count": paper.influential_citation_count,
        "citation_uri": citation_uri(paper),
        "oa_url": paper.oa_url,
        "provider_scores": {k: round(v, 4) for k, v in sorted(item.provider_scores.items())},
        "external_ids": external_ids,
        "best_provider": item.best_provider,
        "best_score": round(item.best_score, 4) if item.best_score is not None else None,
        "score": round(item.score, 4),
        "relevance": round(item.relevance, 4),
        "found_by": [
            {"provider": hit.provider, "rank": hit.rank, "score": hit.score} for hit in item.hits
        ],
        "merge_reasons": item.merge_reasons,
        "doi_verified": item.doi_verified,
        "doi_mismatch": _mismatch(item),
        "oa_is_pdf": item.oa_is_pdf,
        "oa_source": item.oa_source if item.oa_source in ("provider", "unpaywall") else None,
        "doi_is_arxiv_datacite": bool(paper.doi and is_arxiv_doi(paper.doi)),
    }


def _mismatch(item: RankedPaper) -> dict[str, Any] | None:
    """What Crossref said when the DOI did not check out (None when it did, or was not checked)."""
    check = item.doi_check or {}
    if item.doi_verified is not False:
        return None
    return {"reason": check.get("reason"), "crossref_title": check.get("crossref_title"),
            "crossref_year": check.get("crossref_year"), "title_similarity": check.get("title_similarity")}


def web_row(hit) -> dict[str, Any]:
    return {"rank": hit.rank, "title": markdown_text(hit.title, MAX_TITLE_CHARS), "url": safe_url(hit.url),
            "domain": markdown_text(hit.domain), "snippet": snippet(hit.snippet, 60)}


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_template_dirs()),
        autoescape=False,  # Markdown, not HTML: escaping is done by markdown_text above
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    return env


def render_markdown(result, limit: int, include_abstracts: bool = True) -> str:
    rows = [table_row(i, item) for i, item in enumerate(result.results[:limit], start=1)]
    if not include_abstracts:
        for row in rows:
            row["snippet"] = None
    template = _environment().get_template("results.md.j2")
    web_rows = [row for row in (web_row(hit) for hit in result.web_hits) if row["url"]]
    return template.render(result=result, rows=rows, footer=footer_lines(result), snippet_words=SNIPPET_WORDS,
                           web_rows=web_rows,
                           marks_legend=(" DOI ✓ = checked at Crossref, ⚠ = not found there or a different paper."
                                         if any(row["doi_mark"] for row in rows) else ""),
                           query=markdown_text(result.query),
                           provider_reason=markdown_text(result.provider_reason) if result.provider_reason else "")


def render_json(result, limit: int, include_abstracts: bool = True) -> str:
    return json.dumps(result_payload(result, limit, include_abstracts), ensure_ascii=False, indent=2) + "\n"


def result_payload(result, limit: int, include_abstracts: bool = True) -> dict[str, Any]:
    """The JSON document (see README, "JSON output") as a dict."""
    return {
        "query": result.query,
        "variants": result.variants,
        "total_count": result.total_count,
        "results": [result_dict(item, include_abstracts) for item in result.results[:limit]],
        "providers_searched": [o.provider for o in result.outcomes],
        "errors": [{"provider": o.provider, "message": o.error} for o in result.outcomes if o.error],
        "filters": result.filter_report,
        "filtered_out": result.filtered_out,
        "notes": result.enrichment.notes,
        "web_sources": [hit.to_dict() for hit in result.web_hits],
        "warnings": [{"provider": o.provider, "message": n} for o in result.outcomes for n in o.notes],
        "search_time_ms": result.search_time_ms,
        "requests": result.request_count,
        "provider_choice": result.provider_reason,
        "providers": [
            {"provider": o.provider, "query": o.query, "mode": o.mode, "results": len(o.records),
             "requests": o.requests, "from_cache": o.cached, "seconds": round(o.seconds, 2), "error": o.error}
            for o in result.outcomes
        ],
    }


def footer_lines(result) -> list[str]:
    lines = []
    for outcome in result.outcomes:
        requests = f"{outcome.requests} request{'s' if outcome.requests != 1 else ''}"
        if outcome.cached:
            requests += f", {outcome.cached} from cache"
        if outcome.error:
            lines.append(f"{outcome.provider}: failed, {markdown_text(outcome.error)} ({requests})")
        else:
            count = len(outcome.records)
            line = (f"{outcome.provider}: searched, {count} result{'s' if count != 1 else ''} "
                    f"({requests}, {outcome.seconds:.1f} s)")
            for note in outcome.notes:
                line += f"; note: {markdown_text(note)}"
            lines.append(line)
    lines.extend(f"filter: {markdown_text(line)}" for line in result.filter_report)
    if result.filtered_out:
        lines.append(f"{result.filtered_out} papers removed by the filters")
    lines.extend(markdown_text(note) for note in result.enrichment.notes)
    return lines
