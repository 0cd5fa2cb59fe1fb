"""Property tests over every renderer and exporter (issue 11): papers with arbitrary Unicode in
every string (lone surrogates, controls, terminal escapes, tag characters, bidi overrides,
zero-width characters, 100 KB words) and arbitrary numbers, written through the product's own
output path (``write_output``: sanitize, redact, atomic file). Invariants: nothing raises; the
file is UTF-8; no forbidden character anywhere; every Markdown row has 8 cells; every output
parses with an independent parser (bibtexparser, rispy, strict json, csv) and holds every paper;
every URL field is http(s)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from pathlib import Path

import bibtexparser
import rispy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsearch.biblio.formats import export_papers
from litsearch.biblio.writers import to_csv
from litsearch.cli.common import write_output
from litsearch.core.records import Paper
from litsearch.render.search_json import render_json
from litsearch.render.table import render_markdown
from litsearch.runtime.settings import settings_from_env
from render.test_render import result_with, table_rows, unescaped_pipes

# Every character the sanitizer must keep out of any output, and what Markdown also drops.
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u200e\u200f\u202a-\u202e"
                       "\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f\ud800-\udfff]")
MARKDOWN_FORBIDDEN = re.compile("[\u200b-\u200d\u2028\u2029]")
HOSTILE_PIECES = ["\x1b[2J", "\x1b]0;title\x07", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\",
                  "\x9b31m", "\U000e0049\U000e0067", "\u202etxt.exe", "\u2066x\u2069", "\u061c", "\u2060",
                  "\ufeff", "\u00ad", "\u200b", "\ud800", "\udfff", "|", "\n### heading", "javascript:alert(1)",
                  "a@b.example", "[x](http://evil.example)", "`", "{", "}", "\\", "%", "&", "$", "#"]

any_text = st.one_of(
    st.text(st.characters(codec=None, categories=None), max_size=40),
    st.lists(st.sampled_from(HOSTILE_PIECES) | st.text(max_size=5), max_size=6).map("".join),
)
optional_text = st.none() | any_text
any_year = st.none() | st.integers(min_value=-10**6, max_value=10**6)
any_count = st.none() | st.integers(min_value=-10**12, max_value=10**310)

papers = st.builds(
    Paper,
    provider=st.sampled_from(["semantic_scholar", "openalex", "pubmed", "arxiv", "crossref"]),
    title=any_text,
    authors=st.lists(any_text, max_size=7),
    year=any_year,
    publication_date=optional_text,
    journal=optional_text,
    doi=st.none() | any_text | st.just("10.1000/xyz(1)"),
    pmid=optional_text,
    arxiv_id=optional_text,
    abstract=optional_text | st.just("w" * 100_000),
    tldr=optional_text,
    citation_count=any_count,
    oa_url=st.none() | st.sampled_from(["javascript:alert(1)", "data:text/html,x", "vbscript:x",
                                        "https://ok.example/a.pdf", "http://ok.example/p"]) | any_text,
    publication_types=st.lists(any_text, max_size=3),
    volume=optional_text,
    issue=optional_text,
    pages=optional_text,
    url=st.none() | any_text,
)

SETTINGS = settings_from_env({"OPENALEX_API_KEY": "OA+CAN/ARY=x9 z"})
# LITSEARCH_PROPERTY_EXAMPLES=1000 for a deeper run than the suite's.
PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "40")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def written(text: str) -> str:
    """``text`` through the product's output path, read back as strict UTF-8."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "out"
        write_output(text, SETTINGS, path)
        return path.read_bytes().decode("utf-8")


def assert_clean(text: str) -> None:
    found = FORBIDDEN.findall(text)
    assert not found, [hex(ord(c)) for c in found]


def http_or_none(value) -> bool:
    return value is None or (isinstance(value, str) and value.startswith(("https://", "http://")))


@PROPERTY
@given(st.lists(papers, min_size=1, max_size=4))
def test_the_markdown_table_keeps_8_cells_per_row_and_no_forbidden_character(batch):
    out = written(render_markdown(result_with(batch), limit=20))
    assert_clean(out)
    assert not MARKDOWN_FORBIDDEN.findall(out)
    rows = table_rows(out)
    assert len(rows) == len(batch)
    assert all(unescaped_pipes(row) == 9 for row in rows), rows
    # The only links are DOI links and http(s) open-access links.
    for target in re.findall(r"(?<!\\)\]\(([^)]*)\)", out):
        assert target.startswith(("https://doi.org/", "https://", "http://")), target
    assert max(len(line) for line in out.splitlines()) < 20_000  # every cell and snippet capped
    for line in out.splitlines():  # quoted abstracts stay quotes: no heading or list starts inside
        if line.startswith(">"):
            assert not re.match(r">\s*#", line)


@PROPERTY
@given(st.lists(papers, min_size=1, max_size=4))
def test_the_json_is_strict_and_its_url_fields_are_http(batch):
    out = written(render_json(result_with(batch), limit=20))
    assert_clean(out)

    def no_constants(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    payload = json.loads(out, parse_constant=no_constants)
    assert len(payload["results"]) == len(batch)
    for result in payload["results"]:
        assert http_or_none(result["oa_url"]) and http_or_none(result["citation_uri"])


@PROPERTY
@given(st.lists(papers, min_size=1, max_size=4))
def test_bibtex_parses_with_bibtexparser_and_holds_every_paper(batch):
    out = written(export_papers(batch, "bibtex"))
    assert_clean(out)
    library = bibtexparser.parse_string(out)
    assert not library.failed_blocks, [block.error for block in library.failed_blocks]
    assert len(library.entries) == len(batch)
    for entry in library.entries:
        url = entry.fields_dict.get("url")
        assert url is None or http_or_none(url.value)


@PROPERTY
@given(st.lists(papers, min_size=1, max_size=4))
def test_ris_parses_with_rispy_and_holds_every_paper(batch):
    out = written(export_papers(batch, "ris"))
    assert_clean(out)
    entries = rispy.loads(out)
    assert len(entries) == len(batch)
    assert all(http_or_none(url) for entry in entries for url in entry.get("urls", []))


@PROPERTY
@given(st.lists(papers, min_size=1, max_size=4))
def test_csl_json_and_csv_hold_every_paper(batch):
    csl = written(export_papers(batch, "csl-json"))
    assert_clean(csl)
    items = json.loads(csl, parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(name)))
    assert len(items) == len(batch) and all(http_or_none(item.get("URL")) for item in items)
    table = written(to_csv(batch))
    assert_clean(table)
    assert len(list(csv.DictReader(io.StringIO(table)))) == len(batch)


@PROPERTY
@given(papers)
def test_a_key_in_any_field_never_reaches_an_output(paper):
    paper.title = f"{paper.title} OA+CAN/ARY=x9 z {paper.title}"
    paper.abstract = "see https://x.example/?api_key=OA%2BCAN%2FARY%3Dx9%20z"
    for text in (render_markdown(result_with([paper]), limit=20), render_json(result_with([paper]), limit=20),
                 *(export_papers([paper], fmt) for fmt in ("bibtex", "ris", "csl-json")), to_csv([paper])):
        out = written(text)
        assert "OA+CAN/ARY=x9 z" not in out and "OA%2BCAN%2FARY%3Dx9" not in out
