"""Settings from the environment: base URLs, keys, contact email, timeouts, the data folder.

Everything a deployment or a test may change lives here, read once per run.
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

DEFAULT_BASE_URLS = {
    "semantic_scholar": "https://api.semanticscholar.org",
    "openalex": "https://api.openalex.org",
    "pubmed": "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
    "arxiv": "https://export.arxiv.org/api",
    "crossref": "https://api.crossref.org",
    "unpaywall": "https://api.unpaywall.org",
    "web": "https://api.tavily.com",
    # Services that are no search provider: full texts (read) and Zotero (zotero push).
    "europepmc": "https://www.ebi.ac.uk/europepmc/webservices/rest",
    "arxiv_web": "https://arxiv.org",
    "zotero": "https://api.zotero.org",
    "zotero_connector": "http://127.0.0.1:23119",
}

CACHE_SIZE_VARIABLE = "LITSEARCH_CACHE_MAX_MB"
DEFAULT_CACHE_MB = 200.0

BASE_URL_VARIABLES = {
    "semantic_scholar": "LITSEARCH_SEMANTIC_SCHOLAR_URL",
    "openalex": "LITSEARCH_OPENALEX_URL",
    "pubmed": "LITSEARCH_PUBMED_URL",
    "arxiv": "LITSEARCH_ARXIV_URL",
    "crossref": "LITSEARCH_CROSSREF_URL",
    "unpaywall": "LITSEARCH_UNPAYWALL_URL",
    "web": "LITSEARCH_TAVILY_URL",
    "europepmc": "LITSEARCH_EUROPEPMC_URL",
    "arxiv_web": "LITSEARCH_ARXIV_WEB_URL",
    "zotero": "LITSEARCH_ZOTERO_URL",
    "zotero_connector": "LITSEARCH_ZOTERO_CONNECTOR_URL",
}

SECRET_VARIABLES = environment.KEY_VARIABLES
EnvironmentProblem = environment.EnvironmentProblem


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


def environment_secrets(env: Mapping[str, str]) -> tuple[str, ...]:
    """Every secret the environment holds (keys, proxy passwords), valid or not: what
    ``redact`` removes even when the settings themselves cannot be built."""
    values = [value.strip() for name in SECRET_VARIABLES if (value := env.get(name, "")) and value.strip()]
    return tuple(dict.fromkeys(values + environment.proxy_secrets(env)))


def redactor(env: Mapping[str, str] | None = None) -> "Settings":
    """Settings that only redact: the environment's secrets, whatever else is wrong with it."""
    env = os.environ if env is None else env
    return Settings(base_urls=dict(DEFAULT_BASE_URLS), secrets=environment_secrets(env))


@dataclass(frozen=True)
class Settings:
    base_urls: dict[str, str]
    semantic_scholar_api_key: str | None = None
    ncbi_api_key: str | None = None
    openalex_api_key: str | None = None
    tavily_api_key: str | None = None
    zotero_api_key: str | None = None
    email: str | None = None
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    # Overall wall-clock allowance for one provider in one search (all its requests,
    # retries and waits), so one slow provider cannot stall the whole search.
    provider_budget: float = 30.0
    # First retry backoff, doubled on each further retry (when no Retry-After is given).
    backoff_seconds: float = 1.0
    max_response_bytes: int = 10 * 1024 * 1024
    # The response cache's size cap; the oldest answers go first (library/cache_cap.py).
    cache_max_bytes: int = int(DEFAULT_CACHE_MB * 1_000_000)
    secrets: tuple[str, ...] = field(default=(), repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Settings from ``env``; EnvironmentProblem (a ValueError naming the variable, never
        quoting a secret) for the first value that cannot be used (core/environment.py)."""
        env = os.environ if env is None else env
        found = environment.problems(env)
        if found:
            raise found[0]
        base_urls = {}
        for provider, variable in BASE_URL_VARIABLES.items():
            value = env.get(variable, "").strip() or DEFAULT_BASE_URLS[provider]
            base_urls[provider] = _base_url(variable, value)
        email = environment.contact_email(env)[1]
        secrets = environment_secrets(env)
        return cls(
            base_urls=base_urls,
            semantic_scholar_api_key=(env.get("SEMANTIC_SCHOLAR_API_KEY") or "").strip() or None,
            ncbi_api_key=(env.get("NCBI_API_KEY") or "").strip() or None,
            openalex_api_key=(env.get("OPENALEX_API_KEY") or "").strip() or None,
            tavily_api_key=(env.get("TAVILY_API_KEY") or "").strip() or None,
            zotero_api_key=(env.get("ZOTERO_API_KEY") or "").strip() or None,
            email=email,
            connect_timeout=_float_env(env, "LITSEARCH_CONNECT_TIMEOUT", 5.0),
            read_timeout=_float_env(env, "LITSEARCH_READ_TIMEOUT", 15.0),
            provider_budget=_float_env(env, "LITSEARCH_PROVIDER_BUDGET", 30.0),
            backoff_seconds=_float_env(env, "LITSEARCH_BACKOFF", 1.0),
            cache_max_bytes=int(_float_env(env, CACHE_SIZE_VARIABLE, DEFAULT_CACHE_MB, unit="megabytes") * 1_000_000),
            secrets=secrets,
        )

    @property
    def email_uri(self) -> str:
        """The contact email as ASCII for a mailto: URI (an internationalised address encoded)."""
        return environment.email_uri(self.email) if self.email else ""

    def has_secret(self, variable: str) -> bool:
        """Whether the key in environment variable ``variable`` is set."""
        value = {"SEMANTIC_SCHOLAR_API_KEY": self.semantic_scholar_api_key, "NCBI_API_KEY": self.ncbi_api_key,
                 "OPENALEX_API_KEY": self.openalex_api_key, "TAVILY_API_KEY": self.tavily_api_key,
                 "ZOTERO_API_KEY": self.zotero_api_key}.get(variable)
        return bool(value)

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

    problem = f"must be an http(s) URL such as {DEFAULT_BASE_URLS['openalex']}, not {environment.excerpt(value)}"
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
