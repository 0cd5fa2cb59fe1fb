"""The settings every door reads: the environment, with the services the registry declares
(core/config.py is given them; it never reaches up for them itself)."""

from __future__ import annotations

import os
from typing import Mapping

from ..core.config import Settings, default_base_urls, environment_secrets
from ..core.errors import ConfigError


def declared_services() -> dict:
    """Every declared service (providers/registry.py): what the settings are built from."""
    from ..providers.registry import services  # declarations only: no HTTP library, no parser

    return services()


def settings_from_env(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``env`` (the process environment by default) and the declared services;
    EnvironmentProblem (a ValueError naming the variable) for a value that cannot be used."""
    return Settings.from_env(env, services=declared_services())


def load_settings() -> Settings:
    """Settings from the environment; a variable that cannot be used is a ConfigError (exit 2,
    one line naming it)."""
    try:
        return settings_from_env()
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def redactor(env: Mapping[str, str] | None = None) -> Settings:
    """Settings that only redact: the environment's secrets, whatever else is wrong with it."""
    env = os.environ if env is None else env
    services = declared_services()
    return Settings(base_urls=default_base_urls(services), secrets=environment_secrets(env, services),
                    services=services)
