"""A fake Zotero: the Web API v3 (one user library) and the desktop connector, in memory, with
the limits and error answers the real ones have (ZD write_requests.md, basics.md; zotero/zotero
server_connector.js), so `lit-search zotero push` can be tested end to end.

Web API (under ``/api``): ``Authorization: Bearer KEY`` or ``Zotero-API-Key`` (else 403),
``Zotero-API-Version: 3``; collections and items paged (``limit`` ≤ 100, ``start``,
``Total-Results``, ``Last-Modified-Version``, ``since``); writes of at most 50 objects (else 413)
with a ``Zotero-Write-Token`` (a token used again: 412) or ``If-Unmodified-Since-Version``
(stale: 412); each item checked against Zotero's schema (``../shared`` schema.json, else
lit-search's own table) and failed with code 400 and Zotero's message when a field does not
belong to its type; updates by ``key`` + ``version`` (stale: 412 for that object).
``old_schema=True`` refuses the PMID and PMCID fields (a server before they existed) with a 400
for the whole write, as Zotero does for an invalid field. ``script`` queues answers (429 with
Retry-After, a Backoff header, 5xx) in front of the normal ones.

Connector (under ``/connector``): ping, getSelectedCollection (selected: "Inbox"; targets "Inbox"
and "Review"), import (RIS parsed with rispy; a body no translator reads: 400; a session id used
twice: 409), updateSession (moves the session's items); the local API ``/local/api/users/0/items``
answers 403 unless ``local_api`` is on.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from conftest import FIXTURES
from fake_server import Answer, FakeServer, SeenRequest

KEY = "fakeZoteroKey0123456789abcdefAB"
USER = "475425"
KEY_CHARS = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
SCHEMA = FIXTURES / "zotero" / "zoteroschema__schema.json"


def _schema() -> dict[str, Any] | None:
    return json.loads(SCHEMA.read_text(encoding="utf-8")) if SCHEMA.exists() else None


@dataclass
class FakeZotero:
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    version: int = 10
    tokens: set[str] = field(default_factory=set)
    writes: list[int] = field(default_factory=list)  # objects per write, in order
    old_schema: bool = False
    local_api: bool = False
    selected: str = "C5"
    connector_collections: dict[str, str] = field(default_factory=lambda: {"C5": "Inbox", "C7": "Review"})
    sessions: dict[str, list[str]] = field(default_factory=dict)  # connector session -> item keys
    imported_ris: list[str] = field(default_factory=list)
    queued: list[Answer] = field(default_factory=list)
    backoff: str | None = None
    lose_answers: int = 0  # writes stored, then answered 503 (an answer lost on the way)
    refuse: dict[str, tuple[int, str]] = field(default_factory=dict)  # title -> (code, message) for "failed"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.schema = _schema()

    # ------------------------------------------------------------ wiring

    def install(self, server: FakeServer) -> dict[str, str]:
        server.route("/api/", self.web_api)
        server.route("/connector/", self.connector)
        server.route("/local/", self.local_api_route)
        return {"LITSEARCH_ZOTERO_URL": server.url + "/api", "LITSEARCH_ZOTERO_CONNECTOR_URL": server.url + "/local",
                "ZOTERO_API_KEY": KEY, "ZOTERO_LIBRARY_ID": USER, "ZOTERO_LIBRARY_TYPE": "user"}

    def new_key(self) -> str:
        while True:
            key = "".join(secrets.choice(KEY_CHARS) for _ in range(8))
            if key not in self.items and key not in self.collections:
                return key

    def in_collection(self, key: str) -> list[dict[str, Any]]:
        return [item for item in self.items.values() if key in item["collections"]]

    # ------------------------------------------------------------ Web API

    def web_api(self, request: SeenRequest) -> Answer:
        with self.lock:
            if self.queued:
                return self.queued.pop(0)
            answer = self._web_api(request)
        if self.backoff:
            answer.headers = {**answer.headers, "Backoff": self.backoff}
        return answer

    def _web_api(self, request: SeenRequest) -> Answer:
        auth = request.headers.get("authorization", "")
        if auth != f"Bearer {KEY}" and request.headers.get("zotero-api-key") != KEY:
            return Answer(403, "Forbidden", content_type="text/plain")
        if request.headers.get("zotero-api-version") != "3":
            return Answer(400, "Zotero-API-Version 3 expected by this fake", content_type="text/plain")
        path = request.path[len("/api"):]
        prefix = f"/users/{USER}"
        if not path.startswith(prefix):
            return Answer(404, "Not found", content_type="text/plain")
        resource = path[len(prefix):]
        if request.method == "GET" and resource in ("/collections", "/items/top", "/items"):
            return self._list(request, resource)
        if request.method == "POST" and resource in ("/collections", "/items"):
            return self._write(request, resource)
        return Answer(405, "Method not allowed", content_type="text/plain")

    def _list(self, request: SeenRequest, resource: str) -> Answer:
        limit = min(int(request.param("limit") or 25), 100)
        start = int(request.param("start") or 0)
        since = int(request.param("since") or -1)
        objects = list((self.collections if resource == "/collections" else self.items).values())
        objects = [o for o in objects if o["version"] > since]
        page = objects[start:start + limit]
        body = [{"key": o["key"], "version": o["version"], "library": {"type": "user", "id": int(USER)},
                 "data": dict(o)} for o in page]
        return Answer(200, json.dumps(body), headers={"Total-Results": str(len(objects)),
                                                     "Last-Modified-Version": str(self.version)})

    def _write(self, request: SeenRequest, resource: str) -> Answer:
        token = request.headers.get("zotero-write-token")
        since = request.headers.get("if-unmodified-since-version")
        if token:
            if token in self.tokens:
                return Answer(412, "Write token already used", content_type="text/plain")
        elif since is None:
            return Answer(428, "If-Unmodified-Since-Version or Zotero-Write-Token not provided",
                          content_type="text/plain")
        elif int(since) != self.version:
            return Answer(412, f"Library has been modified since specified version (expected {since}, found "
                               f"{self.version})", content_type="text/plain")
        try:
            objects = json.loads(request.body)
        except ValueError:
            return Answer(400, "Invalid JSON", content_type="text/plain")
        if not isinstance(objects, list):
            return Answer(400, "Uploaded data must be a JSON array", content_type="text/plain")
        if len(objects) > 50:
            return Answer(413, "Only 50 objects can be written in one request", content_type="text/plain")
        if self.old_schema and any(isinstance(o, dict) and ("PMID" in o or "PMCID" in o) for o in objects):
            return Answer(400, "'PMID' is not a valid field for type 'journalArticle'", content_type="text/plain")
        reply: dict[str, dict[str, Any]] = {"successful": {}, "success": {}, "unchanged": {}, "failed": {}}
        self.writes.append(len(objects))
        written = False
        for index, obj in enumerate(objects):
            error = self._store(resource, obj)
            if isinstance(error, tuple):
                reply["failed"][str(index)] = {"key": obj.get("key", ""), "code": error[0], "message": error[1]}
            else:
                written = True
                reply["success"][str(index)] = error
                reply["successful"][str(index)] = {"key": error, "version": self.version,
                                                   "data": (self.items if resource == "/items" else
                                                            self.collections)[error]}
        if token:
            self.tokens.add(token)
        if self.lose_answers:
            self.lose_answers -= 1
            return Answer(503, "Service Unavailable", content_type="text/plain")
        return Answer(200, json.dumps(reply), headers={"Last-Modified-Version": str(self.version)} if written else {})

    def _store(self, resource: str, obj: Any) -> str | tuple[int, str]:
        if not isinstance(obj, dict):
            return 400, "Object is not a JSON object"
        if resource == "/collections":
            if not isinstance(obj.get("name"), str) or not obj["name"]:
                return 400, "Collection name cannot be empty"
            self.version += 1
            key = self.new_key()
            self.collections[key] = {"key": key, "version": self.version, "name": obj["name"],
                                     "parentCollection": obj.get("parentCollection", False)}
            return key
        if "key" in obj:  # an update of an existing item, PATCH semantics
            existing = self.items.get(obj["key"])
            if existing is None:
                return 404, f"Item {obj['key']} not found"
            if obj.get("version") != existing["version"]:
                return 412, f"Item has been modified since specified version (expected {obj.get('version')}, " \
                            f"found {existing['version']})"
            self.version += 1
            existing.update({k: v for k, v in obj.items() if k not in ("key", "version")}, version=self.version)
            return obj["key"]
        problems = self._problems(obj)
        if problems:
            return 400, problems[0]
        if obj.get("title") in self.refuse:
            return self.refuse[obj["title"]]
        self.version += 1
        key = self.new_key()
        self.items[key] = {**obj, "key": key, "version": self.version}
        return key

    def _problems(self, item: dict[str, Any]) -> list[str]:
        from litsearch.zotero.schema import check_item

        problems = check_item(item, self.schema)
        missing_collections = [c for c in item.get("collections", []) if c not in self.collections]
        if missing_collections:
            problems.append(f"Collection {missing_collections[0]} not found")
        return problems

    # ------------------------------------------------------------ connector

    def connector(self, request: SeenRequest) -> Answer:
        return Answer(404, "No endpoint found", content_type="text/plain")

    def local_api_route(self, request: SeenRequest) -> Answer:
        """Everything the desktop app serves on its port (mounted under /local)."""
        path = request.path[len("/local"):]
        with self.lock:
            if path == "/connector/ping":
                return Answer(200, "<!DOCTYPE html><html><body>Zotero is running</body></html>",
                              content_type="text/html")
            if path == "/connector/getSelectedCollection" and request.method == "POST":
                targets = [{"id": "L1", "name": "My Library", "level": 0}] + [
                    {"id": tree_id, "name": name, "level": 1} for tree_id, name in self.connector_collections.items()]
                return Answer(200, json.dumps({"libraryID": 1, "libraryName": "My Library", "libraryEditable": True,
                                               "filesEditable": True, "editable": True,
                                               "id": int(self.selected[1:]), "name":
                                                   self.connector_collections[self.selected], "targets": targets}))
            if path == "/connector/import" and request.method == "POST":
                return self._import(request)
            if path == "/connector/updateSession" and request.method == "POST":
                data = json.loads(request.body or b"{}")
                if data.get("sessionID") not in self.sessions:
                    return Answer(400, json.dumps({"error": "SESSION_NOT_FOUND"}))
                if data.get("target") not in self.connector_collections:
                    return Answer(400, json.dumps({"error": "COLLECTION_NOT_FOUND"}))
                for key in self.sessions[data["sessionID"]]:
                    self.items[key]["collections"] = [data["target"]]
                return Answer(200, "{}")
            if path.startswith("/api/users/0/items"):
                if not self.local_api:
                    return Answer(403, "Local API is not enabled", content_type="text/plain")
                return self._list(request, "/items")
        return Answer(404, "No endpoint found", content_type="text/plain")

    def _import(self, request: SeenRequest) -> Answer:
        import rispy

        session = parse_qs(request.raw_query).get("session", [None])[0]
        if session in self.sessions:
            return Answer(409, json.dumps({"error": "SESSION_EXISTS"}))
        text = request.body.decode("utf-8")
        try:
            records = rispy.loads(text)
        except Exception:  # rispy refuses what is not RIS: Zotero finds no translator
            return Answer(400, "", content_type="text/plain")
        if not records:
            return Answer(400, "", content_type="text/plain")
        self.imported_ris.append(text)
        keys, answer = [], []
        for record in records:
            self.version += 1
            key = self.new_key()
            self.items[key] = {"key": key, "version": self.version, "itemType": "journalArticle",
                               "title": record.get("title") or record.get("primary_title", ""),
                               "DOI": record.get("doi", ""), "date": str(record.get("year", "")),
                               "collections": [self.selected], "ris": record}
            keys.append(key)
            answer.append({"id": key, "title": self.items[key]["title"], "itemType": "journalArticle"})
        self.sessions[session] = keys
        return Answer(201, json.dumps(answer))
