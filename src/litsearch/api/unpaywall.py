"""Unpaywall from Python: ``get_open_access_url(doi)`` (needs LITSEARCH_EMAIL)."""

from ..providers import unpaywall as _provider
from ._run import call_provider


def get_open_access_url(doi: str) -> dict | None:
    """``{"doi", "is_oa", "url", "is_pdf", "host_type", "version", "license"}`` (url is the
    best PDF, else its landing page, else None), or None when Unpaywall does not know the DOI."""
    return call_provider("unpaywall", lambda session: _provider.get_open_access_url(session, doi))
