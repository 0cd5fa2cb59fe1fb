"""The citation graph and the "more like these" endpoints of a judged collection, served by the
fake providers of ``fake_collection.py`` in each real API's format, for deep search.

What each fake answers, from the collection's own ``references`` (CACM's real links, the review
sets' synthetic ones) and from each provider's own share of the documents:

- Semantic Scholar ``/graph/v1/paper/{id}`` (one record), ``…/references`` and ``…/citations``
  (``data[].citedPaper`` / ``data[].citingPaper``, ``offset``/``next`` paging), ``POST
  /graph/v1/paper/batch``, and ``POST /recommendations/v1/papers`` (``recommendedPapers``);
- OpenAlex ``/works/{id}``, ``filter=openalex_id:W1|W2`` (records with ``referenced_works``),
  ``filter=cites:W`` (sorted by ``cited_by_count:desc`` as asked) and ``search.semantic=``
  (at most 50 results, as the API caps it);
- Europe PMC ``/{source}/{id}/citations`` and ``/references`` (``citationList.citation[]`` and
  ``referenceList.reference[]``: no abstracts, as there).

A paper is listed only where its provider holds it (a reference to a paper Semantic Scholar
lacks is missing from its list, as real lists have gaps). "More like these" and the semantic
search answer by a text similarity of their own: tf-idf cosine over the fakes' word folding
(``fake_collection._words``), Rocchio-style for recommendations (the centroid of the positive
papers minus half the negatives'). Neither is the product's BM25F, nor its own text model.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import fake_apis
import fake_europepmc
from fake_collection import Collection, CollectionApis, ProviderIndex, _words
from fake_server import Answer, FakeServer, SeenRequest

S2_LIST_MAX = 1000  # /references and /citations: limit ≤ 1,000
RECOMMENDATIONS_MAX = 500
SEMANTIC_MAX = 50  # OpenAlex search.semantic: at most 50 results


class TextSpace:
    """Unit tf-idf vectors of one provider's papers, for cosine similarity."""

    def __init__(self, index: ProviderIndex):
        self.index = index
        n = len(index.papers)
        self.idf = {word: math.log(1 + n / len(postings)) for word, postings in index.postings.items()}
        self.vectors = [self._unit(title + title + body) for title, body in zip(index.title_words, index.body_words)]
        self.position = {paper["key"]: position for position, paper in enumerate(index.papers)}

    def _unit(self, counts: Counter) -> dict[str, float]:
        vector = {w: (1 + math.log(c)) * self.idf.get(w, 1.0) for w, c in counts.items() if c > 0}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {w: v / norm for w, v in vector.items()}

    def of_text(self, text: str) -> dict[str, float]:
        return self._unit(Counter(_words(text)))

    def nearest(self, query: dict[str, float], limit: int, exclude: set[str] = frozenset()) -> list[dict]:
        scores: dict[int, float] = {}
        for word, weight in query.items():
            if weight <= 0:
                continue
            for position in self.index.postings.get(word, ()):
                scores[position] = scores.get(position, 0.0) + weight * self.vectors[position].get(word, 0.0)
        for word, weight in query.items():  # negative weights lower the papers that share the word
            if weight < 0:
                for position in self.index.postings.get(word, ()):
                    if position in scores:
                        scores[position] += weight * self.vectors[position].get(word, 0.0)
        ranked = sorted((-score, self.index.papers[p]["key"], p) for p, score in scores.items() if score > 0)
        found = [self.index.papers[p] for _, key, p in ranked if key not in exclude]
        return found[:limit]


