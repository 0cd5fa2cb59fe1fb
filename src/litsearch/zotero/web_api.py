"""The Zotero Web API v3 through lit-search's one HTTP layer (pacing, retries with Retry-After,
time budget, size cap, redaction): list and create collections, list a library's items, create
items in writes of at most 50.

Every request sends ``Zotero-API-Version: 3`` and the key as ``Authorization: Bearer`` (a header
httpx drops if a request were ever redirected elsewhere; redirects are not followed anyway).
Writes carry a fresh ``Zotero-Write-Token``, so a write the HTTP layer retries after a lost
answer is not stored twice: Zotero answers the repeat with 412, which ``AlreadyWritten`` reports.
A ``Backoff`` header on any answer pauses the next request that long, within that request's
time budget: a longer pause (a day, ``inf``) fails the request at once with the reason. Listings
are read within bounds, keeping only what the caller needs (listing.py).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import httpx

from ..core.errors import ProviderError, UsageError
from ..net.http import FetchedResponse, HttpClient, parse_retry_after
from .declaration import WEB_API
from .listing import PAGE_SIZE, read_listing

ZOTERO = WEB_API.name  # its base URL, key and pace: zotero/declaration.py
MAX_ITEMS_PER_WRITE = 50  # Zotero refuses more (413)
_WRITE_STATUSES = frozenset({400, 409, 412, 413})


@dataclass(frozen=True)
class ZoteroTarget:
    """Which library to write to, and the key that may."""

    library_type: str  # "user" or "group"
    library_id: str
    api_key: str = field(repr=False)

    @property
    def prefix(self) -> str:
        return f"/{'users' if self.library_type == 'user' else 'groups'}/{self.library_id}"

    @property
    def label(self) -> str:
        return f"{self.library_type} library {self.library_id}"


@dataclass
class WriteReply:
    """Zotero's answer to a write, by the index of each object in the request."""

    created: dict[int, str] = field(default_factory=dict)  # index -> new key
    unchanged: dict[int, str] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)  # index -> "code: message"


class AlreadyWritten(ProviderError):
    """412 on a write: this write token was used, so the objects are already stored."""


class BatchRefused(ProviderError):
    """400/409/413: the whole write was refused; the message says why."""


