"""Adversarial cases for each class of error seen on exports the engine was never tuned on
(issue 12): a false merge silently loses a paper, so each trap below must hold; the missed
duplicates below must join. Hand-made records shaped like real exports."""

from __future__ import annotations

from litsearch.core.records import Paper
from litsearch.dedupe.clusters import dedupe, find_clusters


def paper(title: str, **fields) -> Paper:
    fields.setdefault("provider", "import")
    fields.setdefault("authors", ["Weber, Ron"])
    fields.setdefault("year", 2004)
    fields.setdefault("journal", "MIS Quarterly")
    return Paper(title=title, **fields)


def groups(records: list[Paper]) -> list[list[int]]:
    return [cluster.members for cluster in find_clusters(records)]


# --------------------------------------------------------------------------- false merges

def test_pages_restarting_per_issue_do_not_make_two_articles_one():
    """Same journal, year, volume and page range in different issues; titles ~40% similar."""
    first = paper("The reflexive researcher: designing studies of information systems practice",
                  volume="28", issue="1", pages="iii-xii")
    second = paper("Theory building with cases in information systems research",
                   volume="28", issue="2", pages="iii-xii")
    numbered = [paper("The reflexive researcher: designing studies of information systems practice",
                      volume="12", issue="3", pages="1-9"),
                paper("Theory building with cases in information systems research", volume="12", issue="4",
                      pages="1-9")]
    assert groups([first, second]) == [[0], [1]]
    assert groups(numbered) == [[0], [1]]
    # Without the issue on one record the titles alone must hold them apart.
    numbered[1].issue = None
    assert groups(numbered) == [[0], [1]]


def test_a_recurring_column_by_the_same_editor_stays_one_record_per_issue():
    columns = [paper("Editor's Comments", issue=str(n), pages="iii-v") for n in (1, 2, 3, 4)]
    columns += [paper("Editor's Comments"), paper("Editor's Comments")]  # no issue, no pages
    assert groups(columns) == [[n] for n in range(6)]


def test_a_column_title_no_vocabulary_knows_is_learned_from_the_input():
    title = "Reflections on the craft of reviewing for the senior scholars basket"
    records = [paper(title, volume="5", issue="1", pages="1-4"), paper(title, volume="5", issue="2", pages="1-3"),
               paper(title, volume="5"), paper(title, volume="5")]
    result = dedupe(records)
    assert [c.members for c in result.clusters] == [[0], [1], [2], [3]]
    assert any("recur in one venue" in note for note in result.notes)


def test_a_shared_supplement_doi_with_dissimilar_titles_is_not_rescued_by_an_author():
    supplement = dict(doi="10.1016/S0140-6736(13)60000-0", journal="Lancet", volume="381", pages="S1",
                      year=2013)
    first = paper("Plasma exchange in adults with thrombotic microangiopathy: a registry study",
                  authors=["Kelly, R.", "Arnold, L."], **supplement)
    second = paper("Eculizumab dosing in children after kidney transplantation",
                   authors=["Hill, A.", "Kelly, R."], **supplement)
    assert groups([first, second]) == [[0], [1]]


def test_an_erratum_and_its_article_stay_apart_but_the_pair_is_reported():
    article = paper("Genome-wide detection of off-target sites in vivo", journal="Genome Res", volume="31",
                    issue="2", pages="120-130", year=2021, doi="10.1101/gr.1")
    erratum = paper("Erratum: Genome-wide detection of off-target sites in vivo", journal="Genome Res",
                    volume="31", issue="6", pages="1101", year=2021, doi="10.1101/gr.2")
    assert groups([article, erratum]) == [[0], [1]]


def test_different_dois_with_everything_else_equal_are_reported_not_merged():
    common = dict(authors=["Keller, M", "Weber, J"], journal="Diabetes Care", volume="40", issue="3",
                  pages="300-307", year=2017)
    records = [paper("Insulin pump therapy in pregnancy", doi="10.2337/dc16-1", **common),
               paper("Insulin pump therapy in pregnancy", doi="10.2337/dc16-1a", **common)]
    result = dedupe(records)
    assert [c.members for c in result.clusters] == [[0], [1]]
    [pair] = result.uncertain_pairs
    assert pair.veto == "different DOIs"


# --------------------------------------------------------------------------- deliberate decisions

def test_a_title_and_its_translation_or_transliteration_on_one_citation_are_one_article():
    common = dict(authors=["Ivanov, I. I.", "Petrov, P."], journal="Kardiologiia", volume="50", issue="4",
                  pages="12-18", year=2010)
    cyrillic = paper("Лечение артериальной гипертензии у пожилых", **common)
    english = paper("Treatment of arterial hypertension in the elderly", **common)
    latin = paper("Lechenie arterial'noi gipertenzii u pozhilykh", **common)
    assert groups([cyrillic, english]) == [[0, 1]]
    assert groups([cyrillic, latin]) == [[0, 1]]
    # Another page range: two articles, whatever the languages.
    assert groups([cyrillic, paper("Treatment of arterial hypertension in the elderly",
                                   **{**common, "pages": "19-25"})]) == [[0], [1]]


