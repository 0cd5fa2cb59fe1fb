"""The docs' table of services, written from their declarations (providers/registry.py), so
the page says what the code does: docs/providers.md holds it between two markers and
tests/providers/test_declarations.py keeps the two equal (and rewrites it on request)."""

from __future__ import annotations

from typing import Iterable

from ..core.services import ALWAYS, BIOMEDICAL, ON_REQUEST, TECHNICAL, PacePolicy, Service

BEGIN = "<!-- services: generated from the declarations (python3 tests/providers/test_declarations.py) -->"
END = "<!-- end of services -->"

_SEARCHED = {ALWAYS: "always", BIOMEDICAL: "biomedical topics", TECHNICAL: "computing, maths, physics",
             ON_REQUEST: "when named"}


def services_table(services: Iterable[Service]) -> str:
    """One Markdown row per service: where it lives, key, email, pace, cache, what it can do."""
    rows = ["| service | base URL (variable) | key (sent as) | contact email | pace | cached | can | "
            "searched by `--providers auto` |",
            "|---|---|---|---|---|---|---|---|"]
    for service in services:
        where = (f"`{service.base_url}` (`{service.url_variable}`)" if service.base_url
                 else "the hosts Unpaywall names")
        key = f"`{service.key.variable}` ({service.key.where_sent})" if service.key else "–"
        email = _email(service)
        pace = _pace(service.pace)
        if service.pace_with_key:
            pace += f"; with the key {_pace(service.pace_with_key)}"
        if service.pace_with_email:
            pace += f"; with an email {_pace(service.pace_with_email)}"
        cached = (f"{service.cache_ttl / 86_400:g} day{'s' if service.cache_ttl != 86_400 else ''}" if service.provider
                  else "–")
        can = ", ".join(sorted(name.replace("_", " ") for name in service.capabilities))
        searched = _SEARCHED.get(service.auto_choice or "", "–")
        rows.append(f"| {service.label} (`{service.name}`) | {where} | {key} | {email} | {pace} | {cached} | "
                    f"{can} | {searched} |")
    return "\n".join(rows) + "\n"


def _email(service: Service) -> str:
    if service.email.required:
        return f"required (`{service.email.parameter}`)"
    if service.email.parameter:
        return f"`{service.email.parameter}`"
    return "–"


def _pace(pace: PacePolicy) -> str:
    if pace.min_interval <= 0:
        rate = "no pace"
    elif pace.min_interval >= 1:
        rate = "1/s" if pace.min_interval == 1 else f"1 per {pace.min_interval:g} s"
    else:
        rate = f"{1 / pace.min_interval:.3g}/s"
    return f"{rate}, {pace.max_in_flight} at once" + (", halved after a 429" if pace.slows_after_429 else "")


def with_table(page: str, table: str) -> str:
    """``page`` with the text between the markers replaced by ``table``; ValueError without them."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError("the page lost the generated table's markers")
    return page[: start + len(BEGIN)] + "\n" + table + page[end:]
