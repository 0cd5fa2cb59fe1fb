"""``search(...)``: the command's search from Python, typed, returning the ``SearchResult`` the
command renders (ranked papers with their provider records, the outcomes, the filters as
applied), and ``render(result, fmt)``, the command's own output of it."""

from __future__ import annotations

from typing import Sequence

from ..core.config import Settings
from ..core.errors import UsageError
from ..net.cache import MODES as CACHE_MODES
from ..net.cache import CacheMode
from ..providers import registry
from ..runtime.settings import settings_from_env
from ..search.options import PYTHON, SearchOptions, checked_options
from ..search.pipeline import SearchResult
from ._run import run_sync


def search(topic: str, *, variants: Sequence[str] = (), providers: Sequence[str] | str | None = None,
           limit: int = 20, sort: str = "relevance", year: str | None = None, since: str | None = None,
           until: str | None = None, venue: str | None = None, author: str | None = None,
           open_access: bool = False, types: Sequence[str] = (), min_citations: int | None = None,
           preprints: bool | None = None, exclude_retracted: bool = False, verify: bool = True,
           cache: CacheMode = "normal", settings: Settings | None = None, rerank: str | None = None) -> SearchResult:
    """Search, merge, rank, as ``lit-search TOPIC`` does, with its checks and its response cache.

    ``providers``: None (the automatic choice), or names (a list or a comma list) of
    {searchable}; ``year``: "2019-2024", "2019-", "-2015" or "2020"; ``since``/``until``: YYYY-MM-DD;
    ``types``: article, review, preprint, conference; ``preprints``: True (only preprints),
    False (none) or None (either); ``verify``: DOI checks at Crossref and open-access links;
    ``cache``: normal, refresh, off or offline; ``rerank``: "semantic" (the optional re-ranker,
    its model fetched once when missing), "none", or None (semantic where it is installed).
    The result's ``results[:limit]`` are the rows shown; ``render(result, fmt, limit)`` gives
    the command's output. ValueError for a bad argument (the message the command would print)."""
    filters = {"year": year, "since": since, "until": until, "venue": venue, "author": author,
               "open_access": open_access or None, "types": types or None, "min_citations": min_citations,
               "preprints": preprints}
    try:
        options = checked_options(topic, variants=variants, providers=providers, limit=limit, sort=sort,
                                  filters=filters, verify=verify, exclude_retracted=exclude_retracted, rerank=rerank,
                                  names=PYTHON)
        if cache not in CACHE_MODES:
            raise UsageError(f"cache must be one of {', '.join(CACHE_MODES)}, not {cache!r}")
        from ..semantic.prepare import prepared_mode

        options.rerank, note = prepared_mode(rerank)
    except UsageError as problem:
        raise ValueError(str(problem)) from None
    result = run_sync(_search(options, settings or settings_from_env(), cache))
    if note:
        result.enrichment.notes.append(note)
    return result


search.__doc__ = (search.__doc__ or "").format(searchable=", ".join(registry.searchable()))


async def _search(options: SearchOptions, settings: Settings, cache: CacheMode) -> SearchResult:
    from ..runtime.console import Console
    from ..runtime.online import online
    from ..search.pipeline import run_search

    return await online(settings, lambda http, _store: run_search(options, settings, http=http), mode=cache,
                        console=Console(settings, quiet=True))


def render(result: SearchResult, fmt: str = "markdown", limit: int | None = None, abstracts: bool = True) -> str:
    """The command's output of ``result`` (its first ``limit`` rows: all by default): markdown,
    json, bibtex, ris, csl-json or csv."""
    from ..runtime.results import RESULT_FORMATS, render_result

    if fmt not in RESULT_FORMATS or fmt == "table":
        raise ValueError(f"fmt must be one of {', '.join(f for f in RESULT_FORMATS if f != 'table')}, not {fmt!r}")
    return render_result(result, len(result.results) if limit is None else limit, fmt, include_abstracts=abstracts,
                         names=PYTHON)
