"""mcp_server/paging.py in process: the most items that fit a budget (largest_fit) and a record
made to fit by halving its longest list (fit_record)."""

from __future__ import annotations

import math

import pytest

from litsearch.mcp_server.paging import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS, fit_record, largest_fit, size_of


def test_size_is_compact_json_in_characters():
    assert size_of({"a": [1, 2], "é": "ü"}) == len('{"a":[1,2],"é":"ü"}')
    assert (MIN_MAX_CHARS, DEFAULT_MAX_CHARS, MAX_MAX_CHARS) == (2_000, 20_000, 200_000)


@pytest.mark.parametrize("count,item,budget,expected", [
    (10, 100, 1_000, 10),   # everything fits exactly
    (10, 100, 999, 9),      # one character short
    (10, 100, 550, 5),
    (10, 100, 100, 1),
    (10, 100, 10, 1),       # nothing fits: one item anyway, so a page moves on
    (1, 5_000, 10, 1),
    (0, 100, 1_000, 0),
    (-3, 100, 1_000, 0),
    (2, 100, 150, 1),
    (3, 100, 200, 2),
    (100, 7, 699, 99),
])
def test_largest_fit(count, item, budget, expected):
    assert largest_fit(count, lambda n: n * item, budget) == expected


# Sizes a page of n items may have: rows of one size, a header and rows, rows that grow (each
# row longer than the last), and a size that stays flat then jumps (a row that is much longer).
SIZES = {
    "rows": lambda n: 100 * n,
    "header and rows": lambda n: 250 + 37 * n,
    "growing rows": lambda n: n * n + 5,
    "flat then a jump": lambda n: 10 if n < 6 else 10_000 + n,
}


def most_that_fit(count, size, budget):
    """The answer by looking at every n: the largest in 1..count that fits, else 1 (0 for no items)."""
    if count < 1:
        return 0
    return max((n for n in range(1, count + 1) if size(n) <= budget), default=1)


def boundary_budgets(count, size):
    """Every budget at which the answer changes, one character either side, and extremes."""
    budgets = {0, 1, 10**9}
    for n in range(1, count + 2):
        budgets |= {size(n) - 1, size(n), size(n) + 1}
    return sorted(budgets)


@pytest.mark.parametrize("shape", list(SIZES))
def test_largest_fit_is_the_most_that_fit_at_every_boundary(shape):
    size = SIZES[shape]
    for count in range(0, 34):
        for budget in boundary_budgets(count, size):
            found = largest_fit(count, size, budget)
            assert found == most_that_fit(count, size, budget), (shape, count, budget)
            if count >= 1:
                assert found == 1 or size(found) <= budget  # what is shown fits (one item goes anyway)
                assert found == count or size(found + 1) > budget  # and one more would not


@pytest.mark.parametrize("shape", list(SIZES))
def test_largest_fit_measures_only_real_pages_each_once(shape):
    """``size`` renders a whole page, so it is asked only for 1..count, never twice for the same n,
    not at all when there is no choice to make, and about log2(count) times."""
    for count in range(-1, 70):
        for budget in boundary_budgets(count, SIZES[shape]):
            asked = []
            largest_fit(count, lambda n: asked.append(n) or SIZES[shape](n), budget)
            assert all(1 <= n <= count for n in asked), (count, budget, asked)
            assert len(asked) == len(set(asked)), (count, budget, asked)
            if count <= 1:
                assert asked == []
            else:
                assert len(asked) <= 1 + math.ceil(math.log2(count)), (count, budget, asked)


def test_largest_fit_asks_only_what_it_needs():
    asked = []

    def size(n):
        asked.append(n)
        return n * 10

    assert largest_fit(1000, size, 10_000) == 1000 and asked == [1000]
    asked.clear()
    assert largest_fit(1000, size, 5_005) == 500
    assert len(asked) <= 12 and 1000 in asked


def test_a_record_that_fits_is_returned_whole():
    record = {"title": "t", "references": list(range(10))}
    assert fit_record(record, size_of(record)) == (record, {})


def test_the_longest_list_is_halved_until_the_record_fits():
    record = {"title": "t", "references": [f"r{i:03}" for i in range(40)], "citing": [f"c{i}" for i in range(8)]}
    budget = size_of({**record, "references": record["references"][:10]})
    fitted, cut = fit_record(record, budget)
    assert fitted["references"] == record["references"][:10] and fitted["citing"] == record["citing"]
    assert cut == {"references": "10 of 40 kept"} and size_of(fitted) <= budget
    assert len(record["references"]) == 40  # the caller's record is left as it was


def test_both_lists_are_cut_when_one_is_not_enough_and_each_says_of_how_many():
    record = {"a": ["x" * 10] * 16, "b": ["y" * 10] * 16}
    fitted, cut = fit_record(record, 100)
    assert size_of(fitted) <= 100
    assert cut == {"a": f"{len(fitted['a'])} of 16 kept", "b": f"{len(fitted['b'])} of 16 kept"}


def test_a_long_text_is_halved_and_says_how_many_characters_were_kept():
    record = {"id": "W1", "abstract": "z" * 1000}
    fitted, cut = fit_record(record, size_of({"id": "W1", "abstract": "z" * 500 + "…"}))
    assert fitted == {"id": "W1", "abstract": "z" * 500 + "…"}
    assert cut == {"abstract": "500 of 1,000 characters kept"}


def test_an_object_or_a_short_text_too_big_is_left_out_and_says_its_size():
    record = {"id": "W1", "meta": {"k": "v" * 400}, "note": "n" * 150, "one": ["only"]}
    meta_size = size_of(record["meta"])
    fitted, cut = fit_record(record, size_of({**record, "meta": None}))
    assert fitted == {**record, "meta": None} and cut == {"meta": f"left out ({meta_size:,} characters)"}
    fitted, cut = fit_record(record, size_of({"id": "W1", "meta": None, "note": None, "one": ["only"]}))
    assert fitted["note"] is None and cut["note"] == "left out (152 characters)" and fitted["one"] == ["only"]


def test_the_kept_fields_are_never_cut_even_when_the_record_stays_too_big():
    record = {"id": "W" * 300, "title": "t" * 500, "display_name": "d" * 500, "one": ["only"]}
    fitted, cut = fit_record(record, 50)
    assert fitted == {**record, "one": None} and cut == {"one": "left out (8 characters)"}
    assert fit_record({"title": "t" * 500}, 50) == ({"title": "t" * 500}, {})


def test_a_list_of_two_is_cut_to_one():
    record = {"title": "t", "references": ["a" * 100, "b" * 100]}
    fitted, cut = fit_record(record, 150)
    assert fitted == {"title": "t", "references": ["a" * 100]} and cut == {"references": "1 of 2 kept"}


@pytest.mark.parametrize("length,kept,said", [
    (201, "t" * 100 + "…", "100 of 201 characters kept"),  # past 200 characters a text is halved
    (200, None, "left out (202 characters)"),  # up to 200 it is left out whole (a half would say little)
    (199, None, "left out (201 characters)"),
])
def test_a_text_is_halved_only_past_200_characters(length, kept, said):
    record = {"id": "W1", "note": "t" * length}
    fitted, cut = fit_record(record, size_of(record) - 1)
    assert fitted == {"id": "W1", "note": kept} and cut == {"note": said}


def test_empty_fields_are_nothing_to_cut():
    record = {"id": "W" * 300, "note": "", "refs": [], "meta": {}, "none": None}
    assert fit_record(record, 50) == (record, {})
