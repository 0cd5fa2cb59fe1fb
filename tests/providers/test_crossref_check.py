"""The Crossref DOI check (providers/crossref.py, verify_*): the title-similarity threshold of 90
and the length guard on real titles just either side of them, the one-year tolerance, the
DataCite and arXiv DOIs that are never judged, and the batched lookup with its notices, on a
mock transport answering in Crossref's format. Written to kill the mutants of the check and of
crossref_parse.py (bench/mutation.py); no test compares with the module's own constants."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import crossref
from litsearch.providers.crossref import title_similarity
from litsearch.runtime.settings import settings_from_env

CAS9 = "DNA targeting specificity of RNA-guided Cas9 nucleases"
NO_PACING = {"crossref": PacePolicy(min_interval=0, max_in_flight=3, retries=0)}


def work(doi: str, title: str | list | None, year: int | None = None, **extra) -> dict:
    found = {"DOI": doi.upper(), **extra}
    if title is not None:
        found["title"] = title if isinstance(title, list) else [title]
    if year is not None:
        found["issued"] = {"date-parts": [[year, 3, 1]]}
    return found


def compare(expected_title, found_title, expected_year=None, found_year=None, **extra):
    message = work("10.1038/nbt.2647", found_title, found_year, **extra)
    return crossref._compare("10.1038/nbt.2647", message, expected_title, expected_year)


# --- the title threshold, on real titles either side of 90 ---------------------------

@pytest.mark.parametrize("found,similarity,verified", [
    ("DNA targeting specificity of RNA guided Cas9 nucleases.", 100.0, True),
    ("DNA targeting specificity of RNA-guided Cas9 nucleases revisited", 91.5, True),
    ("DNA targeting specificity of RNA-guided Cas9", 89.8, False),  # 89.8: just under
    ("DNA binding specificity of RNA-guided Cas9 nucleases", 83.0, False),
    ("DNA targeting specificity of RNA-guided Cas9 nucleases in human cells", 0.0, False),  # length ratio .78
])
def test_the_title_must_be_at_least_90_similar(found, similarity, verified):
    result = compare(CAS9, found)
    assert (result["title_similarity"], result["verified"]) == (similarity, verified)


def test_a_title_just_over_90_is_the_same_paper():
    # a word broken by PDF extraction: 90.2
    result = compare("Attention is all you need", "Attention is a ll you need")
    assert (result["title_similarity"], result["verified"], result["reason"]) == (90.2, True, "title matches")


@pytest.mark.parametrize("expected,found,similarity", [
    (CAS9, "DNA targeting specificity of RNA-guided Cas9 nucleases in cells", 92.3),  # length ratio .857
    (CAS9, "DNA targeting specificity of RNA-guided Cas", 0.0),  # length ratio .796
    (CAS9, "DNA targeting specificity of RNA-guided", 0.0),  # length ratio .722
    (CAS9, "", 0.0), (None, CAS9, 0.0), ("!!!", CAS9, 0.0),
])
def test_titles_of_very_different_lengths_score_nothing(expected, found, similarity):
    assert title_similarity(expected, found) == similarity


def test_a_title_differing_is_said_with_both_titles():
    result = compare(CAS9, "DNA binding specificity of RNA-guided Cas9 nucleases")
    assert result["reason"] == ("title differs (similarity 83 < 90): expected 'DNA targeting specificity of "
                                "RNA-guided Cas9 nucleases', Crossref has 'DNA binding specificity of RNA-guided Cas9 "
                                "nucleases'")


def test_a_subtitle_kept_apart_by_crossref_still_matches():
    found = work("10.1/x", "Off-target effects in CRISPR/Cas9 gene editing", 2023,
                 subtitle=["a review of detection methods"])
    result = crossref._compare("10.1/x", found, "Off-target effects in CRISPR/Cas9 gene editing: a review of "
                                                "detection methods", 2023)
    assert (result["verified"], result["title_similarity"]) == (True, 100.0)
    assert crossref._title_candidates(found) == [
        "Off-target effects in CRISPR/Cas9 gene editing",
        "Off-target effects in CRISPR/Cas9 gene editing: a review of detection methods"]
    assert crossref._title_candidates(work("10.1/x", "T")) == ["T"]


# --- the year check ------------------------------------------------------------------

@pytest.mark.parametrize("expected,found,verified,reason", [
    (2013, 2013, True, "title and year match"),
    (2013, 2014, True, "title and year match"),  # print and online years
    (2014, 2013, True, "title and year match"),
    (2013, 2015, False, "year differs: expected 2013, Crossref has 2015"),
    (2015, 2013, False, "year differs: expected 2015, Crossref has 2013"),
    (None, 2013, True, "title matches"),
    (2013, None, True, "title matches"),
])
def test_the_year_may_differ_by_one(expected, found, verified, reason):
    result = compare(CAS9, CAS9, expected, found)
    assert (result["verified"], result["reason"]) == (verified, reason)
    assert result["crossref_year"] == found


def test_the_year_alone_and_nothing_to_compare():
    assert compare(None, CAS9, 2013, 2013)["reason"] == "year matches"
    assert compare(None, CAS9, 2013, 2016)["reason"] == "year differs: expected 2013, Crossref has 2016"
    nothing = compare(None, CAS9)
    assert (nothing["verified"], nothing["reason"], nothing["crossref_title"]) == (True, "DOI exists at Crossref",
                                                                                  CAS9)
    assert nothing["title_similarity"] is None
    both_wrong = compare(CAS9, "Fish ladders and river connectivity in the Danube basin", 2013, 2020)
    assert both_wrong["verified"] is False
    assert both_wrong["reason"].startswith("title differs (similarity ")
    assert both_wrong["reason"].endswith("; year differs: expected 2013, Crossref has 2020")


def test_a_work_without_a_title_cannot_be_compared():
    result = compare(CAS9, None, 2013, 2013)
    assert (result["verified"], result["reason"]) == (None, "Crossref has the DOI but no title to compare")
    assert result["title_similarity"] is None


# --- the lookups, on a mock transport ----------------------------------------------------

def run(call, transport, env=None):
    async def main():
        async with HttpClient(settings_from_env(env if env is not None else {"LITSEARCH_EMAIL": "test@example.org"}),
                              transport=transport, policies=NO_PACING) as http:
            return await call(http.session(crossref.NAME))
    return asyncio.run(main())


class FakeCrossref:
    """Crossref's /works filter and /works/{doi} routes over a few works; records every request."""

    def __init__(self, works: list[dict], failing: bool = False):
        self.works = {w["DOI"].lower(): w for w in works}
        self.failing = failing
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.failing:
            return httpx.Response(503, text="Service Unavailable")
        path = request.url.path
        if path == "/works":
            wanted = [part.split(":", 1)[1] for part in request.url.params["filter"].split(",")]
            items = [self.works[doi] for doi in wanted if doi in self.works]
            return httpx.Response(200, json={"status": "ok", "message-type": "work-list",
                                             "message": {"items": items + [None, {"DOI": None}]}})
        doi = path.removeprefix("/works/").lower()
        if doi not in self.works:
            return httpx.Response(404, text="Resource not found.")
        return httpx.Response(200, json={"status": "ok", "message-type": "work", "message": self.works[doi]})


