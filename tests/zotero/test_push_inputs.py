"""`zotero push --from FILE` with files that are not what they claim (the file-input matrix of the
edges issue, for this command): a FIFO, /dev/zero, a folder, a symlink loop, a huge file, binary
and Latin-1 bytes, JSON nested too deep, JSON of every wrong type. Each ends in one line naming
the file and exit 2, before Zotero is asked anything, and never blocks. Then the shapes it does
take: a search's JSON, a search record (ids looked up) and a library export."""

from __future__ import annotations

import json
import os

import pytest
from command import command_env, command_runner

import fake_apis
import fake_zotero
from fake_server import FakeServer


@pytest.fixture(scope="module")
def zotero():
    with FakeServer() as server:
        fake = fake_zotero.FakeZotero()
        env = fake_apis.install(server)
        env.update(fake.install(server))
        fake.env, fake.server = env, server
        yield fake


@pytest.fixture
def run(zotero, tmp_path):
    env = command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache"), LITSEARCH_PROVIDER_BUDGET="8")
    return command_runner(env, tmp_path, prefix=["zotero", "push", "--collection", "Inputs"], timeout=30,
                          in_process=True)  # tests/command.py: no process start


def make(tmp_path, kind: str) -> str:
    path = tmp_path / f"input-{abs(hash(kind))}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        return "/dev/zero"
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink-loop":
        os.symlink(path, path)
    elif kind == "missing":
        pass
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.truncate(60 * 1024 * 1024)  # sparse: 60 MB on paper, nothing to read
    elif kind == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    elif kind == "latin-1":
        path.write_bytes('{"results": [{"title": "Caf\xe9"}]}'.encode("latin-1"))
    elif kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "empty":
        path.write_text("")
    else:
        path.write_text(kind, encoding="utf-8")
    return str(path)


# Each case names the words that must be in the message (any one of several spellings: the same
# rule is worded by the shared file reader too).
@pytest.mark.parametrize("kind, words", [
    ("fifo", "not a regular file"),
    ("dev-zero", "not a regular file"),
    ("directory", "directory"),
    ("symlink-loop", ("cannot read", "loop of symbolic links")),
    ("missing", "no such file"),
    ("huge", "at most"),
    ("binary", "not UTF-8 text"),
    ("latin-1", "not UTF-8 text"),
    ("deep", "nested too deeply"),
    ("empty", "not JSON"),
    ("42", "not a lit-search results file"),
    ('"results"', "not a lit-search results file"),
    ('{"results": 5}', "not a lit-search results file"),
    ("[1, 2, null]", "no papers in this file"),
    ("[]", "no papers in this file"),
    ('{"results": [{"title": ""}, {"doi": "10.1/x"}, "text"]}', "no papers in this file"),
    ('{"kind": "search", "record_version": 1, "results": "x"}', "a search record without a 'results' list"),
    ('{"query": "x"', "not JSON"),
])
def test_files_that_are_not_results(run, zotero, tmp_path, kind, words):
    before = len(zotero.server.requests)
    proc = run(["--from", make(tmp_path, kind)], code=2)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("lit-search zotero:")]
    assert len(errors) == 1 and any(word in errors[0] for word in ((words,) if isinstance(words, str) else words)), \
        proc.stderr
    assert len(zotero.server.requests) == before  # refused before anything was sent


def test_entries_that_are_no_papers_are_counted_not_dropped_unsaid(run, zotero, tmp_path):
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"results": [{"title": "A real paper in a mixed file", "doi": "10.5555/mixed.1",
                                             "year": 2020}, 7, {"title": " "}]}))
    proc = run(["--from", str(path)])
    assert "note: " in proc.stderr and "2 of 3 entries are no papers (no title or ids) and were skipped" in proc.stderr
    assert proc.stdout.endswith("1 created, 0 skipped as duplicates, 0 failed.\n")


