"""``push_to_zotero``: everything ``lit-search zotero push`` does, as one async function (the CLI
and the MCP server call it): which library and route (``--via``), which papers, the push.

Route: the Web API when ``ZOTERO_API_KEY`` and ``ZOTERO_LIBRARY_ID`` are set (``ZOTERO_LIBRARY_TYPE``
``user``, the default, or ``group``), else the desktop connector. Papers: the ids (a library
paper by its number or any id; any other id is looked up in Semantic Scholar and OpenAlex), the
papers of ``--from FILE`` and, with ``from_library``, every saved paper, in that order.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Sequence

from ..core.config import Settings
from ..core.errors import FetchFailed, NotFound, ProviderError, UsageError
from ..core.identifiers import parse_paper_ref
from ..core.records import Paper
from ..net.http import HttpClient
from ..net.pacing import PacePolicy
from . import connector, web_api
from .completion import complete_papers
from .inputs import Gathered, library_papers, read_results_file
from .push import PushSummary, push_papers
from .web_api import ZoteroTarget

VIAS = ("api", "connector")
MAX_COLLECTION_CHARS = 255


def zotero_target(settings: Settings, env: Mapping[str, str] | None = None) -> ZoteroTarget | None:
    """The Web API library from the environment; None when no key and no library id are set.
    UsageError (exit 2) for half a configuration or a malformed value, naming the variable."""
    env = os.environ if env is None else env
    key = settings.key(web_api.ZOTERO)
    library_id = (env.get("ZOTERO_LIBRARY_ID") or "").strip()
    library_type = (env.get("ZOTERO_LIBRARY_TYPE") or "user").strip().lower()
    if not key and not library_id:
        return None
    if not key:
        raise UsageError("ZOTERO_LIBRARY_ID is set but ZOTERO_API_KEY is not: create a key with write access at "
                         "https://www.zotero.org/settings/keys")
    if not library_id:
        raise UsageError("ZOTERO_API_KEY is set but ZOTERO_LIBRARY_ID is not: your user ID is shown at "
                         "https://www.zotero.org/settings/keys (a group's is in its URL)")
    if not library_id.isascii() or not library_id.isdigit() or len(library_id) > 12:
        raise UsageError(f"ZOTERO_LIBRARY_ID must be the library's number, not {library_id[:40]!r}")
    if library_type not in ("user", "group"):
        raise UsageError(f"ZOTERO_LIBRARY_TYPE must be user or group, not {library_type[:40]!r}")
    return ZoteroTarget(library_type, library_id, key)


def choose_via(via: str | None, target: ZoteroTarget | None) -> str:
    if via == "api" and target is None:
        raise UsageError("--via api needs ZOTERO_API_KEY and ZOTERO_LIBRARY_ID (and ZOTERO_LIBRARY_TYPE=group for "
                         "a group library)")
    return via or ("api" if target is not None else "connector")


def check_collection(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise UsageError("--collection needs a name")
    if len(name) > MAX_COLLECTION_CHARS:
        raise UsageError(f"--collection is {len(name)} characters long; Zotero takes at most {MAX_COLLECTION_CHARS}")
    return name


async def push_to_zotero(ids: Sequence[str] = (), from_file: str | None = None, from_library: bool = False, *,
                         collection: str, via: str | None = None, settings: Settings,
                         store: Any = None, cache_mode: str = "normal", env: Mapping[str, str] | None = None,
                         policies: Mapping[str, PacePolicy] | None = None,
                         progress: Callable[[str], None] | None = None) -> tuple[PushSummary, list[str]]:
    """(the push's summary, notes about the papers gathered). ``store``: the open library and
    response cache (needed for library ids and ``from_library``)."""
    from ..net.cache import ResponseCache

    collection = check_collection(collection)
    target = zotero_target(settings, env)
    route = choose_via(via, target)
    if not ids and not from_file and not from_library:
        raise UsageError("nothing to push: give paper ids, --from FILE or --from-library")
    for ref in ids:  # every id is checked before any request ("#12" and numbers may be library ids)
        if not ref.strip().lstrip("#").isdigit():
            parse_paper_ref(ref)
    gathered = read_results_file(from_file) if from_file else Gathered()  # a bad file is refused before any request
    responses = ResponseCache(store, cache_mode, max_bytes=settings.cache_max_bytes)
    async with HttpClient(settings, cache=responses, policies=policies) as lookups, \
            HttpClient(settings, policies=policies, transport=_direct_to_loopback(settings, route)) as zotero:
        papers, notes = await _gather(ids, gathered, from_library, lookups, store, progress)
        if not papers:
            raise NotFound("no papers to push")
        summary = await push_papers(papers, collection, route, zotero, target, progress)
    return summary, notes


def _direct_to_loopback(settings: Settings, route: str) -> Any:
    """Zotero desktop listens on this machine: a proxy set for the web (HTTP_PROXY) must not be
    asked for it. An explicit transport is httpx's way to ignore the proxy variables."""
    import httpx

    host = httpx.URL(settings.base_urls[connector.CONNECTOR]).host
    if route == "connector" and host in ("127.0.0.1", "localhost", "::1"):
        return httpx.AsyncHTTPTransport()
    return None


async def _gather(ids: Sequence[str], gathered: Gathered, from_library: bool, http: HttpClient, store: Any,
                  progress: Callable[[str], None] | None) -> tuple[list[Paper], list[str]]:
    from ..graph.bundle import fetch_paper_record

    papers: list[Paper] = []
    notes = list(gathered.notes)
    wanted = list(ids) + gathered.to_look_up
    saved, missing = library_papers(store, list(ids)) if (store is not None and ids) else ([], list(ids))
    papers += saved
    for ref in missing + gathered.to_look_up:
        if ref.strip().startswith("#"):
            raise NotFound(f"no saved paper {ref!r} in the library")
        try:
            paper, lookup_notes = await fetch_paper_record(http, ref, progress=progress)
        except (NotFound, FetchFailed) as exc:
            if ref in ids:
                raise
            notes.append(f"{ref}: {exc}")
            continue
        papers.append(paper)
        notes += lookup_notes
    if gathered.to_complete:
        notes += await complete_papers(gathered, http, progress)
    papers += gathered.papers
    if from_library:
        if store is None:
            raise UsageError("--from-library needs the local library, which could not be opened")
        papers += library_papers(store)[0]
    if len(wanted) and not papers and not gathered.papers:
        raise NotFound("none of the given papers could be found")
    return papers, notes
