"""Tavily's search answers, parsed into ``WebHit`` values (pure functions)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import ProviderError
from ..core.text import plain_text
from ..core.urls import http_url
from ._common import MESSAGE_LIMIT, as_float, json_object

SNIPPET_CHARS = 300

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
        raise ProviderError(f"API error: {api_message(payload)}")
    return payload


def api_message(payload: dict[str, Any]) -> str:
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
