"""A fake OpenAlex built from the real recorded works in ../shared/fixtures/openalex (256 works
from the recorded bodies: a 200-work search page, citation pages, single works).

The works are served as recorded. Every other entity is gathered from inside them, as
OpenAlex dehydrates it there: authors, institutions, sources, publishers, funders, topics
and the domain > field > subfield hierarchy keep their real ids, names and fields; their
works and citation counts are the corpus's own, so a filtered list agrees with the works a
filter on /works returns. Only the hierarchy's descriptions are written here (works carry
none).

Routes: /{entities} lists (search=, search.semantic= on works, filter=, sort=, select=,
per_page, cursor), /{entities}/{id} (OpenAlex ids, a hierarchy level's number, a work's DOI
or PMID), /autocomplete/{entities}. As the real API: /autocomplete/domains and /fields are
404; a semantic search refuses per_page over 50 and the cited_by_count filter; an unknown
filter or select field is a 400 with OpenAlex's error body."""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections import defaultdict
from functools import lru_cache
from typing import Any

import fake_openalex_rules
from conftest import FIXTURES
from fake_server import Answer, SeenRequest

BASE = "https://openalex.org/"
LIMIT_HEADERS = {"X-RateLimit-Limit-USD": "1", "X-RateLimit-Remaining-USD": "0.9412", "X-RateLimit-Reset": "41000"}
CONTINENTS = {"US": "north_america", "CA": "north_america", "MX": "north_america", "CR": "north_america",
              "GB": "europe", "DE": "europe", "AT": "europe", "NL": "europe", "FR": "europe", "SE": "europe",
              "CH": "europe", "DK": "europe", "FI": "europe", "ES": "europe", "IT": "europe", "NO": "europe",
              "AU": "oceania", "BR": "south_america", "CO": "south_america", "CN": "asia", "IN": "asia",
              "ID": "asia", "MY": "asia", "KE": "africa", "ZA": "africa"}
LEVELS = ("domains", "fields", "subfields")
# Root fields the real records have and the gathered ones may lack: selectable all the same.
SELECTABLE = {"geo", "relevance_score", "description", "fields", "subfields", "topics", "orcid", "ror"}


def _short(value: Any) -> str:
    """How a filter names an id: ``A123`` (any case) or a hierarchy level's number."""
    text = str(value).replace(BASE, "").strip("/")
    return text.rsplit("/", 1)[-1].lower() if text.startswith(LEVELS) else text.lower()


