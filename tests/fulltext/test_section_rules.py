"""fulltext/limits.py rule by rule, in process: which sections a name finds, what --max-chars
shows whole, cuts or leaves out at each boundary (a section that just fits, a cut of exactly
MIN_CUT_CHARS), where a cut ends (a paragraph, a line, a word, but not one too early), and the
status each section is reported with."""

from __future__ import annotations

import pytest

from litsearch.core.errors import UsageError
from litsearch.fulltext.document import FullText, Section, finish_sections
from litsearch.fulltext.limits import MIN_CUT_CHARS, Selection, cut_text, limit_sections, select_sections


def document(*sections: Section) -> FullText:
    return FullText("T", [], finish_sections(list(sections)))


def names(sections) -> list[str]:
    return [section.name for section in sections]


def paper() -> FullText:
    return document(Section("Abstract", "a" * 100), Section("1 Background", "i" * 300),
                    Section("2 Materials and Methods", "m" * 50), Section("2.1 Patients", "p" * 400, level=2),
                    Section("2.1.1 Consent", "c" * 30, level=3), Section("2.2 Statistical methods", "s" * 200, level=2),
                    Section("3 Results", "r" * 600), Section("3.1 Methods compared", "x" * 10, level=2),
                    Section("Acknowledgements", "thanks"))


# ---------------------------------------------------------------- which sections a name finds

@pytest.mark.parametrize("asked,found", [
    (["materials-and-methods"], ["materials-and-methods", "patients", "consent", "statistical-methods"]),
    (["2.1"], ["patients", "consent"]),  # a number, with its subsections
    (["2.1.1"], ["consent"]),
    (["Materials and   Methods"], ["materials-and-methods", "patients", "consent", "statistical-methods"]),
    (["methods"], ["materials-and-methods", "patients", "consent", "statistical-methods"]),  # a kind: the top one
    (["introduction"], ["background"]),  # a kind the heading does not spell
    (["experimental procedures"], ["materials-and-methods", "patients", "consent", "statistical-methods"]),  # a
    # heading of that kind in other words
    (["background"], ["background"]),
    (["stat"], ["statistical-methods"]),  # the start of a name
    (["compared"], ["methods-compared"]),  # a word of a heading
    (["results", "abstract", "results"], ["abstract", "results", "methods-compared"]),  # in document order, once
    (["patients", "3"], ["materials-and-methods", "patients", "consent", "statistical-methods"]),  # numbers count
    (["2"], ["background"]),  # entries in order (the abstract is 1), not the paper's own numbering
    (["consent", "2.1"], ["patients", "consent"]),
])
def test_a_name_finds_sections_with_their_subsections(asked, found):
    assert names(select_sections(paper(), asked)) == found


def test_a_name_that_finds_nothing_lists_the_top_level_sections():
    with pytest.raises(UsageError) as error:
        select_sections(paper(), ["abstract", "figures"])
    assert str(error.value) == ("no section 'figures' in this paper; its sections are: abstract, background, "
                                "materials-and-methods, results, acknowledgements")


def test_a_kind_found_only_below_the_top_level_gives_the_shallowest():
    doc = document(Section("1 Study", "x"), Section("1.1 Methods", "m", level=2), Section("1.1.1 Methods in detail",
                                                                                        "d", level=3))
    assert names(select_sections(doc, ["methods"])) == ["methods", "methods-in-detail"]


# ---------------------------------------------------------------- --max-chars

def plain(*lengths: int) -> FullText:
    """Sections of one repeated letter each (no space or line to cut at)."""
    return document(*(Section(f"Part {n}", "abcdefghij"[n] * length) for n, length in enumerate(lengths)))


def test_a_section_that_just_fits_is_shown_whole():
    doc = plain(100, 200, 300)
    selection = limit_sections(doc, doc.sections, 300)
    assert names(selection.shown) == ["part-0", "part-1"] and selection.cut is None
    assert names(selection.left_out) == ["part-2"] and selection.shown_chars == 300


@pytest.mark.parametrize("limit,cut_chars", [(100 + MIN_CUT_CHARS, MIN_CUT_CHARS), (100 + MIN_CUT_CHARS + 1, 201),
                                             (100 + MIN_CUT_CHARS - 1, None)])
