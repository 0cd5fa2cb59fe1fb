"""Zotero desktop's local connector (``http://127.0.0.1:23119``), the way the browser connector
talks to it: ``GET /connector/ping`` (is Zotero running?), ``POST /connector/getSelectedCollection``
(which collection is selected, and the collections there are), ``POST /connector/import`` with
the papers as RIS (Zotero's RIS translator reads them), and ``POST /connector/updateSession`` to
move what one import saved into the named collection when it is not the selected one.

The connector cannot create collections or look items up. When Zotero 7's local API is switched
on (Settings → Advanced → "Allow other applications on this computer to communicate with
Zotero"), ``GET /api/users/0/items/top`` lists the library, so papers already in it are skipped;
otherwise nothing is skipped and the caller says so. Nothing here is retried: an import that
fails half-way must not be sent twice.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx

from ..core.errors import ProviderError
from ..net.http import FetchedResponse, HttpClient
from .declaration import CONNECTOR as DECLARED
from .listing import PAGE_SIZE, read_listing

CONNECTOR = DECLARED.name  # its base URL and pace (nothing retried): zotero/declaration.py
RIS_TYPE = "application/x-research-info-systems"


@dataclass
class Target:
    """Where an import lands: Zotero's selected library or collection (``name``), and the
    collection ``--collection`` names when Zotero has one (``tree_id`` such as "C12")."""

    selected_name: str
    selected_tree_id: str | None
    library_name: str
    editable: bool
    named_tree_id: str | None = None
    same_name_count: int = 0


@dataclass
class ImportResult:
    """What Zotero says an import saved: the items of its 201 answer (their titles and DOIs:
    what tells which papers they are)."""

    imported: list[tuple[str, str]] = field(default_factory=list)  # (title, DOI) of each item Zotero reports
    moved: bool = False

    @property
    def created(self) -> int:
        return len(self.imported)


class Connector:
    def __init__(self, http: HttpClient):
        self.http = http

    async def _request(self, method: str, path: str, **kwargs: Any) -> FetchedResponse:
        """Every answer whatever its status (the caller judges it); transport failures, a
        redirect loop or a corrupt body as ProviderError. Nothing is followed or retried."""
        session = self.http.session(CONNECTOR)
        try:
            return await session.request(method, session.url(path), follow_redirects=False, retries=0,
                                         accept_status=frozenset(range(300, 600)), **kwargs)
        except httpx.HTTPError as exc:
            raise session.error(f"{type(exc).__name__}: {exc}") from None

    async def ping(self) -> None:
        """ProviderError unless Zotero answers on the connector port."""
        session = self.http.session(CONNECTOR)
        try:
            response = await self._request("GET", "/connector/ping")
        except ProviderError as exc:
            raise ProviderError(f"Zotero desktop is not running: nothing answers at "
                                f"{session.settings.base_urls[CONNECTOR]} ({exc}). Start Zotero, or set "
                                "ZOTERO_API_KEY and ZOTERO_LIBRARY_ID to use the Web API", provider=CONNECTOR) from None
        if response.status != 200 or "zotero" not in response.text.lower():
            raise ProviderError(f"what answers at {session.settings.base_urls[CONNECTOR]} is not Zotero "
                                f"(HTTP {response.status})", provider=CONNECTOR, status=response.status)

    async def target(self, collection: str) -> Target:
        response = await self._post("/connector/getSelectedCollection", json={})
        payload = _json_object(response, "getSelectedCollection")
        selected_id = payload.get("id")
        named = [t for t in payload.get("targets") or [] if isinstance(t, dict) and t.get("name") == collection
                 and isinstance(t.get("id"), str) and t["id"].startswith("C")]
        return Target(selected_name=str(payload.get("name") or payload.get("libraryName") or "My Library"),
                      selected_tree_id=f"C{selected_id}" if isinstance(selected_id, int) else None,
                      library_name=str(payload.get("libraryName") or "My Library"),
                      editable=payload.get("libraryEditable") is not False and payload.get("editable") is not False,
                      named_tree_id=named[0]["id"] if named else None, same_name_count=len(named))

    async def read_library(self, keep: Callable[[dict[str, Any]], None]) -> bool:
        """Hand the local library's top-level items to ``keep`` through Zotero's local API
        (listing.py's bounds); False when that API is off."""
        async def page_at(start: int) -> FetchedResponse | None:
            response = await self._request(
                "GET", "/api/users/0/items/top", headers={"Zotero-API-Version": "3"},
                params={"format": "json", "limit": str(PAGE_SIZE), "start": str(start), "itemType": "-attachment"})
            return response if response.status == 200 else None  # 403: the API is off; 404: a Zotero before 7
        return await read_listing(page_at, keep, "the listing of Zotero desktop's library (its local API)", CONNECTOR)

    async def import_ris(self, ris: str, move_to: str | None) -> ImportResult:
        """Import RIS into the selected collection, then move it to ``move_to`` (a tree id)."""
        session_id = uuid.uuid4().hex
        response = await self._post("/connector/import", params={"session": session_id}, content=ris.encode("utf-8"),
                                    headers={"Content-Type": RIS_TYPE}, ok=frozenset({201}))
        try:
            items = json.loads(response.content) if response.content.strip() else []
        except ValueError:
            items = []
        # Zotero answers with the items it saved: only those count as imported (an answer that is
        # no list of items confirms nothing).
        result = ImportResult([(_text(item.get("title")), _text(item.get("DOI"))) for item in items
                               if isinstance(item, dict)] if isinstance(items, list) else [])
        if move_to:
            await self._post("/connector/updateSession", json={"sessionID": session_id, "target": move_to})
            result.moved = True
        return result

    async def _post(self, path: str, *, ok: frozenset[int] = frozenset({200}), **kwargs: Any) -> FetchedResponse:
        response = await self._request("POST", path, **kwargs)
        if response.status not in ok:
            raise ProviderError(f"Zotero's connector refused {path} (HTTP {response.status}): "
                                f"{_reason(response)}", provider=CONNECTOR, status=response.status)
        return response


def _text(value: Any) -> str:
    return value[:2000] if isinstance(value, str) else ""


def _json_object(response: FetchedResponse, what: str) -> dict[str, Any]:
    try:
        payload = json.loads(response.content)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise ProviderError(f"Zotero's answer to {what} is not a JSON object", provider=CONNECTOR)
    return payload


def _reason(response: FetchedResponse) -> str:
    """Zotero's words: {"error": "SESSION_EXISTS"}, {"libraryEditable": false}, or its text."""
    try:
        payload = json.loads(response.content)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        if payload.get("libraryEditable") is False:
            return "the library selected in Zotero is read-only"
        if isinstance(payload.get("error"), str):
            return payload["error"]
    if response.status == 400:
        return "Zotero found no import translator for the data"
    return " ".join(response.text.split())[:200] or "no reason given"
