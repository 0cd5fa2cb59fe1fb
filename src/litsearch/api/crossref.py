"""Crossref from Python: ``verify_doi(doi)``, ``search_works(query, limit)``."""

from ..providers import crossref as _provider
from ._run import call_provider


def verify_doi(doi: str, expected_title: str | None = None, expected_year: int | None = None) -> dict:
    """``{"doi", "verified", "reason", "crossref_title", "crossref_year", "title_similarity"}``;
    verified is True, False (unknown DOI or another paper) or None (DataCite DOI, not checkable)."""
    return call_provider("crossref", lambda session: _provider.verify_doi(session, doi, expected_title, expected_year))


def search_works(query: str, limit: int = 10) -> list[dict]:
    """Relevance-ranked Crossref works as normalized record dicts."""
    answer = call_provider("crossref", lambda session: _provider.search(session, query, limit))
    return [record.to_dict() for record in answer.records]
