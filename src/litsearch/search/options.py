"""What a search is asked to do: the topic and its variants, providers, filters, limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import UsageError
from ..core.filters import Filters
from ..core.text import plain_text

MAX_QUERY_CHARS = 1000
# The orders a search can be asked for (search/rank.py sorts by them).
SORT_KEYS = ("relevance", "impact", "citations", "year")
MAX_VARIANTS = 8
# The re-ranking a search can be asked for (semantic/rerank.py); None: semantic where the
# optional re-ranker and its model are installed, none elsewhere.
RERANK_MODES = ("semantic", "none")
# Records asked of each provider: a full page of 100, which costs every API the same one request
# as a short page, so the ranking has a pool to choose from (it scores every paper itself).
# Earlier versions asked twice the rows shown (25-100): --offline still finds those answers.
MIN_FETCH, MAX_FETCH = 25, 100
MAX_LIMIT = 100  # rows a search (or any command's list) shows at most (--limit)


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
    rerank: str | None = None  # "semantic", "none", or None: this installation's default

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
        return MAX_FETCH


def clean_query(text: str, label: str) -> str:
    """A topic or variant as it is searched (plain text), or UsageError naming ``label`` when it
    is empty or longer than MAX_QUERY_CHARS."""
    cleaned = plain_text(text) or ""
    if not cleaned:
        raise UsageError(f"{label} is empty")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise UsageError(f"{label} is {len(cleaned):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    return cleaned


def check_limit(limit: int, maximum: int = MAX_LIMIT, flag: str = "--limit") -> int:
    """``limit`` when it is 1..``maximum``, else a UsageError naming ``flag`` and the range."""
    if not 1 <= limit <= maximum:
        raise UsageError(f"{flag} must be between 1 and {maximum}, not {limit}")
    return limit
