"""OpenAlex's declaration: where it lives, its key, its pace, what it can do."""

from ..core.services import (
    ALWAYS,
    CITED_BY,
    CITES,
    FILTERS,
    LINKS,
    LOOKUP,
    OR_QUERIES,
    PREPRINTS,
    RETRACTIONS,
    REFERENCE_IDS,
    SEARCH,
    SEMANTIC_SEARCH,
    Email,
    Key,
    Lane,
    PacePolicy,
    Service,
)

# Semantic search (/works?search.semantic=) allows one request a second and at most 50 results
# (help.openalex.org/api/semantic-search, "Limits"): its own lane, kept on top of the service's pace,
# for every request that asks it (the explorer's work_find, deep search's semantic step).
SEMANTIC_LANE = "semantic"
SEMANTIC_MAX_RESULTS = 50

SERVICE = Service(
    name="openalex",
    label="OpenAlex",
    base_url="https://api.openalex.org",
    url_variable="LITSEARCH_OPENALEX_URL",
    key=Key("OPENALEX_API_KEY", "query:api_key",
            benefit=("OpenAlex has required a key since 13 Feb 2026 and the keyless daily allowance is tiny; set "
                     "OPENALEX_API_KEY (free from your OpenAlex account settings)"),
            where="free, in your openalex.org account settings"),
    email=Email(parameter="mailto", benefit="sent as mailto, so OpenAlex can reach you about your traffic"),
    pace=PacePolicy(min_interval=0.1, max_in_flight=5),
    lanes=(Lane(SEMANTIC_LANE, parameter="search.semantic", pace=PacePolicy(min_interval=1.0, max_in_flight=1)),),
    capabilities=frozenset({SEARCH, OR_QUERIES, FILTERS, PREPRINTS, RETRACTIONS, LOOKUP, CITES, CITED_BY,
                            REFERENCE_IDS, LINKS, SEMANTIC_SEARCH}),
    auto_choice=ALWAYS,
    limits=("a key has been required since 13 Feb 2026; a daily allowance in USD (a free key: $1/day; "
            "without one, a few cents); a search costs 10x a list or filter call, one work by id is free"),
    search_summary="Search OpenAlex (/works?search=).",
)
SERVICES = (SERVICE,)
