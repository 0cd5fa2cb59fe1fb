"""Texts already read, kept in the local store beside the response cache: a second ``read`` of
the same paper (another section, another limit) costs no request.

The parsed document is stored (not the HTML or PDF, which the response cache does not keep):
JSON under the provider name ``fulltext``, keyed by the id the reader asked with, for 30 days.
The cache modes are the command's (--refresh, --no-cache, --offline); an entry that no longer
reads as a document is ignored, never trusted.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..core.errors import StoreError
from ..net.http import FetchedResponse
from ..net.response_store import responses_of
from .document import FullText

PROVIDER = "fulltext"
TTL_SECONDS = 30 * 86_400  # a published text does not change; a new version has its own id


class DocumentCache:
    def __init__(self, store: Any, mode: str, warn: Callable[[str], None] | None = None):
        self.store = responses_of(store)  # the documents share the response cache's table
        self.mode = mode
        self.warn = warn or (lambda message: None)

    def get(self, key: str) -> FullText | None:
        if self.store is None or self.mode not in ("normal", "offline"):
            return None
        try:
            found = self.store.get(PROVIDER, key, allow_stale=self.mode == "offline")
        except StoreError as exc:
            self.warn(f"cache disabled: {exc}")
            self.store = None
            return None
        if found is None:
            return None
        try:
            return FullText.from_dict(json.loads(found.content))
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, document: FullText) -> None:
        if self.store is None or self.mode not in ("normal", "refresh"):
            return
        body = json.dumps(document.to_dict(), ensure_ascii=False).encode("utf-8")
        url = document.source.url if document.source else ""
        try:
            self.store.put(PROVIDER, key, FetchedResponse(200, {"content-type": "application/json"}, body, url),
                                 TTL_SECONDS)
        except StoreError as exc:
            self.warn(f"cache disabled: {exc}")
            self.store = None
