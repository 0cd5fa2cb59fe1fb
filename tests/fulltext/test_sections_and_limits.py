"""--section and --max-chars: which sections are shown, and the exact account of what is not.
Example-based on a small document, then properties over arbitrary documents and limits."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsearch.core.errors import UsageError
from litsearch.fulltext.document import FullText, Section, finish_sections
from litsearch.fulltext.limits import cut_text, limit_sections, select_sections

PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def paper() -> FullText:
    sections = [Section("Abstract", "a" * 100), Section("1 Introduction", "i" * 300),
                Section("2 Materials and Methods", "m" * 50), Section("2.1 Cohort", "c" * 400, level=2),
                Section("2.2 Statistics", "s" * 200, level=2), Section("3 Results", "r" * 600),
                Section("Figures", "Figure 1. x", kind="figures"), Section("References", "[1] y\n[2] z",
                                                                            kind="references")]
    return FullText("T", ["A"], finish_sections(sections))


@pytest.mark.parametrize("asked, names", [
    (["methods"], ["materials-and-methods", "cohort", "statistics"]),  # a kind, with its subsections
    (["2.2"], ["statistics"]),  # a number
    (["cohort"], ["cohort"]),  # a name
    (["Results"], ["results"]),
    (["intro"], ["introduction"]),  # part of a name
    (["refs", "figures"], None),
    (["abstract", "results"], ["abstract", "results"]),
])
def test_select_sections(asked, names):
    document = paper()
    if names is None:
        with pytest.raises(UsageError, match="no section 'refs' in this paper; its sections are: abstract, "
                                             "introduction, materials-and-methods, results, figures, references"):
            select_sections(document, asked)
        return
    assert [s.name for s in select_sections(document, asked)] == names


def test_no_section_named_means_all():
    document = paper()
    assert select_sections(document, []) == document.sections


def test_limit_fills_in_reading_order_and_never_skips_ahead():
    document = paper()
    selection = limit_sections(document, document.sections, 1000)
    assert [s.name for s in selection.shown] == ["abstract", "introduction", "materials-and-methods", "cohort"]
    # statistics (200) would pass 1000; the 150 left are too few to start it (MIN_CUT_CHARS), and
    # the small figures and references after it are not shown ahead of it.
    assert [s.name for s in selection.left_out] == ["statistics", "results", "figures", "references"]
    assert selection.shown_chars == 100 + 300 + 50 + 400 and selection.cut is None


def test_the_section_that_does_not_fit_is_cut_to_what_is_left():
    document = paper()
    selection = limit_sections(document, document.sections, 1300)
    assert [s.name for s in selection.shown][-1] == "statistics"
    assert selection.cut is not None and selection.cut.name == "results"
    assert selection.cut_chars == 1300 - 1050  # no space in "rrr…": cut at the limit exactly
    assert [s.name for s in selection.left_out] == ["figures", "references"]
    assert selection.shown_chars == 1300


def test_when_nothing_fits_the_first_section_is_cut_and_says_so():
    document = paper()
    selection = limit_sections(document, select_sections(document, ["results"]), 250)
    assert selection.cut is not None and selection.cut.name == "results"
    assert selection.cut_chars == 250  # no space in "rrr…": cut at the limit exactly
    assert selection.shown == [] and selection.left_out == []


def test_no_limit():
    document = paper()
    for limit in (None, 0):
        selection = limit_sections(document, document.sections, limit)
        assert selection.shown == document.sections and selection.left_out == []


def test_cut_text_prefers_paragraphs_then_words():
    text = "First paragraph here.\n\nSecond paragraph is longer than the first."
    assert cut_text(text, 40) == "First paragraph here."
    assert cut_text("alpha beta gamma delta", 13) == "alpha beta"
    assert cut_text("short", 100) == "short"


headings = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=20)
sections = st.lists(st.tuples(headings, st.text(max_size=300), st.integers(min_value=1, max_value=4)), max_size=12)


@PROPERTY
@given(sections, st.one_of(st.none(), st.integers(min_value=0, max_value=2000)), st.data())
def test_every_section_is_accounted_for_and_none_is_changed(raw, limit, data):
    document = FullText("T", [], finish_sections([Section(h, t, level=level) for h, t, level in raw]))
    originals = [(s.name, s.text) for s in document.sections]
    names = [s.name for s in document.sections]
    assert len(set(names)) == len(names)
    asked = data.draw(st.lists(st.sampled_from(names), max_size=3)) if names else []
    wanted = select_sections(document, asked)
    selection = limit_sections(document, wanted, limit)
    groups = [selection.shown, selection.left_out, selection.not_asked, [selection.cut] if selection.cut else []]
    ids = [id(s) for group in groups for s in group]
    assert sorted(ids) == sorted(id(s) for s in document.sections)  # each section exactly once
    if limit:
        assert selection.shown_chars <= limit
        if selection.cut is not None:
            assert selection.cut.text.startswith(selection.cut.text[:selection.cut_chars])
    assert [(s.name, s.text) for s in document.sections] == originals
