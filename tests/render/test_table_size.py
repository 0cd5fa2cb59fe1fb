"""The default 20-row table on real abstracts (the recorded OpenAlex and Semantic Scholar
answers in ../shared) stays under 20,000 characters (about 5,000 tokens): what the README
promises the model reads. bench/table_size.py prints the figures."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import REPO, shared_file

spec = importlib.util.spec_from_file_location("table_size", REPO / "bench" / "table_size.py")
table_size = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table_size)


@pytest.mark.parametrize("provider, path, parse", table_size.ANSWERS, ids=lambda value: getattr(value, "name", None))
def test_twenty_real_rows_stay_under_20000_characters(provider, path, parse):
    shared_file(str(path.relative_to(path.parents[2])))  # skips when ../shared is absent
    text = table_size.table_for(provider, path, parse)
    assert text.count("\n| ") == 21  # header row and 20 papers
    assert text.count("\n> ") >= 10  # real abstracts, not empty rows
    assert len(text) < 20_000, len(text)
