"""Which redirects the HTTP layer follows, and how.

Keys (``x-api-key``, ``Authorization``, ``api_key``) and the contact email (User-Agent,
``mailto``/``email``) are meant for the API they were configured for. A redirect is
followed only within the same origin (scheme, host and port), or from http to https on the
same host; a redirect to any other origin is not followed at all: the provider fails with a
one-line reason naming the host, and nothing was sent there. At most ``MAX_REDIRECTS`` hops.
The one exception is a request to a host that is no configured API (a publisher's open copy,
arXiv's web pages: ``lit-search read``), which carries no key and no contact email: asked with
``other_origins``, its redirects to other hosts are followed, with a User-Agent that names
lit-search only and no Authorization, key or cookie header.
303, and 301/302 after a POST, continue as a GET without the body (as browsers and httpx
do); 307 and 308 repeat the method and the body, which stays with the same origin.
"""

from __future__ import annotations

from typing import Any, Iterable
from urllib.parse import urljoin

import httpx

MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class RedirectRefused(Exception):
    """A redirect the layer does not follow; the message is one line for the user."""


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def shown_origin(url: httpx.URL) -> str:
    """scheme://host[:port] of a URL: no path, query or credentials to leak in a message."""
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host[:100]}{port}"


def allowed(source: httpx.URL, target: httpx.URL) -> bool:
    """Same origin, or the same host moving from http to https on the default ports."""
    if _origin(source) == _origin(target):
        return True
    return (source.scheme, target.scheme) == ("http", "https") and source.host == target.host \
        and _origin(source)[2] == 80 and _origin(target)[2] == 443


def same_origin_as_any(url: httpx.URL, bases: Iterable[str]) -> bool:
    """Whether ``url`` has the origin of one of the base URLs ``bases`` (strings)."""
    wanted = _origin(url)
    for base in bases:
        try:
            if _origin(httpx.URL(base)) == wanted:
                return True
        except (httpx.InvalidURL, ValueError):
            continue
    return False


_CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "cookie", "zotero-api-key"})


def next_request(response: httpx.Response, method: str, kwargs: dict[str, Any], hops: int,
                 anonymous_agent: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """(method, URL, request arguments) of the hop a redirect asks for, or RedirectRefused.
    ``anonymous_agent``: follow other origins too, sending this User-Agent and no credentials."""
    if hops >= MAX_REDIRECTS:
        raise RedirectRefused(f"more than {MAX_REDIRECTS} redirects (a redirect loop?); gave up")
    location = response.headers.get("location", "").strip()
    if not location:
        raise RedirectRefused(f"HTTP {response.status_code} redirect without a Location")
    source = response.request.url
    try:
        target = httpx.URL(urljoin(str(source), location))
    except (httpx.InvalidURL, ValueError):
        raise RedirectRefused(f"HTTP {response.status_code} redirect to an invalid address") from None
    if target.scheme not in ("http", "https") or not target.host:
        raise RedirectRefused(f"HTTP {response.status_code} redirect to a non-HTTP address; not followed")
    other_origin = not allowed(source, target)
    if other_origin and anonymous_agent is None:
        raise RedirectRefused(f"redirected to another host ({shown_origin(target)}); not followed: lit-search "
                              f"sends its keys and contact email only to the API it was configured for")
    # The Location carries the whole query of the next hop: the original parameters are not re-added.
    following = {name: value for name, value in kwargs.items() if name != "params"}
    if other_origin:
        headers = {name: value for name, value in dict(kwargs.get("headers") or {}).items()
                   if name.lower() not in _CREDENTIAL_HEADERS and name.lower() != "user-agent"}
        following["headers"] = {**headers, "User-Agent": anonymous_agent}
    if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
        method = "GET"
        for body in ("json", "data", "content", "files"):
            following.pop(body, None)
    return method, str(target), following
