"""The environment checked once, before any work: every variable lit-search reads is valid,
or the command ends with one line naming it and what is wrong (exit 2), never its value.

- A contact email (``LITSEARCH_EMAIL``, ``OPENALEX_EMAIL``, ``UNPAYWALL_EMAIL``) is one
  address: no spaces, line breaks or control characters, one ``@``, a domain that IDNA can
  spell. An internationalised address (``jürgen.müller@uni-köln.de``) is valid: it is sent
  as its ``mailto:`` URI in the User-Agent (UTF-8 percent-encoded, domain in IDNA) and as
  UTF-8 in query parameters.
- An API key is printable ASCII (what the APIs issue); anything else would
  fail in a header or be sent mangled.
- A proxy variable (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``, either case) is an
  ``http``, ``https`` or ``socks5`` URL with a host and a valid port; one without a scheme is
  read as ``http://`` as httpx and curl read it. Its password is a secret like a key: it
  is removed, in every spelling, from everything printed.
- ``LITSEARCH_SHARED_STATE`` (a lab's Redis: net/shared_state.py) is a ``redis://`` or
  ``rediss://`` URL with a host, a valid port and at most a database number for a path. Its
  user name and password are secrets like a key; it is shown as ``scheme://host:port/db``.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping
from urllib.parse import quote, unquote, urlsplit

EMAIL_VARIABLES = ("LITSEARCH_EMAIL", "OPENALEX_EMAIL", "UNPAYWALL_EMAIL")
PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")
SHARED_STATE_VARIABLE = "LITSEARCH_SHARED_STATE"
SHARED_STATE_SCHEMES = ("redis", "rediss")
MAX_EMAIL_CHARS = 254
MAX_KEY_CHARS = 512

_MAILTO_SAFE = ".!$&'*+-=^_`{|}~"  # characters a mailto: local part may keep as they are
_KEY = re.compile(r"[\x20-\x7e]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class EnvironmentProblem(ValueError):
    """One variable that cannot be used; ``variable`` names it, the message says why."""

    def __init__(self, variable: str, problem: str):
        super().__init__(f"{variable} {problem}")
        self.variable = variable


def contact_email(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(the variable that sets the contact email, its value), the first one set."""
    for name in EMAIL_VARIABLES:
        value = (env.get(name) or "").strip()
        if value:
            return name, value
    return None, None


def check_email(variable: str, value: str) -> str:
    """The address, or EnvironmentProblem saying what is wrong with it."""
    if _CONTROL.search(value):
        raise EnvironmentProblem(variable, "contains a line break or control character; give one email address")
    if len(value) > MAX_EMAIL_CHARS:
        raise EnvironmentProblem(variable, f"is {len(value):,} characters long; an email address is at most "
                                           f"{MAX_EMAIL_CHARS}")
    local, at, domain = value.rpartition("@")
    if not at or not local or not domain or any(char.isspace() for char in value) or "@" in domain:
        raise EnvironmentProblem(variable, "is not an email address (expected name@example.org, no spaces)")
    try:
        idna_domain(domain)
    except UnicodeError:
        raise EnvironmentProblem(variable, "has a domain that is not a valid host name") from None
    return value


def idna_domain(domain: str) -> str:
    """The ASCII (IDNA) spelling of a host name: ``uni-köln.de`` -> ``xn--uni-kln-n2a.de``."""
    return domain.encode("idna").decode("ascii")


def email_uri(address: str) -> str:
    """An address as ASCII for a ``mailto:`` URI (RFC 6068): UTF-8 percent-encoded local
    part, IDNA domain."""
    local, _, domain = address.rpartition("@")
    return quote(local, safe=_MAILTO_SAFE) + "@" + idna_domain(domain)


def check_key(variable: str, value: str) -> str:
    if len(value) > MAX_KEY_CHARS or not _KEY.fullmatch(value):
        raise EnvironmentProblem(variable, "holds characters an API key never has (non-ASCII or control "
                                           "characters); copy the key again")
    return value


def proxy_settings(env: Mapping[str, str]) -> dict[str, str]:
    """{variable: value} of the proxy variables set, upper case first (as httpx reads them)."""
    found = {}
    for name in PROXY_VARIABLES:
        for spelling in (name, name.lower()):
            value = (env.get(spelling) or "").strip()
            if value:
                found[spelling] = value
    return found


