"""PubMed's (NCBI E-utilities') declaration: where it lives, its key, its pace, what it can do."""

from ..core.services import (
    BIOMEDICAL,
    FILTERS,
    FULL_TEXT,
    NOTICES,
    OR_QUERIES,
    PREPRINTS,
    RETRACTIONS,
    SEARCH,
    Email,
    Key,
    PacePolicy,
    Service,
)

SERVICE = Service(
    name="pubmed",
    label="PubMed",
    base_url="https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
    url_variable="LITSEARCH_PUBMED_URL",
    key=Key("NCBI_API_KEY", "query:api_key", benefit="NCBI allows 3 requests/s without a key; set NCBI_API_KEY for 10/s",
            where="free, in your NCBI account settings", statuses=frozenset({429})),
    email=Email(parameter="email",
                benefit="sent as email with every call, as NCBI asks, so they can reach you before blocking"),
    # NCBI: 3/s without a key, 10/s with one.
    pace=PacePolicy(min_interval=1 / 3, max_in_flight=3),
    pace_with_key=PacePolicy(min_interval=0.1, max_in_flight=3),
    # FULL_TEXT: PubMed Central's JATS through efetch db=pmc (lit-search read).
    capabilities=frozenset({SEARCH, OR_QUERIES, FILTERS, PREPRINTS, RETRACTIONS, NOTICES, FULL_TEXT}),
    auto_choice=BIOMEDICAL,
    limits="3 requests/s without a key, 10/s with NCBI_API_KEY (free from your NCBI account)",
    search_summary="Search PubMed (esearch for the ids, then efetch for the records).",
)
SERVICES = (SERVICE,)
