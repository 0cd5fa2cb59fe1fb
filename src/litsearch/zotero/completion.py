"""What a citation needs, completed from the paper's ids before a push.

A paper read from a file (``zotero push --from``) may lack what Zotero's item needs to cite it:
its volume, issue or pages, its publication date, journal or type, or its authors (an older
search JSON kept five; a BibTeX file may end its list with "and others"). Each such paper is
looked up in OpenAlex by whichever id it has (``providers/openalex.py fetch_works_of``: 100
W-ids or 50 DOIs per request, a lone PMID by a free single-work call), and only what is missing
is filled: a value the file has is never replaced, and the author list only when it was cut.
A work is taken for the paper only when an id and the title agree. What OpenAlex does not know
stays as the file has it; a note counts the cut author lists left.
"""

from __future__ import annotations

from typing import Callable

from ..core.errors import ProviderError
from ..core.records import Paper
from ..core.text import fold_title
from .inputs import CITATION_FIELDS, CUT_MARKS, OLD_SEARCH_JSON_AUTHORS, Gathered, authors_cut

def complete_from_works(papers: list[Paper], positions: list[int], works: list[Paper],
                        cut_authors: set[int] = frozenset()) -> int:
    """Fill what ``papers`` at ``positions`` miss from the matching ``works``; returns how many
    papers gained something."""
    by_id: dict[str, Paper] = {}
    for work in works:
        for key in _keys(work):
            by_id.setdefault(key, work)
    completed = 0
    for position in positions:
        paper = papers[position]
        work = next((by_id[key] for key in _keys(paper) if key in by_id), None)
        if work is None or fold_title(work.title) != fold_title(paper.title):
            continue
        gained = False
        if (position in cut_authors or authors_cut(paper)) and len(work.authors) > len(_named(paper.authors)):
            paper.authors, gained = list(work.authors), True
        for name in CITATION_FIELDS:
            if not getattr(paper, name) and getattr(work, name):
                setattr(paper, name, getattr(work, name))
                gained = True
        if not paper.publication_types and work.publication_types:
            paper.publication_types, gained = list(work.publication_types), True
        completed += gained
    return completed


async def complete_papers(gathered: Gathered, http, progress: Callable[[str], None] | None) -> list[str]:
    """Complete ``gathered``'s papers that miss something (in place); the notes to show."""
    from ..providers import openalex

    papers, positions = gathered.papers, gathered.to_complete
    if progress:
        progress(f"completing {len(positions)} records from OpenAlex by their ids (volume, pages, authors …)")
    try:
        works = await openalex.fetch_works_of(http.session(openalex.NAME), [papers[p] for p in positions])
    except ProviderError as exc:
        cut = len(gathered.cut_authors)
        return [f"OpenAlex could not complete the records ({exc}); {len(positions)} papers are pushed as the file "
                f"has them" + (f", {cut} with only their first five authors" if cut else "")]
    complete_from_works(papers, positions, works, gathered.cut_authors)
    left = sum(1 for p in gathered.cut_authors if len(papers[p].authors) == OLD_SEARCH_JSON_AUTHORS)
    return [f"{left} papers list only the five authors an older search JSON kept (search again, or push them by "
            "id or from the library, for every author)"] if left else []


def _keys(paper: Paper) -> list[str]:
    return [key for key in (paper.openalex_id and f"W:{paper.openalex_id}", paper.doi and f"doi:{paper.doi.lower()}",
                            paper.pmid and f"pmid:{paper.pmid}",
                            paper.arxiv_id and f"doi:10.48550/arxiv.{paper.arxiv_id.lower()}") if key]


def _named(authors: list[str]) -> list[str]:
    return [name for name in authors if name.strip().lower() not in CUT_MARKS]
