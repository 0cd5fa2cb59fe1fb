"""One module per API. Each provider module exposes:

- ``NAME``: the provider's key (``"semantic_scholar"``, ``"openalex"``, ``"pubmed"``, ``"arxiv"`` …).
- pure parsing functions ``parse_*(body) -> list[Paper]`` (no I/O, fed real bodies in tests);
  a body that is an error in disguise raises ``ProviderError`` with a one-line reason.
- ``async def search(session, query, limit) -> list[Paper]``: the HTTP flow, through a
  ``litsearch.http.ProviderSession`` only; ranks are 1-based positions in the answer.
- ``combine_queries(variants) -> str`` where the API has boolean syntax, so several query
  variants cost one request.
"""

PROVIDERS = ("semantic_scholar", "openalex", "pubmed", "arxiv")
# Searchable on request only (never chosen by --providers auto): Crossref as a fifth
# scholarly source, and "web" (Tavily) whose hits are shown apart from the papers.
OPTIONAL_PROVIDERS = ("crossref", "web")


def load_provider(name: str):
    """The provider module for ``name`` (imported on demand)."""
    import importlib

    if name not in PROVIDERS + OPTIONAL_PROVIDERS + ("unpaywall",):
        raise KeyError(f"unknown provider {name!r}")
    return importlib.import_module(f"litsearch.providers.{name}")
