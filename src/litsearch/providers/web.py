"""Tavily Search: optional web results, shown as "Web sources" beside the papers.

Web hits are not papers (no DOI, authors or year), so they are ``WebHit`` values and
never enter the merge or the papers table. The provider is off unless
``TAVILY_API_KEY`` is set.
"""

from __future__ import annotations

import json

from ..core.errors import ProviderError
from ..net.http import FetchedResponse, ProviderSession
from .base import Provider, ProviderAnswer, SearchRequest
from .web_declaration import SERVICE
from .web_parse import SNIPPET_CHARS, WebHit, api_message, parse_results  # noqa: F401 (this provider's surface)

NAME = SERVICE.name
KEY_VARIABLE = SERVICE.key.variable
SEARCH_PATH = "/search"
MAX_RESULTS = 20  # Tavily's cap on max_results
HITS_SHOWN = 10  # web hits asked per search: a short list beside the papers

# Tavily's client errors carry a JSON reason worth showing; 429 and 5xx are left to the
# HTTP layer, which retries them. 432/433 are Tavily's plan and spending limits.
_REJECTION_STATUS = frozenset({400, 401, 403, 404, 405, 422, 432, 433})


# ---------------------------------------------------------------- HTTP flow

async def search(session: ProviderSession, query: str, limit: int) -> ProviderAnswer:
    """One POST to Tavily /search; the key travels only in the Authorization header."""
    if session.settings.key(NAME) is None:
        raise ProviderError(f"web search needs {KEY_VARIABLE}", provider=NAME)
    body = {
        "query": query[:SERVICE.max_query_chars],
        "max_results": max(1, min(int(limit), MAX_RESULTS)),
        "search_depth": "basic",
        "include_answer": False,
    }
    response = await session.post(session.url(SEARCH_PATH), json=body,
                                  headers=session.key_headers(),
                                  accept_status=_REJECTION_STATUS)
    if response.status in _REJECTION_STATUS:
        raise session.error(_rejection_message(response), status=response.status)
    return ProviderAnswer(parse_results(response.content))


def _rejection_message(response: FetchedResponse) -> str:
    try:
        payload = json.loads(response.text)
        reason = api_message(payload) if isinstance(payload, dict) else None
    except ValueError:
        reason = None
    label = {401: "invalid or missing API key", 432: "plan limit reached",
             433: "spending limit reached"}.get(response.status)
    parts = [f"HTTP {response.status}"] + ([label] if label else [])
    return " ".join(parts) + (f": {reason}" if reason else "")


# ---------------------------------------------------------------- the provider

class WebSearch(Provider):
    """Tavily: web pages, listed apart from the papers (never merged or ranked with them)."""

    service = SERVICE

    def probe_skipped(self, settings: object) -> str:
        return "not checked: every Tavily request spends a credit"

    async def search(self, session: ProviderSession, request: SearchRequest) -> ProviderAnswer:
        return await search(session, request.query, min(request.limit, HITS_SHOWN))


PROVIDER = WebSearch()