def test_an_issue_number_typo_on_an_otherwise_identical_record_is_merged():
    common = dict(authors=["Balon, Richard"], journal="Annals of Clinical Psychiatry", volume="22",
                  pages="139-140", year=2010)
    records = [paper("Review of Memory rehabilitation: integrating theory and practice", issue="3", **common),
               paper("Review of Memory rehabilitation: integrating theory and practice", issue="2", **common)]
    assert groups(records) == [[0, 1]]


# --------------------------------------------------------------------------- missed duplicates

def test_a_garbled_supplement_volume_is_unknown_not_a_conflict():
    common = dict(authors=["Loirat, C.", "Fremeaux-Bacchi, V."], journal="Pediatric Nephrology", year=2011,
                  pages="1746-1747")
    records = [paper("The treatment of atypical haemolytic uraemic syndrome in children", volume="26", **common),
               paper("The treatment of atypical haemolytic uraemic syndrome in children", volume="1)", **common)]
    assert groups(records) == [[0, 1]]


def test_every_common_doi_spelling_is_one_doi():
    spellings = ["Doi 10.1016/j.jpeds.2003.01.001", "http://dx.doi.org/10.1016/j.jpeds.2003.01.001",
                 "doi:10.1016/J.JPEDS.2003.01.001.", "https://doi.org/10.1016/j.jpeds.2003.01.001",
                 "10.1016/j.jpeds.2003.01.001 [doi]"]
    # Title variants as databases write them (a shared DOI still needs recognisably one title).
    titles = ["Severe deficiency of the specific von Willebrand factor-cleaving protease",
              "SEVERE DEFICIENCY OF THE SPECIFIC VON WILLEBRAND FACTOR-CLEAVING PROTEASE.",
              "Severe deficiency of the specific von Willebrand factor cleaving protease (ADAMTS 13)",
              "Severe deficiency of the specific von Willebrand factor-cleaving protease in a neonate",
              "[Severe deficiency of the specific von Willebrand factor-cleaving protease]"]
    records = [paper(title, doi=doi, authors=["Veyradier, A."]) for title, doi in zip(titles, spellings)]
    result = dedupe(records)
    assert [c.members for c in result.clusters] == [[0, 1, 2, 3, 4]]


def test_conference_papers_indexed_under_consecutive_years_are_one_paper():
    common = dict(authors=["Stahl, Bernd Carsten", "Elbeltagi, Ibrahim"],
                  journal="Americas Conference on Information Systems")
    records = [paper("Cultural universality versus particularity in computer-mediated communication",
                     year=2003, **common),
               paper("Cultural Universality Versus Particularity in Computer-Mediated Communication",
                     year=2004, **common)]
    assert groups(records) == [[0, 1]]
    # The same title in a journal the next year is another publication.
    records[1].journal = "Journal of Global Information Technology Management"
    assert groups(records) == [[0], [1]]


def test_a_journal_named_in_its_own_language_and_in_english():
    common = dict(authors=["García, A.", "López, B.", "Martín, C."], year=2015)
    records = [paper("Outcomes of cardiac rehabilitation in elderly patients after myocardial infarction",
                     journal="Revista Española de Cardiología", **common),
               paper("Outcomes of cardiac rehabilitation in elderly patients after myocardial infarction",
                     journal="Spanish Journal of Cardiology", **common)]
    assert groups(records) == [[0, 1]]


def test_a_short_title_and_the_title_with_its_subtitle_with_a_doi_on_one():
    common = dict(authors=["Nguyen, T.", "Osei, K."], journal="Journal of Hospital Infection", year=2019)
    records = [paper("Hand hygiene compliance in intensive care units", **common),
               paper("Hand hygiene compliance in intensive care units: a multicentre observational study",
                     doi="10.1016/j.jhin.2019.01.001", **common)]
    assert groups(records) == [[0, 1]]
    # Two papers that share a main title but not a subtitle stay apart.
    other = paper("Hand hygiene compliance in intensive care units: an intervention trial", **common)
    assert groups([records[1], other]) == [[0], [1]]


def test_record_numbers_in_the_issue_field_are_not_compared():
    records = [paper(f"Study number {n} of a long series on wound healing in diabetic foot ulcers",
                     issue=str(1000 + n), volume="9", pages=f"{n}-{n + 5}") for n in range(25)]
    records += [paper("A randomised trial of honey dressings for diabetic foot ulcers", issue="5001", volume="9",
                      pages="500-509"),
                paper("A randomised trial of honey dressings for diabetic foot ulcers", issue="5002", volume="9",
                      pages="500-509")]
    result = dedupe(records)
    assert [25, 26] in [c.members for c in result.clusters]
    assert any("record numbers" in note for note in result.notes)