RETRACTED = work("10.1016/s0140-6736(97)11096-0", "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and "
                 "pervasive developmental disorder in children", 1998)
NOTICE = work("10.1016/s0140-6736(10)60175-4", "Retraction—Ileal-lymphoid-nodular hyperplasia", 2010,
              **{"update-to": [{"DOI": "10.1016/S0140-6736(97)11096-0", "type": "retraction",
                                "updated": {"date-parts": [[2010, 2, 6]]}, "source": "publisher"}]})
CORRECTED = work("10.1038/nbt.2647", CAS9, 2013, **{"updated-by": [
    {"DOI": "10.1038/nbt0114-104a", "type": "correction", "updated": {"date-parts": [[2014, 1, 8]]},
     "source": "publisher"}]})


def test_verify_many_in_one_batch_with_the_notices_it_finds():
    fake = FakeCrossref([RETRACTED, NOTICE, CORRECTED])
    items = [("https://doi.org/10.1038/NBT.2647", CAS9, 2013),
             ("10.1016/S0140-6736(97)11096-0", "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and "
                                               "pervasive developmental disorder in children", 1998),
             ("10.1016/S0140-6736(10)60175-4", None, None),
             ("10.5555/not.registered", "Anything", 2020),
             ("10.5281/zenodo.1234567", "A data set", 2020),
             ("10.48550/arXiv.1706.03762", "Attention is all you need", 2017),
             ("not a doi", "Title", 2020)]
    checks = run(lambda session: crossref.verify_many(session, items), httpx.MockTransport(fake))
    assert len(fake.requests) == 1  # one filter call for every checkable DOI
    request = fake.requests[0]
    assert request.url.params["filter"] == ("doi:10.1038/nbt.2647,doi:10.1016/s0140-6736(97)11096-0,"
                                            "doi:10.1016/s0140-6736(10)60175-4,doi:10.5555/not.registered,"
                                            "doi:10.5281/zenodo.1234567")
    assert request.url.params["rows"] == "5"
    assert request.url.params["mailto"] == "test@example.org"
    assert request.url.params["select"] == ("DOI,title,subtitle,issued,published,published-print,published-online,"
                                            "update-to,updated-by")
    verdicts = checks.verdicts
    # the DOIs answered without a request first, then the checked ones in the order given
    assert list(verdicts) == ["10.48550/arXiv.1706.03762", "not a doi", "10.1038/nbt.2647",
                              "10.1016/s0140-6736(97)11096-0", "10.1016/s0140-6736(10)60175-4", "10.5555/not.registered",
                              "10.5281/zenodo.1234567"]
    assert checks.unreachable == set()
    cas9 = verdicts["10.1038/nbt.2647"]
    assert (cas9["verified"], cas9["reason"], cas9["retracted"]) == (True, "title and year match", False)
    assert cas9["updates"] == [{"type": "correction", "notice_doi": "10.1038/nbt0114-104a", "notice_pmid": None,
                                "date": "2014-01-08", "source": "crossref (publisher)"}]
    retracted = verdicts["10.1016/s0140-6736(97)11096-0"]
    assert retracted["retracted"] is True
    assert retracted["updates"] == [{"type": "retraction", "notice_doi": "10.1016/s0140-6736(10)60175-4",
                                     "notice_pmid": None, "date": "2010-02-06", "source": "crossref (publisher)"}]
    assert verdicts["10.1016/s0140-6736(10)60175-4"]["retracted"] is False  # the notice itself
    assert (verdicts["10.5555/not.registered"]["verified"], verdicts["10.5555/not.registered"]["reason"]) == (
        False, "DOI not found at Crossref")
    assert (verdicts["10.5281/zenodo.1234567"]["verified"], verdicts["10.5281/zenodo.1234567"]["reason"]) == (
        None, "DataCite DOI, not at Crossref: not checked")
    arxiv = verdicts["10.48550/arXiv.1706.03762"]
    assert (arxiv["doi"], arxiv["verified"], arxiv["reason"]) == (
        "10.48550/arxiv.1706.03762", None, "arXiv DOI, registered with DataCite, not Crossref: not checked")
    assert verdicts["not a doi"] == {"doi": "not a doi", "verified": False, "reason": "not a DOI",
                                     "crossref_title": None, "crossref_year": None, "title_similarity": None}