def _recorded_works() -> list[dict[str, Any]]:
    works: dict[str, dict[str, Any]] = {}
    folder = FIXTURES / "openalex"
    for path in sorted(folder.glob("bodies/*_200.json")) + sorted(folder.glob("raw/*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        for work in payload.get("results", [payload]) if isinstance(payload, dict) else []:
            if isinstance(work, dict) and str(work.get("id", "")).startswith(BASE + "W"):
                works.setdefault(work["id"], work)
    return list(works.values())


def _gather(works: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Every entity found inside the works, by kind and id, with the corpus's counts."""
    found: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    members: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(plural: str, record: dict[str, Any], work: dict[str, Any]) -> dict[str, Any]:
        kept = found[plural].setdefault(record["id"], dict(record))
        members[(plural, record["id"])].add(work["id"])
        return kept

    for work in works:
        for authorship in work.get("authorships") or []:
            institutions = [i for i in authorship.get("institutions") or [] if i.get("id")]
            if (authorship.get("author") or {}).get("id"):
                author = add("authors", authorship["author"], work)
                author.setdefault("last_known_institutions", institutions[:1])
                author.setdefault("topics", [])
            for institution in institutions:
                add("institutions", institution, work)
        source = (work.get("primary_location") or {}).get("source") or {}
        if source.get("id"):
            add("sources", source, work)
            lineage = list(zip(source.get("host_organization_lineage") or [],
                               source.get("host_organization_lineage_names") or []))
            for position, (pid, name) in enumerate(lineage):  # the host first, then its parents
                add("publishers", {"id": pid, "display_name": name, "hierarchy_level": len(lineage) - 1 - position,
                                   "country_codes": [], "lineage": [p for p, _ in lineage[position:]]}, work)
        for funder in work.get("funders") or []:
            if funder.get("id"):
                add("funders", {**funder, "country_code": None, "description": None}, work)
        for topic in work.get("topics") or []:
            levels = {name: topic.get(name) for name in ("subfield", "field", "domain")}
            add("topics", {"id": topic["id"], "display_name": topic["display_name"], **levels,
                           "description": f"Works about {topic['display_name'].lower()}."}, work)
            domain = add("domains", {**levels["domain"], "fields": []}, work)
            field = add("fields", {**levels["field"], "domain": levels["domain"], "subfields": []}, work)
            add("subfields", {**levels["subfield"], "field": levels["field"], "domain": levels["domain"]}, work)
            for parent, child in ((domain, "fields"), (field, "subfields")):
                entry = levels[child[:-1]]
                if entry not in parent[child]:
                    parent[child].append(entry)
    by_id = {work["id"]: work for work in works}
    for (plural, entity_id), work_ids in members.items():
        record = found[plural][entity_id]
        cites = sorted((by_id[w].get("cited_by_count") or 0 for w in work_ids), reverse=True)
        record.update(works_count=len(work_ids), cited_by_count=sum(cites),
                      summary_stats={"h_index": sum(1 for i, c in enumerate(cites, 1) if c >= i)})
        if plural in LEVELS:
            record["description"] = f"OpenAlex's {plural[:-1]} {record['display_name']}."
    for author in found["authors"].values():
        author["topics"] = [t for w in works if any((a.get("author") or {}).get("id") == author["id"]
                                                    for a in w.get("authorships") or [])
                            for t in (w.get("topics") or [])][:5]
    return found


@lru_cache(maxsize=1)
def corpus() -> dict[str, list[dict[str, Any]]]:
    """{plural: records}: the recorded works and the entities gathered from them."""
    works = _recorded_works()
    return {"works": works, **{plural: list(records.values()) for plural, records in _gather(works).items()}}


def _walk(value: Any, path: list[str]) -> list[Any]:
    if isinstance(value, list):
        return [leaf for item in value for leaf in _walk(item, path)]
    if not path:
        return [value]
    return _walk(value.get(path[0]), path[1:]) if isinstance(value, dict) else []


VIRTUAL = {"is_oa": "open_access.is_oa", "primary_location.source.publisher_lineage":
           "primary_location.source.host_organization_lineage"}
KNOWN = {
    "works": {"authorships.author.id", "primary_topic.id", "primary_topic.domain.id", "primary_topic.field.id",
              "primary_topic.subfield.id", "primary_location.source.publisher_lineage", "primary_location.source.id",
              "authorships.institutions.lineage", "publication_year", "cited_by_count",
              "authorships.institutions.country_code", "authorships.institutions.continent", "type", "is_oa",
              "open_access.is_oa", "openalex_id"},
    "authors": {"last_known_institutions.id", "last_known_institutions.country_code",
                "last_known_institutions.continent", "summary_stats.h_index", "has_orcid"},
    "sources": {"host_organization_lineage", "country_code", "continent", "type", "is_oa"},
    "institutions": {"country_code", "continent", "type"},
    "topics": {"domain.id", "field.id", "subfield.id"}, "publishers": {"country_codes", "continent"},
    "funders": {"country_code", "continent"}, "domains": set(), "fields": {"domain.id"},
    "subfields": {"domain.id", "field.id"},
}


def _values(record: dict[str, Any], key: str) -> list[str]:
    if key.endswith("continent"):
        countries = _values(record, key.rsplit(".", 1)[0] + ".country_code" if "." in key else "country_code")
        return [CONTINENTS.get(code.upper(), "") for code in countries]
    if key == "openalex_id":
        return [_short(record["id"])]
    leaves = _walk(record, VIRTUAL.get(key, key).split("."))
    return [_short(leaf) if isinstance(leaf, str) and leaf.startswith(BASE) else str(leaf).lower()
            for leaf in leaves if leaf is not None]


def _number_passes(have: list[str], wanted: str) -> bool:
    numbers = [float(v) for v in have if re.fullmatch(r"-?\d+(\.\d+)?", v)]
    if match := re.fullmatch(r"([<>])(-?\d+)", wanted):
        limit = int(match.group(2))
        return any(n > limit if match.group(1) == ">" else n < limit for n in numbers)
    if match := re.fullmatch(r"(\d+)-(\d+)", wanted):
        return any(int(match.group(1)) <= n <= int(match.group(2)) for n in numbers)
    return any(n == float(wanted) for n in numbers) if re.fullmatch(r"\d+", wanted) else False


def _passes(record: dict[str, Any], key: str, wanted: str) -> bool:
    have = _values(record, key)
    if key.endswith(("count", "h_index", "publication_year")):
        return _number_passes(have, wanted)
    if key == "has_orcid":
        return bool(record.get("orcid")) == (wanted == "true")
    negate = wanted.startswith("!")
    hit = bool({_short(v) for v in wanted.lstrip("!").split("|")} & set(have))
    return hit != negate


def _error(message: str) -> Answer:
    return Answer(400, json.dumps({"error": "Invalid query parameters error.", "message": message}))


def _words(text: Any) -> list[str]:
    return re.findall(r"\w+", str(text or "").lower())


def _text_of(record: dict[str, Any]) -> str:
    index = record.get("abstract_inverted_index") or {}
    return " ".join([str(record.get("display_name") or ""), *index])


def _listing(plural: str, request: SeenRequest) -> Answer:
    records = corpus().get(plural, [])
    refused = (fake_openalex_rules.works_search_problem({name: request.param(name) for name in
                                                         ("search", "search.exact", "filter")})
               if plural == "works" else fake_openalex_rules.list_search_problem(request.param("search")))
    if refused is not None:  # what OpenAlex refuses in search text since June 2026
        return refused
    semantic = request.param("search.semantic")
    per_page = int(request.param("per_page") or 25)
    expression = request.param("filter") or ""
    for part in filter(None, re.split(r",(?![^()]*\))", expression)):
        key, _, wanted = part.partition(":")
        if key not in KNOWN[plural] | {"cited_by_count", "works_count"}:
            return _error(f"{key} is not a valid field. Valid fields are underscore or hyphenated versions of: "
                          f"{', '.join(sorted(KNOWN[plural]))}")
        if semantic is not None and key.endswith(("cited_by_count", "country_code")):
            return _error(f"{key} is not supported with semantic search")
        records = [r for r in records if _passes(r, key, wanted)]
    if semantic is not None:
        if per_page > 50:
            return _error("per_page is at most 50 for semantic search")
        asked = set(_words(semantic))
        scored = [(len(asked & set(_words(_text_of(r)))) / max(len(asked), 1), r) for r in records]
        records = [{**r, "relevance_score": round(score, 4)} for score, r in
                   sorted(scored, key=lambda pair: -pair[0]) if score > 0]
    elif request.param("search") or request.param("search.exact"):
        asked = re.findall(r"[\w*]+", (request.param("search") or request.param("search.exact")).lower())
        field_text = _text_of if plural == "works" else (lambda r: r.get("display_name") or "")
        records = [r for r in records if all(
            any(word.startswith(w[:-1]) for word in _words(field_text(r))) if w.endswith("*")
            else w in _words(field_text(r)) for w in asked)]
    sort = (request.param("sort") or "").split(":")[0]
    if sort:
        records = sorted(records, key=lambda r: r.get(sort) or 0, reverse=True)
    return _page(records, request, per_page, corpus().get(plural, []))


def _page(records: list[dict[str, Any]], request: SeenRequest, per_page: int,
          everything: list[dict[str, Any]]) -> Answer:
    cursor = request.param("cursor") or "*"
    try:
        start = 0 if cursor == "*" else int(base64.b64decode(cursor.encode()).decode())
    except ValueError:
        return _error("cursor is invalid")
    chunk = records[start:start + per_page]
    following = start + per_page
    select = request.param("select")
    if select:
        fields = select.split(",")
        unknown = [name for name in fields if name not in SELECTABLE and not any(name in r for r in everything)]
        if unknown:
            return _error(f"{unknown[0]} is not a valid select field.")
        chunk = [{k: v for k, v in record.items() if k in fields} for record in chunk]
    meta = {"count": len(records), "db_response_time_ms": 9, "page": None, "per_page": per_page,
            "next_cursor": base64.b64encode(str(following).encode()).decode() if following < len(records) else None,
            "groups_count": None}
    return Answer(200, json.dumps({"meta": meta, "results": chunk, "group_by": []}), headers=LIMIT_HEADERS)


def _one(plural: str, wanted: str) -> Answer:
    key = wanted.lower().removeprefix("https://doi.org/")
    for record in corpus().get(plural, []):
        ids = {_short(record["id"])} | (_work_ids(record) if plural == "works" else _external_ids(record))
        if key in ids:
            return Answer(200, json.dumps(record), headers=LIMIT_HEADERS)
    return Answer(404, json.dumps({"error": "404 Not Found", "message": "The requested entity does not exist"}))


def _work_ids(work: dict[str, Any]) -> set[str]:
    """``doi:10.1/x``, ``pmid:123``, ``pmcid:pmc123``, ``mag:…`` as /works/{id} takes them."""
    found = set()
    for name, value in (work.get("ids") or {}).items():
        value = str(value).lower().replace("https://doi.org/", "")
        found.add(f"{name}:{value.rstrip('/').rsplit('/', 1)[-1] if name in ('pmid', 'pmcid') else value}")
    return found


def _external_ids(record: dict[str, Any]) -> set[str]:
    """``ror:…``, ``orcid:…``, ``issn:…`` as /{entities}/{id} takes them."""
    found = {f"{name}:{str(record[name]).lower().rstrip('/').rsplit('/', 1)[-1]}" for name in ("ror", "orcid")
             if record.get(name)}
    return found | {f"issn:{issn.lower()}" for issn in record.get("issn") or []}


def entities(request: SeenRequest) -> Answer:
    """/openalex/{entities}[/{id}]"""
    plural, _, wanted = request.path[len("/openalex/"):].strip("/").partition("/")
    if plural not in KNOWN:
        return Answer(404, "<html>Not Found</html>", content_type="text/html")
    return _one(plural, wanted) if wanted else _listing(plural, request)


HINTS = {"works": lambda r: ", ".join((a.get("author") or {}).get("display_name") or "" for a in
                                      (r.get("authorships") or [])[:3]),
         "authors": lambda r: ", ".join(i.get("display_name") or "" for i in r.get("last_known_institutions") or []),
         "sources": lambda r: r.get("host_organization_name"), "institutions": lambda r: r.get("country_code"),
         "subfields": lambda r: (r.get("field") or {}).get("display_name")}


def autocomplete(request: SeenRequest) -> Answer:
    """/openalex/autocomplete/{entities}?q=: up to 10 matches, most cited first (404 for the
    hierarchy levels OpenAlex gives no autocomplete)."""
    plural = request.path[len("/openalex/autocomplete/"):].strip("/")
    if plural not in KNOWN or plural in ("domains", "fields"):
        return Answer(404, json.dumps({"error": "404 Not Found", "message": "Not Found"}))
    asked = _words(request.param("q"))
    records = [r for r in corpus()[plural] if asked and all(
        any(word.startswith(w) for word in _words(r.get("display_name"))) for w in asked)]
    records.sort(key=lambda r: -(r.get("cited_by_count") or 0))
    hint = HINTS.get(plural, lambda r: None)
    results = [{"id": r["id"], "short_id": r["id"].replace(BASE, ""), "display_name": r.get("display_name"),
                "hint": hint(r), "cited_by_count": r.get("cited_by_count"),
                "works_count": None if plural == "works" else r.get("works_count"), "entity_type": plural[:-1],
                "external_id": r.get("doi") or r.get("orcid") or r.get("ror")} for r in records[:10]]
    meta = {"count": len(records), "db_response_time_ms": 4, "page": 1, "per_page": 10}
    return Answer(200, json.dumps({"meta": meta, "results": results}), headers=LIMIT_HEADERS)


# What OpenAlex's proxy says on a day whose allowance is spent, with the free answers it still gives.
SPENT_HEADERS = {"X-RateLimit-Limit-USD": "0.1", "X-RateLimit-Remaining-USD": "0",
                 "X-RateLimit-Prepaid-Remaining-USD": "0", "X-RateLimit-Reset": "41000"}


def install(server, headers: dict[str, str] | None = None) -> dict[str, str]:
    """Mount the recorded OpenAlex on ``server`` (its answers carrying ``headers`` as the
    budget headers, when given); returns LITSEARCH_OPENALEX_URL."""
    def answering(responder):
        if headers is None:
            return responder
        return lambda request: dataclasses.replace(responder(request), headers=dict(headers))

    for plural in KNOWN:
        server.route(f"/openalex/{plural}", answering(entities))
    server.route("/openalex/autocomplete/", answering(autocomplete))
    return {"LITSEARCH_OPENALEX_URL": server.url + "/openalex"}
