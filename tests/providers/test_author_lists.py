"""An author a source lists twice under one id is one author (Semantic Scholar's "David K. Karig,
David K. Karig", OpenAlex's repeated authorships); two people who share a name stay two."""

from __future__ import annotations

import json

import pytest

from litsearch.providers._common import distinct_authors
from litsearch.providers.openalex_parse import parse_works
from litsearch.providers.semantic_scholar_parse import parse_bulk


def test_one_id_is_one_author_and_a_shared_name_without_an_id_is_kept():
    assert distinct_authors([("1838770", "David K. Karig"), ("1838770", "David K. Karig"), ("2", "K. Martini"),
                             (None, "Y. Li"), (None, "Y. Li"), ("7", "J. Wang"), ("8", "J. Wang"),
                             ("9", None), ("", "No Id"), ("", "No Id")]) == \
        ["David K. Karig", "K. Martini", "Y. Li", "Y. Li", "J. Wang", "J. Wang", "No Id", "No Id"]


@pytest.mark.parametrize("relative, parse", [
    ("semantic_scholar/bodies/s2d__search_turing_fullfields_429x2_then_200_100recs__02_200.json", parse_bulk),
])
def test_the_real_repeats_are_gone(shared, relative, parse):
    papers = parse(shared(relative).read_bytes())
    karig = next(p for p in papers if p.title.startswith("Stochastic Turing patterns in a synthetic bacterial"))
    assert karig.authors[:2] == ["David K. Karig", "K. Martini"]
    assert all(len(p.authors) == len(set(p.authors)) for p in papers)


def test_openalex_repeated_authorships_are_one_author():
    work = {"id": "https://openalex.org/W1", "title": "A temporal and cross-sectional study", "authorships": [
        {"author": {"id": "https://openalex.org/A2343127197", "display_name": "Abhijit Thakuria"}},
        {"author": {"id": "https://openalex.org/A2135872846", "display_name": "Dipen Deka"}},
        {"author": {"id": "https://openalex.org/A2343127197", "display_name": "Abhijit Thakuria"}},
        {"author": {"id": "https://openalex.org/A9", "display_name": "Dipen Deka"}}]}  # another Dipen Deka
    [paper] = parse_works(json.dumps({"results": [work]}))
    assert paper.authors == ["Abhijit Thakuria", "Dipen Deka", "Dipen Deka"]
