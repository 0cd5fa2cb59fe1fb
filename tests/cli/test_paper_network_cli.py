"""`lit-search paper` and `lit-search network`: the real commands in a subprocess against a
FakeServer (fake_apis plus a small citation graph served in each API's format), and the
async fetchers in-process (without pacing) for request-level checks."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import os
import re
import subprocess
import zlib
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote

import pydot
import pytest

import fake_apis
from fake_server import Answer, FakeServer, SeenRequest
from litsearch.core.errors import NotFound
from litsearch.graph.bundle import fetch_paper_bundle
from litsearch.core.errors import UnknownIdError
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.graph.network import MAX_EXPANDED_NODES, MAX_NETWORK_NODES, build_network
from litsearch.runtime.settings import settings_from_env
from command import lit_search_command

# pydot 4 calls pyparsing names that pyparsing 3.3 deprecates; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")

from conftest import REPO  # noqa: E402
from scratch import scratch_folder  # noqa: E402
S2, OA = "semantic_scholar", "openalex"
BOTH = (S2, OA)


# --------------------------------------------------------------------------- the fake graph

def _corpus_paper(key: str, refs: list[str]) -> dict:
    paper = copy.deepcopy(next(p for p in fake_apis.CORPUS if p["key"] == key))
    paper["in"] = [name for name in paper["in"] if name in BOTH]
    paper["refs"] = refs
    return paper


def make(key: str, title: str, year: int, citations: int | None, *, refs=(), providers=BOTH, **ids) -> dict:
    """A paper in fake_apis' CORPUS shape plus its reference keys ("refs")."""
    paper = {"key": key, "title": title, "year": year, "citations": citations, "refs": list(refs),
             "authors": ids.pop("authors", [f"Ada {key.replace('_', ' ').title()}", f"Ben Q{len(key)} Tester"]),
             "venue": ids.pop("venue", "Journal of Synthetic Tests"), "in": list(providers)}
    if S2 in providers and ids.pop("s2", True):
        paper["s2"] = hashlib.sha1(key.encode()).hexdigest()
    if OA in providers:
        paper["openalex"] = ids.pop("openalex", f"W{4100000000 + zlib.crc32(key.encode()) % 10**8}")
    paper.update(ids)
    return paper


# Every character that could break a Markdown table, a Mermaid label or a DOT string, in a
# title short enough to be drawn whole (node labels keep 48 characters).
HOSTILE_TITLE = '"Q" | `t` [l](http://e.x) #h;\\b %%{i}%% ]] <i>z</i>\nn'


GRAPH = [
    # Seeds: crispr (S2 + OpenAlex), guide (S2 + OpenAlex), oa_seed (OpenAlex only, no DOI).
    _corpus_paper("crispr", ["hostile", "foundation", "cong", "oa_gap", "dup_pub", "dup_pre"]),
    make("guide", "Rules for designing guide RNAs with low off-target activity", 2016, 640,
         refs=["foundation", "cong", "lonely"], doi="10.5555/guide.2016"),
    make("oa_seed", "An OpenAlex-only survey of genome editing tools", 2019, 25,
         refs=["foundation", "lonely"], providers=(OA,)),
    _corpus_paper("transformer", ["seq2seq", "foundation"]),
    # Their references.
    make("foundation", "A programmable dual-RNA-guided DNA endonuclease in adaptive bacterial immunity",
         2012, 15000, doi="10.1126/science.1225829", refs=["ancient"]),
    make("cong", "Multiplex genome engineering using CRISPR/Cas systems", 2013, 12000,
         doi="10.1126/science.1231143", refs=["ancient"]),
    make("hostile", HOSTILE_TITLE, 2020, 7, doi="10.5555/hostile.2020"),
    make("oa_gap", "A reference that Semantic Scholar lists without an id", 2010, 50, providers=(OA,),
         doi="10.5555/gap.2010"),
    make("dup_pub", "Deep mutational scanning of Cas9 fidelity", 2019, 80, doi="10.5555/dup.2019",
         arxiv="1901.00001", authors=["Mia Mutant", "Noah Scanner"]),
    make("dup_pre", "Deep mutational scanning of Cas9 fidelity", 2019, 9, arxiv="1901.00001", venue="arXiv",
         authors=["Mia Mutant", "Noah Scanner"]),
    make("lonely", "A reference only one seed cites", 2015, 3, doi="10.5555/lonely.2015"),
    make("seq2seq", "Sequence to sequence learning with neural networks", 2014, 20000, arxiv="1409.3215"),
    make("ancient", "Clustered regularly interspaced short palindromic repeats in prokaryotes", 2002, 2100,
         doi="10.5555/ancient.2002"),
    # Papers citing the seeds.
    make("review", "A review of Cas9 specificity", 2021, 300, refs=["crispr", "guide", "oa_seed"],
         doi="10.5555/review.2021"),
    make("followup", "Follow-up measurements of off-target cleavage", 2018, 12, refs=["crispr"],
         doi="10.5555/followup.2018"),
    make("newer", "A brand-new paper citing the specificity study", 2024, 0, refs=["crispr"],
         doi="10.5555/newer.2024"),
]

