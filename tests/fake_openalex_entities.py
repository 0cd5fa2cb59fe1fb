"""A fake OpenAlex for its entities: /authors, /sources, /institutions, /topics, /publishers,
/funders and the hierarchy above topics, /domains, /fields, /subfields (lists with search=,
filter=, sort=, per_page and cursor paging; one entity by id or by ORCID/ROR/ISSN) and
/autocomplete/{entities} (404 for domains and fields, as the real API). Records are written by hand in the shape
of the real API (URL ids, summary_stats, dehydrated institutions and topics, counts_by_year),
so the parsers meet what OpenAlex sends. ``ENTITY_TRIGGER_FAIL`` in a search makes a list
answer 503, for failure tests.

The authors named in fake_apis' name-resolution table (Hinton, Guo) and the source Nature
Biotechnology are here with the same ids and counts, so that older tests see what they saw.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import fake_openalex_rules
from fake_server import Answer, SeenRequest

FAIL_TRIGGER = "providerdown"
BASE = "https://openalex.org/"


# OpenAlex's ids for the levels these topics sit in (developers.openalex.org/api-reference/fields).
LEVEL_IDS = {"Artificial Intelligence": 1702, "Computer Science": 17, "Physical Sciences": 3,
             "Molecular Biology": 1312, "Biochemistry, Genetics and Molecular Biology": 13, "Life Sciences": 1}


def _level(plural: str, name: str) -> dict[str, Any]:
    return {"id": f"{BASE}{plural}/{LEVEL_IDS[name]}", "display_name": name}


def _topic(number: int, name: str, subfield: str, field: str, domain: str, count: int = 10) -> dict[str, Any]:
    return {"id": f"{BASE}T{number}", "display_name": name, "count": count, "subfield": _level("subfields", subfield),
            "field": _level("fields", field), "domain": _level("domains", domain)}


def _institution_stub(number: int, name: str, country: str, ror: str) -> dict[str, Any]:
    return {"id": f"{BASE}I{number}", "ror": f"https://ror.org/{ror}", "display_name": name, "country_code": country,
            "type": "education", "lineage": [f"{BASE}I{number}"]}


TORONTO = _institution_stub(185261750, "University of Toronto", "CA", "03dbr7087")
MIT = {**_institution_stub(63966007, "Massachusetts Institute of Technology", "US", "042nb2s44"),
       "display_name_acronyms": ["MIT"]}
MIT_LINCOLN = _institution_stub(4210156909, "MIT Lincoln Laboratory", "US", "022z6jk58")
ETH = _institution_stub(35440088, "ETH Zurich", "CH", "05a28rw58")
DEEP_LEARNING = _topic(10320, "Neural Networks and Applications", "Artificial Intelligence", "Computer Science",
                       "Physical Sciences")
CRISPR = _topic(10211, "CRISPR and Genetic Engineering", "Molecular Biology",
                "Biochemistry, Genetics and Molecular Biology", "Life Sciences")


def _years(works: int, cites: int) -> list[dict[str, int]]:
    return [{"year": 2025 - i, "works_count": max(works // 20 - i, 0), "cited_by_count": max(cites // 20 - i, 0)}
            for i in range(14)]


def _author(number: int, name: str, works: int, cites: int, h_index: int, institutions: list, topics: list,
            orcid: str | None = None) -> dict[str, Any]:
    return {
        "id": f"{BASE}A{number}", "orcid": f"https://orcid.org/{orcid}" if orcid else None, "display_name": name,
        "display_name_alternatives": [name, name.split()[-1] + " " + name.split()[0]],
        "works_count": works, "cited_by_count": cites,
        "summary_stats": {"2yr_mean_citedness": 3.2, "h_index": h_index, "i10_index": h_index * 2},
        "ids": {"openalex": f"{BASE}A{number}", **({"orcid": f"https://orcid.org/{orcid}"} if orcid else {})},
        "affiliations": [{"institution": inst, "years": [2024, 2023, 2020]} for inst in institutions],
        "last_known_institutions": institutions[:1],
        "topics": topics, "topic_share": [{**t, "value": 0.0002} for t in topics],
        "counts_by_year": _years(works, cites),
        "works_api_url": f"https://api.openalex.org/works?filter=author.id:A{number}",
        "updated_date": "2026-08-01T00:00:00", "created_date": "2023-07-21",
    }


# Many topics, so one author's full record is long (as real ones are: 25 topics, topic_share).
MANY_TOPICS = [_topic(11000 + i, f"Research topic number {i} in machine learning", "Artificial Intelligence",
                      "Computer Science", "Physical Sciences", count=40 - i) for i in range(25)]

AUTHORS = [
    _author(5108093963, "Geoffrey E. Hinton", 412, 650123, 170, [TORONTO], [DEEP_LEARNING] + MANY_TOPICS,
            orcid="0000-0001-2345-6789"),
    _author(9999999999, "G. Hinton", 3, 12, 2, [], [DEEP_LEARNING]),
    _author(5023888391, "Congting Guo", 57, 1210, 15, [ETH], [CRISPR]),
] + [_author(5000000000 + i, f"Ada Lovelace{chr(65 + i)} Researcher", 30 + i, 900 - 10 * i, 10 + i % 5,
             [MIT if i % 2 else ETH], [DEEP_LEARNING]) for i in range(12)]


def _source(number: int, name: str, issn: str, publisher: int, publisher_name: str, works: int, cites: int,
            is_oa: bool = False) -> dict[str, Any]:
    return {"id": f"{BASE}S{number}", "issn_l": issn, "issn": [issn], "display_name": name,
            "host_organization": f"{BASE}P{publisher}", "host_organization_name": publisher_name,
            "host_organization_lineage": [f"{BASE}P{publisher}"], "works_count": works, "cited_by_count": cites,
            "summary_stats": {"2yr_mean_citedness": 20.1, "h_index": 500, "i10_index": 9000},
            "is_oa": is_oa, "is_in_doaj": is_oa, "is_core": True, "homepage_url": "http://www.example.org/",
            "apc_prices": [{"price": 9750, "currency": "EUR"}], "apc_usd": 11390, "country_code": "GB",
            "type": "journal", "topics": [CRISPR], "counts_by_year": _years(works, cites)}


SOURCES = [
    _source(106963461, "Nature Biotechnology", "1087-0156", 4310319908, "Nature Portfolio", 21871, 2100000),
    _source(137773608, "Nature", "0028-0836", 4310319908, "Nature Portfolio", 450000, 26000000),
    _source(202381698, "PLOS ONE", "1932-6203", 4310315706, "Public Library of Science", 290000, 6000000, is_oa=True),
]


def _institution(stub: dict[str, Any], works: int, cites: int, city: str) -> dict[str, Any]:
    return {"display_name_acronyms": [], **stub, "works_count": works, "cited_by_count": cites,
            "summary_stats": {"2yr_mean_citedness": 4.0, "h_index": 900, "i10_index": 90000},
            "geo": {"city": city, "country_code": stub["country_code"], "country": "", "latitude": 0, "longitude": 0},
            "ids": {"openalex": stub["id"], "ror": stub["ror"]}, "associated_institutions": [],
            "counts_by_year": _years(works, cites), "topics": [DEEP_LEARNING]}


INSTITUTIONS = [_institution(TORONTO, 290000, 12000000, "Toronto"), _institution(MIT, 300000, 19000000, "Cambridge"),
                _institution(MIT_LINCOLN, 9000, 200000, "Lexington"), _institution(ETH, 210000, 9000000, "Zurich")]

TOPICS = [{**topic, "description": f"This cluster of papers studies {topic['display_name'].lower()}.",
           "keywords": ["one", "two"], "works_count": 120000, "cited_by_count": 3000000,
           "ids": {"openalex": topic["id"], "wikipedia": "https://en.wikipedia.org/wiki/Example"},
           "siblings": [{"id": f"{BASE}T1", "display_name": "A sibling"}]} for topic in (DEEP_LEARNING, CRISPR)]
for _record in TOPICS:
    _record.pop("count")

PUBLISHERS = [
    {"id": f"{BASE}P4310319908", "display_name": "Nature Portfolio", "alternate_titles": ["Nature Publishing Group"],
     "hierarchy_level": 1, "parent_publisher": {"id": f"{BASE}P4310319965", "display_name": "Springer Nature"},
     "lineage": [f"{BASE}P4310319908", f"{BASE}P4310319965"], "country_codes": ["GB"], "works_count": 600000,
     "cited_by_count": 40000000, "summary_stats": {"h_index": 2000}, "counts_by_year": _years(600000, 40000000)},
    {"id": f"{BASE}P4310315706", "display_name": "Public Library of Science", "alternate_titles": ["PLOS"],
     "hierarchy_level": 0, "parent_publisher": None, "lineage": [f"{BASE}P4310315706"], "country_codes": ["US"],
     "works_count": 300000, "cited_by_count": 7000000, "summary_stats": {"h_index": 400}, "counts_by_year": []},
]

FUNDERS = [
    {"id": f"{BASE}F4320332161", "display_name": "National Institutes of Health", "alternate_titles": ["NIH"],
     "country_code": "US", "description": "US government medical research agency", "grants_count": 273557,
     "works_count": 386574, "cited_by_count": 15234811, "summary_stats": {"h_index": 859},
     "ids": {"openalex": f"{BASE}F4320332161", "ror": "https://ror.org/01cwqze88"}, "counts_by_year": []},
    {"id": f"{BASE}F4320306076", "display_name": "National Science Foundation", "alternate_titles": ["NSF"],
     "country_code": "US", "description": "United States government agency", "awards_count": 190000,
     "works_count": 300000, "cited_by_count": 9000000, "summary_stats": {"h_index": 700}, "counts_by_year": []},
]

def _hierarchy(level: dict[str, Any], description: str, works: int, cites: int, **more: Any) -> dict[str, Any]:
    return {**level, "description": description, "display_name_alternatives": [], "works_count": works,
            "cited_by_count": cites, "ids": {"openalex": level["id"]}, "siblings": [], **more}


DOMAINS = [
    _hierarchy(_level("domains", "Physical Sciences"), "branch of natural science that studies non-living systems",
               134_000_000, 1_100_000_000, fields=[_level("fields", "Computer Science")]),
    _hierarchy(_level("domains", "Life Sciences"), "branch of science that studies life and living organisms",
               61_000_000, 1_200_000_000, fields=[_level("fields", "Biochemistry, Genetics and Molecular Biology")]),
]
FIELDS = [
    _hierarchy(_level("fields", "Computer Science"), "study of computation and information", 26_000_000, 210_000_000,
               domain=_level("domains", "Physical Sciences"), subfields=[_level("subfields", "Artificial Intelligence")]),
    _hierarchy(_level("fields", "Biochemistry, Genetics and Molecular Biology"), "the chemistry and genes of life",
               20_000_000, 500_000_000, domain=_level("domains", "Life Sciences"),
               subfields=[_level("subfields", "Molecular Biology")]),
]
SUBFIELDS = [
    _hierarchy(_level("subfields", "Artificial Intelligence"), "machines that learn and reason", 4_000_000, 60_000_000,
               field=_level("fields", "Computer Science"), domain=_level("domains", "Physical Sciences"),
               topics=[{"id": DEEP_LEARNING["id"], "display_name": DEEP_LEARNING["display_name"]}]),
    _hierarchy(_level("subfields", "Molecular Biology"), "the molecular basis of biological activity", 3_000_000,
               90_000_000, field=_level("fields", "Biochemistry, Genetics and Molecular Biology"),
               domain=_level("domains", "Life Sciences"),
               topics=[{"id": CRISPR["id"], "display_name": CRISPR["display_name"]}]),
]

CORPUS = {"authors": AUTHORS, "sources": SOURCES, "institutions": INSTITUTIONS, "topics": TOPICS,
          "publishers": PUBLISHERS, "funders": FUNDERS, "domains": DOMAINS, "fields": FIELDS, "subfields": SUBFIELDS}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _matches(record: dict[str, Any], query: str) -> bool:
    names = " ".join([record["display_name"], *record.get("alternate_titles", []),
                      *record.get("display_name_acronyms", [])]).lower()
    return all(any(word.startswith(w) for word in _words(names)) for w in _words(query))


def _filter_value(record: dict[str, Any], key: str) -> list[str]:
    """The values a filter key reads in a record (enough keys for the tests)."""
    def short(value: Any) -> str:
        return str(value).rsplit("/", 1)[-1].lower()
    if key == "last_known_institutions.id":
        return [short(i["id"]) for i in record.get("last_known_institutions", [])]
    if key in ("last_known_institutions.country_code",):
        return [i["country_code"].lower() for i in record.get("last_known_institutions", [])]
    if key in ("country_code", "country_codes"):
        value = record.get(key) or record.get("country_code") or []
        return [c.lower() for c in (value if isinstance(value, list) else [value])]
    if key == "host_organization_lineage":
        return [short(p) for p in record.get("host_organization_lineage", [])]
    if key == "openalex_id":
        return [short(record["id"])]
    if key in ("domain.id", "field.id", "subfield.id"):
        return [short((record.get(key.split(".")[0]) or {}).get("id"))]
    value = record.get(key)
    return [str(value).lower()] if value is not None else []


def _passes(record: dict[str, Any], expression: str) -> bool:
    for part in filter(None, expression.split(",")):
        key, _, wanted = part.partition(":")
        if key in ("cited_by_count", "works_count", "summary_stats.h_index"):
            value = record.get(key, 0) if "." not in key else record["summary_stats"]["h_index"]
            if wanted.startswith(">") and not value > int(wanted[1:]):
                return False
            if wanted.startswith("<") and not value < int(wanted[1:]):
                return False
            if "-" in wanted[1:] and not int(wanted.split("-")[0]) <= value <= int(wanted.split("-")[1]):
                return False
            continue
        have = _filter_value(record, key)
        if not set(v.lower() for v in wanted.split("|")) & set(have):
            return False
    return True


def _page(records: list[dict[str, Any]], request: SeenRequest) -> Answer:
    per_page = int(request.param("per_page") or 25)
    cursor = request.param("cursor") or "*"
    try:
        start = 0 if cursor == "*" else int(base64.b64decode(cursor.encode()).decode())
    except ValueError:
        return Answer(400, json.dumps({"error": "Invalid query parameters error.", "message": "cursor is invalid"}))
    chunk = records[start:start + per_page]
    following = start + per_page
    next_cursor = base64.b64encode(str(following).encode()).decode() if following < len(records) else None
    select = request.param("select")
    if select:
        fields = select.split(",")
        chunk = [{k: v for k, v in record.items() if k in fields} for record in chunk]
    meta = {"count": len(records), "db_response_time_ms": 9, "page": None, "per_page": per_page,
            "next_cursor": next_cursor, "groups_count": None}
    return Answer(200, json.dumps({"meta": meta, "results": chunk, "group_by": []}))


def entities(request: SeenRequest) -> Answer:
    """/openalex/{entities}[/{id}]"""
    path = request.path[len("/openalex/"):].strip("/")
    plural, _, wanted = path.partition("/")
    records = CORPUS.get(plural)
    if records is None:
        return Answer(404, "<html>Not Found</html>", content_type="text/html")
    if wanted:
        key = wanted.lower()
        for record in records:
            ids = {record["id"].rsplit("/", 1)[-1].lower()}
            if record.get("orcid"):
                ids.add("orcid:" + record["orcid"].rsplit("/", 1)[-1].lower())
            if record.get("ror"):
                ids.add("ror:" + record["ror"].rsplit("/", 1)[-1].lower())
            ids.update("issn:" + issn.lower() for issn in record.get("issn", []))
            if key in ids:
                return Answer(200, json.dumps(record))
        return Answer(404, json.dumps({"error": "404 Not Found", "message": "The requested entity does not exist"}))
    query = request.param("search") or ""
    refused = fake_openalex_rules.list_search_problem(query)
    if refused is not None:  # OpenAlex's own 400 for a wildcard it does not take
        return refused
    if FAIL_TRIGGER in query.lower():
        return Answer(503, json.dumps({"error": "Service Unavailable"}))
    found = [r for r in records if (not query or _matches(r, query)) and _passes(r, request.param("filter") or "")]
    if (request.param("sort") or "").startswith("works_count"):
        found.sort(key=lambda r: -r["works_count"])
    elif request.param("sort") or not query:
        found.sort(key=lambda r: -r["cited_by_count"])
    return _page(found, request)


def autocomplete(request: SeenRequest) -> Answer:
    """/openalex/autocomplete/{entities}?q=: up to 10 matches, most cited first."""
    plural = request.path[len("/openalex/autocomplete/"):].strip("/")
    if plural in ("domains", "fields"):  # the real API has no autocomplete for these
        return Answer(404, json.dumps({"error": "404 Not Found", "message": "Not Found"}))
    query = request.param("q") or ""
    records = [r for r in CORPUS.get(plural, []) if _matches(r, query)]
    records.sort(key=lambda r: -r["cited_by_count"])
    results = [{"id": r["id"], "short_id": r["id"].rsplit("/", 1)[-1], "display_name": r["display_name"],
                "hint": r.get("host_organization_name") or r.get("country_code"), "cited_by_count": r["cited_by_count"],
                "works_count": r["works_count"], "entity_type": plural[:-1], "external_id": r.get("ror")}
               for r in records[:10]]
    return Answer(200, json.dumps({"meta": {"count": len(results), "db_response_time_ms": 4, "page": 1,
                                            "per_page": 10}, "results": results}))


def install(server) -> None:
    for plural in CORPUS:
        server.route(f"/openalex/{plural}", entities)
    server.route("/openalex/autocomplete/", autocomplete)
