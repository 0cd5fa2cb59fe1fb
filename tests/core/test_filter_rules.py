"""The search filters (core/filters.py) on their own: every way to write a range, the bounds
of each range included, what each filter says about itself, and which papers pass. Written
to kill the mutants of core/filters.py (bench/mutation.py); the provider translations are
in test_filters.py."""

from __future__ import annotations

from datetime import date

import pytest

from litsearch.core.filters import (
    Filters, build_filters, has_data, matches, matches_author, matches_date, matches_venue, paper_types,
    parse_count_range, parse_day, parse_year_range, passes,
)
from litsearch.core.records import Paper


def paper(**fields) -> Paper:
    return Paper(provider=fields.pop("provider", "openalex"), title=fields.pop("title", "A study"), **fields)


# --- writing ranges -------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("2019-2024", (date(2019, 1, 1), date(2024, 12, 31))),
    (" 2019 – 2024 ", (date(2019, 1, 1), date(2024, 12, 31))),
    ("2019-", (date(2019, 1, 1), None)),
    ("-2015", (None, date(2015, 12, 31))),
    ("2020", (date(2020, 1, 1), date(2020, 12, 31))),
    ("2020-2020", (date(2020, 1, 1), date(2020, 12, 31))),
])
def test_year_ranges(text, expected):
    assert parse_year_range(text) == expected


@pytest.mark.parametrize("text,message", [
    ("", "--year takes 2019-2024, 2019-, -2015 or 2020, not ''"),
    ("-", "--year takes 2019-2024, 2019-, -2015 or 2020, not '-'"),
    ("19-20", "--year takes 2019-2024, 2019-, -2015 or 2020, not '19-20'"),
    ("2024-2019", "--year range is backwards: '2024-2019'"),
])
def test_bad_year_ranges(text, message):
    with pytest.raises(ValueError) as caught:
        parse_year_range(text)
    assert str(caught.value) == message


@pytest.mark.parametrize("text,expected", [
    ("100", (100, None)), ("100-", (100, None)), (">=100", (100, None)), (">100", (101, None)),
    ("<50", (None, 49)), ("<0", (None, 0)), ("<1", (None, 0)), ("<=50", (None, 50)), ("-50", (None, 50)),
    ("100-500", (100, 500)), ("100–500", (100, 500)), (" 100 - 500 ", (100, 500)), ("7-7", (7, 7)),
    (0, (0, None)),
])
def test_count_ranges(text, expected):
    assert parse_count_range(text) == expected


@pytest.mark.parametrize("text,message", [
    ("many", "--citations takes 100 (at least), >100, <50, 100-500, 100- or -50, not 'many'"),
    (">100-200", "--citations: '>100-200' mixes a comparison and a range"),
    ("500-100", "--citations range is backwards: '500-100'"),
])
def test_bad_count_ranges(text, message):
    with pytest.raises(ValueError) as caught:
        parse_count_range(text)
    assert str(caught.value) == message


def test_a_count_range_names_its_own_flag():
    with pytest.raises(ValueError, match=r"^--references range is backwards"):
        parse_count_range("9-1", "--references")


def test_nothing_asked_is_no_filter():
    built = build_filters()
    assert built.active() == [] and not built
    assert (built.venue, built.author, built.open_access, built.types) == (None, None, False, ())


@pytest.mark.parametrize("flag", ["since", "until"])
def test_a_bad_day_names_its_flag(flag):
    with pytest.raises(ValueError) as caught:
        build_filters(**{flag: "2020-13-01"})
    assert str(caught.value) == f"--{flag} takes a date as YYYY-MM-DD, not '2020-13-01'"


def test_days():
    assert parse_day(" 2021-03-04 ", "--since") == date(2021, 3, 4)
    with pytest.raises(ValueError) as caught:
        parse_day("March 4", "--until")
    assert str(caught.value) == "--until takes a date as YYYY-MM-DD, not 'March 4'"


# --- building filters from the command line -------------------------------------------