def test_two_abstracts_of_one_supplement_doi_with_similar_titles_and_other_pages_stay_apart():
    """Issue 20, item 9: two conference abstracts sharing their congress supplement's DOI, by
    the same group, with titles that differ in a word or two and different pages."""
    supplement = dict(doi="10.1182/blood.V134.Supplement_1.4000", journal="Blood", volume="134", year=2019,
                      authors=["Kelly, R.", "Arnold, L.", "Hillmen, P."])
    adults = paper("Long-term outcomes of eculizumab in adults with paroxysmal nocturnal haemoglobinuria: "
                   "registry results", pages="S123", **supplement)
    children = paper("Long-term outcomes of eculizumab in children with paroxysmal nocturnal haemoglobinuria: "
                     "registry results", pages="S456", **supplement)
    result = dedupe([adults, children])
    assert [c.members for c in result.clusters] == [[0], [1]]
    [pair] = result.uncertain_pairs  # near-identical enough to show a person
    assert "pages differ" in pair.reason
    # The same abstract exported twice (same pages) is still one record by its DOI.
    assert groups([adults, paper(adults.title.upper(), pages="S123", **supplement)]) == [[0, 1]]
    # And a copy without pages, or a title that agrees whatever the pages say, joins by the DOI.
    assert groups([adults, paper(adults.title, **supplement)]) == [[0, 1]]
    assert groups([adults, paper(adults.title + ".", pages="123", **supplement)]) == [[0, 1]]


def test_supplement_abstracts_whose_volume_holds_the_supplement_number_are_one_abstract():
    """Issue 20, item 10: one export files a congress abstract under volume 61 (Supplement 1),
    the other under "volume" 1, the supplement's number. Not a recurring column: one abstract."""
    common = dict(authors=["Rossi, M.", "Bianchi, L."], journal="Diabetologia", year=2018)
    title = "Continuous glucose monitoring in pregnant women with type 1 diabetes: a cohort study"
    with_pages = [paper(title, volume="61", issue="Suppl 1", pages="S123", **common),
                  paper(title, volume="1", pages="S123", **common)]
    without_pages = [paper(title, volume="61", issue="Supplement 1", **common), paper(title, volume="1", **common)]
    embase = [paper(title, volume="61", pages="S123", **{**common, "journal": "Diabetologia.Conference: 54th "
                                                                        "EASD Annual Meeting"}),
              paper(title, volume="1", pages="S123", **{**common, "journal": "Diabetologia"})]
    for records in (with_pages, without_pages, embase):
        result = dedupe(records)
        assert [c.members for c in result.clusters] == [[0, 1]], records
        assert not any("recur" in note for note in result.notes)


def test_the_supplement_excuse_never_joins_what_differs_elsewhere():
    common = dict(authors=["Rossi, M.", "Bianchi, L."], journal="Diabetologia", year=2018, issue="Suppl 1")
    title = "Continuous glucose monitoring in pregnant women with type 1 diabetes: a cohort study"
    # Different pages: two abstracts (a repeated title), whatever the volumes say.
    assert groups([paper(title, volume="61", pages="S123", **common),
                   paper(title, volume="1", pages="S456", **common)]) == [[0], [1]]
    # Another year: another congress.
    assert groups([paper(title, volume="61", pages="S123", **common),
                   paper(title, volume="62", pages="S123", **{**common, "year": 2019})]) == [[0], [1]]
    # One abstract shown at two congresses, in two journals' supplements: two records.
    assert groups([paper(title, volume="13", pages="93", **{**common, "journal": "American Journal of "
                                                                   "Transplantation"}),
                   paper(title, volume="32", pages="S136", **{**common, "journal": "Journal of Heart and Lung "
                                                                     "Transplantation"})]) == [[0], [1]]
    # Two real volumes (neither small enough to be a supplement's number): two printings.
    assert groups([paper(title, volume="61", pages="S123", **common),
                   paper(title, volume="62", pages="S123", **common)]) == [[0], [1]]
    # No supplement anywhere: different volumes are different printings (a column), as before.
    column = dict(authors=["Editor, A."], journal="Diabetologia", year=2018)
    records = [paper("Notes from the editor on the year in diabetes", volume="61", issue="3", pages="401-402",
                     **column),
               paper("Notes from the editor on the year in diabetes", volume="60", pages="401-402", **column),
               paper("Notes from the editor on the year in diabetes", **column)]
    assert groups(records) == [[0], [1], [2]]
