"""A search record a systematic review can cite and re-run (``--record FILE``).

One JSON document per search or snowball: the tool and its version, the UTC time, the topic
and variants, for every provider each request as sent (URL, parameters, JSON body; keys and
contact emails replaced by "[redacted]") with its status and the number of records it gave,
the filters and where each was applied, the counts of a PRISMA 2020 identification box
(identified per source, duplicates removed, filtered out, shown), the shown results with their
ranks and ids, and the ids (with title and year) of every paper found, once duplicates were
merged and the filters applied, shown or not, so that a re-run can tell what is new since.
``lit-search report`` turns it into methods text; ``lit-search rerun`` repeats it.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from .. import __version__
from ..core.errors import InputError
from ..core.filters import ENTITY_FILTERS, Filters
from ..core.records import field_value

RECORD_VERSION = 1
RESULT_IDS = ("doi", "pmid", "arxiv_id", "paper_id", "openalex_id")


def _header(kind: str) -> dict[str, Any]:
    """What every record starts with: its version and kind, the tool, the UTC time."""
    now = datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return {"record_version": RECORD_VERSION, "kind": kind, "tool": {"name": "lit-search", "version": __version__},
            "searched_at": now}


def _result_entries(items) -> list[dict[str, Any]]:
    return [{"rank": rank, "title": item.paper.title, "year": item.paper.year,
             **{name: field_value(item.paper, name) for name in RESULT_IDS},
             **({"retracted": True} if item.paper.retracted else {})}
            for rank, item in enumerate(items, start=1)]


def _found_entries(items) -> list[dict[str, Any]]:
    """Every paper found (duplicates merged, filters applied), shown or not: its ids, title
    and year (what ``rerun`` compares with), nothing else."""
    entries = []
    for item in items:
        ids = {name: value for name in RESULT_IDS if (value := field_value(item.paper, name))}
        entries.append({**ids, "title": item.paper.title, "year": item.paper.year})
    return entries


def _requests_by_provider(sent: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for entry in sent:
        grouped.setdefault(entry["provider"], []).append({k: v for k, v in entry.items() if k != "provider"})
    return grouped


def filters_as_dict(filters: Filters) -> dict[str, Any]:
    values = asdict(filters)
    # The OpenAlex entity each entity filter was resolved to: a re-run filters by the same ids.
    values["resolved"] = {name: list(found) for name, found in filters.resolved.items() if name in ENTITY_FILTERS}
    return {name: (value.isoformat() if isinstance(value, date) else list(value) if isinstance(value, tuple) else value)
            for name, value in values.items()}


def filters_from_dict(values: Mapping[str, Any]) -> Filters:
    """The Filters a record holds (as ``filters_as_dict`` wrote them)."""
    def day(value: Any) -> date | None:
        try:
            return date.fromisoformat(value) if isinstance(value, str) and value else None
        except ValueError:
            raise InputError(f"the record's filter date {value!r} is not a date (YYYY-MM-DD)") from None
    def text(value: Any) -> str | None:
        return value if isinstance(value, str) and value.strip() else None

    def count(value: Any) -> int | None:
        return value if type(value) is int and value >= 0 else None

    def words(value: Any) -> tuple[str, ...]:
        return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()

    return Filters(date_from=day(values.get("date_from")), date_to=day(values.get("date_to")),
                   venue=text(values.get("venue")), author=text(values.get("author")),
                   open_access=values.get("open_access") is True, types=words(values.get("types")),
                   preprints=values.get("preprints") if isinstance(values.get("preprints"), bool) else None,
                   min_citations=count(values.get("min_citations")), max_citations=count(values.get("max_citations")),
                   countries=words(values.get("countries")), continents=words(values.get("continents")),
                   **{name: text(values.get(name)) for name in ENTITY_FILTERS},
                   resolved=_resolutions(values.get("resolved"), values))


def _resolutions(value: Any, values: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """The recorded entity resolutions that still belong to a recorded filter."""
    found = {}
    for name, pair in (value.items() if isinstance(value, dict) else []):
        if (name in ENTITY_FILTERS and values.get(name) and isinstance(pair, list) and len(pair) == 2
                and all(isinstance(part, str) and part for part in pair)):
            found[name] = (pair[0], pair[1])
    return found


def search_record(options, result) -> dict[str, Any]:
    """The record of one search (``options``: SearchOptions, ``result``: SearchResult)."""
    requests = _requests_by_provider(result.sent)
    providers = []
    for outcome in result.outcomes:
        providers.append({"name": outcome.provider, "count": len(outcome.records), "error": outcome.error,
                          "requests": requests.get(outcome.provider, [])})
    enrichment = [{"name": name, "requests": entries} for name, entries in requests.items()
                  if name not in {outcome.provider for outcome in result.outcomes}]
    shown = result.results[: options.limit]
    return {
        **_header("search"),
        "topic": options.topic,
        "variants": result.variants,
        "options": {"providers": [outcome.provider for outcome in result.outcomes], "limit": options.limit,
                    "sort": options.sort, "filters": filters_as_dict(result.filters or options.filters),
                    "verify": options.verify, "exclude_retracted": options.exclude_retracted,
                    # Only when the order was re-ranked by meaning: other records stay as they were.
                    **({"rerank": "semantic"} if getattr(result, "reranked", False) else {})},
        "providers": providers,
        "enrichment": enrichment,
        "filters_applied": list(result.filter_report),
        "counts": _counts(result.record_count, {p["name"]: p["count"] for p in providers},
                          result.after_dedupe, result.filtered_out, result.excluded_retracted, len(shown)),
        "results": _result_entries(shown),
        "found": _found_entries(result.results),
    }


def snowball_record(found, result, args) -> dict[str, Any]:
    """The record of one citation chase (``found``: SnowballResult, ``result``: its SearchResult)."""
    requests = _requests_by_provider(result.sent)
    shown = result.results[: args.limit]
    identified = found.references_found + found.citing_found
    return {
        **_header("snowball"),
        "topic": found.topic,
        "seeds": [{"id": seed.label, "title": seed.paper.title if seed.paper else None, "error": seed.error}
                  for seed in found.seeds],
        "options": {"direction": found.direction, "limit": args.limit, "topic": found.topic,
                    "verify": not args.no_verify},
        "providers": [{"name": name, "requests": entries} for name, entries in requests.items()],
        "filters_applied": [],
        "counts": _counts(identified, {"the seeds' references": found.references_found,
                                       "papers citing the seeds": found.citing_found},
                          len(found.results) + found.seed_records, 0, 0, len(shown),
                          removed_as_seeds=found.seed_records),
        "results": _result_entries(shown),
        "found": _found_entries(result.results),
    }


def _counts(identified: int, per_source: dict[str, int], after_dedupe: int | None, filtered_out: int,
            excluded_retracted: int, shown: int, removed_as_seeds: int = 0) -> dict[str, Any]:
    after = identified if after_dedupe is None else after_dedupe
    return {"identified": identified, "per_source": per_source, "duplicates_removed": identified - after,
            "after_duplicates_removed": after, "seeds_removed": removed_as_seeds, "filtered_out": filtered_out,
            "excluded_retracted": excluded_retracted, "shown": shown}


MAX_RECORD_BYTES = 50 * 1_000_000  # a record of 10,000 found papers is about 3 MB


def read_record(path: str) -> dict[str, Any]:
    """A record written by --record; InputError (exit 2) for anything else: a file that is no
    regular file or too big, text that is not JSON (or nested too deeply to read), a record
    of another kind or version, or one whose fields have the wrong types or sizes
    (record_shape.py)."""
    from ..core.files import read_json_input

    return checked_record(read_json_input(path, MAX_RECORD_BYTES, RECORD_WHAT), path)


RECORD_WHAT = "a lit-search search record"


def checked_record(record: Any, path: str) -> dict[str, Any]:
    """``record`` (a parsed JSON document) when it is a search record, else InputError."""
    from .record_shape import shape_problem, unwritable_text

    if not isinstance(record, dict) or record.get("kind") not in ("search", "snowball") \
            or type(record.get("record_version")) is not int:
        raise InputError(f"{path} is not a lit-search search record (write one with --record FILE)")
    if record["record_version"] > RECORD_VERSION:
        raise InputError(f"{path} was written by a newer lit-search (record version {record['record_version']})")
    problem = shape_problem(record) or unwritable_text(record) or _shape_problem(record)
    if problem:
        raise InputError(f"{path} is not a complete search record: {problem}")
    return record


def _shape_problem(record: dict[str, Any]) -> str | None:
    """What the record's kind needs beyond the types: a topic, or seeds."""
    if record["kind"] == "search" and not (isinstance(record.get("topic"), str) and record["topic"].strip()):
        return "no 'topic'"
    if record["kind"] == "snowball" and not record.get("seeds"):
        return "no 'seeds'"
    return None
