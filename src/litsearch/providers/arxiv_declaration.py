"""arXiv's declarations: its search API, and its web host for full texts (HTML and PDF)."""

from ..core.services import FILTERS, FULL_TEXT, OR_QUERIES, PREPRINTS, SEARCH, TECHNICAL, PacePolicy, Service

# arXiv's terms of use: one connection, at least 3 s between calls (the API and the web host alike).
PACE = PacePolicy(min_interval=3.0, max_in_flight=1)

SERVICE = Service(
    name="arxiv",
    label="arXiv",
    base_url="https://export.arxiv.org/api",
    url_variable="LITSEARCH_ARXIV_URL",
    pace=PACE,
    capabilities=frozenset({SEARCH, OR_QUERIES, FILTERS, PREPRINTS}),
    auto_choice=TECHNICAL,
    limits="no key; one request at a time, at least 3 s apart (its terms of use)",
    search_summary="Search arXiv (/api/query, Atom feed).",
)
WEB_HOST = Service(
    name="arxiv_web",
    label="arXiv (full texts)",
    base_url="https://arxiv.org",
    url_variable="LITSEARCH_ARXIV_WEB_URL",
    pace=PACE,
    capabilities=frozenset({FULL_TEXT}),
    limits="at least 3 s between automated downloads",
    provider=False,
)
SERVICES = (SERVICE, WEB_HOST)
