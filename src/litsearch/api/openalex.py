"""OpenAlex from Python: ``search_papers(keywords, limit)``."""

from ..providers import openalex as _provider
from ._run import call_provider


def search_papers(keywords: str, limit: int = 10) -> list[dict]:
    """Relevance-ranked works for ``keywords`` as normalized record dicts."""
    answer = call_provider("openalex", lambda session: _provider.search(session, keywords, limit))
    return [record.to_dict() for record in answer.records]
