"""A judged test collection (../shared/benchmarks/ranking) served by fake Semantic Scholar,
OpenAlex, PubMed, Europe PMC and arXiv, each in its own real format, so the real command can be measured
end to end on documents whose relevance to each query is known.

Each provider holds its own independent share of the documents (``share``, 0.8 by default)
and answers in its own order, from a text model of its own (none is the BM25 the product or
the benchmark's anchor uses), with the quirks of the real API:

- Semantic Scholar ``/paper/search``: any query word may match; ranked by matched words (a
  title word counts double, rare words more), boosted by citations like S2's own ranker;
  ``/paper/search/bulk``: every word of a variant must match, in the ``sort`` asked for;
- OpenAlex ``search=``: any word; log tf-idf over title and abstract, length-normalised, boosted
  by citations as OpenAlex's ``relevance_score`` is, which it reports;
- PubMed ``esearch``, Europe PMC ``search`` and arXiv ``query``: every word of a variant must
  match (their implicit AND; long natural-language queries find nothing, as they do there);
  PubMed orders by word frequency with recent papers first among equals, Europe PMC by tf-idf
  with a title word counting more (its Lucene relevance), arXiv by tf-idf.

Every provider's scores carry its own seeded noise (each engine's idea of relevance differs).
Citation counts are drawn from a heavy-tailed distribution independently of relevance (about
a quarter uncited), and a paper without a year gets a random one. Everything is seeded, so a
run is repeatable.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import fake_apis
import fake_europepmc
from fake_server import Answer, FakeServer, SeenRequest

PROVIDERS = ("semantic_scholar", "openalex", "pubmed", "europepmc", "arxiv")
NOISE = {"semantic_scholar": 0.35, "openalex": 0.35, "pubmed": 0.3, "europepmc": 0.3, "arxiv": 0.3}
_WORD = re.compile(r"[a-z0-9]+")
# The fakes' own small stop list and crude suffix folding: deliberately not the product's.
_STOP = frozenset("a an and are as at be by for from how in is it of on or that the this to what which with".split())


def _words(text: str) -> list[str]:
    words = []
    for word in _WORD.findall((text or "").lower()):
        if word in _STOP or len(word) < 2:
            continue
        for suffix in ("ations", "ation", "ing", "ies", "es", "s", "ed"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        words.append(word)
    return words


@dataclass
class Collection:
    name: str
    docs: list[dict]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: grade > 0}

    @classmethod
    def load(cls, folder: Path) -> "Collection":
        docs = [json.loads(line) for line in (folder / "docs.jsonl").read_text(encoding="utf-8").splitlines() if line]
        queries = {}
        for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                query = json.loads(line)
                queries[str(query["id"])] = query["text"]
        qrels: dict[str, dict[str, int]] = {}
        for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) >= 3 and parts[2].strip().lstrip("-").isdigit() and int(parts[2]) > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
        judged = {qid: text for qid, text in queries.items() if qrels.get(qid)}
        return cls(folder.name, docs, judged, qrels)


def _seeded(*parts: object) -> random.Random:
    return random.Random(hashlib.sha256("|".join(map(str, parts)).encode()).digest())


@dataclass
class ProviderIndex:
    """One provider's share of the collection, indexed for its own ranking."""

    name: str
    papers: list[dict]
    title_words: list[Counter] = field(default_factory=list)
    body_words: list[Counter] = field(default_factory=list)
    postings: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for position, paper in enumerate(self.papers):
            title, body = Counter(_words(paper["title"])), Counter(_words(paper.get("abstract") or ""))
            self.title_words.append(title)
            self.body_words.append(body)
            for word in title.keys() | body.keys():
                self.postings.setdefault(word, []).append(position)
        self.lengths = [sum(t.values()) + sum(b.values()) for t, b in zip(self.title_words, self.body_words)]
        self.average_length = sum(self.lengths) / max(1, len(self.lengths))

    def idf(self, word: str) -> float:
        return math.log(1 + len(self.papers) / (1 + len(self.postings.get(word, ()))))

    def matching_any(self, words: list[str]) -> set[int]:
        return {position for word in words for position in self.postings.get(word, ())}

    def matching_all(self, groups: list[list[str]]) -> set[int]:
        found: set[int] = set()
        for group in groups:
            if group:
                sets = [set(self.postings.get(word, ())) for word in group]
                found |= set.intersection(*sets)
        return found

    def noise(self, position: int, query: str) -> float:
        return math.exp(_seeded(self.name, self.papers[position]["key"], query).gauss(0.0, NOISE[self.name]))

    def score(self, position: int, words: list[str], query: str) -> float:
        title, body, citations = self.title_words[position], self.body_words[position], self.papers[position]["citations"]
        if self.name == "semantic_scholar":
            text = sum(self.idf(w) * (2.0 if w in title else 1.0) for w in set(words) if w in title or w in body)
            return text * (1 + 0.15 * math.log1p(citations)) * self.noise(position, query)
        if self.name == "openalex":
            text = sum(math.log1p(title[w] + body[w]) * self.idf(w) for w in set(words))
            text /= math.sqrt(max(1.0, self.lengths[position] / max(1.0, self.average_length)))
            return text * (1 + 0.1 * math.log1p(citations)) * self.noise(position, query)
        if self.name == "pubmed":
            text = sum(title[w] + body[w] for w in set(words))
            return text * (1 + (self.papers[position]["year"] - 1950) / 150) * self.noise(position, query)
        if self.name == "europepmc":
            text = sum((1 + math.log1p(title[w]) * 2 + math.log1p(body[w])) * self.idf(w)
                       for w in set(words) if title[w] or body[w])
            return text / max(1, self.lengths[position]) ** 0.25 * self.noise(position, query)
        text = sum((title[w] + body[w]) * self.idf(w) for w in set(words))
        return text / math.sqrt(max(1, self.lengths[position])) * self.noise(position, query)

    def every_word(self, query: str, limit: int) -> list[tuple[dict, float]]:
        """PubMed's, Europe PMC's and arXiv's matching: every word of one OR'ed variant."""
        groups = _groups(query, r"\bOR\b")
        return self.ranked(self.matching_all(groups), [w for group in groups for w in group], query, limit)

    def ranked(self, candidates: set[int], words: list[str], query: str, limit: int) -> list[tuple[dict, float]]:
        scored = [(self.score(p, words, query), p) for p in candidates]
        scored.sort(key=lambda item: (-item[0], self.papers[item[1]]["key"]))
        return [(self.papers[p], score) for score, p in scored[:limit] if score > 0]


