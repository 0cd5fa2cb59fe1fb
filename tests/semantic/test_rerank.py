"""The re-ranker itself: it re-orders the top of a lexical order by meaning with the real model,
keeps known items first and the rest in place; and every way it can fail (libraries missing, no
model, a folder that is not one, a damaged or wrong-shaped model, too little memory, too slow)
leaves the order exactly as it was, with one line saying why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from litsearch.core.records import Paper
from litsearch.search.rank import RankedPaper, why
from litsearch.semantic import encoder, rerank
from litsearch.semantic.fusion import fused_order, relative_to_best
from litsearch.semantic.location import RERANK_MODEL_VARIABLE, installed_folder, locate_model
from litsearch.semantic.rerank import CANDIDATES, RerankSettings, rerank_papers
from model_support import ids_as_vectors, model_folder, not_an_encoder, real_model_files

HEART = "Myocardial infarction: acute coronary occlusion and death of heart muscle"


def ranked(title: str, abstract: str = "", score: float = 0.5, title_match: float = 0.0) -> RankedPaper:
    return RankedPaper(Paper("openalex", title, abstract=abstract or None, doi=f"10.1/{abs(hash(title)) % 10**8}"),
                       hits=[], relevance=score, score=score,
                       score_terms={"lexical": score, "agreement": 0.0, "title_match": title_match,
                                    "citation_prior": 0.0})


def pool(count: int = 40) -> list[RankedPaper]:
    """A lexical order: unrelated papers scored a little above the one about heart attacks."""
    papers = [ranked(f"Paper {i} on soil erosion in alpine meadows", "Sediment transport measured by rain gauges.",
                     score=0.80 - 0.01 * i) for i in range(count)]
    papers[8] = ranked(HEART, "Heart attacks follow the blockage of a coronary artery.", score=0.72)
    return papers


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory) -> Path:
    return model_folder(tmp_path_factory.mktemp("model"))


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {"XDG_DATA_HOME": str(tmp_path / "data"), "LITSEARCH_RERANK_THREADS": "1"}


@pytest.fixture(autouse=True)
def fresh_process_cache():
    encoder.forget_loaded()
    yield
    encoder.forget_loaded()


def test_the_meaning_lifts_the_paper_about_the_topic_into_the_top(model_dir, env):
    papers = pool()
    done = rerank_papers("heart attack", papers, env={**env, RERANK_MODEL_VARIABLE: str(model_dir)})
    assert done.applied and done.note is None and done.embedded == CANDIDATES
    titles = [item.paper.title for item in done.papers]
    assert titles.index(HEART) < 3 < 8  # lexically 9th
    assert sorted(titles) == sorted(item.paper.title for item in papers)  # nothing lost, nothing added
    assert done.papers[CANDIDATES:] == papers[CANDIDATES:]  # past the candidates: as they were
    top = done.papers[0]
    assert 0 < top.score_terms["semantic"] <= 1 and "meaning match" in why(top)
    assert all("semantic" not in item.score_terms for item in done.papers[CANDIDATES:])


def test_a_known_item_stays_first_whatever_its_meaning(model_dir, env):
    papers = pool()
    papers[3] = ranked("Crop rotation statistics for 1987", score=0.78, title_match=1.0)
    papers.insert(0, papers.pop(3))
    done = rerank_papers("heart attack", papers, env={**env, RERANK_MODEL_VARIABLE: str(model_dir)})
    assert done.applied and done.papers[0].paper.title == "Crop rotation statistics for 1987"


def test_bands_are_kept(model_dir, env):
    """Snowball: papers move only among those reaching the same number of seeds."""
    papers = pool(12)
    for position, item in enumerate(papers):
        item.score = 2.0 if position < 6 else 1.0
    done = rerank_papers("heart attack", papers, env={**env, RERANK_MODEL_VARIABLE: str(model_dir)},
                         lexical=lambda item: item.relevance, band=lambda item: item.score)
    assert [item.score for item in done.papers] == [item.score for item in papers]
    assert done.papers[6].paper.title == HEART  # first of its band, not of the list


@pytest.mark.parametrize("onnx_name", ["model.onnx", "onnx/model.onnx", "model_quint8_avx2.onnx"])
def test_the_model_is_found_in_LITSEARCH_RERANK_MODEL(tmp_path, env, onnx_name):
    folder = model_folder(tmp_path / "export", onnx_name)
    location = locate_model({**env, RERANK_MODEL_VARIABLE: str(folder)})
    assert location.usable and location.onnx == folder / onnx_name and not location.pinned
    assert rerank.default_mode({**env, RERANK_MODEL_VARIABLE: str(folder)}) == "semantic"
    assert rerank.default_mode(env) == "none"


# ---------------------------------------------------------------- failures keep the order

def _write(folder: Path, files: dict[str, bytes | Path]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            target.symlink_to(content)
        else:
            target.write_bytes(content)
    return folder


def _named(files):
    return lambda tmp, env: {**env, RERANK_MODEL_VARIABLE: str(_write(tmp / "m", files()))}


def _real(name):
    return lambda: real_model_files()[name]


FAILURES = {
    "libraries missing": (lambda tmp, env: env, "onnxruntime not installed (pip install 'lit-search[semantic]')"),
    "no model": (lambda tmp, env: env, "no model installed"),
    "not a folder": (lambda tmp, env: {**env, RERANK_MODEL_VARIABLE: str(tmp / "nowhere")}, "is not a folder"),
    "no onnx file": (_named(lambda: {"tokenizer.json": _real("tokenizer.json")()}), "no ONNX file"),
    "several onnx files": (_named(lambda: {"a.onnx": b"x", "b.onnx": b"y", "tokenizer.json": b"{}"}),
                           "several ONNX files"),
    "no tokenizer": (_named(lambda: {"model.onnx": _real("model.onnx")()}), "no tokenizer.json"),
    "corrupt onnx": (_named(lambda: {"model.onnx": b"\x08\x07garbage" * 50, "tokenizer.json": _real("tokenizer.json")()}),
                     "cannot load the model"),
    "corrupt tokenizer": (_named(lambda: {"model.onnx": _real("model.onnx")(), "tokenizer.json": b"{not json"}),
                          "cannot load the model"),
    "not an encoder": (_named(lambda: {"model.onnx": not_an_encoder(), "tokenizer.json": _real("tokenizer.json")()}),
                       "the model's inputs are x"),
    "wrong output shape": (_named(lambda: {"model.onnx": ids_as_vectors(), "tokenizer.json": _real("tokenizer.json")()}),
                           "output has shape"),
    "installed model damaged": (lambda tmp, env: (_write(installed_folder(env), {"model.onnx": b"0" * 100,
                                                                               "tokenizer.json": b"{}"}), env)[1],
                                "damaged (its checksum differs)"),
    "installed model incomplete": (lambda tmp, env: (_write(installed_folder(env), {"tokenizer.json": b"{}"}), env)[1],
                                   "lacks model.onnx"),
}


@pytest.mark.parametrize("case", FAILURES, ids=list(FAILURES))
def test_a_failure_keeps_the_lexical_order_and_says_why_in_one_line(case, tmp_path, env, monkeypatch):
    prepare, expected = FAILURES[case]
    if case == "libraries missing":
        monkeypatch.setattr(rerank, "missing_libraries", lambda: ["onnxruntime"])
    real_model_files()  # the cases link the real files: skipped without the test extra
    papers = pool()
    done = rerank_papers("heart attack", papers, env=prepare(tmp_path, env))
    assert done.papers == papers and not done.applied
    assert done.note.startswith("semantic re-ranking off: ") and done.note.endswith("; lexical order kept")
    assert expected in done.note and "\n" not in done.note and "Traceback" not in done.note
    assert all("semantic" not in item.score_terms for item in done.papers)


def test_too_little_memory_is_said_and_tried_again_next_time(model_dir, env):
    env = {**env, RERANK_MODEL_VARIABLE: str(model_dir)}
    papers = pool()
    done = rerank_papers("heart attack", papers, env=env, memory=lambda: 50 * 2**20)
    assert done.papers == papers and "too little free memory (50 MB" in done.note
    assert rerank_papers("heart attack", papers, env=env, memory=lambda: None).applied  # memory came back


def test_a_search_past_its_time_budget_keeps_the_lexical_order(model_dir, env):
    ticks = iter(range(0, 10_000, 5))  # every look at the clock: 5 s later
    papers = pool()
    done = rerank_papers("heart attack", papers, env={**env, RERANK_MODEL_VARIABLE: str(model_dir)},
                         settings=RerankSettings(budget_seconds=12, threads=1), clock=lambda: next(ticks))
    assert done.papers == papers and "took longer than 12 s (LITSEARCH_RERANK_BUDGET)" in done.note


def test_a_model_failing_on_these_texts_keeps_the_order(model_dir, env, monkeypatch):
    env = {**env, RERANK_MODEL_VARIABLE: str(model_dir)}
    encoder.load_encoder(locate_model(env), 1)
    monkeypatch.setattr(encoder.Encoder, "embed", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    papers = pool()
    done = rerank_papers("heart attack", papers, env=env)
    assert done.papers == papers and "the model failed (RuntimeError)" in done.note


def test_a_broken_model_is_loaded_once_and_a_replaced_one_again(tmp_path, env):
    folder = _write(tmp_path / "m", {"model.onnx": b"junk", "tokenizer.json": real_model_files()["tokenizer.json"]})
    location = locate_model({**env, RERANK_MODEL_VARIABLE: str(folder)})
    for _ in range(2):
        with pytest.raises(encoder.ModelUnusable):
            encoder.load_encoder(location, 1)
    before = encoder.loads_so_far()
    (folder / "model.onnx").unlink()
    (folder / "model.onnx").symlink_to(real_model_files()["model.onnx"])
    encoder.load_encoder(locate_model({**env, RERANK_MODEL_VARIABLE: str(folder)}), 1)
    encoder.load_encoder(locate_model({**env, RERANK_MODEL_VARIABLE: str(folder)}), 1)
    assert encoder.loads_so_far() == before + 1


@pytest.mark.parametrize("variable, value", [("LITSEARCH_RERANK_BUDGET", "soon"), ("LITSEARCH_RERANK_BUDGET", "0"),
                                             ("LITSEARCH_RERANK_BUDGET", "nan"), ("LITSEARCH_RERANK_THREADS", "2.5"),
                                             ("LITSEARCH_RERANK_THREADS", "-1")])
def test_a_bad_setting_is_one_line_naming_it(variable, value):
    from litsearch.core.errors import ConfigError

    with pytest.raises(ConfigError, match=f"^{variable} must be a positive number"):
        RerankSettings.from_env({variable: value})


# ---------------------------------------------------------------- the fusion

def test_lexical_scores_are_taken_relative_to_the_best_and_ties_keep_the_lexical_order():
    assert relative_to_best([2.0, 1.0, 0.5]) == [1.0, 0.5, 0.25]
    assert relative_to_best([0.0, 0.0]) == [0.0, 0.0] and relative_to_best([]) == []
    assert fused_order([0.9, 0.8, 0.7], [0.5, 0.5, 0.5]) == [0, 1, 2]
    assert fused_order([0.5, 0.5, 0.5], [0.1, 0.2, 0.9]) == [2, 1, 0]
    assert fused_order([0.0, 0.0], [0.2, 0.3]) == [1, 0]  # no lexical evidence (snowball without words)
    with pytest.raises(ValueError):
        fused_order([1.0], [])


def test_a_confident_lexical_first_survives_a_lukewarm_meaning():
    """Both confidences count: far ahead in score, a paper stays ahead of a slightly closer
    meaning; a near-tie is decided by a clearly closer meaning."""
    assert fused_order([1.0, 0.30, 0.29, 0.28], [0.40, 0.45, 0.44, 0.43])[0] == 0
    assert fused_order([1.0, 0.95, 0.30, 0.29], [0.10, 0.90, 0.20, 0.20])[0] == 1
    assert fused_order([2.0, 1.9], [0.30, 0.45]) == [1, 0]  # 1 + 0.30 < 0.95 + 0.45
    assert fused_order([2.0, 1.9], [0.30, 0.30]) == [0, 1]
