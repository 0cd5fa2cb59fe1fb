"""A judged world for deep search: a collection served by the fake providers (search, citation
lists, recommendations, semantic search) and a simulated judge, shared by the tests and
bench/deep_benchmark.py.

The judge stands in for the model: it says "relevant" with probability ``hit`` (0.8) for a
document judged relevant for the query and ``false_alarm`` (0.03) otherwise. Each verdict is
drawn once per (seed, query, document), so asking twice gives the same answer, and the papers
the judge would confirm are known in advance: ``confirmable``.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

from fake_collection import Collection, CollectionApis
from fake_collection_graph import CollectionGraph, review_world
from fake_server import FakeServer


@dataclass
class Judge:
    relevant: set[str]  # doc ids judged relevant for the query
    query_id: str
    seed: int = 2026
    hit: float = 0.8
    false_alarm: float = 0.03

    def says_relevant(self, doc_id: str | None) -> bool:
        if doc_id is None:
            return random.Random(f"{self.seed}|{self.query_id}|unknown").random() < self.false_alarm
        draw = random.Random(hashlib.sha256(f"{self.seed}|{self.query_id}|{doc_id}".encode()).digest()).random()
        return draw < (self.hit if doc_id in self.relevant else self.false_alarm)

    def confirmable(self) -> set[str]:
        return {doc for doc in self.relevant if self.says_relevant(doc)}


class World:
    """A collection's fake APIs on one loopback server, with the map from DOIs back to documents."""

    def __init__(self, collection: Collection, share: float = 0.8, seed: int = 2026):
        self.collection = collection
        self.apis = CollectionApis(collection, share=share, seed=seed)
        self.graph = CollectionGraph(self.apis)
        self.doc_of_doi = {paper["doi"]: paper["doc_id"] for paper in self.apis.papers}
        self.server = FakeServer()

    def __enter__(self) -> "World":
        self.server.__enter__()
        self.env = self.apis.install(self.server)
        self.graph.install(self.server)
        # No other service answers here: Crossref and Unpaywall fail fast (a search does not ask them).
        self.env.update({"LITSEARCH_CROSSREF_URL": self.server.url + "/crossref",
                         "LITSEARCH_UNPAYWALL_URL": self.server.url + "/unpaywall",
                         "LITSEARCH_EMAIL": "deep@example.org"})
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def doc_id(self, paper) -> str | None:
        return self.doc_of_doi.get((paper.doi or "").lower())

    def findable(self, docs: set[str]) -> set[str]:
        """The documents some provider holds (the rest no search or chase can reach)."""
        held = {paper["doc_id"] for index in self.apis.indexes.values() for paper in index.papers}
        return docs & held


def load_world(ranking: Path, name: str) -> Collection:
    """CACM and the other classic collections by folder name; a review by ``reviews/<name>``,
    served with every other review's records as distractors."""
    if name.startswith("reviews/"):
        return review_world(ranking / "reviews", name.split("/", 1)[1])
    return Collection.load(ranking / name)


def judge_batch(world: World, judge: Judge, session, order: list) -> "Verdicts":
    """The judge's verdicts on the session's current batch, each paper's doc id appended to
    ``order`` (the order papers were judged in)."""
    from litsearch.deep.verdicts import Verdicts

    given = {}
    for key in session.batch:
        doc = world.doc_id(session.candidates[key].paper)
        order.append(doc)
        given[key] = "relevant" if judge.says_relevant(doc) else "not"
    return Verdicts(given, [])
