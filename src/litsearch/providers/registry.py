"""The registry: every service lit-search talks to, one line each, by the module that declares
it. The order here is the order everywhere (``--providers``, ``doctor``, the docs' table).

Adding a provider is one room (``providers/<name>_declaration.py`` with its ``Service``,
``providers/<name>.py`` with its ``Provider``, ``providers/<name>_parse.py`` with its pure
parsers) and one line below. Declarations import nothing but ``core.services``, so reading
them all costs no HTTP library and no parser.
"""

from __future__ import annotations

import functools
import importlib
from typing import Callable, Iterable

from ..core.services import ALWAYS, BIOMEDICAL, ON_REQUEST, TECHNICAL, Service

DECLARED_IN = (
    "litsearch.providers.semantic_scholar_declaration",
    "litsearch.providers.openalex_declaration",
    "litsearch.providers.pubmed_declaration",
    "litsearch.providers.europepmc_declaration",
    "litsearch.providers.arxiv_declaration",
    "litsearch.providers.crossref_declaration",
    "litsearch.providers.web_declaration",
    "litsearch.providers.unpaywall_declaration",
    "litsearch.fulltext.declaration",
    "litsearch.zotero.declaration",
)


@functools.lru_cache(maxsize=1)
def services() -> dict[str, Service]:
    """Every declared service by name, in the registry's order."""
    found: dict[str, Service] = {}
    for module in DECLARED_IN:
        for service in importlib.import_module(module).SERVICES:
            if service.name in found:
                raise ValueError(f"{service.name} is declared twice ({module})")
            found[service.name] = service
    return found


def service(name: str) -> Service:
    """The declaration of ``name``; KeyError for a name nobody declared."""
    try:
        return services()[name]
    except KeyError:
        raise KeyError(f"unknown provider {name!r}") from None


def provider_label(name: str) -> str:
    """A service's name in prose ("Semantic Scholar"); unknown names as given."""
    found = services().get(name)
    return found.label if found else name


def providers() -> tuple[str, ...]:
    """The services implemented by a provider module (``providers/<name>.py``)."""
    return tuple(name for name, found in services().items() if found.provider)


def searchable() -> tuple[str, ...]:
    """What ``--providers`` accepts: every service with a search, in the registry's order."""
    return tuple(name for name, found in services().items() if found.provider and found.searchable)


def searched_by_auto() -> tuple[str, ...]:
    """The services ``--providers auto`` may choose (always, or for a topic's field)."""
    return tuple(name for name in searchable() if services()[name].auto_choice != ON_REQUEST)


def on_request() -> tuple[str, ...]:
    """The services searched only when named (Crossref, web search)."""
    return tuple(name for name in searchable() if services()[name].auto_choice == ON_REQUEST)


def chosen_for(fields: Iterable[str]) -> list[str]:
    """The providers ``--providers auto`` searches for a topic in ``fields`` (the auto choices
    its words matched: "biomedical", "technical"), in the registry's order."""
    wanted = {ALWAYS, *fields}
    return [name for name in searched_by_auto() if services()[name].auto_choice in wanted]


def with_capability(capability: str) -> tuple[str, ...]:
    """The services that can do ``capability`` (core/services.py), in the registry's order."""
    return tuple(name for name, found in services().items() if found.can(capability))


# ---------------------------------------------------------------- the providers in prose

CHOICE_WORDS = {ALWAYS: "always", BIOMEDICAL: "for biomedical topics", TECHNICAL: "for computing/maths/physics topics"}


def in_words(names: Iterable[str], conjunction: str = "and", label: Callable[[str], str] = provider_label) -> str:
    """"Semantic Scholar, OpenAlex and PubMed": the services' labels (or names) as prose."""
    shown = [label(name) for name in names]
    return ", ".join(shown[:-1]) + f" {conjunction} " + shown[-1] if len(shown) > 1 else "".join(shown)


def auto_choice_in_words(label: Callable[[str], str] = provider_label) -> str:
    """What ``--providers auto`` searches, by field: "Semantic Scholar and OpenAlex always, …"."""
    by_choice: dict[str, list[str]] = {}
    for name in searched_by_auto():
        by_choice.setdefault(services()[name].auto_choice or "", []).append(name)
    return ", ".join(f"{in_words(names, label=label)} {CHOICE_WORDS.get(choice, choice)}"
                     for choice, names in by_choice.items())


def searchable_with(capability: str) -> tuple[str, ...]:
    """The searchable services that declare ``capability`` (PREPRINTS, RETRACTIONS …)."""
    return tuple(name for name in searchable() if services()[name].can(capability))
