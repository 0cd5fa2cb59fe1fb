"""``read_paper``: the full text of an open copy of one paper, as the JSON of ``lit-search read
--format json`` (a dict). Async callers (the MCP server) use ``litsearch.fulltext.read.read_paper``
and ``litsearch.render.fulltext.read_payload`` directly."""

from __future__ import annotations

from typing import Sequence

from ..fulltext.read import DEFAULT_MAX_CHARS
from ._run import run_sync, settings


def read_paper(paper_id: str, sections: Sequence[str] = (), max_chars: int = DEFAULT_MAX_CHARS,
               use_cache: bool = True) -> dict:
    """Read one paper (a PMCID, DOI, PMID, arXiv, Semantic Scholar or OpenAlex id): title,
    authors, licence, source, every section's size and status, and the shown sections' text
    within ``max_chars`` (0: no limit). Raises ``LitSearchError`` (``NotFound`` when no open
    copy is known, ``FetchFailed`` when none could be fetched, ``UsageError`` for a bad id or
    an unknown section name)."""
    from ..core.errors import StoreError
    from ..fulltext.read import read_paper as read
    from ..library.store import Store
    from ..render.fulltext import read_payload

    config = settings()
    store = None
    if use_cache:
        try:
            store = Store.open(redact=config.redact)
        except StoreError:
            store = None  # the cache is an optimisation: read without it
    try:
        result = run_sync(read(paper_id, list(sections), max_chars, settings=config,
                               cache_mode="normal" if store is not None else "off", store=store))
    finally:
        if store is not None:
            store.close()
    return read_payload(result)
