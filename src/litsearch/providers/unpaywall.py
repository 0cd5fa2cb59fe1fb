"""Unpaywall /v2/{doi}: the best open-access copy of one paper."""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi
from ..core.urls import http_url, id_in_path
from ..net.http import FetchedResponse, ProviderSession
from ..net.pacing import PacePolicy
from ._common import MESSAGE_LIMIT, json_object, shorten
from .base import DAY, PROBE_DOI, PROBE_STATUSES, Capabilities, Provider

NAME = "unpaywall"


# ---------------------------------------------------------------- parsing (pure)

def parse_oa(body: bytes | str) -> dict[str, Any]:
    """``{doi, is_oa, url, is_pdf, host_type, version, license}`` from a DOI object.

    ``url`` is the best location's PDF (``is_pdf`` True) or, when Unpaywall knows no
    PDF, its landing page (``is_pdf`` False). A closed paper has ``url`` None.
    """
    payload = _load_json_object(body)
    best = payload.get("best_oa_location") if payload.get("is_oa") else None
    best = best if isinstance(best, dict) else {}
    # Only http(s) links count (a javascript: or data: value, a number, is no link).
    pdf_url = http_url(best.get("url_for_pdf"))
    url = pdf_url or http_url(best.get("url_for_landing_page")) or http_url(best.get("url"))
    return {
        "doi": normalize_doi(payload.get("doi")),
        "is_oa": bool(payload.get("is_oa")),
        "url": url,
        "is_pdf": bool(pdf_url) if url else None,
        "host_type": best.get("host_type") if url else None,
        "version": best.get("version") if url else None,
        "license": best.get("license") if url else None,
    }


def _load_json_object(body: bytes | str) -> dict[str, Any]:
    payload = json_object(body)
    if payload.get("error") is True:  # {"HTTP_status_code": 422, "error": true, "message": "…"}
        raise ProviderError(f"API error: {_error_message(payload)}")
    if "doi" not in payload:
        raise ProviderError("unexpected response (not a DOI object)")
    return payload


def _error_message(payload: dict[str, Any]) -> str:
    return shorten(str(payload.get("message") or "no message"))


# ---------------------------------------------------------------- HTTP flow

async def get_open_access_url(session: ProviderSession, doi: str) -> dict[str, Any] | None:
    """``parse_oa`` of one DOI; None when Unpaywall does not know the DOI (404).

    Unpaywall requires a contact email on every call, so without LITSEARCH_EMAIL nothing
    is sent. A 422 (an email it refuses, a malformed DOI) raises with Unpaywall's message.
    """
    settings = session.settings
    if not settings.email:
        raise ProviderError("Unpaywall needs LITSEARCH_EMAIL", provider=NAME)
    bare = normalize_doi(doi)
    if bare is None:
        raise ProviderError(f"not a DOI: {doi!r}", provider=NAME)
    url = session.url(f"/v2/{id_in_path(bare, keep='/')}")
    response = await session.get(url, params={"email": settings.email}, accept_status=frozenset({404, 422}))
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
        return _error_message(payload)
    return " ".join(response.text.split())[:MESSAGE_LIMIT] or "no message"


# ---------------------------------------------------------------- the provider

class Unpaywall(Provider):
    """Looks DOIs up (``get_open_access_url``); no search."""

    name = NAME
    label = "Unpaywall"
    needs_email = True
    capabilities = Capabilities(combines_variants=False, native_filters=False, searches=False)
    # Unpaywall publishes a daily limit (100,000 calls), no rate (unpaywall.org/products/api):
    # 40 a second, 10 at once, keeps a table's lookups to about one round trip; the first 429
    # shows the real limit, so the pace halves after each one, for the rest of the run and
    # for the machine's other lit-search processes (net/pacing.py, slows_after_429).
    pace = PacePolicy(min_interval=0.025, max_in_flight=10, slows_after_429=True)
    cache_ttl = 7 * DAY  # open-access locations change slowly
    limits = "no key; a contact email on every call, 100,000 calls a day"
    email_benefit = "required: without it there are no open-access links from Unpaywall"

    async def probe(self, session: ProviderSession) -> FetchedResponse | None:
        if not session.settings.email:
            return None
        return await session.get(session.url(f"/v2/{PROBE_DOI}"), params={"email": session.settings.email},
                                 accept_status=PROBE_STATUSES, retries=0)

    def probe_skipped(self, settings: object) -> str:
        return "not checked: Unpaywall needs LITSEARCH_EMAIL"


PROVIDER = Unpaywall()