# An OpenAlex-only hub (no DOIs, so Semantic Scholar is never asked): 15 references with 25
# references each, enough to hit both depth-2 caps.
HUB_REFERENCES, HUB_REFERENCES_EACH = 15, 25
WORDS = ("kinetics", "structure", "delivery", "toxicity", "imaging", "screening", "evolution", "modelling",
         "chemistry", "ecology", "genomics", "statistics", "design", "ethics", "transport")


def _hub_graph() -> list[dict]:
    papers = [make("hub", "A hub paper with many references", 2022, 5, providers=(OA,), openalex="W900000001",
                   refs=[f"hubref{i}" for i in range(HUB_REFERENCES)])]
    for i in range(HUB_REFERENCES):
        leaves = [f"leaf{i}_{j}" for j in range(HUB_REFERENCES_EACH)]
        papers.append(make(f"hubref{i}", f"Advances in {WORDS[i]} of enzymes", 2000 + i, 1000 - i,
                           providers=(OA,), refs=leaves, authors=[f"Hubert Ref{chr(65 + i)}"]))
        # Distinct numbers in the titles: the merge rules never join titles whose numbers differ.
        papers += [make(leaf, f"{WORDS[j % 15].title()} of compound {100 * i + j}", 1980 + j, j, providers=(OA,),
                        authors=[f"Leaf Writer {100 * i + j}"]) for j, leaf in enumerate(leaves)]
    return papers


def _without_refs(p: dict) -> dict:
    """fake_apis resolves "refs" in its own corpus; this graph links its papers itself."""
    return {**p, "refs": []}


class CitationGraphAPI:
    """Semantic Scholar /paper/{id}[/references|/citations] and OpenAlex /works/{id},
    /works?filter=openalex_id:…|… and /works?filter=cites:… over a list of papers."""

    def __init__(self, papers: list[dict], down: tuple[str, ...] = (), echo_key: bool = False):
        self.papers = {p["key"]: p for p in papers}
        self.down = set(down)
        self.echo_key = echo_key

    def install(self, server: FakeServer) -> dict[str, str]:
        env = fake_apis.install(server)
        server.route("/s2/graph/v1/paper/", self.s2)
        server.route("/openalex/works", self.openalex)
        return env

    # -- Semantic Scholar

    def s2(self, request: SeenRequest) -> Answer:
        if S2 in self.down:
            return Answer(503, '{"message": "Service Unavailable"}')
        rest = unquote(request.path[len("/s2/graph/v1/paper/"):])
        if rest.startswith("search"):
            return fake_apis.s2_search(request)
        direction = next((d for d in ("references", "citations") if rest.endswith("/" + d)), None)
        wanted = rest[: -len(direction) - 1] if direction else rest
        paper = self._s2_find(wanted)
        if paper is None:
            return Answer(404, json.dumps({"error": f"Paper with id {wanted} not found"}))
        if direction is None:
            record = {**self._s2_record(paper), "referenceCount": len(paper["refs"])}
            key = request.headers.get("x-api-key")
            if self.echo_key and key:
                record["abstract"] = f"{record['abstract']} (served for key {key})"
            return Answer(200, json.dumps(record))
        # Paged as the API pages: offset and limit, and "next" while more remain (apis.md A1).
        limit, offset = int(request.param("limit") or 100), int(request.param("offset") or 0)
        if direction == "references":
            data = [{"citedPaper": self._s2_record(self.papers[k])} for k in paper["refs"]]
        else:
            data = [{"citingPaper": self._s2_record(p)} for p in self.citing(paper["key"])]
        page = {"offset": offset, "data": data[offset:offset + limit]}
        if offset + limit < len(data):
            page["next"] = offset + limit
        return Answer(200, json.dumps(page))

    def _s2_find(self, wanted: str) -> dict | None:
        for p in self.papers.values():
            if S2 not in p["in"]:
                continue
            corpus_id = zlib.crc32(p["key"].encode()) % 10**8
            keys = {p.get("s2"), f"doi:{p.get('doi')}", f"arxiv:{p.get('arxiv')}", f"pmid:{p.get('pmid')}",
                    f"corpusid:{corpus_id}"}
            if wanted.lower() in {str(k).lower() for k in keys}:
                return p
        return None

    def _s2_record(self, p: dict) -> dict:
        if S2 not in p["in"]:  # S2 lists papers outside its corpus with a title and no id
            return {"paperId": None, "title": p["title"], "year": p["year"], "externalIds": None,
                    "authors": [{"authorId": None, "name": n} for n in p["authors"]], "citationCount": None,
                    "venue": ""}
        return fake_apis.s2_paper(_without_refs(p))

    # -- OpenAlex

    def openalex(self, request: SeenRequest) -> Answer:
        if OA in self.down:
            return Answer(503, '{"error": "Service Unavailable"}')
        single = unquote(request.path[len("/openalex/works"):].strip("/"))
        if single:
            paper = self._openalex_find(single)
            if paper is None:
                return Answer(404, "<html><body>Not Found</body></html>", content_type="text/html")
            return Answer(200, json.dumps(self._work(paper)))
        expression = request.param("filter") or ""
        if expression.startswith("openalex_id:"):
            wanted = expression[len("openalex_id:"):].split("|")
            works = [self._work(p) for p in self.papers.values() if p.get("openalex") in wanted]
        elif expression.startswith("cites:"):
            cited = self._openalex_find(expression[len("cites:"):])
            works = [self._work(p) for p in self.citing(cited["key"]) if OA in p["in"]] if cited else []
            if request.param("sort") == "cited_by_count:desc":  # sorted on the server, as OpenAlex does
                works.sort(key=lambda w: -w["cited_by_count"])
        else:
            return fake_apis.openalex_works(request)
        total = len(works)  # meta.count is the whole list's size; results is one page
        works = works[: min(int(request.param("per_page") or 25), 100)]
        return Answer(200, json.dumps({"meta": {"count": total, "per_page": len(works)}, "results": works}))

    def _openalex_find(self, wanted: str) -> dict | None:
        for p in self.papers.values():
            if OA not in p["in"]:
                continue
            arxiv_doi = f"doi:10.48550/arxiv.{p['arxiv']}" if p.get("arxiv") else None
            keys = {p.get("openalex"), f"doi:{p.get('doi')}", f"pmid:{p.get('pmid')}", arxiv_doi}
            if wanted.lower() in {str(k).lower() for k in keys}:
                return p
        return None

    def _work(self, p: dict) -> dict:
        work = fake_apis.openalex_work(_without_refs(p), 0)
        refs = [self.papers[k]["openalex"] for k in p["refs"] if OA in self.papers[k]["in"]]
        work.pop("relevance_score")
        if p.get("arxiv"):  # OpenAlex lists an arXiv copy among a work's locations
            work["locations"] = [{"landing_page_url": f"https://arxiv.org/abs/{p['arxiv']}"}]
        work["referenced_works"] = [f"https://openalex.org/{w}" for w in refs]
        work["referenced_works_count"] = len(refs)
        work["cited_by_count"] = p.get("citations") or 0
        return work

    def citing(self, key: str) -> list[dict]:
        return [p for p in self.papers.values() if key in p["refs"]]