def test_since_and_until_narrow_a_year_range_and_stand_alone():
    narrowed = build_filters(year="2018-2022", since="2019-06-01", until="2021-02-03")
    assert (narrowed.date_from, narrowed.date_to) == (date(2019, 6, 1), date(2021, 2, 3))
    wider = build_filters(year="2019-2020", since="2010-01-01", until="2030-01-01")
    assert (wider.date_from, wider.date_to) == (date(2019, 1, 1), date(2020, 12, 31))
    alone = build_filters(since="2019-06-01", until="2019-06-01")
    assert (alone.date_from, alone.date_to) == (date(2019, 6, 1), date(2019, 6, 1))
    with pytest.raises(ValueError, match="^the date filters leave an empty range$"):
        build_filters(since="2020-01-02", until="2020-01-01")


def test_types_are_checked_and_kept_once_in_order():
    assert build_filters(types=["Review, preprint", "review", " ,conference"]).types == (
        "review", "preprint", "conference")
    with pytest.raises(ValueError) as caught:
        build_filters(types=["article,thesis"])
    assert str(caught.value) == "--type takes article, review, preprint, conference, not 'thesis'"


def test_citation_bounds_are_checked():
    assert (build_filters(min_citations=0, max_citations=0).min_citations, ) == (0,)
    assert build_filters(min_citations=5, max_citations=5).max_citations == 5
    for kwargs, message in [({"min_citations": -1}, "--min-citations cannot be negative"),
                            ({"max_citations": -1}, "the most citations cannot be negative"),
                            ({"min_citations": 6, "max_citations": 5},
                             "the citation range is backwards: at least 6, at most 5")]:
        with pytest.raises(ValueError) as caught:
            build_filters(**kwargs)
        assert str(caught.value) == message


def test_places_and_entities():
    built = build_filters(countries=["de, us", "DE"], continents=["North America", "south-america", "europe"],
                          venue="  Nature ", author=" ", source=" S137773608 ", funder="")
    assert built.countries == ("DE", "US")
    assert built.continents == ("north_america", "south_america", "europe")
    assert (built.venue, built.author, built.source, built.funder) == ("Nature", None, "S137773608", None)
    with pytest.raises(ValueError) as caught:
        build_filters(countries=["Germany"])
    assert str(caught.value) == "--country takes two-letter ISO country codes (DE, US, BR), not 'Germany'"
    with pytest.raises(ValueError) as caught:
        build_filters(continents=["Atlantis"])
    assert str(caught.value) == ("--continent takes africa, antarctica, asia, europe, north_america, oceania, "
                                 "south_america, not 'Atlantis'")
    with pytest.raises(TypeError, match="^unknown filters: colour, size$"):
        build_filters(size="x", colour="y")


# --- what filters say about themselves -------------------------------------------------

def test_active_filters_in_their_fixed_order():
    everything = build_filters(year="2020", venue="Nature", author="Doudna", open_access=True, types=["review"],
                               min_citations=0, max_citations=0, countries=["DE"], continents=["europe"],
                               source="S1", institution="I1", topic="T1", publisher="P1", funder="F1")
    assert everything.active() == ["date", "venue", "author", "open_access", "type", "min_citations",
                                   "max_citations", "source", "institution", "topic", "publisher", "funder",
                                   "country", "continent"]
    assert Filters().active() == [] and not Filters()
    assert Filters(date_to=date(2020, 1, 1)).active() == ["date"] and Filters(min_citations=0)


def test_only_keeps_the_named_filters():
    everything = build_filters(year="2020", venue="Nature", author="Doudna", open_access=True, types=["review"],
                               min_citations=1, max_citations=9, countries=["DE"], continents=["europe"],
                               source="S1", institution="I1").with_resolution("source", "S1", "Nature")
    kept = everything.only({"date", "type", "max_citations", "country", "source"})
    assert kept.active() == ["date", "type", "max_citations", "source", "country"]
    assert (kept.date_from, kept.date_to, kept.types, kept.max_citations, kept.countries, kept.source) == (
        date(2020, 1, 1), date(2020, 12, 31), ("review",), 9, ("DE",), "S1")
    assert kept.resolved == {"source": ("S1", "Nature")}
    rest = everything.only({"venue", "author", "open_access", "min_citations", "continent", "institution"})
    assert rest.active() == ["venue", "author", "open_access", "min_citations", "institution", "continent"]
    assert rest.resolved == {} and rest.open_access is True
    assert everything.only(set()).active() == []


