"""Europe PMC's declaration: where it lives, its contact email, its pace, what it can do."""

from ..core.services import (
    BIOMEDICAL,
    FILTERS,
    FULL_TEXT,
    LINKS,
    OR_QUERIES,
    PREPRINTS,
    RETRACTIONS,
    SEARCH,
    Email,
    PacePolicy,
    Service,
)

SERVICE = Service(
    name="europepmc",
    label="Europe PMC",
    base_url="https://www.ebi.ac.uk/europepmc/webservices/rest",
    url_variable="LITSEARCH_EUROPEPMC_URL",
    email=Email(parameter="email",
                benefit="sent as email with each search, so Europe PMC can tell you of changes to the service"),
    # No published rate limit (apis-more.md section 1). DOAJ, told it was unlimited, was still
    # blocked by IP (403) and settled on at most 5 requests/s; lit-search keeps to that.
    pace=PacePolicy(min_interval=0.2, max_in_flight=2),
    # Searched for PubMed's records plus preprints (SRC:PPR), PMC, Agricola and patents; open
    # full texts by /{PMCID}/fullTextXML (lit-search read).
    capabilities=frozenset({SEARCH, OR_QUERIES, FILTERS, PREPRINTS, RETRACTIONS, FULL_TEXT, LINKS}),
    auto_choice=BIOMEDICAL,
    limits="no key and no published limit; lit-search keeps to 5 requests/s, 2 at a time",
    search_summary="Search Europe PMC (/search, core records, cursorMark pages; preprints included).",
)
SERVICES = (SERVICE,)
