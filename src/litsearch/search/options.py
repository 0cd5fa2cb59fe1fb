"""What a search is asked to do: the topic and its variants, providers, filters, limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.filters import Filters

MAX_QUERY_CHARS = 1000
MAX_VARIANTS = 8
# Records asked of each provider: more than shown, so merging and ranking have choice.
MIN_FETCH, MAX_FETCH = 25, 100


@dataclass
class SearchOptions:
    topic: str
    variants: list[str] = field(default_factory=list)
    providers: list[str] | None = None  # None = detect from the topic ("auto")
    limit: int = 20
    sort: str = "relevance"
    filters: Filters = field(default_factory=Filters)
    verify: bool = True  # check DOIs at Crossref
    find_open_access: bool = True  # ask Unpaywall for missing OA links
    exclude_retracted: bool = False  # drop papers a source marks retracted (default: shown, marked)

    @property
    def queries(self) -> list[str]:
        seen, queries = set(), []
        for text in [self.topic, *self.variants]:
            key = text.casefold()
            if text and key not in seen:
                seen.add(key)
                queries.append(text)
        return queries

    @property
    def fetch_per_provider(self) -> int:
        return max(MIN_FETCH, min(MAX_FETCH, 2 * self.limit))