def test_entity_ids_once_resolved():
    resolved = Filters(institution="MIT").with_resolution("institution", "I63966007", "MIT")
    assert resolved.entity_id("institution") == "I63966007" and resolved.entity_id("topic") is None
    assert Filters().with_resolution("topic", "T1", "x").with_resolution("funder", "F1", "y").resolved == {
        "topic": ("T1", "x"), "funder": ("F1", "y")}


@pytest.mark.parametrize("kwargs,whole,years", [
    ({"date_from": date(2020, 1, 1), "date_to": date(2022, 12, 31)}, True, (2020, 2022)),
    ({"date_from": date(2020, 1, 2)}, False, (2020, None)),
    ({"date_from": date(2020, 2, 1)}, False, (2020, None)),
    ({"date_to": date(2022, 12, 30)}, False, (None, 2022)),
    ({"date_to": date(2022, 11, 31 - 1)}, False, (None, 2022)),
    ({}, True, (None, None)),
])
def test_whole_years(kwargs, whole, years):
    filters = Filters(**kwargs)
    assert filters.whole_years is whole
    assert (filters.year_from, filters.year_to) == years


@pytest.mark.parametrize("filters,name,words", [
    (build_filters(year="2019-2024"), "date", "year 2019–2024"),
    (build_filters(year="2019-"), "date", "year 2019–"),
    (build_filters(year="-2015"), "date", "year –2015"),
    (build_filters(year="2020"), "date", "year 2020"),
    (build_filters(since="2020-03-01"), "date", "date 2020-03-01 to …"),
    (build_filters(until="2020-03-01"), "date", "date … to 2020-03-01"),
    (build_filters(venue="Nature"), "venue", "venue 'Nature'"),
    (build_filters(author="Doudna"), "author", "author 'Doudna'"),
    (build_filters(open_access=True), "open_access", "open access"),
    (build_filters(types=["review", "preprint"]), "type", "type review|preprint"),
    (build_filters(min_citations=10), "min_citations", "at least 10 citations"),
    (build_filters(max_citations=50), "max_citations", "at most 50 citations"),
    (build_filters(countries=["de", "us"]), "country", "country DE|US"),
    (build_filters(continents=["asia", "europe"]), "continent", "continent asia|europe"),
    (build_filters(institution="MIT"), "institution", "institution 'MIT'"),
    (build_filters(institution="MIT").with_resolution("institution", "I63966007", "Massachusetts Institute of "
                                                      "Technology"),
     "institution", "institution 'MIT' → Massachusetts Institute of Technology (I63966007)"),
    (build_filters(source="S137773608").with_resolution("source", "S137773608", "Nature"),
     "source", "source Nature (S137773608)"),
    (build_filters(topic="T10001").with_resolution("topic", "T10001", "T10001"), "topic", "topic T10001"),
    (build_filters(funder="nih").with_resolution("funder", "F4320332161", ""), "funder", "funder 'nih' → F4320332161"),
])
def test_each_filter_describes_itself(filters, name, words):
    assert filters.describe(name) == words


# --- which papers pass ----------------------------------------------------------------

@pytest.mark.parametrize("day,kept", [("2020-01-01", True), ("2019-12-31", False), ("2022-12-31", True),
                                      ("2023-01-01", False), ("2021-06-15T00:00:00", True)])
def test_exact_days_against_an_exact_range(day, kept):
    filters = Filters(date_from=date(2020, 1, 1), date_to=date(2022, 12, 31))
    assert matches_date(paper(year=1900, publication_date=day), filters) is kept


@pytest.mark.parametrize("year,kept", [(2019, False), (2020, True), (2022, True), (2023, False)])
def test_a_year_only_paper_is_judged_by_years(year, kept):
    filters = Filters(date_from=date(2020, 3, 15), date_to=date(2022, 9, 1))  # not whole years
    assert matches_date(paper(year=year), filters) is kept
    assert matches_date(paper(year=year, publication_date="no date"), filters) is kept


