"""Zotero's declarations: the Web API (a key) and the desktop connector on this machine."""

from ..core.services import ZOTERO, Key, PacePolicy, Service

WEB_API = Service(
    name="zotero",
    label="Zotero Web API",
    base_url="https://api.zotero.org",
    url_variable="LITSEARCH_ZOTERO_URL",
    key=Key("ZOTERO_API_KEY", "bearer", benefit="zotero push --via api needs ZOTERO_API_KEY with write access",
            where="zotero.org/settings/keys"),
    pace=PacePolicy(min_interval=0.1, max_in_flight=1),  # Zotero asks for at most 4 at once; one is enough
    capabilities=frozenset({ZOTERO}),
    optional=True,
    limits="a key with write access; at most 50 items a write",
    provider=False,
)
CONNECTOR = Service(
    name="zotero_connector",
    label="Zotero desktop connector",
    base_url="http://127.0.0.1:23119",
    url_variable="LITSEARCH_ZOTERO_CONNECTOR_URL",
    # Nothing is retried: an import that fails half-way must not be sent twice.
    pace=PacePolicy(min_interval=0.0, max_in_flight=1, retries=0),
    capabilities=frozenset({ZOTERO}),
    optional=True,
    limits="Zotero desktop running on this machine",
    provider=False,
)
SERVICES = (WEB_API, CONNECTOR)
