"""Semantic Scholar's declaration: where it lives, its key, its pace, what it can do."""

from ..core.services import (
    ALWAYS,
    CITED_BY,
    CITES,
    FILTERS,
    LINKS,
    LOOKUP,
    OR_QUERIES,
    RECOMMEND,
    REFERENCE_IDS,
    SEARCH,
    Key,
    PacePolicy,
    Service,
)

SERVICE = Service(
    name="semantic_scholar",
    label="Semantic Scholar",
    base_url="https://api.semanticscholar.org",
    url_variable="LITSEARCH_SEMANTIC_SCHOLAR_URL",
    # Keys are requested through the form on semanticscholar.org/product/api; they are no longer
    # approved for free email domains or for third-party apps (issue 20), so none is promised.
    key=Key("SEMANTIC_SCHOLAR_API_KEY", "header:x-api-key",
            benefit=("Semantic Scholar's keyless pool is shared and busy; SEMANTIC_SCHOLAR_API_KEY gives a "
                     "dedicated 1 request/s (keys are not approved for free email addresses or third-party apps)"),
            where="on request: semanticscholar.org/product/api"),
    # 1 request/s with or without a key (keyed clients get an introductory 1 rps).
    pace=PacePolicy(min_interval=1.0, max_in_flight=1),
    capabilities=frozenset({SEARCH, OR_QUERIES, FILTERS, LOOKUP, CITES, CITED_BY, REFERENCE_IDS, LINKS,
                            RECOMMEND}),
    auto_choice=ALWAYS,
    limits="1 request/s with a key (dedicated); without one, a pool shared by every keyless user",
    search_summary="Search Semantic Scholar (/graph/v1/paper/search).",
)
SERVICES = (SERVICE,)