def test_a_full_date_is_judged_by_the_day_not_the_year():
    filters = Filters(date_from=date(2020, 3, 15), date_to=date(2020, 9, 1))
    assert matches_date(paper(year=2020, publication_date="2020-02-01"), filters) is False
    assert matches_date(paper(year=2020, publication_date="2020-09-02"), filters) is False
    assert matches_date(paper(year=2020, publication_date="2020-06-01"), filters) is True
    assert matches_date(paper(year=2020), filters) is True  # only the year is known


def test_open_ended_ranges_and_missing_dates():
    assert matches_date(paper(year=1), Filters(date_to=date(2000, 12, 31))) is True
    assert matches_date(paper(year=9999), Filters(date_from=date(2000, 1, 1))) is True
    assert matches_date(paper(publication_date="0001-01-01"), Filters(date_to=date(2000, 12, 31))) is True
    assert matches_date(paper(publication_date="9999-12-31"), Filters(date_from=date(2000, 1, 1))) is True
    assert matches_date(paper(year=2020, publication_date="2020-05-05"), Filters()) is True
    assert matches_date(paper(), Filters(date_from=date(2000, 1, 1))) is False
    assert matches_date(paper(year=10000), Filters(date_from=date(2000, 1, 1))) is False  # out of range
    assert matches_date(paper(year=0), Filters(date_to=date(2000, 1, 1))) is False
    assert matches_date(paper(year="2020"), Filters(date_to=date(2030, 1, 1))) is False  # wrongly typed


@pytest.mark.parametrize("journal,asked,kept", [
    ("Nature Biotechnology", "Nat Biotechnol", True),
    ("Nature Biotechnology", "Nature", True),
    ("Nature Biotechnology", "Biotechnology", True),
    ("Nature Biotechnology", "Biotechnol Nat", False),  # in order
    ("Nature", "Nature Biotechnology", False),
    ("Nature Biotechnology", "Nature Nature", False),  # each word starts its own word
    ("The Lancet", "lancet", True),
    ("Nature", "", False),
    (None, "Nature", False),
    (None, "X", False),
])
def test_venues(journal, asked, kept):
    assert matches_venue(paper(journal=journal), asked) is kept


@pytest.mark.parametrize("authors,asked,kept", [
    (["Jennifer A. Doudna"], "Doudna", True),
    (["Jennifer A. Doudna"], "Jennifer Doudna", True),
    (["Jennifer A. Doudna"], "J Doudna", True),
    (["Jennifer A. Doudna"], "J. A. Doudna", True),
    (["Doudna JA"], "Doudna", True),
    (["Doudna J"], "J Doudna", True),  # PubMed's "surname initials" order
    (["Jennifer A. Doudna"], "Doudna Jennifer", True),  # the asked name the other way round
    (["Jennifer A. Doudna"], "Doudna Emmanuelle", False),
    (["Jennifer A. Doudna"], "Emmanuelle Doudna", False),
    (["Jennifer A. Doudna"], "Charpentier", False),
    (["Emmanuelle Charpentier", "Jennifer A. Doudna"], "doudna", True),
    (["Jennifer Doudnaova"], "Doudna", False),  # a whole word, not a prefix
    ([], "Doudna", False),
    (["Jennifer A. Doudna"], "", False),
    (["Jennifer A. Doudna"], "  ", False),
    (["—"], "Doudna", False),  # a name with no words matches nobody
    (["Anna Maria Miller"], "Maria A", False),  # a given name asked as the surname

])
def test_authors(authors, asked, kept):
    assert matches_author(paper(authors=authors), asked) is kept


