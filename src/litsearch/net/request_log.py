"""A request as a search record notes it: the URL without its query, the parameters and any JSON
body, every key and contact email replaced."""

from __future__ import annotations

from typing import Any, Mapping

from ..core.config import Settings


def logged_request(settings: Settings, provider: str, method: str, url: str,
                   kwargs: Mapping[str, Any]) -> dict[str, Any]:
    def shown(name: Any, value: Any) -> Any:
        if str(name).lower() in settings.identity_parameters:
            return "[redacted]"
        if isinstance(value, Mapping):
            return {str(key): shown(key, item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [shown("", item) for item in value]
        if value is None or isinstance(value, (bool, int, float)):
            return value
        return settings.redact(str(value))

    params = kwargs.get("params") or {}
    pairs = params.items() if isinstance(params, Mapping) else params
    entry = {"provider": provider, "method": method, "url": settings.redact(url.split("?", 1)[0]),
             "params": {str(name): shown(name, value) for name, value in pairs}}
    if isinstance(kwargs.get("json"), Mapping):
        entry["json"] = shown("", kwargs["json"])
    return entry