def _groups(query: str, separator: str) -> list[list[str]]:
    return [_words(re.sub(r"\b(?:AND|NOT|all|ti|abs)\b|[():+\"]|\[[^\]]*\]", " ", part))
            for part in re.split(separator, query)]


class CollectionApis:
    """The fake APIs over one collection; ``install`` mounts them on a FakeServer."""

    def __init__(self, collection: Collection, share: float = 0.8, seed: int = 2026):
        self.collection = collection
        self.papers = [self._paper(doc, position, seed) for position, doc in enumerate(collection.docs)]
        self.by_doi = {paper["doi"]: paper for paper in self.papers}
        self.indexes = {name: ProviderIndex(name, [p for p in self.papers if _seeded(seed, name, p["key"]).random()
                                                   < share]) for name in PROVIDERS}
        self.by_pmid = {paper["pmid"]: paper for paper in self.indexes["pubmed"].papers}
        # Europe PMC holds MEDLINE: its share is drawn from PubMed's, with the same PMIDs
        # (the merge joins them by PMID and DOI, as it does with the real two).
        held = {paper["key"] for paper in self.indexes["europepmc"].papers}
        self.indexes["europepmc"] = ProviderIndex("europepmc", [p for p in self.indexes["pubmed"].papers
                                                                if p["key"] in held or _seeded(seed, "epmc", p["key"])
                                                                .random() < share])

    def _paper(self, doc: dict, position: int, seed: int) -> dict:
        rng = _seeded(seed, self.collection.name, doc["id"])
        citations = 0 if rng.random() < 0.25 else int(rng.lognormvariate(2.5, 1.6))
        year = doc.get("year") if isinstance(doc.get("year"), int) else rng.randint(1980, 2024)
        key = f"{self.collection.name}-{doc['id']}"
        return {
            "key": key, "doc_id": str(doc["id"]), "title": " ".join(doc["title"].split()) or f"Document {doc['id']}",
            "authors": [f"Author {doc['id']}a Writer", f"Author {doc['id']}b Reader"], "year": year,
            "date": f"{year}-06-01", "venue": f"Journal of {self.collection.name.upper()} studies",
            "doi": f"10.5555/{self.collection.name}.{doc['id']}".lower(), "pmid": str(30_000_000 + position),
            "s2": hashlib.sha1(key.encode()).hexdigest(), "openalex": f"W{4_000_000_000 + position}",
            "arxiv": f"{2001 + position // 99999 % 20}.{position % 99999:05d}", "abstract": doc.get("abstract") or None,
            "citations": citations, "in": list(PROVIDERS),
        }

    # --- the five APIs ------------------------------------------------------------

    def s2_search(self, request: SeenRequest) -> Answer:
        index = self.indexes["semantic_scholar"]
        query = request.param("query") or ""
        if request.path.endswith("/bulk"):
            groups = _groups(query, r"\|")
            found = [index.papers[p] for p in index.matching_all(groups)]
            order = request.param("sort") or "paperId:asc"
            field_name, _, direction = order.partition(":")
            value = {"citationCount": lambda p: p["citations"], "publicationDate": lambda p: p["date"]}.get(
                field_name, lambda p: p["s2"])
            found.sort(key=lambda p: (value(p), p["s2"]), reverse=direction == "desc")
            data = [self._s2(p) for p in found[:1000]]
            return Answer(200, json.dumps({"total": len(found), "token": None, "data": data}))
        words = _words(query)
        limit = int(request.param("limit") or 10)
        hits = index.ranked(index.matching_any(words), words, query, limit)
        data = [self._s2(p) for p, _ in hits]
        return Answer(200, json.dumps({"total": len(data), "offset": 0, **({"data": data} if data else {})}))

    def _s2(self, paper: dict) -> dict:
        record = fake_apis.s2_paper(paper)
        record["tldr"] = None
        return record

    def openalex_works(self, request: SeenRequest) -> Answer:
        index = self.indexes["openalex"]
        query = request.param("search") or ""
        words = _words(re.sub(r"\b(?:AND|OR|NOT)\b", " ", query))
        per_page = int(request.param("per_page") or request.param("per-page") or 25)
        hits = index.ranked(index.matching_any(words), words, query, per_page)
        results = []
        for position, (paper, score) in enumerate(hits):
            work = fake_apis.openalex_work(paper, position)
            work["relevance_score"] = round(100 * score, 3)
            results.append(work)
        meta = {"count": len(results), "db_response_time_ms": 9, "page": 1, "per_page": per_page}
        return Answer(200, json.dumps({"meta": meta, "results": results, "group_by": []}))

    def pubmed_esearch(self, request: SeenRequest) -> Answer:
        index = self.indexes["pubmed"]
        term = request.param("term") or ""
        hits = index.every_word(term, int(request.param("retmax") or 20))
        ids = [paper["pmid"] for paper, _ in hits]
        body = {"header": {"type": "esearch", "version": "0.3"},
                "esearchresult": {"count": str(len(ids)), "retmax": str(len(ids)), "retstart": "0", "idlist": ids,
                                  "translationset": [], "querytranslation": term}}
        return Answer(200, json.dumps(body))

    def pubmed_efetch(self, request: SeenRequest) -> Answer:
        wanted = [pmid for pmid in (request.param("id") or "").split(",") if pmid in self.by_pmid]
        return fake_apis.pubmed_articles([self.by_pmid[pmid] for pmid in wanted])

    def europepmc_search(self, request: SeenRequest) -> Answer:
        index = self.indexes["europepmc"]
        query = request.param("query") or ""
        size = int(request.param("pageSize") or 25)
        hits = index.every_word(query, size)  # one page: the product asks for 100
        results = [fake_europepmc.core_record(paper) for paper, _ in hits]
        body = {"version": "6.9", "hitCount": len(results), "request": {"queryString": query, "resultType": "core",
                                                                         "cursorMark": "*", "pageSize": size},
                "resultList": {"result": results}}
        return Answer(200, json.dumps(body), content_type="application/json;charset=UTF-8")

    def arxiv_query(self, request: SeenRequest) -> Answer:
        index = self.indexes["arxiv"]
        query = request.param("search_query") or ""
        hits = index.every_word(query, int(request.param("max_results") or 10))
        return fake_apis.arxiv_feed([paper for paper, _ in hits])

    def install(self, server: FakeServer) -> dict[str, str]:
        """Mount the five APIs; returns the LITSEARCH_*_URL variables that point at them."""
        server.route("/s2/graph/v1/paper/search", self.s2_search)
        server.route("/openalex/works", self.openalex_works)
        server.route("/eutils/esearch.fcgi", self.pubmed_esearch)
        server.route("/eutils/efetch.fcgi", self.pubmed_efetch)
        server.route("/europepmc/search", self.europepmc_search)
        server.route("/arxiv/query", self.arxiv_query)
        return {
            "LITSEARCH_SEMANTIC_SCHOLAR_URL": server.url + "/s2",
            "LITSEARCH_OPENALEX_URL": server.url + "/openalex",
            "LITSEARCH_PUBMED_URL": server.url + "/eutils",
            "LITSEARCH_EUROPEPMC_URL": server.url + "/europepmc",
            "LITSEARCH_ARXIV_URL": server.url + "/arxiv",
        }
