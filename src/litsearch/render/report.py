"""`lit-search report RECORD`: a PRISMA-S-style methods paragraph and a PRISMA 2020
identification table from a search record (search/record.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..providers.base import provider_label
from .markup import markdown_text, plural

# The parameter that carries the search string at each API (what a methods section quotes).
SEARCH_PARAMETERS = ("query", "search", "term", "search_query", "filter")
DEDUPLICATION = ("Duplicates were merged with lit-search's merge engine: records sharing a DOI (in any "
                 "spelling), PMID, arXiv id, OpenAlex or Semantic Scholar id are one record; without a shared "
                 "id, titles must match closely after normalisation, with years within one and overlapping "
                 "authors; records with different DOIs, volumes or issues are never merged.")


CHASED = {"backward": "the reference lists of", "forward": "the papers citing",
          "both": "the reference lists of, and the papers citing,"}


def report_payload(record: dict[str, Any]) -> dict[str, Any]:
    """The report as data: the methods paragraph, the identification rows and their check."""
    counts = record["counts"]
    rows = [(f"Records identified from {provider_label(name)}", count) for name, count in counts["per_source"].items()]
    rows.append(("Records identified, total", counts["identified"]))
    rows.append(("Duplicate records removed", counts["duplicates_removed"]))
    if counts.get("seeds_removed"):
        rows.append(("Records that were a seed paper, removed", counts["seeds_removed"]))
    rows.append(("Records after duplicates removed", counts["after_duplicates_removed"]))
    if counts.get("filtered_out"):
        rows.append(("Records removed by the filters", counts["filtered_out"]))
    if counts.get("excluded_retracted"):
        rows.append(("Retracted records excluded", counts["excluded_retracted"]))
    rows.append(("Records screened (shown, after ranking)", counts["shown"]))
    adds_up = counts["identified"] - counts["duplicates_removed"] == counts["after_duplicates_removed"]
    return {"methods": methods_paragraph(record), "identification": [{"label": l, "count": n} for l, n in rows],
            "adds_up": adds_up}


def report_markdown(record: dict[str, Any]) -> str:
    payload = report_payload(record)
    lines = ["## Search methods", "", markdown_text(payload["methods"], None), "", "## Identification (PRISMA 2020)", "",
             "| Stage | Records |", "|---|---|"]
    lines += [f"| {markdown_text(row['label'])} | {row['count']:,} |" for row in payload["identification"]]
    lines += ["", "## Search strings as sent", ""]
    for provider in record.get("providers", []):
        for request in provider.get("requests", []):
            lines.append(f"- {provider_label(provider['name'])}: `{_code(request.get('method', 'GET'))} "
                         f"{_code(request.get('url', ''))}` with "
                         + ", ".join(f"`{_code(name)}={_code(value)}`" for name, value in request.get("params", {}).items()))
    return "\n".join(lines) + "\n"


def methods_paragraph(record: dict[str, Any]) -> str:
    tool = record.get("tool", {})
    when = _day(record.get("searched_at"))
    counts = record["counts"]
    sentences = []
    if record["kind"] == "snowball":
        seeds = ", ".join(seed["id"] for seed in record.get("seeds", []))
        # A hand-edited direction is not guessed at (rerun falls back to "both" for it).
        what = CHASED.get(str(record["options"].get("direction")), "the reference lists of, or the papers citing,")
        sentences.append(f"On {when}, citation chasing with lit-search {tool.get('version', '')} collected "
                         f"{what} {plural(len(record.get('seeds', [])), 'seed paper')} ({seeds}) from Semantic "
                         f"Scholar, with OpenAlex where Semantic Scholar lacked a paper.")
    else:
        sources = [provider_label(p["name"]) for p in record.get("providers", [])]
        sentences.append(f"We searched {_joined(sources)} on {when} with lit-search {tool.get('version', '')}.")
        variants = record.get("variants") or []
        if variants:
            quoted = _joined(["“" + v + "”" for v in variants])
            sentences.append(f"The topic “{record.get('topic')}” and its {'variant' if len(variants) == 1 else 'variants'} "
                             f"{quoted} were combined into one query per source:")
        else:
            sentences.append(f"The topic “{record.get('topic')}” was sent to each source as one query:")
        strings = []
        for provider in record.get("providers", []):
            request = _search_request(provider.get("requests", []))
            if request is not None:
                sent = "; ".join(f"{name}={value}" for name, value in request.get("params", {}).items()
                                 if name in SEARCH_PARAMETERS)
                strings.append(f"{provider_label(provider['name'])} ({_path(request.get('url', ''))}): {sent}")
        sentences[-1] += " " + "; ".join(strings) + "."
    applied = record.get("filters_applied") or []
    if applied:
        sentences.append("Limits and filters: " + "; ".join(applied) + ".")
    elif record["kind"] == "search":
        sentences.append("No limits or filters were applied beyond each source's relevance ranking.")
    sentences.append(DEDUPLICATION)
    sentences.append(f"Of {counts['identified']:,} records identified, {counts['duplicates_removed']:,} were "
                     f"duplicates; {counts['after_duplicates_removed']:,} remained, of which the "
                     f"{counts['shown']:,} highest ranked were screened.")
    return " ".join(sentence.strip() for sentence in sentences)


def _search_request(requests: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The request that carried the search string (not a name lookup or a record fetch)."""
    for request in requests:
        params = request.get("params", {})
        if any(name in params for name in ("query", "term", "search_query")) or (
                "search" in params and _path(request.get("url", "")).endswith("/works")):
            return request
    return None


def _joined(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _day(value: Any) -> str:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).strftime("%d %B %Y (UTC)").lstrip("0")
    except ValueError:
        return "an unrecorded date"


def _path(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).path or url


def _code(value: Any) -> str:
    return str(value).replace("`", "'").replace("\n", " ")
