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
}


@pytest.mark.parametrize("name", CASES)
def test_each_rule_with_its_reason(name):
    first, second, expected = CASES[name]
    assert verdict(first, second) == expected