@pytest.mark.parametrize("prefix", ["10.48550", "10.5281", "10.6084"])
def test_datacite_prefixes_are_not_judged_by_a_crossref_miss(prefix):
    assert crossref._absent(f"{prefix}/x.1")["verified"] is None
    assert crossref._absent("10.5282/x.1")["verified"] is False


def test_twenty_dois_to_a_call_and_a_doi_with_a_comma_alone():
    works = [work(f"10.5555/paper.{n}", f"Paper number {n} on a topic", 2020) for n in range(21)]
    works.append(work("10.1002/(sici)1097-4636(199703)35:1<1::aid-jbm1>3.0.co;2-x,y", "A comma in the DOI", 1997))
    fake = FakeCrossref(works)
    items = [(w["DOI"], w["title"][0], 2020 if n < 21 else 1997) for n, w in enumerate(works)]
    items.append(items[0])  # the same DOI twice is asked once
    checks = run(lambda session: crossref.verify_many(session, items), httpx.MockTransport(fake))
    filters = sorted(len(r.url.params["filter"].split(",")) for r in fake.requests if r.url.path == "/works")
    assert filters == [1, 20]
    alone = [r for r in fake.requests if r.url.path != "/works"]
    assert len(alone) == 1 and alone[0].url.params["mailto"] == "test@example.org"
    assert all(v["verified"] is True for v in checks.verdicts.values())
    assert len(checks.verdicts) == 22


def test_a_failed_batch_costs_only_its_verdicts():
    fake = FakeCrossref([CORRECTED], failing=True)
    items = [("10.1038/nbt.2647", CAS9, 2013), ("10.48550/arXiv.1706.03762", "Attention", 2017)]
    checks = run(lambda session: crossref.verify_many(session, items), httpx.MockTransport(fake))
    failed = checks.verdicts["10.1038/nbt.2647"]
    assert failed["verified"] is None and failed["reason"].startswith("Crossref lookup failed: ")
    assert checks.unreachable == {"10.1038/nbt.2647"}
    assert checks.verdicts["10.48550/arXiv.1706.03762"]["verified"] is None


