"""Settings from the environment: base URLs, keys, contact email, timeouts, the data folder.

Everything a deployment or a test may change lives here, read once per run. Which variables
exist (each service's base URL override and key) is not written here: each service declares
its own (core/services.py), and the settings are built from the declarations their caller
passes (the registry, providers/registry.py, through runtime/settings.py).
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from urllib.parse import quote, quote_plus

from . import environment
from .services import PacePolicy, Service

CACHE_SIZE_VARIABLE = "LITSEARCH_CACHE_MAX_MB"
DEFAULT_CACHE_MB = 200.0
EnvironmentProblem = environment.EnvironmentProblem


def key_variables(services: Mapping[str, Service]) -> tuple[str, ...]:
    """The environment variables that hold API keys, as the services declare them."""
    return tuple(dict.fromkeys(found.key.variable for found in services.values() if found.key))


def default_base_urls(services: Mapping[str, Service]) -> dict[str, str]:
    return {name: found.base_url for name, found in services.items() if found.base_url}


def _float_env(env: Mapping[str, str], name: str, default: float, unit: str = "seconds") -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise EnvironmentProblem(name, f"must be a number of {unit}, not {environment.excerpt(raw)}") from None
    if not value > 0 or value == float("inf"):
        raise EnvironmentProblem(name, f"must be a positive number of {unit}, not {environment.excerpt(raw)}")
    return value


def environment_secrets(env: Mapping[str, str], services: Mapping[str, Service]) -> tuple[str, ...]:
    """Every secret the environment holds (keys, proxy passwords), valid or not: what
    ``redact`` removes even when the settings themselves cannot be built."""
    values = [value.strip() for name in key_variables(services) if (value := env.get(name, "")) and value.strip()]
    return tuple(dict.fromkeys(values + environment.proxy_secrets(env) + environment.shared_state_secrets(env)))


@dataclass(frozen=True)
class Settings:
    base_urls: dict[str, str]
    # The API keys set, by variable (only the services' declared key variables are read).
    keys: Mapping[str, str] = field(default_factory=dict, repr=False)
    email: str | None = None
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    # Overall wall-clock allowance for one provider in one search (all its requests,
    # retries and waits), so one slow provider cannot stall the whole search.
    provider_budget: float = 30.0
    # First retry backoff, doubled on each further retry (when no Retry-After is given).
    backoff_seconds: float = 1.0
    max_response_bytes: int = 10 * 1024 * 1024
    # The response cache's size cap; the oldest answers go first (net/response_store.py).
    cache_max_bytes: int = int(DEFAULT_CACHE_MB * 1_000_000)
    secrets: tuple[str, ...] = field(default=(), repr=False)
    # The lab's Redis (LITSEARCH_SHARED_STATE, net/shared_state.py): pace, 429s, budgets and the
    # response cache shared across machines; None keeps them on this machine.
    shared_state: str | None = field(default=None, repr=False)
    # Every service's declaration (core/services.py): its pace, key, email use and cache lifetime.
    # Given by the caller (the registry's, through runtime/settings.py); none: no service is known.
    services: Mapping[str, Service] = field(default_factory=dict, repr=False, compare=False)
    # The services whose base URL the user set (its LITSEARCH_*_URL present in the environment):
    # only their origins are trusted as the user's own hosts (user_origin), never a built-in default.
    user_set_urls: frozenset[str] = frozenset()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, services: Mapping[str, Service]) -> "Settings":
        """Settings from ``env`` for the declared ``services``; EnvironmentProblem (a ValueError
        naming the variable, never quoting a secret) for the first value that cannot be used
        (core/environment.py)."""
        env = os.environ if env is None else env
        found = environment.problems(env, key_variables(services))
        if found:
            raise found[0]
        base_urls = {}
        user_set = set()
        for name, declared in services.items():
            if declared.url_variable and declared.base_url:
                given = env.get(declared.url_variable, "").strip()
                base_urls[name] = _base_url(declared.url_variable, given or declared.base_url)
                if given:
                    user_set.add(name)
        keys = {variable: value for variable in key_variables(services)
                if (value := (env.get(variable) or "").strip())}
        email = environment.contact_email(env)[1]
        secrets = environment_secrets(env, services)
        return cls(
            base_urls=base_urls,
            keys=keys,
            email=email,
            connect_timeout=_float_env(env, "LITSEARCH_CONNECT_TIMEOUT", 5.0),
            read_timeout=_float_env(env, "LITSEARCH_READ_TIMEOUT", 15.0),
            provider_budget=_float_env(env, "LITSEARCH_PROVIDER_BUDGET", 30.0),
            backoff_seconds=_float_env(env, "LITSEARCH_BACKOFF", 1.0),
            cache_max_bytes=int(_float_env(env, CACHE_SIZE_VARIABLE, DEFAULT_CACHE_MB, unit="megabytes") * 1_000_000),
            secrets=secrets,
            shared_state=environment.shared_state_url(env),
            services=services,
            user_set_urls=frozenset(user_set),
        )

    @property
    def email_uri(self) -> str:
        """The contact email as ASCII for a mailto: URI (an internationalised address encoded)."""
        return environment.email_uri(self.email) if self.email else ""

    def service(self, name: str) -> Service:
        """The declaration of service ``name``; KeyError when nobody declared it."""
        try:
            return self.services[name]
        except KeyError:
            raise KeyError(f"unknown provider {name!r}") from None

    def key(self, name: str) -> str | None:
        """The API key of service ``name`` (its declared variable; a lane's, ``openalex.semantic``,
        is its service's), or None when not set."""
        declared = self.services.get(name.partition(".")[0])
        return self.keys.get(declared.key.variable) if declared is not None and declared.key else None

    def pace(self, name: str, lane: str | None = None) -> PacePolicy:
        """The pace service ``name`` declares for this key and contact email, or the pace of
        one of its lanes (an endpoint paced on top of the service, core/services.py)."""
        if lane:
            return self.service(name).lane(lane)
        return self.service(name).pace_for(bool(self.key(name)), bool(self.email))

    def identity(self, name: str) -> tuple[dict[str, str], dict[str, str]]:
        """(query parameters, headers) that carry service ``name``'s key and the contact email,
        as its declaration says they are sent."""
        declared = self.service(name)
        params: dict[str, str] = {}
        headers: dict[str, str] = {}
        if declared.email.parameter and self.email:
            params[declared.email.parameter] = self.email
        if declared.key:
            params.update(declared.key.params(self.key(name)))
            headers.update(declared.key.headers(self.key(name)))
        return params, headers

    @functools.cached_property
    def identity_parameters(self) -> frozenset[str]:
        """Every query parameter or header name that carries a key or a contact email, lower
        case (never written into a search record)."""
        names = set()
        for declared in self.services.values():
            if declared.email.parameter:
                names.add(declared.email.parameter.lower())
            if declared.key:
                names.add((declared.key.parameter or declared.key.sent_as.partition(":")[2] or "authorization").lower())
        return frozenset(names)

    def user_origin(self, name: str | None) -> str | None:
        """Service ``name``'s base URL when the user set it in the environment, else None (a
        built-in default, such as Zotero desktop's loopback address, is no choice of the user's)."""
        return self.base_urls.get(name) if name in self.user_set_urls else None

    def url(self, provider: str, path: str) -> str:
        return self.base_urls[provider] + path

    def redact(self, text: str) -> str:
        """Remove every configured secret, in every spelling it can take in a URL, a form,
        JSON or HTML (a server may echo it back in any), before text is shown, logged,
        stored or written."""
        for spelling in self._secret_spellings:
            if spelling in text:
                text = text.replace(spelling, "[redacted]")
        return text

    @functools.cached_property
    def _secret_spellings(self) -> tuple[str, ...]:
        """Each secret as written and percent-encoded (path or query, upper or lower hex),
        JSON-escaped and HTML-escaped; longest first, so no spelling is left half-replaced.
        Secrets under 4 characters are left alone: they would shred every message."""
        spellings: set[str] = set()
        for secret in self.secrets:
            if len(secret) < 4:
                continue
            forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret, safe=""), quote_plus(secret),
                     json.dumps(secret)[1:-1], html.escape(secret, quote=True)}
            forms |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form) for form in forms}
            spellings |= forms
        return tuple(sorted(spellings, key=len, reverse=True))


