"""Retractions and notices in the library's views, as the search shows them: `library list`
(Markdown, the terminal view, JSON), `library list --retracted` and `library show`. In-process,
against the fake APIs' gastric organoid papers (one retracted, one corrected)."""

from __future__ import annotations

import json

import pytest

import fake_apis
from fake_server import FakeServer
from litsearch import cli

RETRACTED = "Gastric organoids reveal a regenerative stem cell niche"
CORRECTED = "Organoid cultures of gastric cancer biopsies predict drug response"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """A library holding the gastric organoid papers, saved from a search with its checks."""
    folder = tmp_path_factory.mktemp("notices")
    with FakeServer() as server:
        env = {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(folder), "LITSEARCH_EMAIL": "lib@example.org"}
        with pytest.MonkeyPatch.context() as patch:
            for name, value in env.items():
                patch.setenv(name, value)
            assert cli.main(["gastric organoid", "--providers", "semantic_scholar,openalex,pubmed", "--save",
                             "-q", "--format", "json"]) == 0
        yield env


def run(env, monkeypatch, capsys, *args: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert cli.main(list(args)) == 0
    return capsys.readouterr().out


def test_the_markdown_listing_marks_and_counts(library, monkeypatch, capsys):
    out = run(library, monkeypatch, capsys, "library", "list", "--format", "markdown")
    row = next(line for line in out.splitlines() if RETRACTED in line)
    assert f"| ⚠ RETRACTED — {RETRACTED} |" in row
    assert f"{CORRECTED} _(correction published)_" in out
    assert "Notices: 1 retracted paper (title marked ⚠ RETRACTED); 1 paper with a correction" in out
    assert "as known when each was saved" in out


def test_the_terminal_view_marks_and_counts(library, monkeypatch, capsys):
    out = run(library, monkeypatch, capsys, "library", "list", "--format", "table")
    assert f"⚠ RETRACTED — {RETRACTED}" in " ".join(out.split())
    assert "(correction published)" in out and "1 retracted paper" in " ".join(out.split())


@pytest.mark.parametrize("fmt", ["markdown", "table", "json"])
def test_retracted_lists_only_the_retracted(library, monkeypatch, capsys, fmt):
    out = run(library, monkeypatch, capsys, "library", "list", "--retracted", "--format", fmt)
    if fmt == "json":
        rows = json.loads(out)
        assert [row["title"] for row in rows] == [RETRACTED] and rows[0]["retracted"] is True
        assert {item["type"] for item in rows[0]["updates"]} == {"retraction"}
    else:
        assert RETRACTED in " ".join(out.split()) and CORRECTED not in out
        assert "1 retracted paper among the" in " ".join(out.split())


def test_show_says_it_before_anything_else(library, monkeypatch, capsys):
    out = run(library, monkeypatch, capsys, "library", "show", "10.5555/jfg.2019.0101")
    assert out.splitlines()[2].startswith("**⚠ RETRACTED** — do not cite this paper")
    assert "### Notices" in out and "- retraction: [10.5555/jfg.2021.0045]" in out
    corrected = run(library, monkeypatch, capsys, "library", "show", "10.5555/jfg.2020.0202")
    assert "RETRACTED" not in corrected and "- correction: [10.5555/jfg.2020.0303]" in corrected


def test_a_library_without_retractions_says_so(monkeypatch, capsys, tmp_path):
    with FakeServer() as server:
        env = {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path)}
        run(env, monkeypatch, capsys, "CRISPR off-target effects", "--providers", "openalex", "--save", "-q",
            "--no-verify")
        out = run(env, monkeypatch, capsys, "library", "list", "--retracted", "--format", "markdown")
    assert out.startswith("No retracted paper among the ") and "saved papers" in out