def test_verify_doi_one_at_a_time():
    fake = FakeCrossref([CORRECTED])
    transport = httpx.MockTransport(fake)
    found = run(lambda session: crossref.verify_doi(session, "doi:10.1038/NBT.2647", CAS9, 2014), transport)
    assert (found["doi"], found["verified"], found["reason"], found["crossref_year"]) == (
        "10.1038/nbt.2647", True, "title and year match", 2013)
    assert fake.requests[-1].url.path == "/works/10.1038/nbt.2647"
    missing = run(lambda session: crossref.verify_doi(session, "10.5555/none"), transport)
    assert (missing["verified"], missing["reason"]) == (False, "DOI not found at Crossref")
    without_email = run(lambda session: crossref.verify_doi(session, "10.1038/nbt.2647"), transport, env={})
    assert without_email["verified"] is True and "mailto" not in fake.requests[-1].url.params
    many = run(lambda session: crossref.verify_dois(session, [("10.1038/nbt.2647", CAS9, 2013),
                                                              ("10.5555/none", "x", 2020),
                                                              ("10.1038/nbt.2647", "other title", 2013)]),
               transport)
    assert list(many) == ["10.1038/nbt.2647", "10.5555/none"]
    assert many["10.1038/nbt.2647"]["verified"] is True  # the first title given for a DOI is the one checked


def test_a_work_that_is_not_an_object_is_an_error():
    def respond(request):
        return httpx.Response(200, content=json.dumps({"status": "ok", "message": ["not", "a", "work"]}).encode())
    result = run(lambda session: crossref.verify_dois(session, [("10.1038/nbt.2647", CAS9, 2013)]),
                 httpx.MockTransport(respond))
    assert result["10.1038/nbt.2647"]["reason"] == "Crossref lookup failed: unexpected response (not a work)"
    with pytest.raises(Exception) as caught:
        run(lambda session: crossref.get_work(session, "not a doi"), httpx.MockTransport(respond))
    assert "not a DOI: 'not a doi'" in str(caught.value)


def test_more_failures_one_at_a_time():
    def respond(request):
        return httpx.Response(500, text="Internal Server Error")
    items = [("https://doi.org/10.1038/NBT.2647", CAS9, 2013)]
    failed = run(lambda session: crossref.verify_dois(session, items), httpx.MockTransport(respond))
    assert failed["https://doi.org/10.1038/NBT.2647"]["doi"] == "10.1038/nbt.2647"  # named in its bare form
    comma = "10.1002/(sici)1097-4636(199703)35:1<1::aid-jbm1>3.0.co;2-x,y"
    checks = run(lambda session: crossref.verify_many(session, [(comma, "A comma in the DOI", 1997)]),
                 httpx.MockTransport(respond))
    assert checks.unreachable == {comma}
    assert checks.verdicts[comma]["reason"].startswith("Crossref lookup failed: HTTP 500")


def test_verify_doi_never_asks_about_what_crossref_cannot_answer():
    fake = FakeCrossref([CORRECTED])
    transport = httpx.MockTransport(fake)
    assert run(lambda session: crossref.verify_doi(session, "not a doi", CAS9), transport) == {
        "doi": "not a doi", "verified": False, "reason": "not a DOI", "crossref_title": None, "crossref_year": None,
        "title_similarity": None}
    arxiv = run(lambda session: crossref.verify_doi(session, "10.48550/arXiv.1706.03762", "Attention"), transport)
    assert (arxiv["doi"], arxiv["verified"], arxiv["reason"]) == (
        "10.48550/arxiv.1706.03762", None, "arXiv DOI, registered with DataCite, not Crossref: not checked")
    zenodo = run(lambda session: crossref.verify_doi(session, "10.5281/zenodo.1234567", "A data set"), transport)
    assert (zenodo["verified"], zenodo["reason"]) == (None, "DataCite DOI, not at Crossref: not checked")
    assert [r.url.path for r in fake.requests] == ["/works/10.5281/zenodo.1234567"]


def test_a_doi_goes_into_the_path_with_its_slashes_as_slashes():
    fake = FakeCrossref([CORRECTED])
    paper = run(lambda session: crossref.get_work(session, "10.1038/NBT.2647"), httpx.MockTransport(fake))
    assert paper.title == CAS9 and paper.score is None
    assert fake.requests[0].url.raw_path.split(b"?")[0] == b"/works/10.1038/nbt.2647"


def test_the_threshold_itself_and_the_length_ratio_itself():
    assert compare("Sepsis after surgery", "Sepsis aftur surgury")["title_similarity"] == 90.0
    assert compare("Sepsis after surgery", "Sepsis aftur surgury")["verified"] is True  # 90 is enough
    # 40 and 50 characters: a ratio of 0.8 exactly is still compared
    assert title_similarity("Heart failure trials in elderly patients",
                            "Heart failure trials in elderly patients: an update") == 88.9
