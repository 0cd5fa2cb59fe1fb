"""The hosts of open copies (the locations Unpaywall names): no fixed base URL, one pace."""

from ..core.services import FULL_TEXT, PacePolicy, Service

SERVICE = Service(
    name="open_access",
    label="open copies (publishers and repositories)",
    base_url=None,
    url_variable=None,
    # Publisher hosts get one request a second, two at a time.
    pace=PacePolicy(min_interval=1.0, max_in_flight=2),
    capabilities=frozenset({FULL_TEXT}),
    limits="one request a second to the hosts Unpaywall names; no contact email sent",
    provider=False,
)
SERVICES = (SERVICE,)
