"""The services' declarations are the one place their facts live, and everything reads them:
the settings (base URLs, keys), the HTTP layer (pace, how the key and email are sent, cache
lifetime), the provider choice, doctor and the docs' table. Run ``python3
tests/providers/test_declarations.py`` to rewrite the table in docs/providers.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from litsearch.core.config import Settings, key_variables  # noqa: E402
from litsearch.core.services import BIOMEDICAL, SEARCH, Key, PacePolicy, Service  # noqa: E402
from litsearch.providers import registry  # noqa: E402
from litsearch.providers.base import get_provider  # noqa: E402
from litsearch.render.provider_table import services_table, with_table  # noqa: E402
from litsearch.runtime.settings import settings_from_env  # noqa: E402

PAGE = REPO / "docs" / "providers.md"


def test_the_docs_table_is_the_declarations():
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page, services_table(registry.services().values())) == page, \
        "regenerate: python3 tests/providers/test_declarations.py"


def test_every_provider_module_implements_its_declaration():
    for name in registry.providers():
        provider = get_provider(name)
        assert provider.service is registry.service(name)
        assert provider.name == name


def test_the_settings_are_built_from_the_declarations():
    settings = settings_from_env({"LITSEARCH_PUBMED_URL": "http://127.0.0.1:9/eutils/", "NCBI_API_KEY": "k3y-1234",
                                  "LITSEARCH_EMAIL": "me@example.org"})
    assert settings.base_urls["pubmed"] == "http://127.0.0.1:9/eutils"
    for name, declared in registry.services().items():
        if declared.base_url and name != "pubmed":
            assert settings.base_urls[name] == declared.base_url
    assert set(key_variables(registry.services())) == {declared.key.variable for declared in registry.services().values()
                                    if declared.key}
    # How each key and the email travel is the declaration's: query parameters or headers.
    assert settings.identity("pubmed") == ({"email": "me@example.org", "api_key": "k3y-1234"}, {})
    assert settings.pace("pubmed") == registry.service("pubmed").pace_with_key
    keyed = settings_from_env({"SEMANTIC_SCHOLAR_API_KEY": "s2-key-1234", "TAVILY_API_KEY": "tv-key-1234"})
    assert keyed.identity("semantic_scholar") == ({}, {"x-api-key": "s2-key-1234"})
    assert keyed.identity("web") == ({}, {"Authorization": "Bearer tv-key-1234"})
    assert "s2-key-1234" in keyed.secrets and "tv-key-1234" in keyed.secrets


def test_a_new_service_is_read_from_its_declaration_alone():
    # What a sixth provider's declaration gives, before any code of its own: its base URL and
    # override, its key (validated, redacted, sent as declared), its pace and the auto choice.
    extra = Service(name="newsource", label="New Source", base_url="https://api.newsource.example",
                    url_variable="LITSEARCH_NEWSOURCE_URL", key=Key("NEWSOURCE_API_KEY", "query:token"),
                    pace=PacePolicy(0.5, 2), capabilities=frozenset({SEARCH}), auto_choice=BIOMEDICAL)
    services = {**registry.services(), extra.name: extra}
    settings = Settings.from_env({"LITSEARCH_NEWSOURCE_URL": "http://127.0.0.1:9/n", "NEWSOURCE_API_KEY": "nk-123456"},
                                 services=services)
    assert settings.base_urls["newsource"] == "http://127.0.0.1:9/n"
    assert settings.identity("newsource") == ({"token": "nk-123456"}, {})
    assert settings.redact("token=nk-123456") == "token=[redacted]"
    assert settings.pace("newsource") == PacePolicy(0.5, 2)
    with pytest.raises(ValueError, match="NEWSOURCE_API_KEY"):
        Settings.from_env({"NEWSOURCE_API_KEY": "bad\u00e9key"}, services=services)


def test_a_declaration_refuses_what_it_cannot_mean():
    with pytest.raises(ValueError, match="unknown capabilities"):
        Service(name="x", label="X", base_url=None, url_variable=None, pace=PacePolicy(1, 1),
                capabilities=frozenset({"teleport"}))
    with pytest.raises(ValueError, match="go together"):
        Service(name="x", label="X", base_url="https://x.example", url_variable=None, pace=PacePolicy(1, 1))
    with pytest.raises(ValueError, match="sent_as"):
        Key("X_KEY", "cookie:x")


def test_the_auto_choice_follows_the_declarations():
    from litsearch.search.plan import detect_providers

    always = [name for name in registry.searched_by_auto() if registry.service(name).auto_choice == "always"]
    biomedical = [name for name in registry.searched_by_auto() if registry.service(name).auto_choice == BIOMEDICAL]
    choice = detect_providers(["CRISPR off-target effects in patients"])
    assert choice.providers == [name for name in registry.searched_by_auto() if name in always + biomedical]
    assert detect_providers(["biodiversity finance"]).providers == always


if __name__ == "__main__":
    PAGE.write_text(with_table(PAGE.read_text(encoding="utf-8"), services_table(registry.services().values())),
                    encoding="utf-8")
    print(f"rewrote the table in {PAGE.relative_to(REPO)}")
