"""The words of the OpenAlex explorer's tools: what each list keeps, when to use each entity,
and the descriptions built from them. Short on purpose: the tools/list answer goes into
every client's context, so each description says what a model needs to choose, no more."""

from __future__ import annotations

from ..providers.openalex_costs import action_credits
from ..providers.openalex_entity_kinds import EntityKind

KEPT = {
    "work": "id, title, DOI, year, type, authors, journal, OA flag and URL, cited-by count, primary topic, abstract",
    "author": "id, name, ORCID, works and citation counts, h-index, last known institutions, top 3 topics",
    "source": "id, name, ISSN-L, type, OA and DOAJ flags, works and citation counts, h-index, publisher",
    "institution": "id, name, ROR, country, type, city, works and citation counts, h-index",
    "topic": "id, name, description, subfield, field, domain, works and citation counts",
    "publisher": "id, name, hierarchy level, countries, works and citation counts",
    "funder": "id, name, country, description, awards, works and citation counts",
    "domain": "id, name, description, its fields, works and citation counts",
    "field": "id, name, description, domain, subfield count, works and citation counts",
    "subfield": "id, name, description, field, domain, works and citation counts",
}
USE = {
    "work": ("Use paper_search for a literature search (every source, merged, ranked, DOI-checked); use work_list "
             "for OpenAlex alone with its exact filters (an author's, institution's or journal's works, a field, "
             "a year)."),
    "author": "Use it to find a researcher's id (for filters) or compare researchers.",
    "source": "Use it to find a journal, conference or repository and its id.",
    "institution": "Use it to find a university or lab and its id.",
    "topic": "Use it to find OpenAlex research topics and their ids.",
    "publisher": "Use it to find a publisher and its id.",
    "funder": "Use it to find a funding body and its id.",
    "domain": "OpenAlex's 4 top research areas; below them field_list, subfield_list, topic_list.",
    "field": "OpenAlex's 26 fields (below the 4 domains, above subfields).",
    "subfield": "OpenAlex's ~250 subfields (below fields, above topics).",
}


def cost(kind: EntityKind, action: str) -> str:
    """What a call costs of OpenAlex's daily credits, in words (providers/openalex_costs.py)."""
    if action == "list":
        searched, filtered = action_credits(kind.path, "search"), action_credits(kind.path, "list")
        if searched == filtered:
            return f" Costs {filtered} of OpenAlex's daily credits."
        return f" A query costs {searched} of OpenAlex's daily credits, filters alone {filtered}."
    credits = action_credits(kind.path, action)
    return " Free of OpenAlex credits." if credits == 0 else f" Costs {credits} of OpenAlex's daily credits."


def list_description(kind: EntityKind) -> str:
    return (f"List OpenAlex {kind.plural}: search{' by name' if kind.name != 'work' else ''} and filter (the filter "
            f"arguments, or a raw OpenAlex filter). {USE[kind.name]} Slim summaries ({KEPT[kind.name]}); most relevant "
            f"first with a query, else most cited; next_cursor pages on.{cost(kind, 'list')}")


def get_description(kind: EntityKind) -> str:
    extra = " (by DOI, PMID or PMCID too)" if kind.name == "work" else ""
    return (f"Get one OpenAlex {kind.name}{extra} complete: the full record (longest lists shortened past the result "
            f"bound, as \"shortened\" says).{cost(kind, 'get')}")


def autocomplete_description(kind: EntityKind) -> str:
    return (f"Up to 10 OpenAlex {kind.plural} matching typed text, with ids, hints and counts: the cheap way to turn a "
            f"name into an id for filters.{cost(kind, 'autocomplete')}")


FIND_DESCRIPTION = (
    "Find OpenAlex works by meaning (semantic search) from a question, an abstract or a paragraph: up to 50 work "
    "summaries with a similarity score. Use it when the papers' wording may differ from yours; paper_search for a "
    "full literature search, work_list for keywords with filters. No citation-count or country filter. At most one "
    "a second; 10 daily credits each.")
