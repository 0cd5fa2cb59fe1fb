"""Tavily Search: optional web results, shown as "Web sources" beside the papers.

Web hits are not papers (no DOI, authors or year), so they are ``WebHit`` values and
never enter the merge or the papers table. The provider is off unless
``TAVILY_API_KEY`` is set.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import ProviderError
from ..core.text import plain_text
from ..core.urls import http_url
from ..net.http import FetchedResponse, ProviderSession
from ..net.pacing import PacePolicy
from ._common import MESSAGE_LIMIT, as_float, json_object
from .base import Capabilities, Provider, ProviderAnswer, SearchRequest

NAME = "web"

KEY_VARIABLE = "TAVILY_API_KEY"
SEARCH_PATH = "/search"
MAX_RESULTS = 20  # Tavily's cap on max_results
HITS_SHOWN = 10  # web hits asked per search: a short list beside the papers
MAX_QUERY_CHARS = 400  # Tavily refuses longer queries
SNIPPET_CHARS = 300

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
        url = http_url(result.get("url"))
        if url is None or url in seen:
            continue
        seen.add(url)
        domain = _domain(url)
        hits.append(WebHit(
            title=_plain(result.get("title")) or domain,
            url=url,
            snippet=_cut(_plain(result.get("content")), SNIPPET_CHARS),
            domain=domain,
            score=as_float(result.get("score")),
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
    return _cut(text, MESSAGE_LIMIT) or "no message"


def _plain(value: Any) -> str | None:
    """Plain single-line text from HTML or Markdown."""
    if not isinstance(value, str):
        return None
    text = _MD_HEADING.sub("", value)  # before plain_text joins the lines
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


def _domain(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


# ---------------------------------------------------------------- HTTP flow

async def search(session: ProviderSession, query: str, limit: int) -> ProviderAnswer:
    """One POST to Tavily /search; the key travels only in the Authorization header."""
    key = session.settings.tavily_api_key
    if key is None:
        raise ProviderError(f"web search needs {KEY_VARIABLE}", provider=NAME)
    body = {
        "query": query[:MAX_QUERY_CHARS],
        "max_results": max(1, min(int(limit), MAX_RESULTS)),
        "search_depth": "basic",
        "include_answer": False,
    }
    response = await session.post(session.url(SEARCH_PATH), json=body,
                                  headers={"Authorization": f"Bearer {key}"},
                                  accept_status=_REJECTION_STATUS)
    if response.status in _REJECTION_STATUS:
        raise session.error(_rejection_message(response), status=response.status)
    return ProviderAnswer(parse_results(response.content))


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


# ---------------------------------------------------------------- the provider

class WebSearch(Provider):
    """Tavily: web pages, listed apart from the papers (never merged or ranked with them)."""

    name = NAME
    label = "web search (Tavily)"
    key_variable = KEY_VARIABLE
    capabilities = Capabilities(combines_variants=False, native_filters=False, returns="web")
    pace = PacePolicy(min_interval=0.2, max_in_flight=2)
    max_query_chars = MAX_QUERY_CHARS
    used_by_default = False
    limits = "optional (--providers ...,web); needs TAVILY_API_KEY; every search spends a credit of your plan"
    key_benefit = "set TAVILY_API_KEY to add web sources (--providers ...,web)"

    def probe_skipped(self, settings: object) -> str:
        return "not checked: every Tavily request spends a credit"

    async def search(self, session: ProviderSession, request: SearchRequest) -> ProviderAnswer:
        return await search(session, request.query, min(request.limit, HITS_SHOWN))


PROVIDER = WebSearch()