@pytest.mark.parametrize("fields,types", [
    ({"publication_types": ["JournalArticle"]}, {"article"}),
    ({"publication_types": ["Journal Article", "Review"]}, {"article", "review"}),
    ({"publication_types": ["Systematic Review"]}, {"review"}),
    ({"publication_types": ["Meta-Analysis"]}, {"review"}),
    ({"publication_types": ["posted-content"]}, {"preprint"}),
    ({"publication_types": ["proceedings-article"]}, {"conference"}),
    ({"publication_types": ["Conference Paper"]}, {"conference"}),
    ({"publication_types": ["Congress"]}, {"conference"}),
    ({"publication_types": ["article"]}, {"article"}),
    ({"publication_types": ["journal-article"]}, {"article"}),
    ({"publication_types": ["Journal Article."]}, {"article"}),  # an export's stray punctuation
    ({"publication_types": ["MetaAnalysis"]}, {"review"}),  # Semantic Scholar's spelling
    ({"publication_types": ["Meta Analysis"]}, {"review"}),
    ({"publication_types": ["Preprint"]}, {"preprint"}),
    ({"publication_types": ["Posted Content"]}, {"preprint"}),
    ({"publication_types": ["Conference"]}, {"conference"}),
    ({"publication_types": ["inproceedings"]}, {"conference"}),
    ({"publication_types": ["In Proceedings"]}, {"conference"}),
    ({"publication_types": ["Editorial"]}, set()),
    ({"arxiv_id": "1706.03762"}, {"preprint"}),
    ({"arxiv_id": "1706.03762", "doi": "10.5555/3295222.3295349"}, set()),
])
def test_types_in_every_spelling(fields, types):
    assert paper_types(paper(**fields)) == types


def test_citation_bounds_include_their_ends():
    at_least, at_most = Filters(min_citations=10), Filters(max_citations=10)
    assert [matches(paper(citation_count=n), at_least, "min_citations") for n in (9, 10, 11)] == [False, True, True]
    assert [matches(paper(citation_count=n), at_most, "max_citations") for n in (9, 10, 11)] == [True, True, False]
    assert matches(paper(citation_count=None), at_most, "max_citations") is False
    assert matches(paper(citation_count=None), Filters(min_citations=0), "min_citations") is True
    assert matches(paper(citation_count=0), Filters(max_citations=0), "max_citations") is True
    assert matches(paper(citation_count=1), Filters(max_citations=0), "max_citations") is False
    assert matches(paper(citation_count=None), Filters(min_citations=1), "min_citations") is False


@pytest.mark.parametrize("name", ["institution", "topic", "publisher", "funder", "country", "continent"])
def test_openalex_only_filters_match_no_record_of_their_own(name):
    everything = paper(journal="Nature", authors=["A B"], year=2020, citation_count=5, oa_url="https://x.org/a")
    assert matches(everything, Filters(), name) is False
    assert has_data(everything, name) is False


def test_an_unset_venue_or_author_matches_nothing():
    assert matches(paper(journal="Nature"), Filters(), "venue") is False
    assert matches(paper(authors=["Jennifer A. Doudna"]), Filters(), "author") is False


def test_other_filters_on_one_record():
    assert matches(paper(oa_url="https://arxiv.org/pdf/1706.03762"), Filters(open_access=True), "open_access")
    assert not matches(paper(), Filters(open_access=True), "open_access")
    assert matches(paper(publication_types=["Review"]), Filters(types=("review", "article")), "type")
    assert not matches(paper(publication_types=["Review"]), Filters(types=("article",)), "type")
    assert matches(paper(journal="Nature"), Filters(venue="Nature"), "venue")
    assert matches(paper(authors=["Jennifer A. Doudna"]), Filters(author="Doudna"), "author")
    assert matches(paper(year=2020), Filters(date_from=date(2020, 1, 1)), "date")
    source = Filters(source="S137773608").with_resolution("source", "S137773608", "Nature")
    assert matches(paper(journal="Nature"), source, "source")
    assert not matches(paper(journal="Science"), source, "source")
    unnamed = Filters(source="S137773608").with_resolution("source", "S137773608", "S137773608")
    assert not matches(paper(journal="S137773608"), unnamed, "source")
    assert not matches(paper(journal="Nature"), Filters(source="S137773608"), "source")
    assert not matches(paper(journal="Nature"), Filters(institution="I1"), "institution")
    with pytest.raises(KeyError):
        matches(paper(), Filters(), "colour")


