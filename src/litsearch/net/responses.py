"""A response as the HTTP layer hands it on (and the cache stores it): status, headers, the
whole body, the URL it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass
class FetchedResponse:
    status: int
    headers: Mapping[str, str]
    content: bytes
    url: str
    # HttpClient's clock when the request was sent (None: from the cache); keyword-only, so a
    # subclass (the store's CachedResponse) can still add fields without defaults.
    sent_at: float | None = field(default=None, kw_only=True)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").lower()
