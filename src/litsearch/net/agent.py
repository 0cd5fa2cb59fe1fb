"""Who lit-search says it is, and whom it trusts: the User-Agent, the httpx client that sends
it, and the one origin an anonymous request may reach without the public-address check.
(Kept apart from net/http.py, which re-exports them, so that module stays one job's size.)"""

from __future__ import annotations

import httpx

from .. import __version__
from ..core.config import Settings
from .bodies import ACCEPT_ENCODING
from .redirects import same_origin_as_any

DEFAULT_CONTACT = "https://github.com/lit-search/lit-search"
# The User-Agent for hosts that are no configured API (open copies): lit-search, no contact email.
ANONYMOUS_AGENT = f"lit-search/{__version__} (+{DEFAULT_CONTACT})"


def trusted_origin(settings: Settings, named_by: str, url: str) -> str | None:
    """The origin an anonymous request to ``url`` may reach without the public-address check:
    the base URL of the service that named it, when the user set that URL in the environment
    (a local mirror, the test fakes) and ``url`` is on it. Never a built-in default (Zotero
    desktop's loopback address is one), and never another service's origin: a configured
    origin is trusted for its own service's requests, not for what a third party names."""
    base = settings.user_origin(named_by)
    return base if base is not None and same_origin_as_any(httpx.URL(url), [base]) else None


def connections(settings: Settings, transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The httpx client behind an HttpClient: the settings' timeouts, lit-search's User-Agent,
    redirects left to ProviderSession._read (same origin only: redirects.py). httpx's own
    transports unless a test gives one: they honour the environment as curl and pip do
    (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY, SSL_CERT_FILE/DIR), which an explicit
    transport would switch off."""
    timeout = httpx.Timeout(connect=settings.connect_timeout, read=settings.read_timeout,
                            write=settings.read_timeout, pool=settings.connect_timeout)
    return httpx.AsyncClient(timeout=timeout, headers={"User-Agent": user_agent(settings),
                                                       "Accept-Encoding": ACCEPT_ENCODING},
                             follow_redirects=False, transport=transport)


def user_agent(settings: Settings) -> str:
    # A header is ASCII: an internationalised address goes as its mailto: URI spelling.
    contact = f"mailto:{settings.email_uri}" if settings.email else DEFAULT_CONTACT
    return f"lit-search/{__version__} (+{DEFAULT_CONTACT}; {contact})"