def parse_write_reply(body: bytes | str, count: int) -> WriteReply:
    """The four maps of a write answer (``successful``, ``success``, ``unchanged``, ``failed``)."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise ProviderError("Zotero's answer to a write is not JSON") from None
    if not isinstance(payload, dict):
        raise ProviderError("Zotero's answer to a write is not an object")
    reply = WriteReply()
    for name in ("success", "successful"):
        for index, value in _by_index(payload.get(name), count).items():
            key = value.get("key") if isinstance(value, dict) else value
            if isinstance(key, str) and key:
                reply.created[index] = key
    for index, value in _by_index(payload.get("unchanged"), count).items():
        if isinstance(value, str):
            reply.unchanged[index] = value
    for index, value in _by_index(payload.get("failed"), count).items():
        if isinstance(value, dict):
            reply.failed[index] = f"{value.get('code', '?')}: {' '.join(str(value.get('message', '')).split())[:200]}"
    for index in range(count):  # an object the answer does not mention was not stored
        if index not in reply.created and index not in reply.unchanged and index not in reply.failed:
            reply.failed[index] = "Zotero's answer does not mention this item"
    return reply


def _by_index(value: Any, count: int) -> dict[int, Any]:
    if not isinstance(value, dict):
        return {}
    found = {}
    for key, item in value.items():
        if isinstance(key, str) and key.isdigit() and int(key) < count:
            found[int(key)] = item
    return found


class WebApi:
    def __init__(self, http: HttpClient, target: ZoteroTarget):
        self.http = http
        self.target = target
        self.library_version: int | None = None
        self._resume_at = 0.0  # clock time before which a Backoff header asks us to wait

    async def find_collection(self, name: str) -> str | None:
        """The key of the collection called ``name`` (a top-level one first), or None."""
        matches: list[dict[str, Any]] = []

        def keep(entry: dict[str, Any]) -> None:
            if entry.get("name") == name:
                matches.append({"key": entry["key"], "top": not entry.get("parentCollection")})
        await self._listing("/collections", {}, keep, "collections")
        matches.sort(key=lambda found: not found["top"])
        return matches[0]["key"] if matches else None

    async def create_collection(self, name: str) -> str:
        try:
            response = await self._send("POST", "/collections", json=[{"name": name}], write=True)
        except AlreadyWritten:  # an earlier attempt of this very write was stored
            key = await self.find_collection(name)
            if key:
                return key
            raise
        reply = parse_write_reply(response.content, 1)
        if 0 not in reply.created:
            raise ProviderError(f"Zotero did not create the collection {name!r}: {reply.failed.get(0, 'no reason')}")
        return reply.created[0]

    async def read_items(self, keep: Callable[[dict[str, Any]], None], since: int | None = None) -> None:
        """Hand every top-level item (notes and attachments left out), or those changed ``since``,
        to ``keep``."""
        params: dict[str, Any] = {"itemType": "-attachment"}
        if since is not None:
            params["since"] = str(since)
        await self._listing("/items/top", params, keep, "items")

    async def write_items(self, objects: list[dict[str, Any]]) -> WriteReply:
        """Create (or, with key and version, update) at most 50 objects in one write."""
        if len(objects) > MAX_ITEMS_PER_WRITE:
            raise ValueError(f"at most {MAX_ITEMS_PER_WRITE} items per write")
        response = await self._send("POST", "/items", json=objects, write=True)
        return parse_write_reply(response.content, len(objects))

    # ------------------------------------------------------------ requests

    async def _listing(self, path: str, params: Mapping[str, Any], keep: Callable[[dict[str, Any]], None],
                       what: str) -> None:
        async def page_at(start: int) -> FetchedResponse:
            return await self._send("GET", path, params={**params, "format": "json", "limit": str(PAGE_SIZE),
                                                         "start": str(start)})
        await read_listing(page_at, keep, f"the listing of the {what} of the Zotero {self.target.label}", ZOTERO)

    async def _send(self, method: str, path: str, *, params: Any = None, json: Any = None,
                    write: bool = False) -> FetchedResponse:
        session = self.http.session(ZOTERO)
        wait = self._resume_at - self.http.clock()
        if wait > 0:
            await session.wait_as_asked(wait, "Backoff")
        headers = {"Zotero-API-Version": "3", "Authorization": f"Bearer {self.target.api_key}"}
        if write:
            headers["Zotero-Write-Token"] = secrets.token_hex(16)
        try:
            response = await session.request(method, session.url(self.target.prefix + path), params=params,
                                             json=json, headers=headers, follow_redirects=False,
                                             accept_status=frozenset({401, 403, 404}) | (
                                                 _WRITE_STATUSES if write else frozenset()))
        except httpx.HTTPError as exc:  # a corrupt compressed body: a failure of Zotero's answer, not a crash
            raise session.error(f"{type(exc).__name__}: {exc}") from None
        backoff = parse_retry_after(response.headers.get("backoff"))
        if backoff:  # the clock's time plus infinity is infinity: the next request fails at once
            self._resume_at = max(self._resume_at, self.http.clock() + backoff)
        version = response.headers.get("last-modified-version", "")
        if version.isdigit():
            self.library_version = int(version)
        self._check(response, session)
        return response

    def _check(self, response: FetchedResponse, session: Any) -> None:
        status = response.status
        if status in (401, 403):
            raise session.error(f"HTTP {status}: Zotero refused the key for {self.target.label} (check that "
                                "ZOTERO_API_KEY may write to this library and ZOTERO_LIBRARY_ID/TYPE name it)",
                                status=status)
        if status == 404:
            raise UsageError(f"Zotero has no {self.target.label} (HTTP 404): check ZOTERO_LIBRARY_ID and "
                             "ZOTERO_LIBRARY_TYPE")
        reason = " ".join(response.text.split())[:200]
        if status == 412:
            raise AlreadyWritten(f"HTTP 412: {reason or 'write token already used'}", provider=ZOTERO, status=412)
        if status in (400, 409, 413):
            what = {409: "the library is locked", 413: "too many items in one write"}.get(status, "refused")
            raise BatchRefused(f"HTTP {status} {what}" + (f": {reason}" if reason else ""), provider=ZOTERO,
                               status=status)
