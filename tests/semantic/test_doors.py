"""The re-ranker through the doors: `--rerank none`, or the extra absent, print today's output
byte for byte; with the model, search re-ranks and says so (JSON `rerank`, the `semantic` score
term, `why`); an explicit `--rerank semantic` without the libraries keeps the order with one
line; snowball re-ranks within its bands; the MCP server loads the model once for all calls."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

import fake_apis
from fake_server import FakeServer
from litsearch.semantic import encoder
from model_support import model_folder

TOPIC = "CRISPR off-target effects"
ARGS = [TOPIC, "--providers", "semantic_scholar,openalex", "--format", "json", "--no-verify", "--no-cache", "-q"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return model_folder(tmp_path_factory.mktemp("model"))


@pytest.fixture
def apis(monkeypatch):
    with FakeServer() as server:
        for name, value in {**fake_apis.install(server), "LITSEARCH_EMAIL": "t@example.org",
                            "LITSEARCH_RERANK_THREADS": "1"}.items():
            monkeypatch.setenv(name, value)
        yield server


def search(capsys, *extra: str) -> tuple[str, str]:
    from litsearch.cli import main

    assert main([*ARGS, *extra]) == 0
    out = capsys.readouterr()
    # The clock is the only thing two runs of the same search may differ in.
    return re.sub(r'"(search_time_ms|seconds)": [0-9.]+', r'"\1": 0', out.out), out.err


def test_none_or_no_extra_prints_todays_output_byte_for_byte(apis, capsys, monkeypatch, model_dir):
    today, _ = search(capsys)  # no model installed: the default is none
    assert '"rerank"' not in today and '"semantic"' not in today
    monkeypatch.setenv("LITSEARCH_RERANK_MODEL", str(model_dir))
    assert search(capsys, "--rerank", "none")[0] == today
    monkeypatch.setattr("litsearch.semantic.encoder.missing_libraries", lambda: ["onnxruntime", "tokenizers", "numpy"])
    monkeypatch.setattr("litsearch.semantic.rerank.missing_libraries", lambda: ["onnxruntime", "tokenizers", "numpy"])
    monkeypatch.setattr("litsearch.semantic.prepare.missing_libraries", lambda: ["onnxruntime", "tokenizers", "numpy"])
    assert search(capsys)[0] == today  # the extra absent: the default is none
    asked, err = search(capsys, "--rerank", "semantic")  # asked for, not installed: one line, the same order
    document, before = json.loads(asked), json.loads(today)
    assert [r["doi"] for r in document["results"]] == [r["doi"] for r in before["results"]]
    lines = [line for line in err.splitlines() if "semantic re-ranking off" in line]
    assert len(lines) == 1 and "pip install 'lit-search[semantic]'" in lines[0]


def test_with_the_model_the_search_is_reranked_and_says_so(apis, capsys, monkeypatch, model_dir):
    today = json.loads(search(capsys)[0])
    monkeypatch.setenv("LITSEARCH_RERANK_MODEL", str(model_dir))
    document = json.loads(search(capsys)[0])  # the default, now that a model is there
    assert document["rerank"] == "semantic"
    rows = document["results"]
    assert sorted(r["doi"] or r["title"] for r in rows) == sorted(r["doi"] or r["title"] for r in today["results"])
    assert all("semantic" in r["score_terms"] and "meaning match" in r["why"] for r in rows[:min(20, len(rows))])


def test_snowball_reranks_within_the_seed_bands(model_dir, monkeypatch):
    from dataclasses import replace

    from litsearch.graph.snowball import SnowballResult, _reranked
    from test_rerank import HEART, pool

    monkeypatch.setenv("LITSEARCH_RERANK_MODEL", str(model_dir))
    papers = [replace(item, score=2.0 if i < 5 else 1.0) for i, item in enumerate(pool(20))]
    found = SnowballResult([], "both", "heart attack", papers)
    asyncio.run(_reranked(found, "heart attack", None))
    assert found.reranked and found.rerank_note is None
    assert [item.score for item in found.results] == [item.score for item in papers]
    assert found.results[5].paper.title == HEART


def test_the_mcp_server_loads_the_model_once(apis, monkeypatch, model_dir):
    pytest.importorskip("mcp")
    from litsearch.runtime.settings import settings_from_env
    from litsearch.mcp_server.runtime import Runtime, install
    from litsearch.mcp_server.tools_papers import paper_search

    monkeypatch.setenv("LITSEARCH_RERANK_MODEL", str(model_dir))
    encoder.forget_loaded()
    install(Runtime(settings_from_env()))
    before = encoder.loads_so_far()

    async def calls():
        first = await paper_search(topic=TOPIC, providers=["semantic_scholar", "openalex"], verify=False)
        second = await paper_search(topic="genome editing specificity", providers=["openalex"], verify=False,
                                    rerank="semantic")
        third = await paper_search(topic=TOPIC, providers=["openalex"], verify=False, rerank="none")
        return first, second, third

    results = asyncio.run(calls())
    assert encoder.loads_so_far() == before + 1
    payloads = [result.structured_content if hasattr(result, "structured_content") else result for result in results]
    text = [json.dumps(payload, default=str) for payload in payloads]
    assert "meaning match" in text[0] and "meaning match" in text[1] and "meaning match" not in text[2]
