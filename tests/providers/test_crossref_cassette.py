"""Crossref HTTP flow: search, work lookup and DOI verification replayed from
tests/cassettes/crossref, and checked against a mock transport for what goes on the wire."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from cassettes_support import cassette_vcr
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import crossref
from litsearch.runtime.settings import settings_from_env


async def records_of(answer):
    """A provider search's records (the rest of its ProviderAnswer aside)."""
    return (await answer).records

EMAIL_ENV = {"LITSEARCH_EMAIL": "test@example.org"}
NO_PACING = {"crossref": PacePolicy(min_interval=0, max_in_flight=3, retries=0)}

MATCHING_DOI = "10.1038/nbt.2647"
MATCHING_TITLE = "DNA targeting specificity of RNA-guided Cas9 nucleases."
OTHER_PAPER_DOI = "10.3389/fbioe.2023.1143158"
UNKNOWN_DOI = "10.5555/not.a.registered.doi"
ARXIV_DOI = "10.48550/arXiv.1706.03762"


def run(call, env=EMAIL_ENV, transport=None):
    """Run ``call(session)`` inside a fresh client; returns its result."""
    async def main():
        async with HttpClient(settings_from_env(env), transport=transport, policies=NO_PACING) as http:
            return await call(http.session(crossref.NAME))
    return asyncio.run(main())


def replay(cassette_name: str, call, expected_plays: int):
    with cassette_vcr().use_cassette(f"crossref/{cassette_name}") as cassette:
        result = run(call)
    assert cassette.play_count == expected_plays
    return result


def verify(doi, title=None, year=None):
    return replay("verify_dois.yaml", lambda session: crossref.verify_doi(session, doi, title, year), 1)


# ---------------------------------------------------------------- search

def test_search_replays_and_parses_the_page():
    papers = replay("search_crispr.yaml", lambda session: records_of(crossref.search(session, "CRISPR off-target effects", 3)), 1)
    assert [paper.rank for paper in papers] == [1, 2, 3]
    review, chapter, hsu = papers

    assert review.title == "Off-target effects in CRISPR/Cas9 gene editing"
    assert review.doi == "10.3389/fbioe.2023.1143157"  # sent upper-case
    assert review.abstract == ("Guide RNAs can steer Cas9 to sites that only resemble the target. "
                               "We compare ways to find and avoid such sites.")
    assert review.score == pytest.approx(61.25)
    assert (review.year, review.publication_date, review.citation_count) == (2023, "2023-03-09", 95)
    assert review.authors == ["Congting Guo", "Xiaoteng Ma"]

    assert chapter.title == "Fast off-target search for CRISPR guides"
    assert chapter.authors == ["Lena Fischer", "Genome Editing Consortium"]
    assert chapter.year == 2018  # issued is [[null]]; published-print has the year
    assert chapter.journal == "Lecture Notes in Computer Science"
    assert chapter.abstract is None and chapter.publication_types == ["book-chapter"]

    assert hsu.year == 2013 and hsu.publication_date == "2013-07-21"
    assert (hsu.journal, hsu.volume, hsu.issue, hsu.pages) == ("Nature Biotechnology", "31", "9", "827-832")


# ---------------------------------------------------------------- single work

def test_get_work_sends_the_doi_percent_encoded():
    paper = replay("get_work_colon_doi.yaml",
                   lambda session: crossref.get_work(session, "https://doi.org/10.1023/A:1007154515475"), 1)
    assert paper.doi == "10.1023/a:1007154515475"
    assert paper.title == "Active site residues of lactoperoxidase"
    assert (paper.year, paper.publication_date, paper.pages) == (2001, "2001-02", "117-125")
    assert paper.score is None  # the lookup's "score": 1 is not a relevance


def test_get_work_unknown_doi_is_none():
    assert replay("verify_dois.yaml", lambda session: crossref.get_work(session, UNKNOWN_DOI), 1) is None


# ---------------------------------------------------------------- verification

def test_verify_match():
    result = verify(MATCHING_DOI, MATCHING_TITLE, 2013)
    assert result == {"doi": MATCHING_DOI, "verified": True, "reason": "title and year match",
                      "crossref_title": "DNA targeting specificity of RNA-guided Cas9 nucleases",
                      "crossref_year": 2013, "title_similarity": 100.0}


def test_verify_without_expectations_means_exists():
    result = verify(MATCHING_DOI)
    assert (result["verified"], result["reason"], result["title_similarity"]) == (True, "DOI exists at Crossref", None)


def test_verify_year_within_one_matches_and_further_off_does_not():
    assert verify(MATCHING_DOI, MATCHING_TITLE, 2014)["verified"] is True  # online 2013, print issue in 2014
    result = verify(MATCHING_DOI, MATCHING_TITLE, 2016)
    assert result["verified"] is False
    assert result["reason"] == "year differs: expected 2016, Crossref has 2013"


def test_verify_title_mismatch():
    result = verify(OTHER_PAPER_DOI, "Off-target effects in CRISPR/Cas9 gene editing", 2023)
    assert result["verified"] is False
    assert result["crossref_title"] == "Bioreactor designs for tendon tissue engineering"
    assert result["title_similarity"] < crossref.TITLE_MATCH_THRESHOLD
    assert result["reason"].startswith("title differs (similarity ")
    assert "'Off-target effects in CRISPR/Cas9 gene editing'" in result["reason"]
    assert "'Bioreactor designs for tendon tissue engineering'" in result["reason"]