class CollectionGraph:
    """The graph and similarity endpoints over ``apis`` (a CollectionApis)."""

    def __init__(self, apis: CollectionApis):
        self.apis = apis
        by_doc = {paper["doc_id"]: paper for paper in apis.papers}
        self.references: dict[str, list[dict]] = {}
        self.citing: dict[str, list[dict]] = {}
        for doc, paper in zip(apis.collection.docs, apis.papers):
            cited = [by_doc[str(ref)] for ref in doc.get("references") or () if str(ref) in by_doc]
            self.references[paper["key"]] = cited
            for target in cited:
                self.citing.setdefault(target["key"], []).append(paper)
        self.held = {name: {p["key"] for p in index.papers} for name, index in apis.indexes.items()}
        self.spaces: dict[str, TextSpace] = {}
        self._s2_ids = {}
        for paper in apis.papers:
            for key in (paper["s2"], f"DOI:{paper['doi']}", f"PMID:{paper['pmid']}", f"CorpusId:{paper['key']}"):
                self._s2_ids[key.lower()] = paper
        self._openalex = {paper["openalex"].lower(): paper for paper in apis.papers}
        self._openalex.update({f"doi:{paper['doi']}": paper for paper in apis.papers})
        self._pmid = {paper["pmid"]: paper for paper in apis.papers}

    def space(self, provider: str) -> TextSpace:
        if provider not in self.spaces:
            self.spaces[provider] = TextSpace(self.apis.indexes[provider])
        return self.spaces[provider]

    def _held(self, provider: str, papers: list[dict]) -> list[dict]:
        return [paper for paper in papers if paper["key"] in self.held[provider]]

    # --- Semantic Scholar ---------------------------------------------------------

    def _s2_record(self, paper: dict) -> dict:
        record = fake_apis.s2_paper(paper)
        record["tldr"] = None
        return record

    def s2_paper(self, request: SeenRequest) -> Answer:
        rest = request.path.split("/graph/v1/paper/", 1)[1]
        if rest == "batch":
            return self.s2_batch(request)
        # A DOI holds slashes ("DOI:10.1000/x.y/references"): the listing is the last part, when
        # it is one, and the id everything before it, as the real API reads the path.
        wanted, listing = rest, ""
        for name in ("references", "citations"):
            if rest.endswith("/" + name):
                wanted, listing = rest[: -len(name) - 1], name
        paper = self._s2_ids.get(wanted.lower())
        if paper is None or paper["key"] not in self.held["semantic_scholar"]:
            return Answer(404, json.dumps({"error": f"Paper with id {wanted} not found"}))
        if not listing:
            record = self._s2_record(paper)
            record["referenceCount"] = len(self.references[paper["key"]])
            return Answer(200, json.dumps(record))
        offset, limit = int(request.param("offset") or 0), int(request.param("limit") or 100)
        if limit > S2_LIST_MAX:
            return Answer(400, json.dumps({"error": f"Limit must be <= {S2_LIST_MAX}"}))
        wrap = {"references": "citedPaper", "citations": "citingPaper"}[listing]
        source = self.references if listing == "references" else self.citing
        everything = self._held("semantic_scholar", source.get(paper["key"], []))
        page = everything[offset: offset + limit]
        body: dict[str, Any] = {"offset": offset, "data": [{wrap: self._s2_record(p)} for p in page]}
        if offset + limit < len(everything):
            body["next"] = offset + limit
        return Answer(200, json.dumps(body))

    def s2_batch(self, request: SeenRequest) -> Answer:
        wanted = json.loads(request.body or b"{}").get("ids", [])
        answers = []
        for ident in wanted:
            paper = self._s2_ids.get(str(ident).lower())
            answers.append(self._s2_record(paper) if paper and paper["key"] in self.held["semantic_scholar"] else None)
        return Answer(200, json.dumps(answers))

    def s2_recommendations(self, request: SeenRequest) -> Answer:
        if request.method != "POST":
            return Answer(405, json.dumps({"error": "Method not allowed"}))
        body = json.loads(request.body or b"{}")
        limit = int(request.param("limit") or 100)
        if limit > RECOMMENDATIONS_MAX:
            return Answer(400, json.dumps({"error": f"Limit must be <= {RECOMMENDATIONS_MAX}"}))
        space = self.space("semantic_scholar")
        positives = [self._s2_ids.get(str(i).lower()) for i in body.get("positivePaperIds") or []]
        negatives = [self._s2_ids.get(str(i).lower()) for i in body.get("negativePaperIds") or []]
        positives = [p for p in positives if p and p["key"] in space.position]
        negatives = [p for p in negatives if p and p["key"] in space.position]
        if not positives:
            return Answer(404, json.dumps({"error": "No valid positive paper ids"}))
        query: dict[str, float] = {}
        for group, weight in ((positives, 1.0 / len(positives)), (negatives, -0.5 / max(1, len(negatives)))):
            for paper in group:
                for word, value in space.vectors[space.position[paper["key"]]].items():
                    query[word] = query.get(word, 0.0) + weight * value
        exclude = {p["key"] for p in positives + negatives}
        found = space.nearest(query, limit, exclude)
        return Answer(200, json.dumps({"recommendedPapers": [self._s2_record(p) for p in found]}))

    # --- OpenAlex -----------------------------------------------------------------

    def _work(self, paper: dict, position: int) -> dict:
        work = fake_apis.openalex_work(paper, position)
        work["referenced_works"] = [f"https://openalex.org/{p['openalex']}"
                                    for p in self._held("openalex", self.references[paper["key"]])]
        return work

    def openalex_works(self, request: SeenRequest) -> Answer:
        single = request.path.split("/works", 1)[1].strip("/")
        if single:
            paper = self._openalex.get(single.lower().removeprefix("https://doi.org/"))
            if paper is None or paper["key"] not in self.held["openalex"]:
                return Answer(404, "<html><body>Not Found</body></html>", content_type="text/html")
            return Answer(200, json.dumps(self._work(paper, 0)))
        semantic = request.param("search.semantic")
        wanted = request.param("filter") or ""
        per_page = int(request.param("per_page") or request.param("per-page") or 25)
        if semantic is not None:
            if per_page > SEMANTIC_MAX:
                return Answer(400, json.dumps({"error": "Invalid query parameters error.",
                                               "message": f"per_page must be <= {SEMANTIC_MAX} for semantic search"}))
            space = self.space("openalex")
            found = space.nearest(space.of_text(semantic), per_page)
        elif wanted.startswith("openalex_id:") or wanted.startswith("openalex:"):
            ids = {i.lower() for i in wanted.split(":", 1)[1].split("|")}
            found = [p for p in self._held("openalex", [self._openalex[i] for i in ids if i in self._openalex])]
        elif wanted.startswith("doi:"):
            ids = {f"doi:{i.lower().removeprefix('https://doi.org/')}" for i in wanted[4:].split("|")}
            found = self._held("openalex", [self._openalex[i] for i in ids if i in self._openalex])
        elif wanted.startswith("pmid:"):
            found = self._held("openalex", [self._pmid[i] for i in wanted[5:].split("|") if i in self._pmid])
        elif wanted.startswith("cites:"):
            cited = self._openalex.get(wanted[6:].lower())
            found = self._held("openalex", self.citing.get(cited["key"], []) if cited else [])
            if (request.param("sort") or "").startswith("cited_by_count"):
                found = sorted(found, key=lambda p: (-p["citations"], p["openalex"]))
        else:
            return self.apis.openalex_works(request)
        results = [self._work(p, i) for i, p in enumerate(found[:per_page])]
        return Answer(200, json.dumps({"meta": {"count": len(found), "per_page": per_page, "page": 1},
                                       "results": results, "group_by": []}))

    # --- Europe PMC ---------------------------------------------------------------

    def europepmc_links(self, request: SeenRequest) -> Answer:
        match = re.search(r"/(MED|PMC|PPR)/([^/]+)/(citations|references)$", request.path)
        if not match:
            return self.apis.europepmc_search(request)
        source, ident, listing = match.groups()
        paper = self._pmid.get(ident) if source == "MED" else None
        if paper is None or paper["key"] not in self.held["europepmc"]:
            return Answer(404, json.dumps({"errCode": 404, "errMsg": f"No {listing} found for {source}:{ident}"}))
        page, size = int(request.param("page") or 1), int(request.param("pageSize") or 25)
        source_list = self.references if listing == "references" else self.citing
        everything = self._held("europepmc", source_list.get(paper["key"], []))
        chunk = everything[(page - 1) * size: page * size]
        entries = [self._europepmc_entry(p, listing) for p in chunk]
        name, item = ("citationList", "citation") if listing == "citations" else ("referenceList", "reference")
        body = {"version": "6.9", "hitCount": len(everything),
                "request": {"id": ident, "source": source, "page": page, "pageSize": size}, name: {item: entries}}
        return Answer(200, json.dumps(body), content_type="application/json;charset=UTF-8")

    @staticmethod
    def _europepmc_entry(paper: dict, listing: str) -> dict:
        record = fake_europepmc.core_record(paper)
        entry = {"id": paper["pmid"], "source": "MED", "title": record["title"],
                 "authorString": record["authorString"], "journalAbbreviation": (paper.get("venue") or "")[:20],
                 "pubYear": record["pubYear"], "volume": "11", "pageInfo": "1-10", "citedByCount": paper["citations"]}
        if listing == "references":
            entry.update({"citationType": "JOURNAL ARTICLE", "doi": paper["doi"], "match": "Y"})
        return entry

    def install(self, server: FakeServer) -> None:
        server.route("/s2/graph/v1/paper/", self.s2_paper)
        server.route("/s2/recommendations/v1/papers", self.s2_recommendations)
        server.route("/openalex/works", self.openalex_works)
        server.route("/europepmc/", self.europepmc_links)


def review_world(reviews: Path, name: str) -> Collection:
    """One systematic review served as a world: its screened records (judged by its included
    studies) with every other review's records as distractors, ids of the others prefixed by
    their review's name so none collides."""

    target = Collection.load(reviews / name)
    docs = list(target.docs)
    for folder in sorted(p for p in reviews.iterdir() if p.is_dir() and p.name != name):
        for line in (folder / "docs.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                doc = json.loads(line)
                prefix = f"{folder.name}-"
                doc["id"] = prefix + str(doc["id"])
                doc["references"] = [prefix + str(ref) for ref in doc.get("references") or ()]
                docs.append(doc)
    return Collection(name, docs, target.queries, target.qrels)
