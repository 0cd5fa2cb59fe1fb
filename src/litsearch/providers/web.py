"""Tavily Search: optional web results, shown as "Web sources" beside the papers.

Web hits are not papers (no DOI, authors or year), so they are ``WebHit`` values and
never enter the merge or the papers table. The provider is off unless
``TAVILY_API_KEY`` is set.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from ._common import json_object
from ..http import FetchedResponse, ProviderError, ProviderSession
from ..text import plain_text

NAME = "web"

KEY_VARIABLE = "TAVILY_API_KEY"
BASE_URL_VARIABLE = "LITSEARCH_TAVILY_URL"
DEFAULT_BASE_URL = "https://api.tavily.com"
SEARCH_PATH = "/search"
MAX_RESULTS = 20  # Tavily's cap on max_results
SNIPPET_CHARS = 300
_MESSAGE_LIMIT = 160

# Tavily's client errors carry a JSON reason worth showing; 429 and 5xx are left to the
# HTTP layer, which retries them. 432/433 are Tavily's plan and spending limits.
_REJECTION_STATUS = frozenset({400, 401, 403, 404, 405, 422, 432, 433})

# Tavily's "content" is often Markdown lifted from the page. Links and images keep their
# text; headings and emphasis markers go.
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\s*\)")
_MD_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.M)
_MD_EMPHASIS = re.compile(r"\*\*|`+")  # not "__": it would mangle names like __init__
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class WebHit:
    title: str
    url: str
    snippet: str | None
    domain: str
    score: float | None
    rank: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- parsing (pure)

def parse_results(body: bytes | str) -> list[WebHit]:
    """The hits of a Tavily /search answer, ranked 1.. in the order given.

    Results without a usable http(s) URL are dropped (and do not take a rank), as are
    repeats of a URL already listed.
    """
    payload = _load_json_object(body)
    results = payload.get("results")
    if not isinstance(results, list):
        raise ProviderError("unexpected response (no 'results' list)")
    hits: list[WebHit] = []
    seen: set[str] = set()
    for result in results:
        if not isinstance(result, dict):
            continue
        url = _http_url(result.get("url"))
        if url is None or url in seen:
            continue
        seen.add(url)
        domain = _domain(url)
        hits.append(WebHit(
            title=_plain(result.get("title")) or domain,
            url=url,
            snippet=_cut(_plain(result.get("content")), SNIPPET_CHARS),
            domain=domain,
            score=_as_float(result.get("score")),
            rank=len(hits) + 1,
        ))
    return hits


def _load_json_object(body: bytes | str) -> dict[str, Any]:
    payload = json_object(body)
    if "results" not in payload and ("detail" in payload or "error" in payload):
        raise ProviderError(f"API error: {_api_message(payload)}")
    return payload


def _api_message(payload: dict[str, Any]) -> str:
    """The reason from ``{"detail": {"error": …}}``, ``{"detail": …}`` or ``{"error": …}``."""
    detail = payload.get("detail")
    reason: Any = payload.get("error") or detail
    if isinstance(detail, dict):
        reason = detail.get("error") or detail.get("message") or detail
    if isinstance(reason, dict):
        reason = reason.get("message") or json.dumps(reason)
    elif isinstance(reason, list):  # validation errors: a list of {"msg": …}
        reason = "; ".join(str(item.get("msg", item)) if isinstance(item, dict) else str(item)
                           for item in reason)
    text = _SPACE.sub(" ", str(reason or "")).strip()
    return _cut(text, _MESSAGE_LIMIT) or "no message"


def _plain(value: Any) -> str | None:
    """Plain single-line text from HTML or Markdown."""
    if value is None:
        return None
    text = _MD_HEADING.sub("", str(value))  # before plain_text joins the lines
    text = plain_text(text) or ""
    for _ in range(3):  # an image inside a link needs a second pass: [![alt](a)](b)
        text, replaced = _MD_LINK.subn(r"\1", text)
        if not replaced:
            break
    text = _SPACE.sub(" ", _MD_EMPHASIS.sub("", text)).strip()
    return text or None


def _cut(text: str | None, limit: int) -> str | None:
    """At most ``limit`` characters, cut at a word boundary and marked with an ellipsis."""
    if not text or len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.-") + "…"


def _http_url(value: Any) -> str | None:
    """An absolute http(s) URL with a host, or None (javascript:, data:, relative …)."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    # Whitespace or control characters inside a URL would break out of a Markdown link.
    if not url or re.search(r"[\s\x00-\x1f\x7f]", url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return url


def _domain(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- HTTP flow

def tavily_key() -> str | None:
    """The Tavily key from the environment, or None when unset or blank."""
    return os.environ.get(KEY_VARIABLE, "").strip() or None


def base_url(settings: Any = None) -> str:
    """Settings' "web" base URL once config knows it, else ``LITSEARCH_TAVILY_URL``, else Tavily."""
    configured = getattr(settings, "base_urls", {}).get(NAME) if settings is not None else None
    value = configured or os.environ.get(BASE_URL_VARIABLE, "").strip() or DEFAULT_BASE_URL
    if not value.startswith(("http://", "https://")):
        raise ProviderError(f"{BASE_URL_VARIABLE} must be an http(s) URL")
    return value.rstrip("/")


async def search(session: ProviderSession, query: str, limit: int) -> list[WebHit]:
    """One POST to Tavily /search; the key travels only in the Authorization header."""
    key = tavily_key()
    if key is None:
        raise ProviderError(f"web search needs {KEY_VARIABLE}")
    settings = session.http.settings
    body = {
        "query": query,
        "max_results": max(1, min(int(limit), MAX_RESULTS)),
        "search_depth": "basic",
        "include_answer": False,
    }
    try:
        response = await session.post(base_url(settings) + SEARCH_PATH, json=body,
                                      headers={"Authorization": f"Bearer {key}"},
                                      accept_status=_REJECTION_STATUS)
        if response.status in _REJECTION_STATUS:
            raise ProviderError(_rejection_message(response))
        return parse_results(response.content)
    except ProviderError as exc:
        # Settings redact the keys they were built with; the key read here is removed too,
        # in case the environment changed after the settings were read.
        message = settings.redact(str(exc))
        if len(key) >= 4:  # as Settings.redact: a tiny "key" would shred the message
            message = message.replace(key, "[redacted]")
        raise ProviderError(message) from None


def _rejection_message(response: FetchedResponse) -> str:
    try:
        payload = json.loads(response.text)
        reason = _api_message(payload) if isinstance(payload, dict) else None
    except ValueError:
        reason = None
    label = {401: "invalid or missing API key", 432: "plan limit reached",
             433: "spending limit reached"}.get(response.status)
    parts = [f"HTTP {response.status}"] + ([label] if label else [])
    return " ".join(parts) + (f": {reason}" if reason else "")
