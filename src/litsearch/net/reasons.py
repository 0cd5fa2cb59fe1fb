"""Failures of an HTTP exchange in one line each, for the user: timeouts, broken
connections, broken HTTP, and an API's own error answer ("HTTP 429 rate limited: …")."""

from __future__ import annotations

import json
import re

import httpx

from ..core.config import Settings
from .responses import FetchedResponse


def timeout_reason(exc: httpx.TimeoutException, settings: Settings) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connect timeout after {settings.connect_timeout:g} s"
    if isinstance(exc, httpx.ReadTimeout):
        return f"read timeout after {settings.read_timeout:g} s"
    return "timeout"


# A server that closed the connection early may answer whole next time; one that breaks
# HTTP itself (a 200 KB header line, an illegal chunk) will break it again.
_CLOSED_EARLY = ("peer closed connection", "server disconnected", "connection reset", "incomplete")


def exchange_failure(exc: Exception) -> tuple[str, bool]:
    """(one-line reason, worth retrying) for a failed exchange that is not a timeout."""
    if isinstance(exc, httpx.RemoteProtocolError):
        text = str(exc).lower()
        if any(words in text for words in _CLOSED_EARLY):
            return f"connection failed ({_describe_transport_error(exc)})", True
        if "too long" in text:
            return "the server broke HTTP (a response header over the size limit)", False
        return f"the server broke HTTP ({_first_line(exc)})", False
    if isinstance(exc, httpx.ProxyError):
        return f"the proxy refused the connection ({_first_line(exc)})", False
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.InvalidURL, UnicodeError,
                        ValueError, httpx.CookieConflict)):
        return f"the request could not be sent ({type(exc).__name__}: {_first_line(exc)})", False
    if isinstance(exc, httpx.TransportError):
        return f"connection failed ({_describe_transport_error(exc)})", True
    return f"the exchange failed ({type(exc).__name__}: {_first_line(exc)})", False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:120]


def _describe_transport_error(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.RemoteProtocolError):
        return "connection closed before the full answer arrived"
    # httpx wraps the socket error ("All connection attempts failed"): look for the cause.
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError) or "refused" in str(cause).lower():
            return "connection refused"
        cause = cause.__cause__ or cause.__context__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120]


_URL_IN_TEXT = re.compile(r"\s*\(?\bhttps?://\S+")


def status_reason(response: FetchedResponse) -> str:
    """'HTTP 429 rate limited: Too Many Requests …': the status, then the API's own words,
    on one line: a JSON error body gives its message (not its braces), and links are left
    out (a reason is read in a terminal or a table, where they would only be mangled)."""
    excerpt = ""
    body = response.text.strip()
    if body and "html" not in response.content_type:
        excerpt = _body_message(body)
        excerpt = " ".join(_URL_IN_TEXT.sub("", excerpt).split())[:160].rstrip(" .,;:")
    reason = {429: "rate limited"}.get(response.status, "")
    parts = [f"HTTP {response.status}"] + ([reason] if reason else [])
    return " ".join(parts) + (f": {excerpt}" if excerpt else "")


def _body_message(body: str) -> str:
    """The message of a JSON error body ({"message": …}, {"error": …}, {"detail": …}), else the body."""
    try:
        payload = json.loads(body)
    except ValueError:
        return body
    if isinstance(payload, dict):
        for name in ("message", "error", "detail", "description"):
            value = payload.get(name)
            if isinstance(value, str) and value.strip():
                return value
    return body
