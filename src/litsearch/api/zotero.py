"""``push_to_zotero``: papers into a Zotero collection, as ``lit-search zotero push`` sends them;
returns the account as a dict (``created``, ``duplicates``, ``failed``, ``summary``, ``outcomes``
with each paper's status, key and reason, ``notes``). The key comes from the environment and is
never part of the result."""

from __future__ import annotations

from typing import Sequence

from ._run import run_sync, settings


def push_to_zotero(ids: Sequence[str] = (), collection: str = "", from_file: str | None = None,
                   from_library: bool = False, via: str | None = None) -> dict:
    """Send papers (ids, a lit-search JSON file, the local library) to ``collection``. ``via``:
    "api" (ZOTERO_API_KEY and ZOTERO_LIBRARY_ID), "connector" (Zotero desktop), or None for
    the API when configured. Raises ``LitSearchError`` (``UsageError`` for bad input or
    configuration, ``ProviderError`` when Zotero cannot be reached or refuses the key)."""
    from ..core.errors import StoreError
    from ..library.store import Store
    from ..zotero.run import push_to_zotero as push

    config = settings()
    try:
        store = Store.open(redact=config.redact)
    except StoreError:
        store = None  # only library ids and from_library need it; they say so
    try:
        summary, notes = run_sync(push(list(ids), from_file, from_library, collection=collection, via=via,
                                       settings=config, store=store))
    finally:
        if store is not None:
            store.close()
    payload = summary.to_dict()
    payload["notes"] = notes + payload["notes"]
    return payload
