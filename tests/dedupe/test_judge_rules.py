"""The pair judge (dedupe/judge.py) on one pair at a time: every rule's verdict and the exact
reason a reviewer reads, on records shaped like real exports of one trial report. Written to
kill the mutants of the judge (bench/mutation.py); test_adversarial.py and test_merge.py judge
whole files."""

from __future__ import annotations

import pytest

from litsearch.core.records import Paper
from litsearch.dedupe import judge as rules
from litsearch.dedupe.features import ProfileBuilder

TITLE = "Efficacy of a novel anticoagulant in patients with atrial fibrillation: a randomised trial"
CITED = dict(authors=["Smith, John", "Miller, Anna", "Chen, Wei"], year=2019, journal="The Lancet", volume="393",
             issue="10180", pages="1234-1242")
UNCITED = dict(CITED, volume=None, issue=None, pages=None)
BACKGROUND = "Background: atrial fibrillation increases the risk of stroke. " * 6
OTHER_STUDY = ("Methods: we enrolled adults with heart failure in a registry and followed them for five years to "
               "measure outcomes. ") * 3


def profile(title: str, **fields):
    fields.setdefault("provider", "import")
    return ProfileBuilder().profile(Paper(title=title, **fields))


def verdict(first: tuple, second: tuple):
    a, b = profile(first[0], **first[1]), profile(second[0], **second[1])
    found = rules.judge(a, b, rules.title_similarity(a, b))
    return None if found is None else (found.merge, found.reason, found.veto)


