"""Unpaywall's declaration: where it lives, its contact email, its pace."""

from ..core.services import DAY, OPEN_ACCESS, Email, PacePolicy, Service

SERVICE = Service(
    name="unpaywall",
    label="Unpaywall",
    base_url="https://api.unpaywall.org",
    url_variable="LITSEARCH_UNPAYWALL_URL",
    email=Email(parameter="email", required=True,
                benefit="required: without it there are no open-access links from Unpaywall"),
    # Unpaywall publishes a daily limit (100,000 calls), no rate (unpaywall.org/products/api):
    # 40 a second, 10 at once, keeps a table's lookups to about one round trip; the first 429
    # shows the real limit, so the pace halves after each one, for the rest of the run and
    # for the machine's other lit-search processes (net/pacing.py, slows_after_429).
    pace=PacePolicy(min_interval=0.025, max_in_flight=10, slows_after_429=True),
    cache_ttl=7 * DAY,  # open-access locations change slowly
    capabilities=frozenset({OPEN_ACCESS}),
    limits="no key; a contact email on every call, 100,000 calls a day",
)
SERVICES = (SERVICE,)
