"""Property tests for the Europe PMC parser, the same invariants as test_parser_properties.py
(whose helpers they use): real-shaped core and lite pages (as the fake Europe PMC builds them)
with arbitrary JSON in one field of one record, arbitrary Unicode in every string, or an
arbitrary body. Only ProviderError escapes; a bad field costs only that field, a bad record
only itself; what comes out is plausible and free of forbidden characters; and the parser's
own promises hold (the record's own PMID is never one a version link names, a next cursor
exists only with results)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fake_europepmc
from litsearch.core.errors import ProviderError
from litsearch.providers.europepmc_parse import parse_search
from providers.test_parser_properties import PROPERTY, any_json, any_text, body, check_papers, field_paths, replaced

PAPERS = fake_europepmc.papers()  # the CRISPR article, the review linked to its preprint, the retracted paper …
FORMS = {"core": fake_europepmc.core_record, "lite": fake_europepmc.lite_record}


def page(records: list, cursor: str | None = "AoE/next==") -> dict:
    wrapped = {"version": "6.9", "hitCount": len(records), "request": {"cursorMark": "%2A"},
               "resultList": {"result": records}}
    if cursor:
        wrapped["nextCursorMark"] = cursor
    return wrapped


def titles_of(records: list) -> list[str]:
    return [parse_search(body(page([record]))).records[0].title for record in records]


@pytest.mark.parametrize("form", FORMS)
@PROPERTY
@given(data=st.data())
def test_one_bad_value_anywhere_costs_at_most_its_record(form, data):
    records = [FORMS[form](paper) for paper in PAPERS]
    untouched = titles_of(records)
    victim = data.draw(st.integers(0, len(records) - 1), label="record")
    paths = [path for path in field_paths(records[victim]) if path]
    path = data.draw(st.sampled_from(paths), label="path")
    records[victim] = replaced(records[victim], path, data.draw(any_json, label="value"))
    papers = parse_search(body(page(records))).records
    check_papers(papers)
    del untouched[victim]
    # The untouched records are all there, in their order.
    assert [paper.title for paper in papers if paper.title in untouched] == untouched


@pytest.mark.parametrize("form", FORMS)
@PROPERTY
@given(data=st.data())
def test_arbitrary_unicode_in_every_string_is_made_safe(form, data):
    def scramble(value):
        if isinstance(value, str):
            return data.draw(any_text | st.just(value + "\ud800\x1b[2J\U000e0041\u202e"))
        if isinstance(value, dict):
            return {key: scramble(item) for key, item in value.items()}
        if isinstance(value, list):
            return [scramble(item) for item in value]
        return value

    papers = parse_search(body(page([scramble(FORMS[form](paper)) for paper in PAPERS]))).records
    check_papers(papers)
    for paper in papers:
        linked = {paper.external_ids.get("published_pmid"), paper.external_ids.get("preprint_ppr")} - {None}
        assert paper.pmid is None or paper.pmid not in linked or paper.pmid == paper.external_ids.get("pmid")
        assert all(isinstance(value, str) and value for value in paper.external_ids.values())


@PROPERTY
@given(value=any_json | any_text.map(lambda text: text.encode("utf-8", "surrogatepass")) | st.binary(max_size=200))
def test_any_body_is_an_answer_or_a_provider_error(value):
    raw = value if isinstance(value, bytes) else body(value)
    try:
        answer = parse_search(raw)
    except ProviderError:
        return
    check_papers(answer.records)
    assert answer.hit_count >= 0
    assert answer.next_cursor is None or answer.records or answer.ids


@PROPERTY
@given(cursor=any_json)
def test_any_cursor_value_is_text_or_the_end(cursor):
    wrapped = page([fake_europepmc.core_record(PAPERS[0])], cursor=None)
    wrapped["nextCursorMark"] = cursor
    next_cursor = parse_search(body(wrapped)).next_cursor
    assert next_cursor is None or (isinstance(next_cursor, str) and next_cursor.strip() == next_cursor and next_cursor)