SAME_VOLUME_PAGE = "volume 393 page 1234"
CASES = {
    "the same record twice": (
        (TITLE, CITED), (TITLE, CITED),
        (True, f"title 100% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "different DOIs": (
        (TITLE, dict(CITED, doi="10.1016/s0140-6736(19)30001-1")), (TITLE, dict(CITED, doi="10.1016/x.2")),
        (False, "title 100% similar but different DOIs", "different DOIs")),
    "different PMIDs": (
        (TITLE, dict(CITED, pmid="30800001")), (TITLE, dict(CITED, pmid="30800002")),
        (False, "title 100% similar but different PMIDs", "different PMIDs")),
    "three years apart": (
        (TITLE, CITED), (TITLE, dict(CITED, year=2022)),
        (False, "title 100% similar but years 2019/2022", "years 2019/2022")),
    "an erratum and its article": (
        (TITLE, CITED), ("Erratum: " + TITLE, dict(CITED, issue="10185", pages="1500")),
        (False, "title 96% similar but a notice (erratum/reply/retraction) and another item",
         "a notice (erratum/reply/retraction) and another item")),
    "part 1 and part 2": (
        ("Outcomes of the anticoagulation trial, part 1", CITED),
        ("Outcomes of the anticoagulation trial, part 2", dict(CITED, pages="1243-1250")),
        (False, "title 98% similar but titles carry different numbers", "titles carry different numbers")),
    "another issue and pages": (
        (TITLE, CITED), (TITLE, dict(CITED, issue="10181", pages="99-100")),
        (False, "volume or pages differ; title 100% similar, year 2019, first author Smith, "
                "volume/page 393:1234 vs 393:99", None)),
    "a mistyped issue": (
        (TITLE, CITED), (TITLE, dict(CITED, issue="10181")),
        (True, f"title 100% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "another volume": (
        (TITLE, CITED), (TITLE, dict(CITED, volume="394")),
        (False, "volume or pages differ; title 100% similar, year 2019, first author Smith, "
                "volume/page 393:1234 vs 394:1234", None)),
    "an abbreviated journal": (
        (TITLE, CITED), (TITLE, dict(CITED, journal="Lancet")),
        (True, f"title 100% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "another journal": (
        (TITLE, CITED), (TITLE, dict(UNCITED, journal="Blood")),
        (False, "same title and year but different journals (conference abstract and article?); title 100% "
                "similar, year 2019, first author Smith, journals differ", None)),
    "other first authors on the same citation": (
        (TITLE, CITED), (TITLE, dict(CITED, authors=["Garcia, Luis", "Okafor, Ngozi"])),
        (True, f"same year, volume and pages; title 100% similar, year 2019, first authors Smith/Garcia, "
               f"{SAME_VOLUME_PAGE}", None)),
    "a reworded title on the same citation": (
        (TITLE, CITED), (TITLE.replace("novel", "new"), CITED),
        (True, f"title 98% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "the title without its subtitle": (
        (TITLE.split(":")[0], CITED), (TITLE, CITED),
        (True, f"one title is the other without its subtitle; title 88% similar, year 2019, first author Smith, "
               f"{SAME_VOLUME_PAGE}", None)),
    "a title cut short on the same citation": (
        (TITLE[:60], CITED), (TITLE, CITED),
        (True, f"same year, volume and pages; title 81% similar, year 2019, first author Smith, "
               f"{SAME_VOLUME_PAGE}", None)),
    "a cited title 76% similar": (
        ("Anticoagulant efficacy in atrial fibrillation patients", CITED), (TITLE, CITED),
        (True, f"same year, volume and pages; title 76% similar, year 2019, first author Smith, "
               f"{SAME_VOLUME_PAGE}", None)),
    "a translated title": (
        ("Wirksamkeit eines neuen Antikoagulans bei Vorhofflimmern", CITED), (TITLE, CITED),
        (True, f"same year, volume and pages; title 46% similar, year 2019, first author Smith, "
               f"{SAME_VOLUME_PAGE}", None)),
    "no title": (("", CITED), (TITLE, CITED), None),
    "titles far apart": (("Fish ladders", CITED), (TITLE, dict(CITED, pages="1-2")), None),
    "authors unknown": (
        (TITLE, dict(CITED, authors=[])), (TITLE, UNCITED),
        (False, "same title but authors unknown; title 100% similar, year 2019", None)),
    "a year apart in one volume": (
        (TITLE, CITED), (TITLE, dict(CITED, year=2020, pages=None)),
        (True, "title 100% similar, year 2019/2020, first author Smith", None)),
    "a year apart in another volume": (
        (TITLE, CITED), (TITLE, dict(UNCITED, year=2020, volume="400")),
        (False, "volume or pages differ; title 100% similar, year 2019/2020, first author Smith, "
                "volume/page 393:1234 vs 400:None", None)),
    "a conference a year apart": (
        (TITLE, dict(UNCITED, journal="Proceedings of the IEEE Conference on Vision")),
        (TITLE, dict(UNCITED, year=2020, journal="IEEE Conference on Vision")),
        (True, "title 100% similar, year 2019/2020, first author Smith", None)),
    "a year missing": (
        (TITLE, dict(CITED, year=None)), (TITLE, UNCITED),
        (True, "title 100% similar, year None/2019, first author Smith", None)),
    "an editorial without a citation": (
        ("Editorial", CITED), ("Editorial", UNCITED),
        (False, "generic title without matching journal, volume and pages; title 100% similar, year 2019, "
                "first author Smith", None)),
    "an editorial with the same citation": (
        ("Editorial", CITED), ("Editorial", CITED),
        (True, f"title 100% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "similar titles without a citation": (
        (TITLE, UNCITED), (TITLE.replace("novel", "new").replace("trial", "study"), UNCITED),
        (False, "titles similar but not identical, volume/pages not confirming; title 89% similar, year 2019, "
                "first author Smith", None)),
    "different abstracts": (
        (TITLE, dict(UNCITED, abstract=BACKGROUND)), (TITLE, dict(UNCITED, abstract=OTHER_STUDY)),
        (False, "abstracts differ (conference abstract and article?); title 100% similar, year 2019, "
                "first author Smith", None)),
    "a supplement's number filed as the volume": (
        (TITLE, dict(CITED, volume="1", issue="Suppl 1", pages="S12")),
        (TITLE, dict(CITED, volume="61", issue=None, pages="S12")),
        (True, "title 100% similar, year 2019, first author Smith", None)),
    "an article number against printed pages": (
        (TITLE, dict(CITED, pages="e12724")), (TITLE, CITED),
        (True, "title 100% similar, year 2019, first author Smith", None)),
    # on the thresholds: 95, 88, 85 and 60 exactly
    "a veto on titles 95% alike is reported": (
        ("Sepsis after surgery", dict(CITED, doi="10.1016/j.jacc.2019.01.001")),
        ("Sepsis aftur surgery", dict(CITED, doi="10.1016/j.jacc.2019.01.002")),
        (False, "title 95% similar but different DOIs", "different DOIs")),
    "a veto on titles 88% alike is not": (
        ("Asthma in children: a randomised trial", dict(CITED, doi="10.1016/j.jacc.2019.01.001")),
        ("Obesity in children: a randomised trial", dict(CITED, doi="10.1016/j.jacc.2019.01.002")), None),
    "a veto on an editorial is not": (
        ("Editorial", dict(CITED, doi="10.1016/j.jacc.2019.01.001")),
        ("Editorial", dict(CITED, doi="10.1016/j.jacc.2019.01.002")), None),
    "titles 95% alike without a citation": (
        ("Sepsis after surgery", UNCITED), ("Sepsis aftur surgery", UNCITED),
        (True, "title 95% similar, year 2019, first author Smith", None)),
    "titles 95% alike by other authors on the same citation": (
        ("Sepsis after surgery", CITED), ("Sepsis aftur surgery", dict(CITED, authors=["Garcia, Luis", "Okafor, Ngozi"])),
        (True, f"same year, volume and pages; title 95% similar, year 2019, first authors Smith/Garcia, "
               f"{SAME_VOLUME_PAGE}", None)),
    "titles 88% alike on the same citation": (
        ("Asthma in children: a randomised trial", CITED), ("Obesity in children: a randomised trial", CITED),
        (True, f"title 88% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "titles 85% alike are reported": (
        ("Stroke in pregnancy: a randomised trial", UNCITED), ("Depression in pregnancy: a randomised trial", UNCITED),
        (False, "titles only 85% similar; title 85% similar, year 2019, first author Smith", None)),
    "titles 82% alike are not": (("Sepsis in older adults", UNCITED), ("Sepsis in young adults", UNCITED), None),
    "titles 60% alike on the same citation by the same first author": (
        ("Heart failure in older adults: a randomised trial", CITED),
        ("A systematic review of heart failure in primary care", CITED),
        (True, f"same year, volume and pages; title 60% similar, year 2019, first author Smith, "
               f"{SAME_VOLUME_PAGE}", None)),
    # the other rules
    "a title cut short without a citation": (
        ("Efficacy of a novel anticoagulant in patients with atrial", UNCITED), (TITLE, UNCITED),
        (False, "titles similar but not identical, volume/pages not confirming; title 78% similar, year 2019, "
                "first author Smith", None)),
    "the other year missing": (
        (TITLE, UNCITED), (TITLE, dict(CITED, year=None)),
        (True, "title 100% similar, year 2019/None, first author Smith", None)),
    "the same title by other authors without a citation": (
        (TITLE, UNCITED), (TITLE, dict(UNCITED, authors=["Garcia, Luis", "Okafor, Ngozi"])), None),
    "an editorial in another volume": (("Editorial", CITED), ("Editorial", dict(CITED, volume="394")), None),
    "different abstracts on the same citation": (
        (TITLE, dict(CITED, abstract=BACKGROUND)), (TITLE, dict(CITED, abstract=OTHER_STUDY)),
        (True, f"title 100% similar, year 2019, first author Smith, {SAME_VOLUME_PAGE}", None)),
    "the same abstract in another journal": (
        (TITLE, dict(UNCITED, abstract=BACKGROUND)), (TITLE, dict(UNCITED, journal="Blood", abstract=BACKGROUND)),
        (False, "same title and year but different journals (conference abstract and article?); title 100% "
                "similar, year 2019, first author Smith, journals differ", None)),
    "similar titles with the same abstract": (
        (TITLE, dict(UNCITED, abstract=BACKGROUND)),
        (TITLE.replace("novel", "new").replace("trial", "study"), dict(UNCITED, abstract=BACKGROUND)),
        (True, "title 89% similar, year 2019, first author Smith", None)),
    "similar titles, a snippet against an abstract": (
        (TITLE, dict(UNCITED, abstract="Background: atrial fibrillation.")),
        (TITLE.replace("novel", "new").replace("trial", "study"), dict(UNCITED, abstract=BACKGROUND)),
        (False, "titles similar but not identical, volume/pages not confirming; title 89% similar, year 2019, "
                "first author Smith", None)),
    "a year apart, the volume unconfirmed": (
        (TITLE, CITED), (TITLE, dict(UNCITED, year=2020)),
        (False, "same title, years one apart, volume and pages not confirming; title 100% similar, year 2019/2020, "
                "first author Smith", None)),
    "the same page range without a volume": (
        (TITLE, dict(CITED, volume=None)), (TITLE, dict(CITED, volume=None)),
        (True, "title 100% similar, year 2019, first author Smith, volume ? page 1234", None)),
    "the same citation in two journals by other authors": (
        (TITLE, CITED), (TITLE, dict(CITED, authors=["Garcia, Luis"], journal="Blood")),
        (False, f"same citation but journals differ; title 100% similar, year 2019, first authors Smith/Garcia, "
                f"{SAME_VOLUME_PAGE}, journals differ", None)),
    "the title without its subtitle in another volume": (
        (TITLE.split(":")[0], CITED), (TITLE, dict(CITED, volume="394")),
        (False, "volume or pages differ; title 88% similar, year 2019, first author Smith, "
                "volume/page 393:1234 vs 394:1234", None)),
    "the title without its subtitle, abstracts differing": (
        (TITLE.split(":")[0], dict(UNCITED, abstract=BACKGROUND)), (TITLE, dict(UNCITED, abstract=OTHER_STUDY)),
        (False, "abstracts differ (conference abstract and article?); title 88% similar, year 2019, "
                "first author Smith", None)),
}


@pytest.mark.parametrize("name", CASES)
def test_each_rule_with_its_reason(name):
    first, second, expected = CASES[name]
    assert verdict(first, second) == expected


# --- the pieces of evidence, one at a time --------------------------------------------------

def one(title: str = TITLE, **fields):
    return profile(title, **fields)


@pytest.mark.parametrize("first,second,agree", [
    (["Smith, John", "Lee, Ann"], ["Smith J", "Park, Kim"], True),  # the first authors
    (["Müller, Hans"], ["M?ller, H"], True),  # a letter a lossy export turned into "?"
    (["Brown, Tom", "Lee, Ann"], ["Green, Joe", "Lee, Ann"], True),  # half the shorter list
    (["Tom Brown", "Ann Lee"], ["Lee Park", "Kim Ng"], True),  # the first list's surnames, in the other's names
    (["Brown, Tom", "Lee, Ann", "Ng, Kim"], ["Green, Joe", "Lee, Ann", "Ito, Ken"], False),  # one of three
    (["Brown, Tom", "Lee, Ann", "Ng, Kim", "Ito, Ken"], ["Green, Joe", "Lee, Ann", "Wu, Bo", "Sato, Yu"], False),
    (["Brown, Tom", "Lee, Ann"], ["Green, Joe", "Park, Kim"], False),
    (["Brown, Tom"], [], None), ([], ["Brown, Tom"], None), (["Anonymous"], ["Brown, Tom"], None),
])
def test_authors_agree(first, second, agree):
    assert rules.authors_agree(one(authors=first), one(authors=second)) is agree


@pytest.mark.parametrize("first,second,agree", [
    (["Smith, John", "Lee, Ann", "Ng, Kim"], ["Smith, J", "Lee, A", "Ng, K"], True),
    (["Smith, John", "Lee, Ann", "Ng, Kim"], ["Smith, J", "Lee, A"], True),  # one name fewer
    (["Smith, John", "Lee, Ann"], ["Smith, J", "Lee, A", "Ng, K"], True),
    (["Smith, John", "Lee, Ann", "Ng, Kim"], ["Smith, J"], False),  # two fewer
    (["Smith, John", "Lee, Ann", "Ng, Kim"], ["Smith, J", "Lee, A", "Ito, K"], False),  # one differs
    (["Smith, John", "Lee, Ann"], ["Park, J", "Smith, J"], False),  # another first author
    (["Smith, John", "Lee, Park"], ["Smith, J", "Park, Kim"], False),  # Park is a given name in the first list
    (["Smith, John"], [], False), ([], ["Smith, John"], False),
])
def test_all_authors_agree(first, second, agree):
    assert rules.all_authors_agree(one(authors=first), one(authors=second)) is agree


@pytest.mark.parametrize("first,second,agree", [
    ("The Lancet", "Lancet", True),
    ("J Clin Oncol", "Journal of Clinical Oncology", True),
    ("Journal of Clinical Oncology", "J Clin Oncol", True),
    ("Jthoraccardiovascsurg", "Journal of Thoracic and Cardiovascular Surgery", True),  # run together
    ("Revargentcardiol", "Revista Argentina de Cardiologia", True),
    ("IEEE TPAMI", "IEEE Transactions on Pattern Analysis and Machine Intelligence", True),
    ("VLDB", "Very Large Data Bases", True),
    ("The VLDB Journal", "Very Large Data Bases", None),  # an acronym of the other: unclear
    ("Very Large Data Bases", "The VLDB Journal", None),
    ("The ACM Journal", "Association for Computing Machinery", None),
    ("Journal of Neurology", "Journal of Neurosurgery", None),  # a shared word: unclear
    ("J Neurol", "Journal of Neurosurgery", None),
    ("J Oncol", "Journal of Clinical Oncology", None),  # no word may be skipped
    ("J Cell Immunol", "Journal of Clinical and Cellular Immunology", None),  # not even one with the same letter
    ("Science", "Neuroscience", False),  # letters in order, but not from the first
    ("Nature", "Science", False),
    ("The AB Journal", "Applied Biology", False),  # two letters are no acronym
    ("Nature", None, None),
])
def test_journals_agree(first, second, agree):
    assert rules.journals_agree(one(journal=first), one(journal=second)) is agree


@pytest.mark.parametrize("first,second,venue", [
    (dict(volume="393", pages="1234-1242"), dict(volume="393", pages="1234-1242"), "match"),
    (dict(volume="393", pages="1234-1242"), dict(volume="393", pages="1234"), "match"),
    (dict(volume="45", pages="488"), dict(volume="45", pages="487-488"), "match"),  # a dropped start page
    (dict(volume="45", pages="2297-2108"), dict(volume="45", pages="2097-2108"), "match"),  # a typo in it
    (dict(volume="45", pages="2297-2309"), dict(volume="45", pages="2097-2108"), "conflict"),
    (dict(volume="45", pages="488"), dict(volume="45", pages="490"), "conflict"),
    (dict(volume="393", pages="1234-1242"), dict(volume="394", pages="1234-1242"), "conflict"),
    (dict(pages="1234-1242"), dict(pages="1234-1242"), "match"),  # no volume: the same multi-page range
    (dict(pages="1234"), dict(pages="1234"), "unknown"),
    (dict(volume="393"), dict(volume="393"), "unknown"),
    (dict(volume="393", pages="e12724"), dict(volume="393", pages="1234-1242"), "unknown"),  # not comparable
    (dict(), dict(volume="393", pages="1234-1242"), "unknown"),
])
def test_venue_agreement(first, second, venue):
    assert rules.venue_agreement(one(**first), one(**second)) == venue


@pytest.mark.parametrize("first,second,mixup", [
    (dict(volume="1", issue="Suppl 1"), dict(volume="61"), True),
    (dict(volume="20", issue="Suppl 20"), dict(volume="61"), True),
    (dict(volume="21", issue="Suppl 21"), dict(volume="61"), False),  # no volume has 21 supplements
    (dict(volume="1"), dict(volume="61"), False),  # no supplement on either
    (dict(volume="1", issue="Suppl 1"), dict(volume="61", year=2020), False),  # another year
    (dict(volume="1", issue="Suppl 1"), dict(volume="61", journal="Blood"), False),  # another journal
    (dict(volume="1", issue="Suppl 1", pages="S12"), dict(volume="61", pages="S40"), False),  # other pages
    (dict(volume=None, issue="Suppl 1"), dict(volume="61"), False),
])
def test_supplement_number_filed_as_the_volume(first, second, mixup):
    base = dict(year=2019, journal="The Lancet")
    assert rules.supplement_volume_mixup(one(**{**base, **first}), one(**{**base, **second})) is mixup


@pytest.mark.parametrize("first,second,typo", [
    (dict(issue="3"), dict(issue="4"), True),
    (dict(issue="3"), dict(issue="4", year=2020), True),  # epub and print years
    (dict(issue="3"), dict(issue="4", pages="1234-1243"), False),
    (dict(issue="3"), dict(issue="4", volume="394"), False),
    (dict(issue="3"), dict(issue="4", authors=["Garcia, Luis"]), False),
    (dict(issue="3", pages="1234"), dict(issue="4", pages="1234"), False),  # a single page is not enough
    (dict(issue="3"), dict(issue="4", year=2021), False),  # two years apart
])
def test_a_mistyped_issue(first, second, typo):
    assert rules.issue_typo(one(**{**CITED, **first}), one(**{**CITED, **second})) is typo


def test_a_mistyped_issue_needs_a_near_identical_title_that_identifies():
    sepsis = dict(CITED, issue="3")
    assert rules.issue_typo(one("Sepsis after surgery", **sepsis), one("Sepsis aftur surgery", **sepsis)) is True  # 95
    assert rules.issue_typo(one("Sepsis after surgery", **sepsis), one("Sepsis aftur surgury", **sepsis)) is False
    editorial = one("Editorial", **sepsis)
    assert rules.issue_typo(editorial, one("Editorial", **dict(CITED, issue="4"))) is False
    from dataclasses import replace

    column, other = one(TITLE, **sepsis), one(TITLE, **dict(CITED, issue="4"))
    assert rules.issue_typo(column, other) is True
    assert rules.issue_typo(replace(column, recurring=True), other) is False  # a title recurring in the venue
    assert rules.issue_typo(column, replace(other, recurring=True)) is False


@pytest.mark.parametrize("first,second,differ", [
    ("Outcomes of the anticoagulation trial, part 1", "Outcomes of the anticoagulation trial, part 2", True),
    ("Outcomes of the anticoagulation trial", "Outcomes of the anticoagulation trial, part 2", False),
    ("Phase 3 trial of apixaban", "Phase 3 trial of apixaban", False),
    ("Results of the phase 3 trial", "Results of the phase 3 trial: 5 year follow-up", False),  # cut short
    ("Outcome at 12", "Outcome at 12 months and 24 months", False),
    ("Outcome at 1", "Outcome at 12 months", True),
    ("Handbook of cardiology volume 1", "Handbook of cardiology volume 1, 2nd edition", False),
    ("COVID-19 vaccines in pregnancy", "COVID vaccines in pregnancy", False),  # numbers on one side only
])
def test_numbers_in_titles(first, second, differ):
    assert rules.numbers_differ(one(first), one(second)) is differ
    assert rules.numbers_differ(one(second), one(first)) is differ


@pytest.mark.parametrize("first,second,veto", [
    (dict(doi="10.1016/j.jacc.2019.01.001"), dict(doi="10.1016/j.jacc.2019.01.002"), "different DOIs"),
    (dict(doi="10.1016/j.jacc.2019.01.001"), dict(doi="https://doi.org/10.1016/J.JACC.2019.01.001"), None),
    (dict(doi="10.48550/arXiv.1706.03762"), dict(doi="10.1016/j.jacc.2019.01.002"), None),  # arXiv's is no publisher DOI
    (dict(pmid="1"), dict(pmid="2"), "different PMIDs"),
    (dict(year=2019), dict(year=2021), "years 2019/2021"),
    (dict(year=2019), dict(year=2020), None),
    (dict(issue="3-4", pages="1-9"), dict(issue="5", pages="1-9"), "different issues (3/4 vs 5)"),
    (dict(issue="5", pages="1-9"), dict(issue="3-4", pages="1-9"), "different issues (5 vs 3/4)"),
    (dict(issue="3", pages="1-9"), dict(issue="3", pages="1-9"), None),
])
def test_vetoes(first, second, veto):
    base = dict(CITED, volume="12")
    assert rules.hard_veto(one("A study", **{**base, **first}), one("A study", **{**base, **second})) == veto


def test_the_same_printed_item_is_never_vetoed():
    # an erratum indexed without its label, or a typo in a title number, on the same volume and page
    article = one(TITLE, **CITED)
    assert rules.hard_veto(article, one("Erratum: " + TITLE, **CITED)) is None
    assert rules.hard_veto(one("Outcomes, part 1", **CITED), one("Outcomes, part 2", **CITED)) is None
    assert rules.hard_veto(article, one("Erratum: " + TITLE, **dict(CITED, volume=None))) == (
        "a notice (erratum/reply/retraction) and another item")
    assert rules.hard_veto(article, one("Erratum: " + TITLE, **dict(CITED, pages="1500"))) == (
        "a notice (erratum/reply/retraction) and another item")
    assert rules.hard_veto(article, one("Erratum: " + TITLE, **dict(CITED, pages="e1234"))) == (
        "a notice (erratum/reply/retraction) and another item")


def test_title_similarity_of_nothing_in_common_is_zero():
    assert rules.title_similarity(one("Fish"), one("Quark")) == 0.0
    assert rules.title_similarity(one(""), one("Quark")) == 0.0
    assert rules.title_similarity(one("Sepsis after surgery"), one("Sepsis aftur surgery")) == 95.0


LONG = ("Cognitive behavioural therapy for insomnia in older adults: a randomised controlled trial of group "
        "sessions delivered by nurses in primary care")


@pytest.mark.parametrize("short,twin", [
    ("Cognitive behavioural therapy for insomnia in older adults", True),
    ("Cognitive behavioural therapy for insomnia", True),  # five words
    ("Cognitive behavioural therapy for", False),  # four words say too little
    ("Cognitive behavioural therapy for insomnia in older adul", False),  # cut inside a word
    ("Cognitive behavioural therapy for insomnia in elder adults", True),  # 98% on the common length
    (LONG, False),
    ("Behavioural therapy for insomnia in older adults", False),  # another start
])
def test_a_title_cut_short(short, twin):
    assert rules.truncated_twin(one(short), one(LONG)) is twin
    assert rules.truncated_twin(one(LONG), one(short)) is twin


TRIAL = ("Cognitive behavioural therapy for insomnia in older adults: a randomised controlled trial of practice nurse "
         "led group sessions in primary care")


@pytest.mark.parametrize("short,twin", [
    # the first 100 characters, with three typos (97% alike) and with four (96%)
    ("Cognitive behavioural therapy fur insomnia in older adulte: a randomised controlled trial uf practice", True),
    ("Cognitive behavioural therapy fur insomnia in older adulte: a randomized controlled trial uf practice", False),
])
def test_a_title_cut_short_may_carry_three_typos_in_a_hundred_characters(short, twin):
    assert rules.truncated_twin(one(short), one(TRIAL)) is twin


def test_a_title_recurring_in_its_venue_needs_its_citation():
    """A column title that recurs in one venue (set by the clusterer) identifies nothing, on either side."""
    from dataclasses import replace

    reason = "generic title without matching journal, volume and pages; title {}% similar, year 2019, first author Smith"
    short, full = one(TITLE.split(":")[0], **UNCITED), one(TITLE, **UNCITED)
    for a, b in [(replace(short, recurring=True), full), (full, replace(short, recurring=True))]:
        found = rules.judge(a, b, rules.title_similarity(a, b))
        assert (found.merge, found.reason) == (False, reason.format(88))
    same, twin = one(TITLE, **UNCITED), one(TITLE, **UNCITED)
    for a, b in [(replace(same, recurring=True), twin), (same, replace(twin, recurring=True))]:
        found = rules.judge(a, b, 100.0)
        assert (found.merge, found.reason) == (False, reason.format(100))
    vetoed = [one(TITLE, **dict(CITED, doi=f"10.1016/j.jacc.2019.01.00{n}")) for n in (1, 2)]
    assert rules.judge(replace(vetoed[0], recurring=True), vetoed[1], 100.0) is None
    assert rules.judge(vetoed[0], replace(vetoed[1], recurring=True), 100.0) is None
    conflicting = one(TITLE, **CITED), one(TITLE, **dict(CITED, volume="394"))
    assert rules.judge(replace(conflicting[0], recurring=True), conflicting[1], 100.0) is None
    assert rules.judge(conflicting[0], replace(conflicting[1], recurring=True), 100.0) is None


ABSTRACT = " ".join(("atrial fibrillation raises the risk of stroke and anticoagulants lower it but bleeding limits "
                     "their use in older adults with kidney disease").split() * 3)


def typos(text: str, count: int) -> str:
    """``count`` letters replaced, one in every seven: each costs the edit ratio half a point in 200."""
    letters = [i for i, c in enumerate(text) if c.isalpha()][::7][:count]
    return "".join("q" if i in letters else c for i, c in enumerate(text))


@pytest.mark.parametrize("first,second,agree", [
    (ABSTRACT, ABSTRACT, True),
    (ABSTRACT, ABSTRACT[:250], True),  # one export cut the abstract: the common start is compared
    (ABSTRACT[:200], ABSTRACT[:200], True),  # 200 characters: enough to compare
    (ABSTRACT[:199], ABSTRACT[:199], None),  # a snippet says too little either way
    (ABSTRACT[:199], ABSTRACT, None),
    (ABSTRACT, ABSTRACT[:199], None),
    (ABSTRACT[:200], typos(ABSTRACT[:200], 20), True),  # 90% alike
    (ABSTRACT[:200], typos(ABSTRACT[:200], 21), None),  # 89.5%: in between
    (BACKGROUND, OTHER_STUDY, False),
    (ABSTRACT, "", None), ("", ABSTRACT, None),
])
def test_abstracts(first, second, agree):
    assert rules._abstracts_agree(one(abstract=first), one(abstract=second)) is agree


def test_abstracts_are_compared_on_their_first_600_characters():
    text = ABSTRACT + " " + ABSTRACT  # 839 characters
    at_90 = typos(text[:598], 60) + text[598:]  # 60 typos in the first 600: 90% alike there
    beyond = at_90[:600] + "q" + at_90[601:]  # and one more just after them
    assert rules._abstracts_agree(one(abstract=text), one(abstract=beyond)) is True


def test_a_name_ending_in_a_suffix_keeps_its_surname():
    """"Martin Luther King Jr": the surname is King, not the suffix (which once left the name out)."""
    first = one(authors=["Ralph Abernathy", "Martin Luther King Jr"])
    second = one(authors=["Coretta Scott", "King, M. L."])
    assert first.surnames == ("abernathy", "king")
    assert rules.authors_agree(first, second) is True  # half of each list: King
    found = verdict((TITLE, dict(CITED, authors=["Martin Luther King Jr"])), (TITLE, dict(CITED, authors=["King, M"])))
    assert found[1] == f"title 100% similar, year 2019, first author King, {SAME_VOLUME_PAGE}"
