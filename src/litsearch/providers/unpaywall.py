"""Unpaywall /v2/{doi}: the best open-access copy of one paper."""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi
from ..core.urls import id_in_path
from ..net.http import FetchedResponse, ProviderSession
from ._common import MESSAGE_LIMIT
from .base import PROBE_DOI, PROBE_STATUSES, Provider
from .unpaywall_declaration import SERVICE
from .unpaywall_parse import NAME, error_message, parse_oa  # noqa: F401 (the parser is this provider's surface)


# ---------------------------------------------------------------- HTTP flow

async def get_open_access_url(session: ProviderSession, doi: str) -> dict[str, Any] | None:
    """``parse_oa`` of one DOI; None when Unpaywall does not know the DOI (404).

    Unpaywall requires a contact email on every call, so without LITSEARCH_EMAIL nothing
    is sent. A 422 (an email it refuses, a malformed DOI) raises with Unpaywall's message.
    """
    if not session.settings.email:
        raise ProviderError("Unpaywall needs LITSEARCH_EMAIL", provider=NAME)
    bare = normalize_doi(doi)
    if bare is None:
        raise ProviderError(f"not a DOI: {doi!r}", provider=NAME)
    url = session.url(f"/v2/{id_in_path(bare, keep='/')}")
    response = await session.get(url, params=session.identity_params(), accept_status=frozenset({404, 422}))
    if response.status == 404:
        return None
    if response.status == 422:
        raise ProviderError(f"Unpaywall rejected the request (HTTP 422): {_rejection_message(response)}",
                            provider=NAME, status=422)
    return parse_oa(response.content)


def _rejection_message(response: FetchedResponse) -> str:
    try:
        payload = json.loads(response.text)
    except ValueError:
        payload = None
    if isinstance(payload, dict) and payload.get("message"):
        return error_message(payload)
    return " ".join(response.text.split())[:MESSAGE_LIMIT] or "no message"


# ---------------------------------------------------------------- the provider

class Unpaywall(Provider):
    """Looks DOIs up (``get_open_access_url``); no search."""

    service = SERVICE

    async def probe(self, session: ProviderSession) -> FetchedResponse | None:
        if not session.settings.email:
            return None
        return await session.get(session.url(f"/v2/{PROBE_DOI}"), params=session.identity_params(),
                                 accept_status=PROBE_STATUSES, retries=0)

    def probe_skipped(self, settings: object) -> str:
        return "not checked: Unpaywall needs LITSEARCH_EMAIL"


PROVIDER = Unpaywall()
