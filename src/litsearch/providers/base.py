"""The provider contract, and the registry that finds providers by name.

Every API module declares one ``Provider``: its name, what it can do (``Capabilities``),
how fast it may be called (``pace_policy``), the environment variable of its key and how
long its answers are cached. Its ``search`` returns a value, a ``ProviderAnswer``; nothing
is written to the HTTP session for a later step to read back.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from ..core.config import Settings
from ..core.errors import ProviderError
from ..core.filters import Filters
from ..net.pacing import PacePolicy

# Searched by --providers auto (Semantic Scholar and OpenAlex always, the others by topic).
PAPER_PROVIDERS = ("semantic_scholar", "openalex", "pubmed", "arxiv")
# Searchable on request only: Crossref as a fifth scholarly source, and "web" (Tavily)
# whose hits are shown apart from the papers.
OPTIONAL_PROVIDERS = ("crossref", "web")
# Asked by enrichment only, never searched.
LOOKUP_PROVIDERS = ("unpaywall",)
ALL_PROVIDERS = PAPER_PROVIDERS + OPTIONAL_PROVIDERS + LOOKUP_PROVIDERS

DAY = 86_400


@dataclass(frozen=True)
class Capabilities:
    """What a provider can do.

    ``combines_variants``: several query variants fold into one query (boolean OR or a bag
    of words), so variants cost no extra request. ``native_filters``: it translates search
    filters into its own parameters (the rest are applied after fetching). ``returns``:
    ``"papers"`` (merged and ranked) or ``"web"`` (hits listed apart, never merged).
    ``searches``: it has a search at all (Unpaywall only looks DOIs up).
    """

    combines_variants: bool = True
    native_filters: bool = True
    returns: str = "papers"
    searches: bool = True


@dataclass(frozen=True)
class SearchRequest:
    """One search asked of one provider: the query as sent (variants already combined when
    ``combined``), the original variants, how many records and which filters."""

    query: str
    limit: int
    filters: Filters | None = None
    combined: bool = False
    variants: tuple[str, ...] = ()
    sort: str = "relevance"  # the order the user asked for (relevance, impact, citations, year)


@dataclass
class ProviderAnswer:
    """What a provider's search gives back.

    ``records``: Papers (or web hits), ranked 1.. in the provider's order. ``ranked`` is
    False when the API has no relevance order (the pipeline then ranks locally).
    ``native_filters``: the filters the API applied itself. ``notes``: partial problems
    and resolutions worth telling the user, one line each.
    """

    records: list[Any] = field(default_factory=list)
    native_filters: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)
    ranked: bool = True


class Provider:
    """One API, declared as data: a subclass sets the class attributes (``pace``, and the
    module's ``combine`` and ``search_function`` where it has them) and overrides a method
    only where the API needs more (PubMed's pace depends on its key)."""

    name: str = ""
    label: str = ""  # the API's name in prose ("Semantic Scholar")
    key_variable: str | None = None  # the environment variable of its API key
    needs_email: bool = False  # refuses requests without a contact email (LITSEARCH_EMAIL)
    capabilities: Capabilities = Capabilities()
    pace: PacePolicy | None = None  # its published limits (see README, "Pacing")
    cache_ttl: float = DAY  # how long its answers stay in the response cache
    max_query_chars: int | None = None  # longer queries are cut (the API refuses them)
    # combine(variants) -> one query; search_function(session, query, limit, filters) -> ProviderAnswer
    combine: Callable[[list[str]], str] | None = None
    search_function: Callable[..., Awaitable[ProviderAnswer]] | None = None

    # What the key buys, in plain words, for the message when a request fails without it.
    key_benefit: str = ""
    # HTTP statuses that, without the key, mean "the key would fix this".
    key_statuses: frozenset[int] = frozenset({401, 403, 429})
    # For `lit-search doctor`: today's published limits in one line, and what a contact
    # email (LITSEARCH_EMAIL) buys here ("" when nothing).
    limits: str = ""
    email_benefit: str = ""
    used_by_default: bool = True  # a default search (or its DOI checks and OA links) calls it

    async def probe(self, session: Any) -> Any:
        """One cheap request sent as a search would send it (key, email), for `lit-search
        doctor --check`: the FetchedResponse whatever its status, or None when this API has
        no request worth spending on a check (``probe_skipped`` says why)."""
        return None

    def budget_today(self, settings: Settings) -> dict[str, Any] | None:
        """What is left of a daily allowance, as the API last said it (for `doctor`); None for
        APIs without one, or before any answer said it."""
        return None

    def probe_skipped(self, settings: Settings) -> str:
        return "no free request to check with"

    def explain(self, error: ProviderError, settings: Settings) -> str:
        """The failure as the user should read it: when the key this provider lacks would
        fix it, the message names the variable and what it buys instead of the API's words."""
        key_missing = self.key_variable and not settings.has_secret(self.key_variable)
        if key_missing and error.status in self.key_statuses and self.key_benefit:
            what = "rate limited" if error.status == 429 else "refused"
            head = f"HTTP {error.status} {what}"
            detail = str(error).removeprefix(head).removeprefix(f"HTTP {error.status}").lstrip(" :;")
            return f"{head}: {self.key_benefit}" + (f" (the API said: {detail})" if detail else "")
        return str(error)

    def pace_policy(self, settings: Settings) -> PacePolicy:
        if self.pace is None:
            raise NotImplementedError(f"{self.name} declares no pace")
        return self.pace

    def plan_query(self, queries: list[str], sort: str = "relevance") -> tuple[str, str]:
        """(the query to send, the mode): the variants combined into one query (``"combined"``)
        where the API can, else the topic alone, cut to what the API accepts (``"search"``)."""
        if len(queries) > 1 and self.capabilities.combines_variants:
            return self.combine_queries(queries), "combined"
        return queries[0][: self.max_query_chars], "search"

    def combine_queries(self, variants: list[str]) -> str:
        """One query matching any of the variants (``capabilities.combines_variants``)."""
        if self.combine is None:
            raise NotImplementedError(f"{self.name} cannot combine query variants")
        return self.combine(variants)

    async def search(self, session: Any, request: SearchRequest) -> ProviderAnswer:
        if self.search_function is None:
            raise NotImplementedError(f"{self.name} has no search")
        return await self.search_function(session, request.query, request.limit, request.filters)


# A check wants the answer whatever its status: the status is what it reports.
PROBE_STATUSES = frozenset(range(400, 600))
PROBE_DOI = "10.1038/nbt.2647"  # a paper every scholarly API has; its lookup is each API's cheapest call


def pace_policies(settings: Settings) -> dict[str, PacePolicy]:
    """Every provider's declared pace (see README, "Pacing")."""
    return {name: get_provider(name).pace_policy(settings) for name in ALL_PROVIDERS}


def provider_label(name: str) -> str:
    """A provider's name in prose ("Semantic Scholar"); unknown names as given."""
    return get_provider(name).label if name in ALL_PROVIDERS else name


def get_provider(name: str) -> Provider:
    """The provider called ``name`` (its module is imported on first use)."""
    if name not in ALL_PROVIDERS:
        raise KeyError(f"unknown provider {name!r}")
    return importlib.import_module(f"litsearch.providers.{name}").PROVIDER
