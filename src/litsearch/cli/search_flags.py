"""The search's filter options, for every command that runs a search (search, deep start):
one place defines ``--year``, ``--venue``, the OpenAlex entity filters and the rest, and hands
them on by name to the one checked way to a search (search/options.py ``checked_options``)."""

from __future__ import annotations

import argparse

from typing import Any

from ..core.filters import CONTINENTS, ENTITY_FILTERS
from ..core.services import PREPRINTS
from ..providers import registry
from .common import whole_number


def add_filter_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The filter options, in two groups; returns the first (a command may add its own filters)."""
    filters = parser.add_argument_group("filters (sent to each provider that supports them, applied after fetching elsewhere)")
    filters.add_argument("--year", metavar="RANGE", help="publication years: 2019-2024, 2019-, -2015 or 2020")
    filters.add_argument("--since", metavar="YYYY-MM-DD", help="published on or after this day")
    filters.add_argument("--until", metavar="YYYY-MM-DD", help="published on or before this day")
    filters.add_argument("--venue", metavar="NAME", help="journal or conference (OpenAlex resolves it to a source id)")
    filters.add_argument("--author", metavar="NAME", help="an author (OpenAlex resolves it to an author id)")
    filters.add_argument("--open-access", action="store_true", help="only papers with a free full text")
    filters.add_argument("--type", action="append", metavar="TYPE", dest="types",
                         help="article, review, preprint or conference (repeatable or comma list)")
    preprints = filters.add_mutually_exclusive_group()
    preprints.add_argument("--preprints", action="store_true", default=None,
                           help="only preprints (bioRxiv, medRxiv, arXiv, Research Square …): asked of "
                                f"{registry.in_words(registry.searchable_with(PREPRINTS))}, checked on the merged list")
    preprints.add_argument("--no-preprints", action="store_false", dest="preprints",
                           help="no preprints; a published paper stays even when its preprint was merged in")
    filters.add_argument("--min-citations", type=whole_number, metavar="N", help="at least N citations")
    filters.add_argument("--citations", metavar="RANGE",
                         help="citations: 100 (at least), >100, <50, 100-500, -50 (the seed design's alias)")
    filters.add_argument("--open", action="store_true", help="the same as --open-access (the seed design's alias)")
    entities = parser.add_argument_group(
        "OpenAlex filters (an OpenAlex id, or a name resolved to the best match, shown in the footer; only "
        "OpenAlex applies them, so papers other providers find are kept only where OpenAlex found them too)")
    entities.add_argument("--source", metavar="ID|NAME", help="a journal or conference as an OpenAlex source (S…)")
    entities.add_argument("--institution", metavar="ID|NAME",
                          help="an author's institution or any part of it (I…, a ROR id, or a name)")
    entities.add_argument("--topic", metavar="ID|NAME", dest="topic_filter", help="the work's primary OpenAlex topic (T…) (a filter: "
                                                              "the search text is the positional TOPIC)")
    entities.add_argument("--publisher", metavar="ID|NAME", help="the publisher or its parent (P…)")
    entities.add_argument("--funder", metavar="ID|NAME", help="a funder of the work (F…)")
    entities.add_argument("--country", action="append", metavar="CODE",
                          help="an author institution's country, ISO code (DE, US; repeatable or comma list)")
    entities.add_argument("--continent", action="append", metavar="NAME",
                          help="an author institution's continent: " + ", ".join(CONTINENTS))
    return filters


def filter_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The filters as search/options.py ``checked_options`` takes them, by name."""
    return {"year": args.year, "since": args.since, "until": args.until, "venue": args.venue, "author": args.author,
            "open_access": args.open_access or None, "open": args.open or None, "types": args.types,
            "preprints": args.preprints, "min_citations": args.min_citations, "citations": args.citations,
            "country": args.country, "continent": args.continent,
            **{name: getattr(args, "topic_filter" if name == "topic" else name) for name in ENTITY_FILTERS}}
