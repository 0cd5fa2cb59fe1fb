"""Unpaywall's DOI objects, parsed (pure functions, fed real recorded bodies in tests)."""

from __future__ import annotations

from typing import Any

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi
from ..core.urls import http_url
from ._common import json_object, shorten

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
        raise ProviderError(f"API error: {error_message(payload)}")
    if "doi" not in payload:
        raise ProviderError("unexpected response (not a DOI object)")
    return payload


def error_message(payload: dict[str, Any]) -> str:
    return shorten(str(payload.get("message") or "no message"))
