"""What one OpenAlex request costs in credits (1 credit = $0.0001 of the daily allowance), as
OpenAlex's production proxy classifies it (ourresearch/openalex-api-proxy@b50c368,
src/endpointClassifier.ts; ../shared/reference/apis-more.md section 6):

- one entity of works, authors, sources, institutions, topics, publishers, funders (or
  concepts) by id, OpenAlex's or an external one (``/works/doi:…``): free;
- an autocomplete, and a search asking at most 10 rows with exactly
  ``select=id,display_name,works_count`` (how OpenAlex's own search box completes): free;
- a semantic search (``search.semantic``): 10; a search (``search``, ``search.*``, a
  ``*.search`` filter): 10; a ``group_by``: 1; any other list: 1;
- everything else, the topic hierarchy among it (``/domains/3`` as much as ``/fields``): 1.

The proxy takes a request when the day's remaining credits cover its cost, so a free request
still goes through on a spent day (src/rateLimiter.ts: ``dailyRemaining >= credits``): the
budget gate stops only requests that cost something."""

from __future__ import annotations

import re
from typing import Any, Mapping

PRICED_ENTITIES = ("works", "authors", "sources", "institutions", "topics", "publishers", "funders", "concepts")
EXTERNAL_ID_PREFIXES = ("doi:", "pmid:", "pmcid:", "mag:", "openalex:", "orcid:", "ror:", "wikidata:", "issn:",
                        "issn_l:", "scopus:")
SEARCH_FILTERS = ("abstract.search", "default.search", "display_name.search", "fulltext.search", "keyword.search",
                  "raw_affiliation_strings.search", "raw_author_name.search", "title.search",
                  "title_and_abstract.search")
FREE_SEARCH_SELECT = "id,display_name,works_count"
SEARCH_CREDITS = 10
_SINGLETON = re.compile(r"^[A-Za-z]?\d+$")


def request_credits(path: str, params: Mapping[str, Any] | None = None) -> int:
    """The credits of ``GET {base}{path}?{params}`` (``path`` as ``/works``, ``/authors/A1``)."""
    params = params or {}
    segments = path.strip("/").lower().split("/")
    if segments[0] == "autocomplete":
        return 0
    if segments[0] not in PRICED_ENTITIES:
        return 1
    if len(segments) >= 2 and (_SINGLETON.match(segments[1]) or segments[1].startswith(EXTERNAL_ID_PREFIXES)):
        return 0
    if "group_by" in params or "group-by" in params:
        return 1
    per_page = str(params.get("per_page") or params.get("per-page") or "")
    if "search" in params and per_page.isdigit() and int(per_page) <= 10 \
            and params.get("select") == FREE_SEARCH_SELECT:
        return 0
    if any(name == "search" or str(name).startswith("search.") for name in params):
        return SEARCH_CREDITS
    if any(kind in str(params.get("filter") or "") for kind in SEARCH_FILTERS):
        return SEARCH_CREDITS
    return 1


# What each explorer action sends, as a request whose cost request_credits tells.
ACTION_REQUESTS = {"search": ("", {"search": "x"}), "list": ("", {}), "get": ("/1", {}),
                   "find": ("", {"search.semantic": "x"})}


def action_credits(path: str, action: str) -> int:
    """The credits of one explorer call on the entity at ``path`` (``/works``): ``search`` (a
    list with a query), ``list`` (filters only), ``get``, ``autocomplete`` or ``find``; the
    words of both doors (tool descriptions, command help) come from here."""
    if action == "autocomplete":
        return request_credits(f"/autocomplete{path}")
    suffix, params = ACTION_REQUESTS[action]
    return request_credits(path + suffix, params)
