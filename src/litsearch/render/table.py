"""The search result as a Markdown table, through the Jinja template in ``templates/``.

Untrusted text (titles, abstracts, venues, names) is escaped by markup.py so that it can
never break the table, become a live link or image, or pass as markup: only URL fields
the APIs gave (DOI, open-access link) become links.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.preprints import shown_venue
from ..core.text import plural
from ..core.updates import LABELS, RETRACTING_TYPES
from ..core.urls import doi_url, is_pdf_url
from ..search.rank import RankedPaper
from ..search.options import COMMAND_LINE, ArgumentNames
from .markup import SNIPPET_WORDS, authors_cell, markdown_text, safe_url, snippet

# After the DOI link: verified at Crossref, not found or not matching, or not checked.
DOI_MARKS = {True: " ✓", False: " ⚠", None: ""}
MAX_TITLE_CHARS = 250
MAX_VENUE_CHARS = 60


def _template_dirs() -> list[str]:
    here = Path(__file__).resolve().parent
    # Installed: templates ship as the litsearch.templates package; in a checkout: ./templates.
    candidates = [here.parent / "templates", here.parent.parent.parent / "templates"]
    return [str(path) for path in candidates if path.is_dir()]


def table_row(position: int, item: RankedPaper) -> dict[str, Any]:
    paper = item.paper
    oa = safe_url(paper.oa_url)
    return {
        "position": position,
        "authors": authors_cell(paper.authors),
        "title": retraction_mark(paper) + (f"**{markdown_text(item.label)}** · " if item.label else "")
                 + (markdown_text(paper.title, MAX_TITLE_CHARS) or "(untitled)")
                 + notice_note(paper),
        "year": paper.year or "–",
        "venue": markdown_text(shown_venue(paper, [paper, *item.hits]), MAX_VENUE_CHARS) or "–",
        "cites": f"{paper.citation_count:,}" if paper.citation_count is not None else "–",
        "doi_text": markdown_text(paper.doi) if paper.doi else None,
        "doi_url": doi_url(paper.doi) if paper.doi else None,
        "doi_mark": DOI_MARKS[item.doi_verified],
        "oa_label": ("PDF" if (item.oa_is_pdf or is_pdf_url(oa)) else "page") if oa else None,
        "oa_url": oa,
        "snippet": snippet(paper.abstract or paper.tldr),
        "snippet_is_tldr": not paper.abstract and bool(paper.tldr),
        "via": "; ".join(f"{VIA_WORDS[entry['direction']]} {markdown_text(entry['seed'])}" for entry in item.via)
               if item.via else None,
    }


RETRACTED_MARK = "⚠ RETRACTED — "
# How a paper found by citation chasing connects to a seed.
VIA_WORDS = {"backward": "cited by", "forward": "cites", "both": "cites and is cited by"}


def retraction_mark(paper) -> str:
    """A retracted paper's title starts with a mark nobody can miss (the search table, the
    library listing)."""
    return RETRACTED_MARK if paper.retracted else ""


def notice_note(paper) -> str:
    """A short note after the title of a paper with a correction, erratum or expression of
    concern (a retraction is the mark in front)."""
    kinds = [LABELS[u["type"]] for u in paper.updates if u.get("type") in LABELS and u["type"] not in RETRACTING_TYPES]
    return f" _({', '.join(dict.fromkeys(kinds))} published)_" if kinds else ""


def update_counts(papers) -> tuple[int, int]:
    """(retracted, with another notice) among ``papers`` (Papers, or the library's rows)."""
    retracted = sum(1 for paper in papers if paper.retracted)
    noticed = sum(1 for paper in papers if not paper.retracted
                  and any(u.get("type") not in RETRACTING_TYPES for u in paper.updates))
    return retracted, noticed


def notices_line(items, how_marked: str, sources: str = "from OpenAlex, PubMed and Crossref") -> str | None:
    """The footer's line on the notices among ``items`` (the rows shown: RankedPapers, Papers
    or the library's rows), or None without any: how many are retracted (``how_marked`` says
    how the row shows it) and how many corrected."""
    retracted, noticed = update_counts([getattr(item, "paper", item) for item in items])
    if not (retracted or noticed):
        return None
    parts = [f"{plural(retracted, 'retracted paper')} ({how_marked})"] if retracted else []
    if noticed:
        parts.append(f"{plural(noticed, 'paper')} with a correction, erratum or expression of concern")
    return "notices: " + "; ".join(parts) + f" ({sources})"


def web_row(hit) -> dict[str, Any]:
    return {"rank": hit.rank, "title": markdown_text(hit.title, MAX_TITLE_CHARS), "url": safe_url(hit.url),
            "domain": markdown_text(hit.domain), "snippet": snippet(hit.snippet, 60)}


def _environment():
    import jinja2  # only when a table is rendered

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_template_dirs()),
        autoescape=False,  # Markdown, not HTML: escaping is done by markdown_text above
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    # Counts are written one way in every view (core/text.py plural: "1,768 provider records")
    env.filters["plural"] = plural
    env.filters["count"] = lambda number: f"{number:,}"
    return env


def render_markdown(result, limit: int, include_abstracts: bool = True, start: int = 0,
                    nothing_found: str | None = None, names: ArgumentNames | None = None) -> str:
    """The table of ``limit`` rows from position ``start`` (0: the first), numbered as ranked.
    ``nothing_found``: said instead of "No papers found" when no row is shown (rerun); ``names``:
    the door's words for what an empty result advises giving (``--variant`` on the command line,
    ``variants`` to the MCP tools, ``variants=[...]`` in Python)."""
    rows = [table_row(i, item) for i, item in enumerate(result.results[start:start + limit], start=start + 1)]
    if not include_abstracts:
        for row in rows:
            row["snippet"] = None
    template = _environment().get_template("results.md.j2")
    web_rows = [row for row in (web_row(hit) for hit in result.web_hits) if row["url"]]
    return template.render(result=result, rows=rows, footer=footer_lines(result, limit), snippet_words=SNIPPET_WORDS,
                           hints=names or COMMAND_LINE,
                           work=markdown_text(result.work_line(), None),
                           web_rows=web_rows,
                           marks_legend=(" DOI ✓ = checked at Crossref, ⚠ = not found there or a different paper."
                                         if any(row["doi_mark"] for row in rows) else ""),
                           query=markdown_text(result.query), nothing_found=nothing_found,
                           provider_reason=markdown_text(result.provider_reason) if result.provider_reason else "")


def footer_lines(result, limit: int | None = None) -> list[str]:
    lines = []
    for outcome in result.outcomes:
        requests = plural(outcome.requests, "request")
        if outcome.cached:
            requests += f", {outcome.cached} from cache"
        if outcome.error:
            lines.append(f"{outcome.provider}: failed, {markdown_text(outcome.error)} ({requests})")
        else:
            line = f"{outcome.provider}: searched, {plural(len(outcome.records), 'result')} " \
                   f"({requests}, {outcome.seconds:.1f} s)"
            for note in outcome.notes:
                line += f"; note: {markdown_text(note)}"
            lines.append(line)
    lines.extend(f"filter: {markdown_text(line)}" for line in result.filter_report)
    if result.filtered_out:
        lines.append(f"{plural(result.filtered_out, 'paper')} removed by the filters")
    lines.extend(markdown_text(note) for note in result.enrichment.notes)
    notices = notices_line(result.results[:limit], f"title marked {RETRACTED_MARK.strip()}")
    if notices:
        lines.append(notices)
    if result.excluded_retracted:
        lines.append(f"{plural(result.excluded_retracted, 'retracted paper')} left out (--exclude-retracted)")
    return lines
