"""A deep search's results exported: every format carries each paper's verdict the way that
format's users expect (a tag in BibTeX, RIS and CSL-JSON; columns in CSV; fields in JSON), checked
with the independent parsers the export tests use (bibtexparser, rispy, the CSL-JSON schema, the
csv module), and everything else of the export is what it was without the verdicts: every field,
and what lit-search's own readers read back."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy

sys.path.insert(0, str(Path(__file__).parent))

from built_sessions import paper, session_of  # noqa: E402
from conftest import DATA as TEST_DATA  # noqa: E402

from litsearch.biblio.formats import export_papers  # noqa: E402
from litsearch.biblio.readers import read_records  # noqa: E402
from litsearch.deep.results import VERDICT_TAG, as_search_result  # noqa: E402
from litsearch.runtime.results import render_result  # noqa: E402

SPECIAL = r"Bleaching & {braces}, 50% of reefs_x; cost $5 #1 ~ a^b back\slash in Zürich"
VERDICTS = ["relevant", "maybe", None, None, "not"]  # then two unjudged candidates (--all), one judged not (--rejected)


@pytest.fixture
def result():
    found = [paper(1, title=SPECIAL, authors=["Müller, Jörg", "WHO Collaborating Group"], pmid="111"),
             paper(2, authors=["Hsu PD"], journal="Coral Reefs", volume="31", issue="9", pages="827-832"),
             paper(3, arxiv_id="2101.00001", journal="arXiv", publication_types=["preprint"]),
             paper(4, title="A study, with commas, in its title"),
             paper(5, title="An excluded study")]
    session = session_of(found, batch=2)
    for candidate, verdict in zip(session.candidates.values(), VERDICTS):
        candidate.verdict, candidate.judged_round = verdict, 1 if verdict else None
        candidate.log_odds = -int(candidate.key[1:])  # rows in the order given
    return as_search_result(session, include_unjudged=True, include_rejected=True)


def exported(result, fmt: str, marked: bool = True) -> str:
    if marked:
        return render_result(result, len(result.results), fmt, include_abstracts=True)
    return export_papers([item.paper for item in result.results], fmt)


def tags() -> list[str]:
    return [VERDICT_TAG + {None: "not judged", "not": "not relevant"}.get(verdict, verdict) for verdict in VERDICTS]


def test_bibtex_keywords(result):
    marked = bibtexparser.parse_string(exported(result, "bibtex"))
    plain = bibtexparser.parse_string(exported(result, "bibtex", marked=False))
    assert not marked.failed_blocks
    assert [entry["keywords"] for entry in marked.entries] == tags()
    for with_tag, without in zip(marked.entries, plain.entries):  # every other field as it was
        assert {f.key: f.value for f in with_tag.fields if f.key != "keywords"} == \
            {f.key: f.value for f in without.fields}


def test_ris_keywords(result):
    marked, plain = rispy.loads(exported(result, "ris")), rispy.loads(exported(result, "ris", marked=False))
    assert [entry["keywords"] for entry in marked] == [[tag] for tag in tags()]
    assert [{k: v for k, v in entry.items() if k != "keywords"} for entry in marked] == plain


def test_csl_json_keyword(result):
    marked = json.loads(exported(result, "csl-json"))
    schema = json.loads((TEST_DATA / "csl-data.subset.json").read_text(encoding="utf-8"))
    assert [f"{list(e.path)}: {e.message}" for e in jsonschema.Draft7Validator(schema).iter_errors(marked)] == []
    assert [item["keyword"] for item in marked] == tags()
    assert [{k: v for k, v in item.items() if k != "keyword"} for item in marked] == \
        json.loads(exported(result, "csl-json", marked=False))


def test_csv_columns(result):
    marked = list(csv.DictReader(io.StringIO(exported(result, "csv"))))
    plain = list(csv.DictReader(io.StringIO(exported(result, "csv", marked=False))))
    assert [row["verdict"] for row in marked] == [verdict or "" for verdict in VERDICTS]
    assert [row["judged_round"] for row in marked] == ["1", "1", "", "", "1"]
    assert [row["why"] for row in marked] == [c.why for c in result.candidates] and marked[0]["why"]
    assert [{k: v for k, v in row.items() if k not in ("verdict", "judged_round", "why")} for row in marked] == plain


@pytest.mark.parametrize("fmt,suffix", [("bibtex", ".bib"), ("ris", ".ris"), ("csv", ".csv")])
def test_our_readers_read_back_the_same_records(result, tmp_path, fmt, suffix):
    records = []
    for marked in (True, False):
        path = tmp_path / f"{marked}{suffix}"
        path.write_text(exported(result, fmt, marked), encoding="utf-8", newline="")
        records.append([(p.title, p.authors, p.year, p.doi, p.pmid, p.arxiv_id, p.journal, p.volume, p.issue,
                         p.pages, p.abstract) for p in read_records(path)])
    assert records[0] == records[1] and len(records[0]) == len(VERDICTS)


def test_the_json_export_carries_the_verdict_as_before(result):
    from litsearch.render.deep import results_json

    session = session_of(1, batch=1)
    rows = results_json(result, session, "s.json")["results"]
    assert [row["verdict"] for row in rows] == VERDICTS and all("judged_round" in row and "why" in row for row in rows)


def test_a_search_export_carries_no_marks(result):
    from dataclasses import replace

    from litsearch.search.pipeline import SearchResult

    plain = SearchResult(**{name: getattr(result, name) for name in SearchResult.__dataclass_fields__})
    for fmt in ("bibtex", "ris", "csl-json", "csv"):
        assert render_result(plain, 10, fmt, True) == exported(replace(result), fmt, marked=False)
    assert "verdict" not in render_result(plain, 10, "csv", True).splitlines()[0]
