"""`lit-search network` on real papers, served from REAL recorded API responses.

Usage:  .venv/bin/python bench/network_demo.py [--depth 1|2] [--format markdown|json|dot]

This machine has no network, so a loopback server answers in place of the APIs, with
bodies read at run time from ../shared/fixtures (nothing is copied into the project):

- OpenAlex: the recorded snowball pages of openalexPro (the two seed works with their
  ``referenced_works``, the 5 works citing them, the 38 works they cite), plus the other
  recorded single-work records (among them W2741809807, "The state of OA").
- Semantic Scholar: the recorded /paper/{DOI} records of paper-qa, and its recorded 404
  body for any paper it has no recording of (both seeds, as it happens).

Lookups are answered from those records by id: ``/works/{id}``, ``/works?filter=openalex_id:
W1|W2…`` (the recorded works among those asked for) and ``/works?filter=cites:W…`` (the
recorded works whose ``referenced_works`` contain it). Then the real command runs in a
subprocess and its product is printed: the Mermaid graph and the shared-references table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))

from fake_server import Answer, FakeServer, SeenRequest  # noqa: E402
from litsearch.core.identifiers import normalize_doi, normalize_openalex_id, normalize_pmid  # noqa: E402

SHARED = Path(os.environ.get("LITSEARCH_SHARED_DIR", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"

SNOWBALL = "openalex/bodies/openalexPro__works_filter_openalex_cites_citedby_pages__{:02d}_200.json"
OPENALEX_FILES = [SNOWBALL.format(1), SNOWBALL.format(3), SNOWBALL.format(5),
                  "openalex/raw/openalex_python__work_W2741809807_peerj.4375.json"]
OPENALEX_GLOBS = ["openalex/bodies/paperqa__doi_search_*__00_200.json", "openalex/bodies/paperqa__title_search_*.json"]
OPENALEX_NOT_FOUND = "openalex/bodies/paperqa__openalex_doi_not_found_404_html__00_404.html"
S2_GLOB = "semantic_scholar/bodies/paperqa__doi_search_*__00_200.json"
S2_NOT_FOUND = "semantic_scholar/bodies/paperqa__bulk_doi_search_6_dois_incl_404s__03_404.json"

# The two works of the recorded snowball, given as a DOI and as an arXiv id.
SEEDS = ["10.1145/3383583.3398584", "arXiv:2007.14454"]


def _works_in(body: Any) -> list[dict]:
    if isinstance(body, dict) and isinstance(body.get("results"), list):
        return [work for work in body["results"] if isinstance(work, dict)]
    return [body] if isinstance(body, dict) and body.get("id") else []


class RecordedOpenAlex:
    """Every recorded OpenAlex work, answerable by W-id, DOI or PMID."""

    def __init__(self, fixtures: Path):
        paths = [fixtures / name for name in OPENALEX_FILES]
        paths += sorted(path for pattern in OPENALEX_GLOBS for path in fixtures.glob(pattern))
        self.works: dict[str, dict] = {}
        for path in paths:
            for work in _works_in(json.loads(path.read_text(encoding="utf-8"))):
                self.works.setdefault(normalize_openalex_id(work["id"]), work)
        self.by_key = {}
        for work_id, work in self.works.items():
            ids = work.get("ids") or {}
            for key in (work_id, f"doi:{normalize_doi(work.get('doi'))}", f"pmid:{normalize_pmid(ids.get('pmid'))}"):
                self.by_key.setdefault(key.lower(), work)
        self.not_found = (fixtures / OPENALEX_NOT_FOUND).read_bytes()

    def answer(self, request: SeenRequest) -> Answer:
        single = unquote(request.path[len("/openalex/works"):].strip("/"))
        if single:
            work = self.by_key.get(_lookup_key(single))
            if work is None:
                return Answer(404, self.not_found, content_type="text/html; charset=utf-8")
            return Answer(200, json.dumps(work))
        expression = request.param("filter") or ""
        if expression.startswith("openalex_id:"):
            wanted = expression[len("openalex_id:"):].split("|")
            results = [self.works[w] for w in wanted if w in self.works]
        elif expression.startswith("cites:"):
            cited = f"https://openalex.org/{expression[len('cites:'):]}"
            results = sorted((w for w in self.works.values() if cited in (w.get("referenced_works") or [])),
                             key=lambda w: -(w.get("cited_by_count") or 0))
        else:
            return Answer(400, json.dumps({"error": "Invalid query parameters error.",
                                           "message": "this demo answers id and cites filters only"}))
        results = results[: int(request.param("per_page") or 25)]
        meta = {"count": len(results), "db_response_time_ms": 1, "page": 1, "per_page": len(results)}
        return Answer(200, json.dumps({"meta": meta, "results": results, "group_by": []}))


def _lookup_key(single: str) -> str:
    kind, sep, value = single.partition(":")
    if sep and kind.lower() == "doi":
        return f"doi:{normalize_doi(value)}"
    return single.lower()


class RecordedSemanticScholar:
    """Every recorded S2 paper record, answerable by paperId, DOI:, PMID: or CorpusId:."""

    def __init__(self, fixtures: Path):
        self.by_key: dict[str, bytes] = {}
        for path in sorted(fixtures.glob(S2_GLOB)):
            body = path.read_bytes()
            record = json.loads(body)
            ids = record.get("externalIds") or {}
            for key in (record.get("paperId"), f"DOI:{normalize_doi(ids.get('DOI'))}", f"PMID:{ids.get('PubMed')}",
                        f"CorpusId:{ids.get('CorpusId')}"):
                self.by_key.setdefault(str(key).lower(), body)
        self.not_found = (fixtures / S2_NOT_FOUND).read_bytes()

    def answer(self, request: SeenRequest) -> Answer:
        wanted = unquote(request.path[len("/s2/graph/v1/paper/"):])
        if wanted.endswith(("/references", "/citations")):
            return Answer(404, self.not_found)  # no recorded lists: the command falls back to OpenAlex
        kind, sep, value = wanted.partition(":")
        key = f"DOI:{normalize_doi(value)}" if sep and kind.upper() == "DOI" else wanted
        body = self.by_key.get(key.lower())
        return Answer(200, body) if body else Answer(404, self.not_found)


def install_fixture_apis(server: FakeServer, fixtures: Path = FIXTURES) -> dict[str, str]:
    """Mount the recorded OpenAlex and Semantic Scholar answers; returns the LITSEARCH_*_URL variables."""
    openalex, s2 = RecordedOpenAlex(fixtures), RecordedSemanticScholar(fixtures)
    server.route("/openalex/works", openalex.answer)
    server.route("/s2/graph/v1/paper/", s2.answer)
    return {"LITSEARCH_OPENALEX_URL": server.url + "/openalex", "LITSEARCH_SEMANTIC_SCHOLAR_URL": server.url + "/s2"}


def run_network(env_urls: dict[str, str], args: list[str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "OPENALEX", "SEMANTIC"))}
    env.update({"PYTHONPATH": str(REPO / "src"), "LITSEARCH_EMAIL": "demo@example.org", **env_urls})
    script = Path(sys.executable).parent / "lit-search"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "litsearch"]
    return subprocess.run(command + ["network", *args], capture_output=True, text=True, env=env, timeout=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", choices=("1", "2"), default="1")
    parser.add_argument("--format", choices=("markdown", "json", "dot"), default="markdown")
    args = parser.parse_args()
    if not (FIXTURES / OPENALEX_FILES[0]).exists():
        print(f"network_demo: the recorded fixtures are not available under {FIXTURES}", file=sys.stderr)
        return 2
    with FakeServer() as server:
        urls = install_fixture_apis(server)
        command = ["network", *SEEDS, "--depth", args.depth, "--format", args.format]
        started = time.monotonic()
        proc = run_network(urls, command[1:])
        seconds = time.monotonic() - started
    print(f"$ lit-search {' '.join(command)}    # against recorded responses, {seconds:.1f} s\n")
    sys.stdout.write(proc.stdout)
    if proc.returncode:
        print(f"\n(exit {proc.returncode})\n{proc.stderr}", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
