"""A small judged world made here (no ../shared needed), for the deep-search contract tests.

Sixty papers: twenty relevant to "coral reef bleaching", of which the first ten say so in those
words and the other ten never do (they speak of zooxanthellae expelled under thermal stress), so
no search for the topic finds them; each of the hidden ten is cited by, or cites, one of the
visible ten. Forty distractors on three other topics cite each other. Served by the fake
providers of tests/fake_collection.py and fake_collection_graph.py, like the judged collections.
"""

from __future__ import annotations

import random

import pytest
from fake_collection import Collection

VISIBLE = ("Coral reef bleaching", "Mass coral bleaching on reefs", "Reef bleaching events and coral loss",
           "Bleaching of reef corals in warm years", "Coral bleaching across the reef flat",
           "Predicting coral reef bleaching", "Coral reef bleaching and recovery", "Bleaching thresholds of reef corals",
           "Reef-wide coral bleaching surveys", "Coral bleaching on a fringing reef")
HIDDEN = ("Zooxanthellae expulsion under thermal stress", "Symbiont loss in Acropora at high temperature",
          "Thermal tolerance of Symbiodinium clades", "Heat stress and symbiont density in Porites",
          "Photoinhibition of symbiotic dinoflagellates", "Symbiodinium shuffling after heat stress",
          "Oxidative stress in cnidarian symbiosis", "Degree heating weeks and symbiont expulsion",
          "Host pigments protect symbionts from heat", "Recovery of symbiont populations after warming")
OTHERS = {
    "graph": ("Greedy colouring of sparse graphs", "Tabu search for graph colouring", "Exact colouring by branch and bound",
              "Register allocation by graph colouring", "Edge colouring of bipartite graphs"),
    "protein": ("Protein folding kinetics", "Folding funnels of small proteins", "Misfolded proteins and chaperones",
                "Protein stability under denaturants", "Predicting protein folds"),
    "soil": ("Soil carbon under tillage", "Nitrogen cycling in grassland soils", "Soil microbes and carbon storage",
             "Erosion of agricultural soils", "Soil moisture and crop yield"),
}


def small_world() -> Collection:
    rng = random.Random(7)
    docs = []
    for number, title in enumerate(VISIBLE, start=1):
        docs.append({"id": f"v{number}", "title": title, "year": 2000 + number,
                     "abstract": f"{title}. We surveyed coral reef bleaching at {number} sites and measured coral "
                                 f"cover after the bleaching event on the reef."})
    for number, title in enumerate(HIDDEN, start=1):
        docs.append({"id": f"h{number}", "title": title, "year": 1995 + number,
                     "abstract": f"{title}. Zooxanthellae density and symbiont photosynthesis fell under thermal "
                                 f"stress; the symbiosis broke down in experiment {number}."})
    for topic, titles in OTHERS.items():
        for copy in range(3):  # forty distractors in all, with a few repeats of each topic's wording
            for number, title in enumerate(titles, start=1):
                if len(docs) >= 60:
                    break
                docs.append({"id": f"{topic}{copy}{number}", "title": f"{title} ({copy + 1})", "year": 1990 + number,
                             "abstract": f"{title}. A study of {topic} at the coral reef field station, number {copy}{number}."})
    # Each hidden paper is linked to one visible paper; visible ones cite each other; distractors too.
    for number in range(1, 11):
        visible, hidden = docs[number - 1], docs[9 + number]
        if number % 2:
            visible.setdefault("references", []).append(hidden["id"])  # the visible one cites it
        else:
            hidden.setdefault("references", []).append(visible["id"])
        if number > 1:
            visible.setdefault("references", []).append(docs[number - 2]["id"])
    for doc in docs[20:]:
        doc["references"] = [other["id"] for other in rng.sample(docs[20:], 3) if other is not doc]
    queries = {"1": "coral reef bleaching"}
    qrels = {"1": {doc["id"]: 1 for doc in docs[:20]}}
    return Collection("reefs", docs, queries, qrels)


@pytest.fixture
def served(monkeypatch, tmp_path):
    """The small world's fake APIs, this process's environment pointed at them (a private cache,
    the working folder ``tmp_path``, no pace carried over): for the Python API and the MCP tools
    called in-process. A test module takes it by importing it."""
    from deep_world import World

    from litsearch.net.pacing import PROCESS_PACE_BOOK

    with World(small_world(), share=1.0) as world:
        for name, value in {**world.env, "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(tmp_path)
        PROCESS_PACE_BOOK.clear()
        yield world
