"""The fake citation graph (tests/fake_collection_graph.py) answers every id form the real
Semantic Scholar API takes in its paper path, through the product's own requests. A DOI holds
slashes ("DOI:10.5555/x.y/references"): a fake that split the path at the first slash answered
404 to every DOI, so the benchmark's deep sessions (and the naive loop's snowball) got nothing
from Semantic Scholar's references and citations for any paper asked by DOI."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from deep_world import World  # noqa: E402
from small_world import small_world  # noqa: E402

from litsearch.core.config import Settings  # noqa: E402
from litsearch.core.records import Paper  # noqa: E402
from litsearch.core.services import PacePolicy  # noqa: E402
from litsearch.net.http import HttpClient  # noqa: E402
from litsearch.providers import registry  # noqa: E402
from litsearch.providers.semantic_scholar import fetch_linked, fetch_record  # noqa: E402

FORMS = {
    "paper id": lambda paper: {"semantic_scholar_id": paper["s2"]},
    "DOI": lambda paper: {"doi": paper["doi"]},
    "PMID": lambda paper: {"pmid": paper["pmid"]},
}


def linked_by_every_form(world: World, paper: dict) -> dict[str, tuple]:
    settings = Settings.from_env(world.env, services=registry.services())
    unpaced = {name: PacePolicy(0.0, 8, retries=0) for name in registry.providers()}

    async def go() -> dict[str, tuple]:
        found = {}
        async with HttpClient(settings, policies=unpaced) as http:
            session = http.session("semantic_scholar")
            for form, ids in FORMS.items():
                asked = Paper(title=paper["title"], provider="semantic_scholar", **ids(paper))
                lists = [await fetch_linked(session, asked, direction, 100) for direction in ("references", "citing")]
                record = await fetch_record(session, f"DOI:{paper['doi']}" if form == "DOI" else
                                            paper["s2"] if form == "paper id" else f"PMID:{paper['pmid']}")
                found[form] = (*(None if papers is None else sorted(world.doc_id(p) for p in papers)
                                 for papers in lists), None if record is None else world.doc_id(record[0]))
        return found

    return asyncio.run(go())


@pytest.fixture(scope="module")
def world():
    with World(small_world()) as served:
        yield served


def test_every_id_form_gives_the_same_lists_and_record(world):
    held = world.graph.held["semantic_scholar"]
    graph = world.graph
    linked = [paper for paper in world.apis.papers if paper["key"] in held
              and graph._held("semantic_scholar", graph.references[paper["key"]] + graph.citing.get(paper["key"], []))]
    assert len(linked) >= 10
    for paper in linked[:10]:
        found = linked_by_every_form(world, paper)
        references, citing, record = found["paper id"]
        assert record == paper["doc_id"] and (references or citing), (paper["doc_id"], found)
        assert found["DOI"] == found["PMID"] == found["paper id"], (paper["doc_id"], found)


def test_a_paper_the_fake_does_not_hold_is_unknown_by_every_form(world):
    missing = next(paper for paper in world.apis.papers if paper["key"] not in world.graph.held["semantic_scholar"])
    assert set(linked_by_every_form(world, missing).values()) == {(None, None, None)}