def check_proxy(variable: str, value: str) -> str:
    """The proxy URL (scheme added when missing), or EnvironmentProblem; never quotes the value."""
    url = value if "://" in value else f"http://{value}"
    problem = "is not a proxy address (expected http://host:port)"
    if _CONTROL.search(url) or any(char.isspace() for char in url):
        raise EnvironmentProblem(variable, problem + ": it contains spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EnvironmentProblem(variable, problem + ": its port is not a number from 1 to 65535") from None
    if parts.scheme.lower() not in PROXY_SCHEMES:
        raise EnvironmentProblem(variable, problem + f": the scheme must be one of {', '.join(PROXY_SCHEMES)}")
    if not parts.hostname:
        raise EnvironmentProblem(variable, problem + ": it names no host")
    if port == 0:
        raise EnvironmentProblem(variable, problem + ": its port is not a number from 1 to 65535")
    return url


def proxy_secrets(env: Mapping[str, str]) -> list[str]:
    """Passwords (and user names) inside proxy URLs, whatever else is wrong with them."""
    found = []
    for value in proxy_settings(env).values():
        url = value if "://" in value else f"http://{value}"
        userinfo = url.split("://", 1)[1].split("/", 1)[0].rpartition("@")[0]
        for part in userinfo.split(":", 1) if userinfo else []:
            if part:
                found += [part, unquote(part)]
    return found


def shown_proxy(value: str) -> str:
    """A proxy URL as it may be printed: without user name or password; '(not a valid proxy
    address)' when it cannot be read."""
    url = value if "://" in value else f"http://{value}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "(set, but not a valid proxy address)"
    if not parts.hostname:
        return "(set, but not a valid proxy address)"
    return f"{parts.scheme}://{parts.hostname}" + (f":{port}" if port else "")


def shared_state_url(env: Mapping[str, str]) -> str | None:
    """The lab's shared state (``LITSEARCH_SHARED_STATE``) as set, or None."""
    return (env.get(SHARED_STATE_VARIABLE) or "").strip() or None


def check_shared_state(variable: str, value: str) -> str:
    """The Redis URL, or EnvironmentProblem; never quotes the value (it may hold a password)."""
    problem = "is not a Redis address (expected redis://host:6379/0, or rediss:// for TLS)"
    if _CONTROL.search(value) or any(char.isspace() for char in value):
        raise EnvironmentProblem(variable, problem + ": it contains spaces or control characters")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise EnvironmentProblem(variable, problem + ": its port is not a number from 1 to 65535") from None
    if parts.scheme.lower() not in SHARED_STATE_SCHEMES:
        raise EnvironmentProblem(variable, problem + ": the scheme must be redis or rediss")
    if not parts.hostname:
        raise EnvironmentProblem(variable, problem + ": it names no host")
    if port == 0:
        raise EnvironmentProblem(variable, problem + ": its port is not a number from 1 to 65535")
    if parts.path.strip("/") and not parts.path.strip("/").isdigit():
        raise EnvironmentProblem(variable, problem + ": its path can only be a database number")
    return value


def shared_state_secrets(env: Mapping[str, str]) -> list[str]:
    """The user name and password inside the shared state's URL, whatever else is wrong with it."""
    value = shared_state_url(env)
    if not value:
        return []
    userinfo = value.split("://", 1)[-1].split("/", 1)[0].rpartition("@")[0]
    return [form for part in (userinfo.split(":", 1) if userinfo else []) if part for form in (part, unquote(part))]


def shown_shared_state(value: str) -> str:
    """The shared state's URL as it may be printed: scheme, host, port and database, nothing else."""
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return "(set, but not a valid Redis address)"
    if not parts.hostname:
        return "(set, but not a valid Redis address)"
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    database = parts.path.strip("/") or "0"
    return f"{parts.scheme.lower()}://{host}:{port or 6379}/{database}"


def problems(env: Mapping[str, str], key_variables: Iterable[str]) -> list[EnvironmentProblem]:
    """Every problem with the email, the keys (``key_variables``: the ones the services declare),
    proxies and the shared state in ``env`` (numbers and URLs are checked by ``Settings.from_env``
    itself)."""
    found: list[EnvironmentProblem] = []
    checks = [(name, value, check_email) for name in EMAIL_VARIABLES if (value := (env.get(name) or "").strip())]
    checks += [(name, value, check_key) for name in key_variables if (value := (env.get(name) or "").strip())]
    checks += [(name, value, check_proxy) for name, value in proxy_settings(env).items()]
    if (shared := shared_state_url(env)) is not None:
        checks.append((SHARED_STATE_VARIABLE, shared, check_shared_state))
    for name, value, check in checks:
        try:
            check(name, value)
        except EnvironmentProblem as problem:
            found.append(problem)
    return found


def excerpt(value: str, limit: int = 60) -> str:
    """A bounded, quoted excerpt of a value that is not secret, for a message."""
    shown = value if len(value) <= limit else value[: limit - 1] + "…"
    return repr(shown)
