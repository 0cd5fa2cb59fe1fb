"""Cache keys: what identifies a request, whoever sends it.

A key is a sha256 over the method, the URL without its query, the sorted query parameters
and the body, all without the parameters that only say who is asking (``api_key``,
``email``, ``mailto``, ``tool``). So a replay matches with or without a key, and a key never
holds a secret. The same parameters are stripped from the URLs the cache stores.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, unquote_plus, urlsplit, urlunsplit

# Parameters that say who is asking (and may carry a key), never what is asked. They are
# left out of cache keys, so a replay matches with or without a key, and out of stored URLs.
IDENTITY_PARAMS = frozenset({"api_key", "email", "mailto", "tool"})

def cache_key(method: str, url: str, params: Any = None, body: Any = None) -> str:
    """sha256 over the method, the URL without its query, the sorted query parameters
    (from the URL and ``params``) and the body, all without ``IDENTITY_PARAMS``."""
    base, url_pairs = _split_url(url)
    pairs = sorted(url_pairs + _param_pairs(params))
    material = json.dumps([method.upper(), base, pairs, _canonical_body(body)],
                          ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def strip_identity_params(url: str) -> str:
    """The URL without ``api_key``/``email``/``mailto``/``tool``; the rest keeps its encoding."""
    parts = urlsplit(url)
    kept = [segment for segment in parts.query.split("&")
            if segment and not _is_identity(unquote_plus(segment.split("=", 1)[0]))]
    return urlunsplit(parts._replace(query="&".join(kept)))


def _is_identity(name: str) -> bool:
    return name.strip().lower() in IDENTITY_PARAMS


def _split_url(url: str) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(url.strip())
    base = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))
    return base, _without_identity(parse_qsl(parts.query, keep_blank_values=True))


def _param_pairs(params: Any) -> list[tuple[str, str]]:
    """Query parameters in any form httpx accepts: mapping (values may be lists), pairs or a string."""
    if params is None:
        return []
    if isinstance(params, (str, bytes)):
        text = params.decode("utf-8", "surrogateescape") if isinstance(params, bytes) else params
        return _without_identity(parse_qsl(text, keep_blank_values=True))
    items = params.items() if isinstance(params, Mapping) else params
    pairs = []
    for name, value in items:
        values = value if isinstance(value, (list, tuple)) else [value]
        pairs.extend((str(name), _param_text(v)) for v in values)
    return _without_identity(pairs)


def _param_text(value: Any) -> str:
    # The same spelling httpx sends, so a dict and its encoded string give one key.
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _without_identity(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, value) for name, value in pairs if not _is_identity(name)]


def _canonical_body(body: Any) -> Any:
    """A request body reduced to what identifies the request: a JSON object or form data
    becomes a dict without identity fields (so order and encoding do not matter); other
    text or bytes are taken as they are."""
    if body is None:
        return None
    if isinstance(body, Mapping):
        return {str(k): v for k, v in body.items() if not _is_identity(str(k))}
    if isinstance(body, (list, tuple)):
        return _form_dict(_param_pairs(body))
    text = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else str(body)
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return _canonical_body(parsed)
    try:
        return _form_dict(_without_identity(parse_qsl(text, keep_blank_values=True, strict_parsing=True)))
    except ValueError:
        return text


def _form_dict(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Form pairs as the dict httpx would have encoded them from (repeated names as lists)."""
    form: dict[str, Any] = {}
    for name, value in pairs:
        if name in form:
            form[name] = (form[name] if isinstance(form[name], list) else [form[name]]) + [value]
        else:
            form[name] = value
    return form