def test_a_search_record_is_pushed_by_looking_its_papers_up(run, zotero, tmp_path):
    record = {"record_version": 1, "kind": "search", "topic": "crispr", "results": [
        {"rank": 1, "title": "DNA targeting specificity of RNA-guided Cas9 nucleases", "year": 2013,
         "doi": "10.1038/nbt.2647"}, {"rank": 2, "title": "x", "year": 2020}]}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    proc = run(["--from", str(path)])
    assert "1 of 2 entries are no papers" in proc.stderr
    assert any(item.get("PMID") == "23873081" for item in zotero.items.values())  # the full record, looked up


def test_a_library_export_and_the_library(run, zotero, tmp_path):
    zotero.items.clear()
    saved = command_runner(command_env(zotero.env, LITSEARCH_CACHE_DIR=str(tmp_path / "cache")), tmp_path,
                           in_process=True)
    saved(["CRISPR off-target effects", "--providers", "semantic_scholar,openalex", "--save", "--no-verify", "-q"])
    exported = saved(["library", "export", "--format", "json"]).stdout
    path = tmp_path / "library.json"
    path.write_text(exported)
    first = run(["--from", str(path)]).stdout
    count = len(json.loads(exported))
    assert first.splitlines()[-1].endswith(f"{count} created, 0 skipped as duplicates, 0 failed.")
    again = run(["--from-library", "#1"]).stdout  # the library and one of its papers: all known now
    assert again.splitlines()[-1].endswith(f"0 created, {count + 1} skipped as duplicates, 0 failed.")


REVIEW_BIB = """\
@article{kelly2019children,
  title = {Long-term outcomes of eculizumab in children with paroxysmal nocturnal haemoglobinuria: registry results},
  author = {Kelly, Rhona and Arnold, Louise and Hillmen, Peter},
  journal = {Blood},
  year = {2019},
  doi = {10.1182/blood-2019-supplement.1}
}

@misc{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam and others},
  year = {2017},
  eprint = {1706.03762}
}
"""
REVIEW_RIS = """\
TY  - JOUR
TI  - Long-term outcomes of eculizumab in children with paroxysmal nocturnal haemoglobinuria: registry results
AU  - Kelly, Rhona
AU  - Arnold, Louise
AU  - Hillmen, Peter
T2  - Blood
PY  - 2019
DO  - 10.1182/blood-2019-supplement.1
ER  - 

TY  - GEN
TI  - Attention Is All You Need
AU  - Vaswani, Ashish
AU  - Shazeer, Noam
AU  - others
PY  - 2017
UR  - https://arxiv.org/abs/1706.03762
DO  - 10.48550/arxiv.1706.03762
ER  - 
"""


@pytest.mark.parametrize("name,text", [("review.bib", REVIEW_BIB), ("review.ris", REVIEW_RIS),
                                       ("review-without-extension", REVIEW_BIB)])
def test_a_bibtex_or_ris_export_is_pushed_and_completed_from_its_ids(run, zotero, tmp_path, name, text):
    zotero.items.clear()
    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = run(["--from", name])
    assert proc.stdout.endswith("2 created, 0 skipped as duplicates, 0 failed.\n"), proc.stderr
    blood = next(i for i in zotero.items.values() if i["title"].startswith("Long-term outcomes"))
    assert (blood["volume"], blood["pages"], blood["publicationTitle"]) == ("134", "S456", "Blood")
    transformer = next(i for i in zotero.items.values() if i["title"] == "Attention Is All You Need")
    assert [c["lastName"] for c in transformer["creators"]][-1] == "Polosukhin"  # "and others" completed


@pytest.mark.parametrize("name,text,words", [
    ("refs.csl.json", '[{"type": "article-journal", "title": "A"}]', "a CSL-JSON file; --from takes"),
    ("table.md", "| # | Title |\n|---|---|\n| 1 | A |\n", "a Markdown file; --from takes"),
    ("notes.txt", "some notes, neither JSON nor an export", "not JSON"),
])
def test_a_file_of_another_kind_says_what_from_takes(run, zotero, tmp_path, name, text, words):
    before = len(zotero.server.requests)
    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = run(["--from", name], code=2)
    [error] = [line for line in proc.stderr.splitlines() if line.startswith("lit-search zotero:")]
    assert words in error and "BibTeX, RIS or CSV" in error and "JSONDecodeError" not in error, error
    assert len(zotero.server.requests) == before
