"""The Python API: ``search`` returns the result the command renders; the other functions
return plain dicts.

    from litsearch.api import search, render, literature_search, pubmed_search
    from litsearch.api import openalex, semantic_scholar, crossref, unpaywall

    result = search("CRISPR off-target effects", variants=["Cas9 specificity"], limit=10, year="2020-")
    render(result, "bibtex")  # the command's own output: markdown, json, bibtex, ris, csl-json, csv
    literature_search("CRISPR off-target effects", max_results=10, date_from="2020")
    read_paper("PMC3299399", sections=["methods"], max_chars=20000)
    push_to_zotero(["10.1038/nbt.2647"], collection="To read")
    deep_start("statins for primary prevention", "statins.json")  # then deep_next(...), deep_results(...)
    semantic_scholar.get_paper_details("DOI:10.1038/nbt.2647")

The functions are synchronous (they run their own event loop, in a worker thread when
called from inside a running loop, e.g. in Jupyter). Async code can use the provider
modules in ``litsearch.providers`` directly. Settings (keys, email, base URLs) come from
the environment as for the command. Provider functions raise ``LitSearchError`` with a
one-line reason when the API fails; ``literature_search`` reports failures in "errors".
"""

from __future__ import annotations

from ..core.errors import FetchFailed, LitSearchError
from ..providers import registry
from ..render.search_json import result_payload
from ..search.pipeline import SearchResult
from ..search.rank import RankedPaper
from . import crossref, openalex, semantic_scholar, unpaywall
from .deep import deep_next, deep_results, deep_start
from .fulltext import read_paper
from .search import render, search
from .zotero import push_to_zotero

__all__ = ["LitSearchError", "FetchFailed", "SearchResult", "RankedPaper", "search", "render", "literature_search",
           "pubmed_search", "read_paper", "push_to_zotero", "deep_start", "deep_next", "deep_results", "openalex",
           "semantic_scholar", "crossref", "unpaywall"]


def _date_filters(date_from: str, date_to: str) -> dict[str, str | None]:
    """``2019`` or ``2019-03-01`` for either end; ValueError naming the argument for anything else
    (it was refused as "since …", an argument this function does not have, or failed inside)."""
    import re

    given = {}
    for name, value in (("date_from", date_from), ("date_to", date_to)):
        value = str(value) if type(value) is int else value
        if not isinstance(value, str) or (value.strip() and not re.fullmatch(r"\d{4}(-\d{2}-\d{2})?", value.strip())):
            raise ValueError(f"{name} takes YYYY or YYYY-MM-DD, not {value!r}")
        given[name] = value
    date_from, date_to = given["date_from"], given["date_to"]
    since = until = None
    year_from = year_to = ""
    if date_from:
        if len(date_from.strip()) == 4:
            year_from = date_from.strip()
        else:
            since = date_from
    if date_to:
        if len(date_to.strip()) == 4:
            year_to = date_to.strip()
        else:
            until = date_to
    year = f"{year_from}-{year_to}" if (year_from or year_to) else None
    return {"year": year, "since": since, "until": until}


def literature_search(query: str, max_results: int = 10, providers: str = "", date_from: str = "",
                      date_to: str = "", journal: str = "", author: str = "",
                      include_abstract: bool = True) -> dict:
    """Search, merge, rank: the same dict as ``lit-search --format json`` (``search`` in
    another shape).

    ``providers``: "" for automatic choice, or a comma list ({searchable}).
    ``date_from``/``date_to``: ``YYYY`` or ``YYYY-MM-DD``. Raises ValueError for bad arguments.
    """
    try:
        count = int(max_results) if not isinstance(max_results, (bool, float)) else None
    except (TypeError, ValueError):
        count = None
    if count is None:
        raise ValueError(f"max_results takes a whole number, not {max_results!r}")
    result = search(query, providers=providers or None, limit=count, venue=journal or None,
                    author=author or None, **_date_filters(date_from, date_to))
    return result_payload(result, count, include_abstracts=include_abstract)


literature_search.__doc__ = (literature_search.__doc__ or "").format(searchable=", ".join(registry.searchable()))


def pubmed_search(query: str, max_results: int = 10) -> dict:
    """PubMed only, in the same format as ``literature_search``."""
    return literature_search(query, max_results=max_results, providers="pubmed")