def _base_url(variable: str, value: str) -> str:
    """A provider's base URL: http(s), a host, no spaces or control characters."""
    from urllib.parse import urlsplit

    problem = f"must be an http(s) URL such as https://api.example.org, not {environment.excerpt(value)}"
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in value):
        raise EnvironmentProblem(variable, problem)
    try:
        parts = urlsplit(value)
        parts.port
    except ValueError:
        raise EnvironmentProblem(variable, problem) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EnvironmentProblem(variable, problem)
    return value.rstrip("/")


# ---------------------------------------------------------------- the data folder

DB_FILENAME = "lit-search.sqlite3"
APP_FOLDER = "lit-search"


def default_store_path(env: Mapping[str, str] = os.environ, platform: str | None = None) -> Path:
    """``LITSEARCH_CACHE_DIR/lit-search.sqlite3``, else the platform's user data folder."""
    return data_folder(env, platform or sys.platform) / DB_FILENAME


def data_folder(env: Mapping[str, str] = os.environ, platform: str | None = None) -> Path:
    """``LITSEARCH_CACHE_DIR``, else the platform's user data folder for lit-search."""
    platform = platform or sys.platform
    override = env.get("LITSEARCH_CACHE_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform.startswith("win"):
        local = env.get("LOCALAPPDATA", "").strip()
        return (Path(local) if local else home / "AppData" / "Local") / APP_FOLDER
    if platform == "darwin":
        return home / "Library" / "Application Support" / APP_FOLDER
    xdg = env.get("XDG_DATA_HOME", "").strip()
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    return base / APP_FOLDER
