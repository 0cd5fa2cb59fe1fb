"""A fake Europe PMC /search that speaks the real API's formats, for loopback tests.

- JSON pages as the API sends them (``version``, ``hitCount``, ``nextCursorMark``,
  ``nextPageUrl``, the ``request`` echo with the cursor URL-encoded, ``resultList.result``),
  in ``core``, ``lite`` or ``idlist`` form; XML when ``format`` is not json (the API's default).
- ``cursorMark`` paging: ``*`` starts, each page returns an opaque cursor, the last page none.
- The query's ``SRC:PPR`` / ``NOT SRC:PPR``, ``OPEN_ACCESS:y`` and ``PUB_YEAR:[a TO b]`` clauses
  are honoured; other words select nothing (every paper on topic is "relevant").
- Errors: a bad cursor or pageSize gets 400 with ``errCode``/``errMsg`` (that body's shape is
  an assumption: no real Europe PMC error body was ever recorded, fixtures/PROVENANCE.md), and
  ``FAULTS`` holds ready-made failures to inject through ``install(server, overrides)``.

The papers overlap fake_apis.CORPUS (same DOIs and PMIDs: the CRISPR papers, the retracted
gastric-organoid paper with its notice), plus two preprints: a bioRxiv preprint of the CRISPR
review PubMed serves (PMID 36970624), linked both ways as Europe PMC links them ("Preprint of"
on the preprint, "Preprint in" on the article), and a Research Square preprint with no
published version. So an end-to-end run can show Europe PMC's records merging with PubMed's.

Run ``python tests/fake_europepmc.py`` to serve it and print LITSEARCH_EUROPEPMC_URL.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import quote

import fake_apis
from fake_server import Answer, FakeServer, SeenRequest, serve_until_interrupted

PREFIX = "/europepmc"
SEARCH_ROUTE = PREFIX + "/search"
DEFAULT_PAGE_SIZE = 25  # the API's default (EPMC-RG)
MAX_PAGE_SIZE = 1000

# The two preprints, in fake_apis.CORPUS's shape plus Europe PMC's own facts.
PREPRINTS: list[dict[str, Any]] = [
    {
        "key": "pmid_only_preprint",
        "ppr": "PPR571234", "server": "bioRxiv",
        "title": "Off-target effects in CRISPR/Cas9 gene editing",
        "authors": ["Congting Guo", "Xiaoding Ma", "Fei Gao", "Yuxuan Guo"],
        "year": 2022, "date": "2022-11-03",
        "doi": "10.1101/2022.11.02.514901",
        "abstract": "Off-target effects remain a major concern for therapeutic genome editing. We review detection "
                    "methods and strategies that reduce off-target cleavage.",
        "citations": 3,
        "published_as": "pmid_only",  # Europe PMC links it to PMID 36970624 and back
    },
    {
        "key": "standalone_preprint",
        "ppr": "PPR602468", "server": "Research Square",
        "title": "Guide-dependent off-target activity of high-fidelity Cas9 variants in primary T cells",
        "authors": ["Sara Lindqvist", "Kenji Mori"],
        "year": 2023, "date": "2023-02-14",
        "doi": "10.21203/rs.3.rs-2555555/v1",
        "abstract": "We measured off-target editing of three high-fidelity Cas9 variants in primary human T cells.",
        "citations": 0,
    },
]
# Which fake_apis.CORPUS papers Europe PMC holds, and how (its source, PMC copy, notices).
FROM_CORPUS: dict[str, dict[str, Any]] = {
    "crispr": {"pmcid": "PMC3969858", "open_access": True, "mesh": ["CRISPR-Cas Systems", "RNA, Guide"]},
    "pmid_only": {"preprint": "PPR571234", "open_access": True, "pmcid": "PMC10034092"},
    "retracted": {"pub_types": ["Journal Article", "Retracted Publication"],
                  "comments": [("Retraction in", "MED", "34000002",
                                "J Fict Gastroenterol. 2021;12:45. doi: 10.5555/jfg.2021.0045")]},
}


def papers() -> list[dict[str, Any]]:
    """Every paper Europe PMC serves: CORPUS entries with their Europe PMC facts, then the preprints."""
    chosen = [{**paper, **FROM_CORPUS[paper["key"]]} for paper in fake_apis.CORPUS if paper["key"] in FROM_CORPUS]
    return chosen + [{**preprint, "preprint_record": True} for preprint in PREPRINTS]


def _by_key(key: str) -> dict[str, Any]:
    return next(paper for paper in papers() if paper["key"] == key)


# ---------------------------------------------------------------- one record

def _source_and_id(p: dict[str, Any]) -> tuple[str, str]:
    if p.get("preprint_record"):
        return "PPR", p["ppr"]
    return ("MED", p["pmid"]) if p.get("pmid") else ("PMC", p["pmcid"])


def _comments(p: dict[str, Any]) -> list[dict[str, Any]]:
    entries = [{"id": ident, "source": source, "reference": reference, "type": kind, "orderIn": 1}
               for kind, source, ident, reference in p.get("comments", [])]
    if p.get("published_as"):
        published = _by_key(p["published_as"])
        entries.append({"id": published["pmid"], "source": "MED", "type": "Preprint of", "orderIn": 10001,
                        "reference": f"{published['venue']}. {published['year']}",
                        "note": "Link created based on a title-first author match"})
    if p.get("preprint"):
        entries.append({"id": p["preprint"], "source": "PPR", "type": "Preprint in", "orderIn": 10001})
    return entries


def core_record(p: dict[str, Any]) -> dict[str, Any]:
    source, ident = _source_and_id(p)
    surname = lambda name: name.split()[-1]  # noqa: E731
    initials = lambda name: "".join(part[0] for part in name.split()[:-1])  # noqa: E731
    record: dict[str, Any] = {
        "id": ident, "source": source,
        **({"pmid": p["pmid"]} if p.get("pmid") and source != "PPR" else {}),
        **({"pmcid": p["pmcid"]} if p.get("pmcid") else {}),
        **({"doi": p["doi"]} if p.get("doi") else {}),
        "title": p["title"] if p.get("preprint_record") else p["title"] + ".",
        "authorString": ", ".join(f"{surname(n)} {initials(n)}" for n in p["authors"]) + ".",
        "authorList": {"author": [{"fullName": f"{surname(n)} {initials(n)}", "firstName": " ".join(n.split()[:-1]),
                                   "lastName": surname(n), "initials": initials(n)} for n in p["authors"]]},
        "pubYear": str(p["year"]),
        "abstractText": p.get("abstract") and "<h4>Background</h4>" + p["abstract"],
        "pubTypeList": {"pubType": ["Preprint"] if p.get("preprint_record") else p.get("pub_types", ["Journal Article"])},
        "isOpenAccess": "Y" if p.get("open_access") or p.get("preprint_record") else "N",
        "inEPMC": "Y" if p.get("pmcid") else "N",
        "citedByCount": p.get("citations", 0),
        "firstPublicationDate": p.get("date") or f"{p['year']}-01-01",
    }
    if p.get("preprint_record"):
        record["bookOrReportDetails"] = {"publisher": p["server"], "yearOfPublication": p["year"]}
        record["versionNumber"] = 1
        record["fullTextUrlList"] = {"fullTextUrl": [{"availability": "Free", "availabilityCode": "F",
                                                      "documentStyle": "doi", "site": "DOI",
                                                      "url": f"https://doi.org/{p['doi']}"}]}
    else:
        record["journalInfo"] = {"volume": "11", "yearOfPublication": p["year"],
                                 "journal": {"title": p.get("venue"), "isoabbreviation": (p.get("venue") or "")[:20]}}
        links = [{"availability": "Subscription required", "availabilityCode": "S", "documentStyle": "doi",
                  "site": "DOI", "url": f"https://doi.org/{p['doi']}"}] if p.get("doi") else []
        if p.get("pmcid") and p.get("open_access"):
            links += [{"availability": "Open access", "availabilityCode": "OA", "documentStyle": style,
                       "site": "Europe_PMC", "url": f"https://europepmc.org/articles/{p['pmcid']}{suffix}"}
                      for style, suffix in (("html", ""), ("pdf", "?pdf=render"))]
        record["fullTextUrlList"] = {"fullTextUrl": links}
    if p.get("mesh"):
        record["meshHeadingList"] = {"meshHeading": [{"majorTopic_YN": "Y", "descriptorName": m} for m in p["mesh"]]}
    if _comments(p):
        record["commentCorrectionList"] = {"commentCorrection": _comments(p)}
    return {name: value for name, value in record.items() if value is not None}


def lite_record(p: dict[str, Any]) -> dict[str, Any]:
    core = core_record(p)
    kept = {name: core[name] for name in ("id", "source", "pmid", "pmcid", "doi", "title", "authorString",
                                          "pubYear", "isOpenAccess", "inEPMC", "citedByCount",
                                          "firstPublicationDate", "bookOrReportDetails") if name in core}
    kept["pubType"] = "; ".join(kind.lower() for kind in core["pubTypeList"]["pubType"])
    if "journalInfo" in core:
        kept["journalTitle"] = core["journalInfo"]["journal"]["isoabbreviation"]
    return kept


def idlist_record(p: dict[str, Any]) -> dict[str, Any]:
    core = core_record(p)
    return {name: core[name] for name in ("id", "source", "pmid", "pmcid") if name in core}


RECORD_FORMS = {"core": core_record, "lite": lite_record, "idlist": idlist_record}


# ---------------------------------------------------------------- the search

_YEARS = re.compile(r"PUB_YEAR:\[(\d{4}) TO (\d{4})\]")


def matching(query: str) -> list[dict[str, Any]]:
    """The papers a query finds: on topic (fake_apis's rule), then its source, open-access
    and year clauses."""
    if fake_apis.EMPTY_TRIGGER in query.lower():
        return []
    found = [p for p in papers() if not p.get("topic") or p["topic"] in query.lower()]
    if "NOT SRC:PPR" in query:
        found = [p for p in found if not p.get("preprint_record")]
    elif "SRC:PPR" in query:
        found = [p for p in found if p.get("preprint_record")]
    if "OPEN_ACCESS:y" in query:
        found = [p for p in found if core_record(p)["isOpenAccess"] == "Y"]
    if years := _YEARS.search(query):
        low, high = int(years.group(1)), int(years.group(2))
        found = [p for p in found if low <= p["year"] <= high]
    return found


def cursor_for(offset: int) -> str:
    """An opaque cursor like the API's (base64 with '=', '+' or '/' in it: they must survive the trip)."""
    return base64.b64encode(f"AoE?{offset:08d}".encode()).decode()


def offset_of(cursor: str) -> int | None:
    if cursor == "*":
        return 0
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
    except ValueError:
        return None
    return int(text[4:]) if re.fullmatch(r"AoE\?\d{8}", text) else None


def _error(status: int, message: str) -> Answer:
    return Answer(status, json.dumps({"errCode": status, "errMsg": message}))


def search(request: SeenRequest) -> Answer:
    """GET (or form POST) /search, as the real API answers it."""
    query = request.param("query") or ""
    result_type = (request.param("resultType") or "lite").lower()
    cursor = request.param("cursorMark") or "*"
    offset = offset_of(cursor)
    size_text = request.param("pageSize") or str(DEFAULT_PAGE_SIZE)
    if not query.strip():
        return _error(400, "query parameter is required")
    if offset is None:
        return _error(400, f"Invalid cursorMark: {cursor}")
    if not size_text.isdigit() or not 0 <= int(size_text) <= MAX_PAGE_SIZE:
        return _error(400, f"pageSize must be between 0 and {MAX_PAGE_SIZE}")
    size = int(size_text)
    found = matching(query)
    chosen = found[offset: offset + size]
    body: dict[str, Any] = {"version": "6.9", "hitCount": len(found)}
    if chosen:  # the real API names a next cursor on its last page too (the page after it is empty)
        body["nextCursorMark"] = cursor_for(offset + size)
        body["nextPageUrl"] = (f"https://www.ebi.ac.uk/europepmc/webservices/rest/search?query={quote(query)}"
                               f"&cursorMark={body['nextCursorMark']}&resultType={result_type}&format=json")
    body["request"] = {"queryString": query, "resultType": result_type, "cursorMark": quote(cursor, safe=""),
                       "pageSize": size, "sort": request.param("sort") or "", "synonym": False}
    body["resultList"] = {"result": [RECORD_FORMS.get(result_type, lite_record)(p) for p in chosen]}
    if (request.param("format") or "xml").lower() != "json":
        return Answer(200, _as_xml(body), content_type="application/xml")
    return Answer(200, json.dumps(body), content_type="application/json;charset=UTF-8")


def _as_xml(body: dict[str, Any]) -> str:
    results = "".join(f"<result><id>{r['id']}</id><source>{r['source']}</source></result>"
                      for r in body["resultList"]["result"])
    return (f'<?xml version="1.0" encoding="UTF-8"?><responseWrapper><version>6.9</version>'
            f"<hitCount>{body['hitCount']}</hitCount><resultList>{results}</resultList></responseWrapper>")


# ---------------------------------------------------------------- faults and wiring

FAULTS: dict[str, Answer] = {
    "rate_limited": Answer(429, json.dumps({"errCode": 429, "errMsg": "Too many requests"}),
                           headers={"Retry-After": "0"}),
    "blocked": Answer(403, "<html><body>403 Forbidden</body></html>", content_type="text/html"),
    "server_error": Answer(500, "<html><body>Internal Server Error</body></html>", content_type="text/html"),
    "maintenance_page": Answer(200, "<html><body>Europe PMC is down for maintenance</body></html>",
                               content_type="text/html"),
    "cut_body": Answer(200, json.dumps({"version": "6.9", "hitCount": 1, "resultList": {"result": []}}),
                       cut_body=True),
    "no_result_list": Answer(200, json.dumps({"version": "6.9", "hitCount": 5})),
}


# What fake_apis.install mounts for this provider (fake_apis.own_fakes): every fake API run has
# a Europe PMC too.
ROUTES = {SEARCH_ROUTE: search}


def install(server: FakeServer, overrides: dict[str, Any] | None = None) -> dict[str, str]:
    """Mount the fake on ``server``; returns ``{"LITSEARCH_EUROPEPMC_URL": …}``. ``overrides``
    maps a route to a responder or a list of Answers, as fake_apis.install does (a trailing
    None hands later requests back to the fake: "fail once, then recover")."""
    server.route(SEARCH_ROUTE, search)
    for path, replacement in (overrides or {}).items():
        if isinstance(replacement, list):
            server.route(path, fake_apis._scripted(replacement, search if path == SEARCH_ROUTE else None))
        else:
            server.route(path, replacement)
    return {"LITSEARCH_EUROPEPMC_URL": server.url + PREFIX}


if __name__ == "__main__":
    serve_until_interrupted(install)
