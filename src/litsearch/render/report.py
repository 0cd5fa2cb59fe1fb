"""`lit-search report RECORD`: a PRISMA-S-style methods paragraph and a PRISMA 2020
identification table from a search record (search/record.py)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..core.sanitize import markdown_safe
from ..core.text import plural
from ..providers.base import provider_label
from .markup import markdown_text

# The parameter that carries the search string at each API (what a methods section quotes).
SEARCH_PARAMETERS = ("query", "search", "search.exact", "term", "search_query", "filter")
DEDUPLICATION = ("Duplicates were merged with lit-search's merge engine: records sharing a DOI (in any "
                 "spelling), PMID, arXiv id, OpenAlex or Semantic Scholar id are one record; without a shared "
                 "id, titles must match closely after normalisation, with years within one and overlapping "
                 "authors; records with different DOIs, volumes or issues are never merged, and a DOI shared by "
                 "records whose titles and pages disagree (one DOI for a whole abstract supplement) does not "
                 "join them.")


SHOWN_LABEL = "Records shown (the highest ranked, up to the limit; none screened by lit-search)"
# The parameters that say how many records a request asked for.
SIZE_PARAMETERS = ("limit", "per_page", "retmax", "max_results", "rows")


class Literal(str):
    """A search string exactly as sent: shown as code in Markdown, never escaped."""


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
    # Screening is the reviewer's step (PRISMA 2020): lit-search ranks and shows, it screens nothing.
    rows.append((SHOWN_LABEL, counts["shown"]))
    adds_up = counts["identified"] - counts["duplicates_removed"] == counts["after_duplicates_removed"]
    return {"methods": methods_paragraph(record), "identification": [{"label": l, "count": n} for l, n in rows],
            "adds_up": adds_up}


def report_markdown(record: dict[str, Any]) -> str:
    payload = report_payload(record)
    lines = ["## Search methods", "", methods_markdown(record), "", "## Identification (PRISMA 2020)", "",
             "| Stage | Records |", "|---|---|"]
    lines += [f"| {markdown_text(row['label'])} | {row['count']:,} |" for row in payload["identification"]]
    lines += ["", "## Search strings as sent", ""]
    for provider in record.get("providers", []):
        for request in provider.get("requests", []):
            method_and_url = f"{request.get('method', 'GET')} {request.get('url', '')}"
            lines.append(f"- {provider_label(provider['name'])}: {_code_span(method_and_url)} with "
                         + ", ".join(_code_span(f"{name}={value}") for name, value in request.get("params", {}).items()))
    return "\n".join(lines) + "\n"


def methods_paragraph(record: dict[str, Any]) -> str:
    """The methods paragraph as plain text (the search strings as sent, verbatim)."""
    return "".join(methods_parts(record))


def methods_markdown(record: dict[str, Any]) -> str:
    """The methods paragraph in Markdown: the prose made inert, each search string a code span
    (a table's "\\|" escape has no place in a paragraph and would misquote the string)."""
    spans: dict[str, str] = {}  # a placeholder markdown_text leaves alone -> the code span
    pieces = []
    for part in methods_parts(record):
        if isinstance(part, Literal):
            token = f"LITSEARCHLITERAL{len(spans)}Z"
            spans[token] = _code_span(part)
            part = token
        pieces.append(part)
    text = markdown_text("".join(pieces), None)
    for token, span in spans.items():
        text = text.replace(token, span)
    return text


def _code_span(text: str) -> str:
    """``text`` as one inline code span: a fence longer than any run of backticks inside."""
    flat = " ".join(markdown_safe(str(text)).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def methods_parts(record: dict[str, Any]) -> list[str]:
    """The paragraph as pieces of prose and ``Literal`` search strings, in reading order."""
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
        strings: list[str] = []
        for provider in record.get("providers", []):
            request = _search_request(provider.get("requests", []))
            if request is not None:
                sent = [Literal(f"{name}={value}") for name, value in request.get("params", {}).items()
                        if name in SEARCH_PARAMETERS]
                strings += ["; " if strings else " ", f"{provider_label(provider['name'])} "
                            f"({_path(request.get('url', ''))}): ", *_joined_parts(sent, " and ")]
        sentences[-1] = [sentences[-1], *strings, "."]
        sentences.append(_identified_sentence(record))
    applied = record.get("filters_applied") or []
    if applied:
        sentences.append("Limits and filters: " + "; ".join(applied) + ".")
    elif record["kind"] == "search":
        sentences.append("No limits or filters were applied beyond each source's relevance ranking.")
    sentences.append(DEDUPLICATION)
    sentences.append(f"Of {counts['identified']:,} records identified, {counts['duplicates_removed']:,} were "
                     f"duplicates; {counts['after_duplicates_removed']:,} remained, of which the "
                     f"{counts['shown']:,} highest ranked were shown (the rest were found, not shown). Screening "
                     f"is the reviewer's step: lit-search ranks and shows records, it screens none.")
    parts: list[str] = []
    for sentence in sentences:
        pieces = sentence if isinstance(sentence, list) else [sentence]
        if not any(pieces):
            continue
        if parts:
            parts.append(" ")
        parts += [piece for piece in pieces if piece]
    return parts


def _identified_sentence(record: dict[str, Any]) -> str:
    """What "records identified" counts: what each source returned for the query, with the
    page size the request asked for."""
    counts = record["counts"]["per_source"]
    described = []
    for provider in record.get("providers", []):
        name = provider.get("name")
        if name not in counts:
            continue
        request = _search_request(provider.get("requests", [])) or {}
        asked = [str(value) for key, value in request.get("params", {}).items() if key in SIZE_PARAMETERS]
        cap = f" (asked for {asked[0]})" if asked else ""
        described.append(f"{provider_label(name)} {counts[name]:,}{cap}")
    if not described:
        return ""
    return ("Records identified are those each source returned for its query, in its own order: "
            + _joined(described) + ".")


def _joined_parts(items: list[str], last: str) -> list[str]:
    parts: list[str] = []
    for number, item in enumerate(items):
        if number:
            parts.append(last if number == len(items) - 1 else ", ")
        parts.append(item)
    return parts


def _search_request(requests: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The request that carried the search string (not a name lookup or a record fetch)."""
    for request in requests:
        params = request.get("params", {})
        if any(name in params for name in ("query", "term", "search_query")) or (
                {"search", "search.exact"} & set(params) and _path(request.get("url", "")).endswith("/works")):
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

