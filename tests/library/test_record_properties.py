"""The library on records holding any JSON value in any field (an older version's write,
another program's, a caller of the Python API): saving, matching, listing and exporting
never fail, and a bad field costs only itself."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsearch.biblio.formats import EXPORT_FORMATS, export_papers
from litsearch.library.record import PAPER_FIELDS, paper_from_record
from litsearch.library.store import Store

PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "40")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
# Mostly well-typed records, with any field replaced by any value.
records = st.builds(
    lambda typed, odd: {**typed, **odd},
    st.fixed_dictionaries({"title": st.text(min_size=1, max_size=40), "year": st.integers(1900, 2030),
                           "authors": st.lists(st.text(max_size=15), max_size=3)}),
    st.dictionaries(st.sampled_from(PAPER_FIELDS + ("found_by", "doi_verified")), json_values, max_size=4))


@PROPERTY
@given(st.lists(records, min_size=1, max_size=4), st.sampled_from([None, "10.1000/shared", "10.1000/SHARED"]))
def test_any_record_is_saved_listed_and_exported(saved, doi):
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "s.sqlite3") as store:
        chosen = [{**record, "doi": doi} if doi else record for record in saved]
        ids = store.save_papers(chosen)
        assert len(ids) == len(chosen)
        assert {paper.id for paper in store.list_papers()} == set(ids)
        papers = [paper_from_record(store.get_paper(paper_id)) for paper_id in dict.fromkeys(ids)]
        for fmt in EXPORT_FORMATS:
            assert export_papers(papers, fmt)
        # A text field holding printable text comes back as it was saved (control characters
        # are removed from everything the tool stores or prints).
        for paper_id, record in zip(ids, chosen):
            journal = record.get("journal")
            if len(set(ids)) == len(ids) and isinstance(journal, str) and journal.isprintable():
                assert store.get_paper(paper_id)["journal"] == record["journal"]


def test_a_field_of_the_wrong_type_costs_only_itself():
    paper = paper_from_record({"title": 12, "year": "2019", "citation_count": True, "journal": ["J"],
                               "authors": {"a": 1}, "volume": 7, "pages": 3.5, "doi": "10.1/x"})
    assert (paper.title, paper.year, paper.citation_count, paper.journal) == ("12", 2019, None, None)
    assert (paper.authors, paper.volume, paper.pages, paper.doi) == ([], "7", "3.5", "10.1/x")