@pytest.mark.parametrize("fields,name,known", [
    ({"year": 2020}, "date", True), ({"publication_date": "2020-01-01"}, "date", True), ({}, "date", False),
    ({"journal": "Nature"}, "venue", True), ({}, "venue", False),
    ({"authors": ["A B"]}, "author", True), ({}, "author", False),
    ({}, "open_access", True),
    ({"publication_types": ["Review"]}, "type", True), ({"arxiv_id": "1706.03762"}, "type", True), ({}, "type", False),
    ({"citation_count": 0}, "min_citations", True), ({}, "min_citations", False),
    ({"citation_count": 0}, "max_citations", True), ({}, "max_citations", False),
    ({"journal": "Nature"}, "source", True), ({}, "source", False),
    ({"journal": "Nature"}, "institution", False),
])
def test_which_data_each_filter_reads(fields, name, known):
    assert has_data(paper(**fields), name) is known


def test_a_paper_passes_on_any_record_or_when_vouched_for_without_data():
    filters = Filters(date_from=date(2020, 1, 1))
    old, new, undated = paper(year=2018), paper(provider="arxiv", year=2021), paper(provider="pubmed")
    assert passes([old, new], filters, "date", vouched=False) is True
    assert passes([old], filters, "date", vouched=True) is False  # data says no
    assert passes([undated], filters, "date", vouched=True) is True  # a provider applied it
    assert passes([undated], filters, "date", vouched=False) is False
    assert passes([undated, old], filters, "date", vouched=True) is False


# --- preprints (--preprints / --no-preprints) --------------------------------------------

def test_the_preprint_filter_is_active_kept_by_only_and_says_what_it_keeps():
    only, none = build_filters(preprints=True), build_filters(preprints=False)
    assert only.active() == ["preprints"] and none.active() == ["preprints"]
    assert build_filters().preprints is None and build_filters().active() == []
    assert only.describe("preprints") == "preprints only" and none.describe("preprints") == "no preprints"
    assert only.only({"preprints"}).preprints is True and none.only({"preprints", "date"}).preprints is False
    assert only.only({"date", "type"}).preprints is None


@pytest.mark.parametrize("preprints,types,error", [
    (True, ["article"], "--preprints and --type article disagree; give one of them"),
    (True, ["article", "review"], "--preprints and --type article,review disagree; give one of them"),
    (False, ["preprint"], "--no-preprints and --type preprint disagree; give one of them"),
    (True, ["preprint"], None), (True, ["article", "preprint"], None), (True, [], None),
    (False, ["article", "preprint"], None), (False, ["article"], None), (False, [], None),
    (None, ["preprint"], None),
])
def test_the_preprint_filter_and_the_type_filter_must_agree(preprints, types, error):
    if error is None:
        assert build_filters(preprints=preprints, types=types).preprints is preprints
    else:
        with pytest.raises(ValueError) as caught:
            build_filters(preprints=preprints, types=types)
        assert str(caught.value) == error


BIORXIV = paper(provider="europepmc", journal="bioRxiv", publication_types=["Preprint"], external_ids={"ppr": "PPR1"})
ARTICLE = paper(provider="pubmed", journal="Frontiers in Bioengineering", publication_types=["Journal Article"])
ARXIV = paper(provider="arxiv", arxiv_id="2101.00001")


@pytest.mark.parametrize("records,kept_by_only,kept_by_none", [
    ([BIORXIV], True, False),
    ([ARXIV], True, False),
    ([ARTICLE], False, True),
    ([BIORXIV, ARTICLE], False, True),  # a published paper with its preprint merged in is the published paper
    ([BIORXIV, ARXIV], True, False),
])
def test_a_paper_is_a_preprint_only_when_every_record_of_it_is_one(records, kept_by_only, kept_by_none):
    for vouched in (True, False):  # whoever applied the filter, the merged list is checked the same way
        assert passes(records, build_filters(preprints=True), "preprints", vouched) is kept_by_only
        assert passes(records, build_filters(preprints=False), "preprints", vouched) is kept_by_none


def test_each_record_is_judged_preprint_or_not_and_always_carries_that_data():
    assert matches(BIORXIV, build_filters(preprints=True), "preprints") is True
    assert matches(ARTICLE, build_filters(preprints=True), "preprints") is False
    assert matches(ARTICLE, build_filters(preprints=False), "preprints") is True
    assert matches(BIORXIV, build_filters(preprints=False), "preprints") is False
    assert has_data(paper(), "preprints") is True and has_data(ARTICLE, "preprints") is True
