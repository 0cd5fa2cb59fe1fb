"""The provider contract: what a provider module implements for the service it declares.

Each service's facts (base URL, key, email use, pace, cache lifetime, capabilities) are its
declaration (``<name>_declaration.py``, core/services.py's vocabulary), listed by the registry
(providers/registry.py). A ``Provider`` adds the behaviour: its ``search`` returns a value, a
``ProviderAnswer`` (nothing is written to the HTTP session for a later step to read back), and
the citation capabilities it declares (``lookup``, ``cites``, ``cited_by``, ``reference_ids``,
``notices``) are methods the citation features call without naming the provider.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal

from ..core.config import Settings
from ..core.errors import ProviderError
from ..core.filters import Filters
from ..core.services import DAY, OR_QUERIES, WEB, PacePolicy, Service  # noqa: F401 (DAY: surface)
from . import registry


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


@dataclass
class Found:
    """What a provider knows of one paper: its record, the id its lists are asked by, and what
    it says of the references (their total; its own ids of them, where it lists ids)."""

    paper: Any  # core.records.Paper
    list_id: str
    reference_count: int | None = None
    referenced_ids: list[str] = field(default_factory=list)
    # The open-access copies this provider names for the paper, best first (core.records.OpenCopy):
    # `lit-search read` tries them after PMC, Europe PMC and arXiv.
    open_copies: list[Any] = field(default_factory=list)


@dataclass
class References:
    """A provider's list of the papers one paper cites, and notes on what it covers."""

    papers: list[Any]
    notes: list[str] = field(default_factory=list)


@dataclass
class CitingPage:
    """One page of the papers citing a paper: the next page's offset (None at the end) and the
    total the provider reports (None when it does not say)."""

    papers: list[Any]
    next_offset: int | None = None
    total: int | None = None


# How a provider lists citing papers (Provider.citing_order): in its own order, page after page,
# or the most cited first, sorted on its server (one page).
OWN_ORDER, MOST_CITED = "own", "most_cited"


# What a provider's search gives: papers (merged and ranked) or web hits (listed apart).
Returns = Literal["papers", "web"]
# How a provider is asked: "search" (one query) or "combined" (the variants in one boolean query).
QueryMode = Literal["search", "combined"]

