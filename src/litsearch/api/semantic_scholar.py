"""Semantic Scholar from Python: ``search_papers(query, limit)``, ``get_paper_details(paper_id)``."""

from ..providers import semantic_scholar as _provider
from ._run import call_provider


def search_papers(query: str, limit: int = 10) -> list[dict]:
    """Relevance-ranked papers for ``query`` as normalized record dicts."""
    answer = call_provider("semantic_scholar", lambda session: _provider.search(session, query, limit))
    return [record.to_dict() for record in answer.records]


def get_paper_details(paper_id: str) -> dict:
    """One paper by S2 id, ``DOI:…``, ``ARXIV:…``, ``PMID:…``, ``CorpusId:…`` (or a bare DOI/arXiv id)."""
    return call_provider("semantic_scholar", lambda session: _provider.get_paper_details(session, paper_id)).to_dict()