def test_verify_unknown_doi():
    result = verify(UNKNOWN_DOI, "Anything", 2020)
    assert (result["verified"], result["reason"]) == (False, "DOI not found at Crossref")
    assert result["crossref_title"] is None


def test_verify_matches_title_with_subtitle():
    result = replay("get_work_colon_doi.yaml", lambda session: crossref.verify_doi(
        session, "10.1023/a:1007154515475",
        "Active site residues of lactoperoxidase: roles of arginine and histidine in iodide binding", 2001), 1)
    assert result["verified"] is True and result["title_similarity"] == 100


def test_arxiv_doi_is_not_checked_and_sends_nothing():
    result = replay("verify_dois.yaml", lambda session: crossref.verify_doi(session, ARXIV_DOI, "Attention", 2017), 0)
    assert result["verified"] is None
    assert result["doi"] == "10.48550/arxiv.1706.03762"
    assert "DataCite" in result["reason"]


def test_verify_dois_checks_many_at_once():
    items = [
        (MATCHING_DOI, MATCHING_TITLE, 2013),
        (OTHER_PAPER_DOI, "Off-target effects in CRISPR/Cas9 gene editing", 2023),
        (UNKNOWN_DOI, None, None),
        (ARXIV_DOI, "Attention Is All You Need", 2017),
        (MATCHING_DOI, MATCHING_TITLE, 2013),  # a repeat is looked up once
    ]
    results = replay("verify_dois.yaml", lambda session: crossref.verify_dois(session, items), 3)
    assert list(results) == [MATCHING_DOI, OTHER_PAPER_DOI, UNKNOWN_DOI, ARXIV_DOI]
    assert [result["verified"] for result in results.values()] == [True, False, False, None]


# ---------------------------------------------------------------- what goes on the wire

def capture_into(requests: list[httpx.Request], respond=None):
    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if respond:
            return respond(request)
        return httpx.Response(200, json={"status": "ok", "message-type": "work-list",
                                         "message": {"total-results": 0, "items": []}})
    return handler


def test_search_parameters_and_mailto_on_the_wire():
    requests: list[httpx.Request] = []
    query = crossref.combine_queries(["heart failure", "ejection fraction heart"])
    run(lambda session: records_of(crossref.search(session, query, 500)), transport=httpx.MockTransport(capture_into(requests)))
    request = requests[0]
    assert (request.url.host, request.url.path) == ("api.crossref.org", "/works")
    params = request.url.params
    assert params["query"] == "heart failure ejection fraction"
    assert params["rows"] == "100"
    assert params["mailto"] == "test@example.org"
    assert set(params["select"].split(",")) >= {"DOI", "title", "abstract", "issued", "is-referenced-by-count", "score"}


def test_no_mailto_without_an_email():
    requests: list[httpx.Request] = []
    run(lambda session: records_of(crossref.search(session, "q", 5)), env={}, transport=httpx.MockTransport(capture_into(requests)))
    assert "mailto" not in requests[0].url.params


def test_work_lookup_sends_mailto():
    requests: list[httpx.Request] = []
    not_found = capture_into(requests, lambda request: httpx.Response(404, text="Resource not found."))
    assert run(lambda session: crossref.get_work(session, MATCHING_DOI), transport=httpx.MockTransport(not_found)) is None
    assert requests[0].url.path == "/works/10.1038/nbt.2647"
    assert requests[0].url.params["mailto"] == "test@example.org"


def test_datacite_prefix_404_is_not_a_failure():
    requests: list[httpx.Request] = []
    not_found = capture_into(requests, lambda request: httpx.Response(404, text="Resource not found."))
    result = run(lambda session: crossref.verify_doi(session, "10.5281/zenodo.1234567", "A data set", 2020),
                 transport=httpx.MockTransport(not_found))
    assert result["verified"] is None and "DataCite" in result["reason"]
    assert len(requests) == 1


def test_one_failed_lookup_does_not_sink_the_others():
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("broken"):
            return httpx.Response(500, text="Internal Server Error")
        return httpx.Response(200, json={"status": "ok", "message-type": "work",
                                         "message": {"DOI": "10.1000/fine", "title": ["Fine"],
                                                     "issued": {"date-parts": [[2020]]}}})

    items = [("10.1000/broken", "Broken", 2020), ("10.1000/fine", "Fine", 2020)]
    results = run(lambda session: crossref.verify_dois(session, items),
                  transport=httpx.MockTransport(capture_into([], respond)))
    broken, fine = results["10.1000/broken"], results["10.1000/fine"]
    assert broken["verified"] is None
    assert broken["reason"].startswith("Crossref lookup failed: HTTP 500")
    assert fine["verified"] is True


def test_a_malformed_doi_fails_without_a_request():
    requests: list[httpx.Request] = []
    result = run(lambda session: crossref.verify_doi(session, "not-a-doi", "Title"),
                 transport=httpx.MockTransport(capture_into(requests)))
    assert (result["verified"], result["reason"]) == (False, "not a DOI")
    assert requests == []
