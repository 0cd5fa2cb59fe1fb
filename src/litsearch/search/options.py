"""What a search is asked to do: the topic and its variants, providers, filters, limits, and
``checked_options``, the one way every front end (the command line, a search record, the MCP
tool, the Python API) turns its arguments into them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..core.environment import excerpt
from ..core.errors import UsageError
from ..core.filters import Filters
from ..core.text import plain_text
from .aliases import check_providers, search_filters
from .plan import parse_provider_list

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


def clean_phrasings(variants: str | Sequence[str] | None, names: ArgumentNames) -> list[str]:
    """Other phrasings (a search's variants, a deep step's queries) as searched, each cleaned by
    ``clean_query``: one string is one phrasing (iterated, it would be its letters); UsageError,
    in ``names``' words, for anything but text."""
    if variants is None:
        return []
    if isinstance(variants, str):
        variants = [variants]
    elif isinstance(variants, (bytes, bytearray, Mapping)) or not isinstance(variants, Iterable):
        raise UsageError(f"{names.variant.format(number='').strip()}s takes a phrasing or a list of them, "
                         f"not {type(variants).__name__}")
    variants = list(variants)
    for number, text in enumerate(variants, start=1):
        if not isinstance(text, str):
            raise UsageError(f"{names.variant.format(number=number)} is text, not {type(text).__name__} {text!r}")
    return [clean_query(text, names.variant.format(number=number)) for number, text in enumerate(variants, start=1)]


def check_limit(limit: int, maximum: int = MAX_LIMIT, flag: str = "--limit") -> int:
    """``limit`` when it is 1..``maximum``, else a UsageError naming ``flag`` and the range."""
    if not 1 <= limit <= maximum:
        raise UsageError(f"{flag} must be between 1 and {maximum}, not {limit}")
    return limit


@dataclass(frozen=True)
class ArgumentNames:
    """How a front end names its arguments in the messages of ``checked_options``: the same
    check says "--variant 2 is empty" on the command line, "variant 2 is empty" to the MCP
    tool and in Python, "recorded variant 2 is empty" for a search record."""

    topic: str = "the topic"
    variant: str = "variant {number}"
    too_many_variants: str = "{count} variants given"
    limit: str = "limit"
    sort: str = "sort"
    rerank: str = "rerank"
    filter_prefix: str = ""  # before a filter's name: "--" (written --min-citations), "filters." or none
    # How an empty result's advice names what to give next (render/table.py): other phrasings,
    # other providers, the cache read alone
    variants_hint: str = "variants"
    providers_hint: str = "providers"
    offline_hint: str = "offline"


COMMAND_LINE = ArgumentNames(variant="--variant {number}", limit="--limit", sort="--sort", rerank="--rerank",
                             filter_prefix="--", variants_hint='--variant "..."', providers_hint="--providers",
                             offline_hint="--offline")
MCP_TOOL = ArgumentNames(filter_prefix="filters.")
PYTHON = ArgumentNames(variants_hint="variants=[...]", providers_hint="providers=[...]", offline_hint='cache="offline"')
SEARCH_RECORD = ArgumentNames(topic="the recorded topic", variant="recorded variant {number}",
                              too_many_variants="{count} recorded variants", limit="the recorded limit",
                              sort="the recorded sort", rerank="the recorded rerank", filter_prefix="")


def checked_options(topic: str, *, variants: Sequence[str] = (), providers: str | Sequence[str] | None = None,
                    limit: int = 20, sort: str = "relevance", filters: Filters | Mapping[str, Any] | None = None,
                    verify: bool = True, exclude_retracted: bool = False, rerank: str | None = None,
                    names: ArgumentNames = PYTHON) -> SearchOptions:
    """The one way from a front end's arguments to a search: the topic and each variant cleaned
    (plain text, not empty, not too long), at most MAX_VARIANTS variants, the limit and the sort
    checked, the providers parsed (None, "auto" or an empty list: the automatic choice), the
    filters built (a mapping of ``search_filters``' arguments, or Filters already built) and
    checked against the providers. A UsageError, in ``names``' words, for the first problem.
    ``verify``: DOI checks at Crossref and open-access links at Unpaywall; ``rerank``: one of
    RERANK_MODES, or None for this installation's default."""
    if not isinstance(topic, str):
        raise UsageError(f"{names.topic} is text, not {type(topic).__name__}")
    cleaned = clean_query(topic, names.topic)
    others = clean_phrasings(variants, names)
    if len(others) > MAX_VARIANTS:
        raise UsageError(f"{names.too_many_variants.format(count=len(others))}; the limit is {MAX_VARIANTS}")
    if type(limit) is not int:
        raise UsageError(f"{names.limit} takes a whole number, not {type(limit).__name__} {limit!r}")
    check_limit(limit, flag=names.limit)
    if sort not in SORT_KEYS:
        raise UsageError(f"{names.sort} must be one of {', '.join(SORT_KEYS)}, not {excerpt(str(sort))}")
    if rerank is not None and rerank not in RERANK_MODES:
        raise UsageError(f"{names.rerank} must be one of {', '.join(RERANK_MODES)}, not {excerpt(str(rerank))}")
    chosen = _chosen_providers(providers)
    if not isinstance(filters, Filters):
        filters = search_filters(flag_prefix=names.filter_prefix, **(filters or {}))
    check_providers(filters, chosen)
    return SearchOptions(topic=cleaned, variants=others, providers=chosen, limit=limit, sort=sort, filters=filters,
                         verify=verify, find_open_access=verify, exclude_retracted=exclude_retracted, rerank=rerank)


def _chosen_providers(providers: str | Sequence[str] | None) -> list[str] | None:
    """None for the automatic choice (None, "auto", no names), else the names checked."""
    if providers is None:
        return None
    text = providers if isinstance(providers, str) else ",".join(providers)
    if (isinstance(providers, str) and text.strip().lower() == "auto") or (not isinstance(providers, str) and not text):
        return None
    try:
        return parse_provider_list(text)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