class Provider:
    """One API's behaviour: a subclass names its declaration (``service``), sets the module's
    ``combine`` and ``search_function`` where it has them, and overrides a method only where
    the API needs more (Semantic Scholar's plan depends on the sort)."""

    service: Service
    # combine(variants) -> one query; search_function(session, query, limit, filters) -> ProviderAnswer
    combine: Callable[[list[str]], str] | None = None
    search_function: Callable[..., Awaitable[ProviderAnswer]] | None = None

    @property
    def name(self) -> str:
        return self.service.name

    @property
    def label(self) -> str:
        return self.service.label

    @property
    def key_variable(self) -> str | None:
        return self.service.key.variable if self.service.key else None

    @property
    def key_benefit(self) -> str:
        return self.service.key.benefit if self.service.key else ""

    @property
    def cache_ttl(self) -> float:
        return self.service.cache_ttl

    @property
    def returns(self) -> Returns:
        """What its search gives: "papers" (merged and ranked) or "web" hits (listed apart)."""
        return "web" if self.service.can(WEB) else "papers"

    # ----- the citation capabilities (graph/ calls them by capability, never by name)

    citing_order: str = OWN_ORDER  # cited_by: OWN_ORDER or MOST_CITED
    citing_page_size: int = 0  # cited_by: papers per page
    references_page_size: int = 0  # cites: references in its one page
    # Which provider is asked first for a capability: lower ranks first (default 1), then the
    # registry's order (providers_for).
    rank_for: dict[str, int] = {}

    def api_id(self, ref: Any) -> str | None:
        """``lookup``: a PaperRef in the form this API looks papers up by; None when it cannot."""
        return None

    def api_ids(self, paper: Any) -> list[str]:
        """``lookup``: the ids this API accepts for a paper known from elsewhere, best first."""
        return []

    async def look_up(self, session: Any, api_id: str) -> Found | None:
        """``lookup``: the paper by ``api_id``; None when this API does not know it."""
        raise NotImplementedError(f"{self.name} cannot look papers up")

    def found_without_lookup(self, paper: Any) -> Found | None:
        """``cites``: a paper known from elsewhere, as this API's lists can be asked for it
        without looking it up first (None when a lookup is needed)."""
        return None

    async def references(self, session: Any, found: Found) -> References | None:
        """``cites``: the papers ``found`` cites; None when this API has no list for it."""
        raise NotImplementedError(f"{self.name} lists no references")

    async def citing(self, session: Any, found: Found, offset: int = 0) -> CitingPage | None:
        """``cited_by``: a page of the papers citing ``found``; None when this API does not know it."""
        raise NotImplementedError(f"{self.name} lists no citing papers")

    def library_ids(self, ids: dict[str, list[str]]) -> str | None:
        """``reference_ids``: the id of a library paper (its identifiers by kind) this API lists
        references by; None when it has none."""
        return None

    async def reference_lists(self, session: Any,
                              api_ids: list[str]) -> tuple[list[list[dict[str, Any]] | None], list[str]]:
        """``reference_ids``: for each id (same order), its references as identifiers by kind
        (``doi``, ``pmid``, ``arxiv_id``, ``paper_id``, ``openalex_id``), None for an id it could
        not answer; and notes."""
        raise NotImplementedError(f"{self.name} lists no reference lists")

    async def notices(self, session: Any, paper: Any) -> Any:
        """``notices``: this API's record of ``paper`` for what it says of retractions and
        corrections (a Paper with ``retracted`` and ``updates``); None when it has none."""
        raise NotImplementedError(f"{self.name} has no notices")

    # ----- deep search (deep/expand.py asks for these by capability, never by name)

    fetches_listed_ids: bool = False  # records_by_id: the ids its reference lists name can be fetched
    references_list_first: bool = False  # linked_many("references") first asks the seeds' own lists: a
    # request more per call, which a round's request budget counts

    def can_link(self, paper: Any) -> bool:
        """``links``: whether this API can list ``paper``'s references and citing papers from
        the ids its record holds (no look-up first)."""
        return False

    # ``cited``, where a method takes it, gains the reference list (OpenAlex W-ids) of every work
    # an answer carried one for: deep search scores co-citation and coupling from them.

    async def linked_many(self, session: Any, papers: list[Any], direction: str, limit: int,
                          cited: dict[str, list[str]] | None = None) -> list[list[Any] | None]:
        """``links``: for each paper (same order), up to ``limit`` of the papers it cites
        (``direction`` "references") or that cite it ("citing"), with abstracts where the API
        gives them; None for a paper this API does not know."""
        raise NotImplementedError(f"{self.name} lists no links")

    async def records_by_id(self, session: Any, ids: list[str],
                            cited: dict[str, list[str]] | None = None) -> list[Any]:
        """``links``: the records (with texts) of works its own reference lists named, by its ids."""
        raise NotImplementedError(f"{self.name} cannot fetch records by the ids of its lists")

    async def recommend(self, session: Any, positives: list[Any], negatives: list[Any], limit: int) -> list[Any]:
        """``recommend``: up to ``limit`` papers like ``positives`` and unlike ``negatives``."""
        raise NotImplementedError(f"{self.name} recommends nothing")

    async def similar_to_text(self, session: Any, text: str, limit: int,
                              cited: dict[str, list[str]] | None = None) -> list[Any]:
        """``semantic_search``: up to ``limit`` papers whose meaning is nearest ``text``."""
        raise NotImplementedError(f"{self.name} has no semantic search")

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
        key = self.service.key
        if key and not settings.key(self.name) and error.status in key.statuses and key.benefit:
            what = "rate limited" if error.status == 429 else "refused"
            head = f"HTTP {error.status} {what}"
            detail = str(error).removeprefix(head).removeprefix(f"HTTP {error.status}").lstrip(" :;")
            return f"{head}: {key.benefit}" + (f" (the API said: {detail})" if detail else "")
        return str(error)

    def pace_policy(self, settings: Settings) -> PacePolicy:
        return settings.pace(self.name)

    def plan_query(self, queries: list[str], sort: str = "relevance") -> tuple[str, QueryMode]:
        """(the query to send, the mode): the variants combined into one query (``"combined"``)
        where the API can, else the topic alone, cut to what the API accepts (``"search"``)."""
        if len(queries) > 1 and self.service.can(OR_QUERIES):
            return self.combine_queries(queries), "combined"
        return queries[0][: self.service.max_query_chars], "search"

    def combine_queries(self, variants: list[str]) -> str:
        """One query matching any of the variants (the ``or_queries`` capability)."""
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
    """Every provider's declared pace for these settings (see docs/configuration.md, "Pacing")."""
    return {name: settings.pace(name) for name in registry.providers()}


def providers_for(capability: str) -> list[Provider]:
    """The providers that can do ``capability``, in the order they are asked: each one's
    ``rank_for`` the capability, then the registry's order."""
    names = [name for name in registry.with_capability(capability) if name in registry.providers()]
    found = [get_provider(name) for name in names]
    return sorted(found, key=lambda provider: (provider.rank_for.get(capability, 1), names.index(provider.name)))


def provider_label(name: str) -> str:
    """A provider's name in prose ("Semantic Scholar"); unknown names as given."""
    return registry.provider_label(name)


def get_provider(name: str) -> Provider:
    """The provider called ``name`` (its module is imported on first use)."""
    if name not in registry.providers():
        raise KeyError(f"unknown provider {name!r}")
    return importlib.import_module(f"litsearch.providers.{name}").PROVIDER
