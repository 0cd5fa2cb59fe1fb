"""Unpaywall from Python: ``get_open_access_url(doi)``.

Unpaywall answers only calls that carry a contact email (LITSEARCH_EMAIL). Without one
nothing is sent: the function returns None and says why once per process (a UserWarning),
as ``literature_search`` says it once in its "notes"."""

import warnings

from ..providers import unpaywall as _provider
from ._run import call_provider, settings

NO_EMAIL = "Unpaywall skipped: it needs a contact email (set LITSEARCH_EMAIL)"
_said: list[bool] = []  # the warning is given once per process, not once per DOI


def get_open_access_url(doi: str) -> dict | None:
    """``{"doi", "is_oa", "url", "is_pdf", "host_type", "version", "license"}`` (url is the
    best PDF, else its landing page, else None), or None when Unpaywall does not know the DOI
    or cannot be asked (no LITSEARCH_EMAIL: a UserWarning the first time)."""
    if not settings().email:
        if not _said:
            _said.append(True)
            warnings.warn(NO_EMAIL, UserWarning, stacklevel=2)
        return None
    return call_provider("unpaywall", lambda session: _provider.get_open_access_url(session, doi))