# --------------------------------------------------------------------------- running the command


def _env(env_extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "OPENALEX", "NCBI", "SEMANTIC"))}
    env.update({"LITSEARCH_EMAIL": "graph@example.org", "PYTHONPATH": str(REPO / "src"), "LITSEARCH_BACKOFF": "0.05",
                # A private response cache per run, so request counts do not depend on other runs.
                "LITSEARCH_CACHE_DIR": scratch_folder(prefix="litsearch-graph-")})
    env.update(env_extra)
    return env


def run_paper_cli(args: list[str], env_extra: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(lit_search_command() + ["paper", *args], capture_output=True, text=True,
                          env=_env(env_extra), timeout=timeout)


def run_network_cli(args: list[str], env_extra: dict[str, str], timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run(lit_search_command() + ["network", *args], capture_output=True, text=True,
                          env=_env(env_extra), timeout=timeout)


def run_many(runner, arg_lists: list[list[str]], env: dict[str, str]) -> list[subprocess.CompletedProcess]:
    """Several runs at once: each waits mostly on Semantic Scholar's one-request-a-second pace."""
    with ThreadPoolExecutor(max_workers=len(arg_lists)) as pool:
        return list(pool.map(lambda args: runner(args, env), arg_lists))


def ok_json(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def graph_api():
    """A fresh server per test; yields (server, env, api) so a test can switch providers off."""
    with FakeServer() as server:
        api = CitationGraphAPI(GRAPH + _hub_graph())
        env = api.install(server)
        yield server, env, api


# --------------------------------------------------------------------------- paper: ids, record, lists

CRISPR_FORMS = ["10.1038/nbt.2647", "https://doi.org/10.1038/NBT.2647", "doi:10.1038/nbt.2647", "23873081",
                "PMID:23873081", "https://pubmed.ncbi.nlm.nih.gov/23873081/",
                "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
                f"CorpusId:{zlib.crc32(b'crispr') % 10**8}",
                "https://www.semanticscholar.org/paper/DNA-targeting/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
                "W2022234560", "https://openalex.org/W2022234560"]
TRANSFORMER_FORMS = ["1706.03762", "arXiv:1706.03762v7", "https://arxiv.org/abs/1706.03762v2",
                     "10.48550/arXiv.1706.03762", "https://openalex.org/W2626778328"]


def test_every_id_form_finds_the_same_merged_paper(graph_api):
    _, env, _ = graph_api
    forms = CRISPR_FORMS + TRANSFORMER_FORMS
    results = run_many(run_paper_cli, [[form, "--format", "json", "-q"] for form in forms], env)
    for form, proc in zip(forms, results):
        payload = ok_json(proc)
        if form in TRANSFORMER_FORMS:
            assert payload["arxiv_id"] == "1706.03762", form
            assert payload["paper_id"] == "204e3073870fae3d05bcbc2f6a8e263d9b72e776", form
            continue
        assert payload["doi"] == "10.1038/nbt.2647", form
        assert payload["pmid"] == "23873081" and payload["openalex_id"] == "W2022234560", form
        assert payload["paper_id"] == "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", form
        # Both providers' records were merged, whichever one the id form could reach first.
        assert sorted(payload["sources"]) == [OA, S2], form
        assert payload["references_from"] == S2 and payload["citations_from"] == S2, form
        assert payload["notes"] == [], (form, payload["notes"])


def test_json_has_the_record_lists_counts_and_ranked_order(graph_api):
    server, env, _ = graph_api
    payload = ok_json(run_paper_cli(["10.1038/nbt.2647", "--format", "json"], env))
    for key in ("doi", "pmid", "paper_id", "arxiv_id", "openalex_id", "title", "authors", "year", "journal",
                "abstract", "tldr", "citation_count", "citation_uri", "oa_url", "external_ids", "found_by",
                "references", "citations", "reference_count", "citation_count", "notes", "sources"):
        assert key in payload, key
    assert "score" not in payload and "provider_scores" not in payload  # search-only fields
    assert payload["title"] == "DNA targeting specificity of RNA-guided Cas9 nucleases"
    assert payload["citation_uri"] == "https://doi.org/10.1038/nbt.2647"
    assert payload["authors"] == ["Patrick D Hsu", "David A Scott", "Joshua A Weinstein", "F Ann Ran"]
    assert payload["citation_count"] == 5120
    # Six references listed, two of them one paper (preprint and published): five rows.
    assert payload["reference_count"] == 6
    titles = [r["title"] for r in payload["references"]]
    assert len(titles) == 5 and titles.count("Deep mutational scanning of Cas9 fidelity") == 1
    assert titles[:2] == ["A programmable dual-RNA-guided DNA endonuclease in adaptive bacterial immunity",
                          "Multiplex genome engineering using CRISPR/Cas systems"]
    counts = [r["citation_count"] for r in payload["references"] if r["citation_count"] is not None]
    assert counts == sorted(counts, reverse=True)
    merged = next(r for r in payload["references"] if r["title"].startswith("Deep mutational"))
    assert merged["doi"] == "10.5555/dup.2019" and merged["arxiv_id"] == "1901.00001"
    assert [c["title"] for c in payload["citations"]] == [
        "A review of Cas9 specificity", "Follow-up measurements of off-target cleavage",
        "A brand-new paper citing the specificity study"]
    # One page each, with the documented fields and page size (citing papers: the API's most, 1,000).
    lists = server.requests_to("/s2/graph/v1/paper/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678/")
    assert len(lists) == 2
    assert {(r.path.rsplit("/", 1)[1], r.param("limit")) for r in lists} == {("references", "100"),
                                                                            ("citations", "1000")}
    assert payload["citations_coverage"] == "all 3 citing papers Semantic Scholar lists"
    assert {r.param("fields") for r in lists} == {"title,year,authors,externalIds,citationCount,venue"}
    assert all(r.headers.get("user-agent", "").startswith("lit-search/") for r in server.requests)


def test_markdown_shows_the_full_record_and_ranked_top_tables(graph_api):
    _, env, _ = graph_api
    proc = run_paper_cli(["arXiv:1706.03762", "--limit", "1"], env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("## Attention Is All You Need\n")
    assert "- **Authors:** Ashish Vaswani, Noam Shazeer, Niki Parmar" in out
    assert "- **Year:** 2017" in out and "Neural Information Processing Systems" in out
    assert "arXiv [1706.03762](https://arxiv.org/abs/1706.03762)" in out
    assert "OpenAlex [W2626778328](https://openalex.org/W2626778328)" in out
    assert "Semantic Scholar [204e3073870fae3d05bcbc2f6a8e263d9b72e776]" in out
    assert "- **Open access:** [PDF](https://arxiv.org/pdf/1706.03762)" in out
    assert "\n> The dominant sequence transduction models" in out  # abstract as a quote
    assert "**TL;DR** (Semantic Scholar):\n\n> A new simple network architecture" in out
    assert "### References (2)" in out and "### Cited by (120,345)" in out
    references = out.split("### References (2)")[1].split("### Cited by")[0]
    rows = [line for line in references.splitlines() if re.match(r"^\| \d+ \|", line)]
    assert len(rows) == 1 and "Sequence to sequence learning" in rows[0]  # the most cited, --limit 1
    assert "The 1 most cited of the 2 fetched from Semantic Scholar." in references
    assert "lit-search: looking up arXiv 1706.03762" in proc.stderr


def test_hostile_titles_cannot_break_the_markdown_table(graph_api):
    _, env, _ = graph_api
    out = run_paper_cli(["10.1038/nbt.2647", "--limit", "10", "-q"], env).stdout
    rows = [line for line in out.splitlines() if line.startswith("| ") and "e.x" in line]
    assert len(rows) == 1
    row = rows[0]
    assert len(re.findall(r"(?<!\\)\|", row)) == 8  # 7 cells: no unescaped pipe from the title
    assert '"Q" \\| \\`t\\` \\[l\\](http\\[:\\]//e.x) #h;\\\\b %%{i}%% \\]\\] z n |' in row
    assert "<i>" not in row and "http://" not in row


def test_unknown_id_format_is_a_usage_error_and_sends_nothing(graph_api):
    server, env, _ = graph_api
    for args in (["not a paper id"], ["12345678901234"], ["doi:nonsense"], ["W"], ["10.1038/nbt.2647", "--limit", "0"]):
        proc = run_paper_cli(args, env)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "error:" in proc.stderr and "Traceback" not in proc.stderr and proc.stdout == ""
    assert "unrecognised paper id 'not a paper id'" in run_paper_cli(["not a paper id"], env).stderr
    assert server.requests == []


def test_help_exits_0(graph_api):
    _, env, _ = graph_api
    for runner in (run_paper_cli, run_network_cli):
        proc = runner(["--help"], env)
        assert proc.returncode == 0 and "exit codes" in proc.stdout


def test_a_paper_nobody_has_exits_5(graph_api):
    _, env, _ = graph_api
    proc = run_paper_cli(["10.9999/nowhere.1"], env)
    assert proc.returncode == 5  # not found (3 is for "could not be fetched")
    assert "DOI 10.9999/nowhere.1 was not found in Semantic Scholar or OpenAlex" in proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr


def test_every_provider_down_exits_3(graph_api):
    _, env, api = graph_api
    api.down = {S2, OA}
    proc = run_paper_cli(["10.1038/nbt.2647"], env)
    assert proc.returncode == 3
    assert "could not fetch DOI 10.1038/nbt.2647" in proc.stderr and "HTTP 503" in proc.stderr
    assert proc.stdout == ""


def test_semantic_scholar_down_falls_back_to_openalex_with_notes(graph_api):
    _, env, api = graph_api
    api.down = {S2}
    payload = ok_json(run_paper_cli(["10.1038/nbt.2647", "--format", "json"], env))
    assert payload["sources"] == [OA]
    assert payload["references_from"] == OA and payload["citations_from"] == OA
    assert any(note.startswith("Semantic Scholar: looking up DOI:10.1038/nbt.2647 failed: HTTP 503")
               for note in payload["notes"])
    # OpenAlex knows five of the six references (S2's id-less stub is OpenAlex's oa_gap).
    assert payload["reference_count"] == 6 and len(payload["references"]) == 5
    assert payload["references"][0]["openalex_id"] and payload["citations"][0]["title"] == "A review of Cas9 specificity"
    proc = run_paper_cli(["10.1038/nbt.2647"], env)
    assert proc.returncode == 0 and "note: Semantic Scholar: looking up" in proc.stdout
    assert "lit-search: note: Semantic Scholar" in proc.stderr


def test_openalex_id_with_openalex_down_exits_3(graph_api):
    _, env, api = graph_api
    api.down = {OA}
    proc = run_paper_cli(["W2022234560"], env)  # only OpenAlex can resolve its own ids
    assert proc.returncode == 3
    assert "could not fetch OpenAlex id W2022234560: OpenAlex: HTTP 503" in proc.stderr


def test_openalex_down_still_prints_the_semantic_scholar_record(graph_api):
    _, env, api = graph_api
    api.down = {OA}
    payload = ok_json(run_paper_cli(["10.1038/nbt.2647", "--format", "json"], env))
    assert payload["sources"] == [S2] and payload["openalex_id"] is None
    assert len(payload["references"]) == 5 and len(payload["citations"]) == 3
    assert any("OpenAlex: looking up doi:10.1038/nbt.2647 failed" in note for note in payload["notes"])


def test_keys_echoed_by_a_server_are_redacted(graph_api):
    server, env, api = graph_api
    api.echo_key = True
    key = "s2-secret-key-0123456789"
    proc = run_paper_cli(["10.1038/nbt.2647", "--format", "json"], {**env, "SEMANTIC_SCHOLAR_API_KEY": key})
    assert proc.returncode == 0
    assert server.requests_to("/s2/")[0].headers["x-api-key"] == key
    assert key not in proc.stdout and key not in proc.stderr
    assert "(served for key [redacted])" in json.loads(proc.stdout)["abstract"]


# --------------------------------------------------------------------------- network

SEEDS = ["10.1038/nbt.2647", "10.5555/guide.2016", "W4100000000"]  # the last is replaced below


def _seed_args() -> list[str]:
    oa_seed = next(p for p in GRAPH if p["key"] == "oa_seed")["openalex"]
    return [SEEDS[0], SEEDS[1], oa_seed]


@pytest.fixture(scope="module")
def network_outputs():
    """One server; the three formats requested at once (each run waits on S2's pace)."""
    with FakeServer() as server:
        env = CitationGraphAPI(GRAPH).install(server)
        formats = ["markdown", "json", "dot"]
        procs = run_many(run_network_cli, [_seed_args() + ["--format", f] for f in formats], env)
        yield dict(zip(formats, procs))


def test_network_json_links_citing_to_cited_and_merges_nodes(network_outputs):
    payload = ok_json(network_outputs["json"])
    nodes = {node["id"]: node for node in payload["nodes"]}
    assert payload["seeds"] == ["n1", "n2", "n3"]
    assert [nodes[n]["title"][:20] for n in payload["seeds"]] == [
        "DNA targeting specif", "Rules for designing ", "An OpenAlex-only sur"]
    assert all(nodes[n]["seed"] for n in payload["seeds"]) and sum(n["seed"] for n in nodes.values()) == 3
    by_title = {node["title"]: node["id"] for node in payload["nodes"]}
    edges = {(e["citing"], e["cited"]) for e in payload["edges"]}
    foundation = by_title["A programmable dual-RNA-guided DNA endonuclease in adaptive bacterial immunity"]
    # One node for the foundation paper although S2 (two seeds) and OpenAlex (oa_seed) reported it.
    assert {(seed, foundation) for seed in ("n1", "n2", "n3")} <= edges
    review = by_title["A review of Cas9 specificity"]
    assert {(review, "n1"), (review, "n2"), (review, "n3")} <= edges
    assert payload["shared_references"][:2] == [{"id": foundation, "cited_by_seeds": 3},
                                                {"id": by_title["Multiplex genome engineering using CRISPR/Cas systems"],
                                                 "cited_by_seeds": 2}]
    # The id-less S2 stub and OpenAlex's record of the same reference are one node.
    assert sum(1 for node in payload["nodes"] if node["title"].startswith("A reference that Semantic")) == 1
    assert payload["node_count"] == len(payload["nodes"]) == len({node["key"] for node in payload["nodes"]})
    assert payload["depth"] == 1 and payload["expanded"] == [] and payload["failed_seeds"] == []
    assert payload["requests"]["semantic_scholar"] == 6  # two S2 seeds x (record, references, citations)


def test_network_markdown_has_a_valid_mermaid_block_and_the_shared_table(network_outputs):
    proc = network_outputs["markdown"]
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    block = out.split("```mermaid\n", 1)[1].split("\n```", 1)[0]
    check_mermaid_structure(block)
    assert "| # | Shared reference | Year | Cited by seeds | Cites |" in out
    table = [line for line in out.splitlines() if re.match(r"^\| \d+ \|", line)]
    assert "A programmable dual-RNA-guided DNA endonuclease" in table[0] and "| 3 of 3 | 15,000 |" in table[0]
    assert "Multiplex genome engineering" in table[1] and "| 2 of 3 | 12,000 |" in table[1]
    assert "A reference only one seed cites" in table[2] and "| 2 of 3 |" in table[2]
    assert "- 3 seeds, " in out and "citation links (depth 1)" in out


def check_mermaid_structure(block: str) -> None:
    """Every line of the flowchart is one of the statements the renderer writes, every edge
    joins declared nodes, and no label can leave its quotes."""
    lines = block.splitlines()
    assert lines[0] == "flowchart LR"
    declared, seeds = set(), set()
    node = re.compile(r'^    (n\d+)\["((?:[^"\n\[\]|<>`;{}%#]|#\d+;)*)"\]$')
    edge = re.compile(r"^    (n\d+) --> (n\d+)$")
    for line in lines[1:]:
        if match := node.match(line):
            assert match.group(1) not in declared
            declared.add(match.group(1))
            assert re.match(r"^[^:]+ (?:\d{4}|n\.d\.): .+", match.group(2)), line
        elif match := edge.match(line):
            assert {match.group(1), match.group(2)} <= declared, line
        elif line.startswith("    classDef seed "):
            pass
        elif match := re.match(r"^    class ((?:n\d+,)*n\d+) seed$", line):
            seeds = set(match.group(1).split(","))
        else:
            assert re.match(r"^    %% \d+ more papers not drawn", line), line
    assert declared and seeds and seeds <= declared


def test_mermaid_and_dot_escape_a_hostile_title(network_outputs):
    block = network_outputs["markdown"].stdout.split("```mermaid\n", 1)[1].split("\n```", 1)[0]
    label = next(line for line in block.splitlines() if "e.x" in line)
    assert label.endswith('["Hostile 2020: #34;Q#34; #124; #96;t#96; #91;l#93;(http://e.x) #35;h#59;#92;b '
                          '#37;#37;#123;i#125;#37;#37; #93;#93; z n"]')
    dot = network_outputs["dot"].stdout
    line = next(line for line in dot.splitlines() if "e.x" in line)
    assert 'label="Hostile 2020: \\"Q\\" | `t` [l](http://e.x) #h;\\\\b %%{i}%% ]] z n"' in line


def test_dot_output_parses_as_graphviz(network_outputs):
    proc = network_outputs["dot"]
    assert proc.returncode == 0, proc.stderr
    graphs = pydot.graph_from_dot_data(proc.stdout)
    assert graphs and len(graphs) == 1
    graph = graphs[0]
    payload = ok_json(network_outputs["json"])
    assert graph.get_type() == "digraph"
    nodes = {n.get_name(): n for n in graph.get_nodes() if n.get_name() not in ("node", "graph", "edge")}
    assert len(nodes) == payload["node_count"]
    assert len(graph.get_edges()) == payload["edge_count"]
    assert {(e.get_source(), e.get_destination()) for e in graph.get_edges()} == \
        {(e["citing"], e["cited"]) for e in payload["edges"]}
    assert "filled" in nodes["n1"].get("style") and "filled" not in (nodes["n4"].get("style") or "")
    hostile = next(n for n in nodes.values() if "e.x" in n.get("label"))
    assert hostile.get("label") == '"Hostile 2020: \\"Q\\" | `t` [l](http://e.x) #h;\\\\b %%{i}%% ]] z n"'


def test_network_unknown_id_exits_2_before_any_request(graph_api):
    server, env, _ = graph_api
    for args in (["10.1038/nbt.2647", "bogus-id"], ["10.1038/nbt.2647", "--depth", "3"],
                 [f"10.5555/x.{i}" for i in range(11)]):
        proc = run_network_cli(args, env)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert server.requests == []


def test_network_with_one_missing_seed_notes_it_and_with_none_found_exits_5(graph_api):
    _, env, _ = graph_api
    hub = "W900000001"
    missing, none_found = run_many(run_network_cli, [[hub, "10.9999/missing.1", "--format", "json"],
                                                     ["10.9999/missing.1", "W123456789"]], env)
    payload = ok_json(missing)
    assert payload["seeds"] == ["n1"] and len(payload["failed_seeds"]) == 1
    assert "DOI 10.9999/missing.1 was not found" in payload["failed_seeds"][0]
    assert "failed: DOI 10.9999/missing.1" in missing.stderr
    assert none_found.returncode == 5 and "no seed paper could be fetched" in none_found.stderr
    assert none_found.stdout == ""


def test_depth_2_expands_ten_references_and_stops_at_200_papers(graph_api):
    server, env, _ = graph_api
    payload = ok_json(run_network_cli(["W900000001", "--depth", "2", "--format", "json"], env))
    assert payload["depth"] == 2
    assert len(payload["expanded"]) == MAX_EXPANDED_NODES == 10
    assert payload["node_count"] == MAX_NETWORK_NODES == 200
    # 1 hub + 15 references + 10 x 25 references of references = 266 found.
    assert payload["omitted_by_cap"] == 66
    assert any("cap of 200" in note for note in payload["notes"])
    expanded_titles = {n["title"] for n in payload["nodes"] if n["id"] in payload["expanded"]}
    assert expanded_titles == {f"Advances in {WORDS[i]} of enzymes" for i in range(10)}  # the most cited ten
    # The first expansions are kept whole; the cap cuts into the eighth and leaves the last two empty.
    out_degree = [sum(1 for e in payload["edges"] if e["citing"] == n) for n in payload["expanded"]]
    assert out_degree == [25] * 7 + [9, 0, 0]
    lists = server.requests_to("/openalex/works")
    assert server.requests_to("/s2/") == []  # OpenAlex-only papers: S2 was never asked
    assert all(int(r.param("per_page")) == len(r.param("filter").split("|")) <= 50
               for r in lists if (r.param("filter") or "").startswith("openalex_id:"))


def test_depth_2_markdown_draws_at_most_60_nodes(graph_api):
    _, env, _ = graph_api
    out = run_network_cli(["W900000001", "--depth", "2"], env).stdout
    block = out.split("```mermaid\n", 1)[1].split("\n```", 1)[0]
    check_mermaid_structure(block)
    assert len(re.findall(r'^    n\d+\["', block, re.M)) == 60
    assert "    %% 140 more papers not drawn" in block
    assert "Shared references need two or more seed papers." in out


# --------------------------------------------------------------------------- in-process (no pacing)

def _unpaced_client(env: dict[str, str]) -> HttpClient:
    settings = settings_from_env(_env(env))
    policies = {name: PacePolicy(min_interval=0.0, max_in_flight=5, retries=0)
                for name in ("semantic_scholar", "openalex", "pubmed", "arxiv", "crossref", "unpaywall", "web")}
    return HttpClient(settings, policies=policies)


def _run(coro):
    return asyncio.run(coro)


def test_openalex_references_are_fetched_in_batches_of_100(graph_api):
    # An OR-filter takes 100 values and a list call costs the same at any size (issue 20, item 4).
    server, env, api = graph_api
    refs = [make(f"many{i}", f"Reference number {i} on {WORDS[i % 15]}", 1990 + i % 30, i, providers=(OA,),
                 authors=[f"Many{i} Writer"]) for i in range(120)]
    for paper in refs:
        api.papers[paper["key"]] = paper
    api.papers["big"] = make("big", "A review citing 120 papers", 2020, 1, providers=(OA,), openalex="W777",
                             refs=[p["key"] for p in refs])

    async def fetch():
        async with _unpaced_client(env) as http:
            return await fetch_paper_bundle(http, "W777")

    bundle = _run(fetch())
    calls = [r for r in server.requests_to("/openalex/works") if (r.param("filter") or "").startswith("openalex_id:")]
    assert [len(r.param("filter").split("|")) for r in calls] == [100, 20]
    assert [r.param("per_page") for r in calls] == ["100", "20"]
    assert len(bundle.references) == 120 and bundle.reference_count == 120
    assert bundle.references_from == OA and bundle.citations_from == OA and bundle.citations == []
    assert [p.citation_count for p in bundle.references[:3]] == [119, 118, 117]


def test_openalex_id_is_followed_up_at_semantic_scholar_by_doi(graph_api):
    server, env, _ = graph_api

    async def fetch():
        async with _unpaced_client(env) as http:
            return await fetch_paper_bundle(http, "W2022234560")

    bundle = _run(fetch())
    s2_paths = [r.path for r in server.requests_to("/s2/")]
    assert s2_paths[0] == "/s2/graph/v1/paper/DOI:10.1038/nbt.2647"
    sha = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
    assert sorted(s2_paths[1:]) == [f"/s2/graph/v1/paper/{sha}/citations", f"/s2/graph/v1/paper/{sha}/references"]
    assert bundle.paper.provider == "merged" and bundle.sources == [S2, OA]


def test_semantic_scholar_listing_no_references_falls_back_to_openalex(graph_api):
    server, env, api = graph_api
    original = api.s2

    def no_references(request: SeenRequest) -> Answer:
        if request.path.endswith("/references"):
            return Answer(200, json.dumps({"offset": 0, "data": []}))
        return original(request)

    server.route("/s2/graph/v1/paper/", no_references)

    async def fetch():
        async with _unpaced_client(env) as http:
            return await fetch_paper_bundle(http, "10.5555/guide.2016")

    bundle = _run(fetch())
    assert bundle.references_from == OA and len(bundle.references) == 3
    assert "Semantic Scholar lists no references for this paper; OpenAlex's are shown" in bundle.notes


def test_bundle_errors_unknown_id_and_not_found(graph_api):
    _, env, _ = graph_api

    async def fetch(ref):
        async with _unpaced_client(env) as http:
            return await fetch_paper_bundle(http, ref)

    with pytest.raises(UnknownIdError):
        _run(fetch("definitely not an id"))
    with pytest.raises(NotFound, match="CorpusId 1 was not found in Semantic Scholar"):
        _run(fetch("CorpusId:1"))


def test_depth_2_over_semantic_scholar_fetches_references_of_the_shared_ones(graph_api):
    server, env, _ = graph_api

    async def build():
        async with _unpaced_client(env) as http:
            return await build_network(http, ["10.1038/nbt.2647", "10.5555/guide.2016"], depth=2)

    network = _run(build())
    assert network.expanded[:2] == ["doi:10.1126/science.1225829", "doi:10.1126/science.1231143"]
    assert ("doi:10.1126/science.1225829", "doi:10.5555/ancient.2002") in network.edges
    assert ("doi:10.1126/science.1231143", "doi:10.5555/ancient.2002") in network.edges
    sha = hashlib.sha1(b"foundation").hexdigest()
    assert server.requests_to(f"/s2/graph/v1/paper/{sha}/references")
    assert not server.requests_to(f"/s2/graph/v1/paper/{sha}/citations")  # depth 2 follows references only


def test_an_openalex_record_of_another_paper_is_not_merged(graph_api):
    server, env, api = graph_api
    other = make("supplement", "Abstracts of the 2016 annual meeting", 2016, 0, providers=(OA,),
                 doi="10.5555/guide.2016", refs=["lonely"], authors=["Meeting Organisers"])
    original = api.openalex

    def same_doi_other_paper(request: SeenRequest) -> Answer:
        if request.path.endswith("/doi:10.5555/guide.2016"):
            return Answer(200, json.dumps(api._work(other)))
        return original(request)

    server.route("/openalex/works", same_doi_other_paper)

    async def fetch():
        async with _unpaced_client(env) as http:
            return await fetch_paper_bundle(http, "10.5555/guide.2016")

    bundle = _run(fetch())
    assert bundle.sources == [S2] and bundle.paper.title.startswith("Rules for designing")
    assert bundle.paper.openalex_id is None
    assert any("looks like a different paper" in note for note in bundle.notes)


def test_paper_and_network_reuse_the_response_cache(tmp_path):
    """A second `paper` run with the same cache folder sends nothing; --offline works after it."""
    with FakeServer() as server:
        env = {**CitationGraphAPI(GRAPH).install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "cache")}
        first = run_paper_cli(["10.1038/nbt.2647", "--format", "json"], env)
        assert first.returncode == 0, first.stderr
        sent = len(server.requests)
        again = run_paper_cli(["10.1038/nbt.2647", "--format", "json"], env)
        offline = run_paper_cli(["10.1038/nbt.2647", "--format", "json", "--offline"], env)
        assert again.returncode == offline.returncode == 0
        assert len(server.requests) == sent
        assert json.loads(again.stdout)["title"] == json.loads(first.stdout)["title"]