def test_a_cut_is_shown_when_it_is_at_least_min_cut_chars(limit, cut_chars):
    assert MIN_CUT_CHARS == 200
    doc = plain(100, 1000, 50)
    selection = limit_sections(doc, doc.sections, limit)
    assert names(selection.shown) == ["part-0"]
    if cut_chars is None:
        assert selection.cut is None and names(selection.left_out) == ["part-1", "part-2"]
        assert selection.shown_chars == 100
    else:
        assert selection.cut is doc.sections[1] and selection.cut_chars == cut_chars
        assert names(selection.left_out) == ["part-2"] and selection.shown_chars == limit


def test_the_first_text_is_cut_however_short_when_nothing_else_is_shown():
    doc = document(Section("Title page", ""), Section("Body", "b" * 1000), Section("End", "e"))
    selection = limit_sections(doc, doc.sections, 50)
    assert names(selection.shown) == ["title-page"]  # a heading alone shows no text
    assert (selection.cut.name, selection.cut_chars) == ("body", 50) and names(selection.left_out) == ["end"]


def test_a_cut_that_would_be_empty_is_left_out():
    doc = document(Section("Body", "b" * 1000))
    selection = limit_sections(doc, doc.sections, 1)
    assert (selection.cut.name, selection.cut_chars) == ("body", 1)
    spaced = document(Section("Intro", "a" * 300), Section("Body", "  " + "b" * 1000))
    selection = limit_sections(spaced, spaced.sections, 300 + MIN_CUT_CHARS)
    assert selection.cut is not None  # cleaned text: no leading spaces to cut at


def test_the_status_of_each_section():
    doc = plain(100, 1000, 50, 10)
    wanted = select_sections(doc, ["part-0", "part-1", "part-2"])
    selection = limit_sections(doc, wanted, 400)
    statuses = [selection.status(section) for section in doc.sections]
    assert statuses == ["shown", "cut", "left out", "not asked"]
    assert selection.status(Section("Elsewhere", "x")) == "not asked"
    unlimited = limit_sections(doc, wanted, None)
    assert [unlimited.status(section) for section in doc.sections] == ["shown", "shown", "shown", "not asked"]
    assert unlimited.max_chars is None and limit_sections(doc, wanted, 400).max_chars == 400


# ---------------------------------------------------------------- where a cut ends

@pytest.mark.parametrize("text,limit,start", [
    ("short", 5, "short"), ("short", 4, "shor"),
    ("alpha beta", 10, "alpha beta"), ("alpha beta\n\ngamma", 17, "alpha beta\n\ngamma"),  # it fits: no cut at all
    ("First part.\n\nSecond\npart goes on and on", 30, "First part."),  # a paragraph first
    ("First line\nsecond line goes on and on", 25, "First line"),  # then a line
    ("alpha beta gamma delta", 13, "alpha beta"),  # then a word
    ("a" * 10 + " " + "b" * 40, 30, "a" * 10 + " " + "b" * 19),  # a space at a third of the limit is too early
    ("a" * 11 + " " + "b" * 40, 30, "a" * 11),  # one past it is not
    ("a" * 10 + "\n\n" + "b" * 40, 30, "a" * 10),  # the break's second character is past a third
    ("a" * 11 + "\n\n" + "b" * 40, 30, "a" * 11),
    ("a" * 10 + "\n" + "b" * 40, 30, "a" * 10 + "\n" + "b" * 19),
    ("a" * 11 + "\n" + "b" * 40, 30, "a" * 11),
    ("a" * 12 + "  \n\n" + "b" * 40, 30, "a" * 12),  # trailing spaces go
])
def test_a_cut_ends_at_a_paragraph_a_line_or_a_word_not_too_early(text, limit, start):
    assert cut_text(text, limit) == start


def test_the_status_look_up_is_no_part_of_the_selection():
    # status() keeps a look-up table: asking does not change what the selection is, shows or equals,
    # and it cannot be given from outside.
    doc = plain(100, 1000, 50)
    asked, fresh = (limit_sections(doc, doc.sections, 400) for _ in range(2))
    assert asked.status(doc.sections[1]) == "cut"
    assert asked == fresh and repr(asked) == repr(fresh) and "_statuses" not in repr(asked)
    with pytest.raises(TypeError):
        Selection(shown=[], _statuses={})
