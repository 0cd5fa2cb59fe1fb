"""Crossref's declaration: where it lives, its pools, what it can do."""

from ..core.services import (
    DAY,
    DOI_CHECK,
    FILTERS,
    NOTICES,
    ON_REQUEST,
    OR_QUERIES,
    PREPRINTS,
    RETRACTIONS,
    SEARCH,
    Email,
    PacePolicy,
    Service,
)

SERVICE = Service(
    name="crossref",
    label="Crossref",
    base_url="https://api.crossref.org",
    url_variable="LITSEARCH_CROSSREF_URL",
    email=Email(parameter="mailto", benefit="the polite pool: DOI checks 3 requests/s instead of 1"),
    # Since 1 Dec 2025 Crossref paces by pool. A contact email (sent as mailto) joins the polite
    # pool: list queries 3/s, 3 at once. Without one, the public pool: 1/s, one at a time.
    pace=PacePolicy(min_interval=1.0, max_in_flight=1),
    pace_with_email=PacePolicy(min_interval=1 / 3, max_in_flight=3),
    cache_ttl=7 * DAY,  # DOI metadata changes slowly
    capabilities=frozenset({SEARCH, OR_QUERIES, FILTERS, PREPRINTS, RETRACTIONS, DOI_CHECK, NOTICES}),
    auto_choice=ON_REQUEST,
    limits=("no key; without a contact email the public pool (1 list request/s, one at a time, since "
            "1 Dec 2025), with one the polite pool (3/s)"),
)
SERVICES = (SERVICE,)
