"""fulltext/choice.py in process: which copies of a paper are tried, best first, from its ids
and Unpaywall's answer (pure: no request is made)."""

from __future__ import annotations

import json

import pytest

from litsearch.fulltext.choice import MAX_LOCATIONS, UNPAYWALL, Location, PaperIds, plan, unpaywall_locations


def kinds(candidates):
    return [(c.kind, c.identifier) for c in candidates]


def test_the_ids_are_normalized_and_an_arxiv_doi_gives_the_arxiv_id():
    ids = PaperIds.of(pmcid=" pmc3299399 ", arxiv_id="arXiv:1706.03762v5", doi="https://doi.org/10.1038/NBT.2647",
                      pmid="PMID: 23873081")
    assert ids == PaperIds("PMC3299399", "1706.03762", "10.1038/nbt.2647", "23873081")
    assert PaperIds.of(doi="10.48550/arXiv.1706.03762").arxiv_id == "1706.03762"
    assert PaperIds.of(doi="10.48550/arXiv.1706.03762", arxiv_id="2101.00001").arxiv_id == "2101.00001"
    assert PaperIds.of() == PaperIds()


@pytest.mark.parametrize("given,kept", [
    ("PMC1", "PMC1"), ("1234567", "PMC1234567"), ("PMC1234567890", "PMC1234567890"),
    ("PMC12345678901", None), ("PMCabc", None), ("", None), (None, None), ("  ", None),
])
def test_a_pmcid_is_kept_only_in_its_shape(given, kept):
    assert PaperIds.of(pmcid=given).pmcid == kept


def test_the_order_pmc_then_arxiv_then_open_copies():
    pdf = Location("https://journal.example/a", "https://journal.example/a.pdf", host="publisher")
    candidates = plan(PaperIds("PMC1", "1706.03762", "10.1/x"), [pdf])
    assert kinds(candidates) == [("pmc", "PMC1"), ("europepmc", "PMC1"), ("arxiv_html", "1706.03762"),
                                 ("arxiv_pdf", "1706.03762"), ("open_access", "")]
    assert [c.label for c in candidates] == ["PubMed Central", "Europe PMC", "arXiv (HTML)", "arXiv (PDF)",
                                             "open-access copy (publisher)"]
    assert candidates[-1].location is pdf
    assert plan(PaperIds(), []) == []


def test_at_most_three_open_locations_and_none_that_a_source_already_gives():
    located = [Location(f"https://repo{n}.example/x", None) for n in range(MAX_LOCATIONS + 2)]
    assert len(plan(PaperIds(doi="10.1/x"), located)) == MAX_LOCATIONS
    assert plan(PaperIds(), [Location(None, "https://host.example/a.pdf")])[0].label == "open-access copy (web)"
    at_pmc = [Location("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/", None),
              Location(None, "https://europepmc.org/articles/PMC1?pdf=render"),
              Location("https://pmc.ncbi.nlm.nih.gov/articles/PMC1/", None),
              Location("https://ARXIV.org/abs/1706.03762", None)]
    # The three at PMC are skipped without counting: the arXiv page is an open copy like any here.
    assert kinds(plan(PaperIds(pmcid="PMC1"), at_pmc)) == [("pmc", "PMC1"), ("europepmc", "PMC1"),
                                                          ("open_access", "")]
    assert kinds(plan(PaperIds(arxiv_id="1706.03762"), at_pmc[1:])) == [("arxiv_html", "1706.03762"),
                                                                         ("arxiv_pdf", "1706.03762")] + \
        [("open_access", "")] * 2  # the copy at arXiv is the one arXiv gives
    assert len(plan(PaperIds(doi="10.1/x"), at_pmc)) == 3  # without those ids, they are open copies like any


def unpaywall(**payload) -> str:
    return json.dumps({"is_oa": True, **payload})


def test_unpaywall_locations_best_first_each_once():
    best = {"url_for_landing_page": "https://j.example/a", "url_for_pdf": "https://j.example/a.pdf",
            "license": " cc-by ", "version": "publishedVersion", "host_type": "publisher"}
    other = {"url": "https://repo.example/a", "host_type": "repository", "license": None, "version": 3}
    body = unpaywall(best_oa_location=best, oa_locations=[best, other, None, "x", {"url_for_pdf": "ftp://no/a.pdf"}])
    assert unpaywall_locations(body) == [
        Location("https://j.example/a", "https://j.example/a.pdf", "cc-by", "publishedVersion", "publisher", UNPAYWALL),
        Location("https://repo.example/a", None, None, None, "repository", UNPAYWALL)]
    assert unpaywall_locations(body.encode()) == unpaywall_locations(body)


@pytest.mark.parametrize("body", [json.dumps({"is_oa": False, "best_oa_location": {"url": "https://a.example"}}),
                                  json.dumps([1, 2]), json.dumps({"is_oa": True}),
                                  json.dumps({"is_oa": True, "oa_locations": [{"url": "javascript:x"}]})])
def test_a_closed_or_empty_answer_has_no_locations(body):
    assert unpaywall_locations(body) == []


def test_an_answer_that_is_not_json_is_an_error():
    with pytest.raises(ValueError) as error:
        unpaywall_locations("<html>busy</html>")
    assert str(error.value) == "Unpaywall's answer is not JSON"


def test_a_landing_page_is_preferred_to_the_plain_url():
    located = unpaywall_locations(unpaywall(best_oa_location={"url_for_landing_page": "https://a.example/l",
                                                               "url": "https://a.example/u", "host_type": " "}))
    assert (located[0].landing_url, located[0].host) == ("https://a.example/l", None)


def test_each_link_is_tried_once_whoever_names_it():
    record = Location("https://j.example/a", "https://j.example/a.pdf", host="publisher")
    again = Location("https://j.example/a", "https://j.example/a.pdf", host="publisher", named_by=UNPAYWALL)
    landing_only = Location("https://j.example/a", None)  # a link already planned
    pdf_elsewhere = Location("https://j.example/a", "https://repo.example/a.pdf", host="repository")
    planned = plan(PaperIds(doi="10.1/x"), [record, again, landing_only, pdf_elsewhere])
    assert [c.location for c in planned] == [record, pdf_elsewhere]


def test_unpaywalls_locations_are_named_by_the_unpaywall_service():
    # The name is the service's (net/http.py trusts the origin the user set for it), and the label says it.
    from litsearch.runtime.settings import declared_services

    located = unpaywall_locations(unpaywall(best_oa_location={"url_for_pdf": "https://r.example/a.pdf",
                                                               "host_type": "repository"}))
    assert [location.named_by for location in located] == ["unpaywall"] and "unpaywall" in declared_services()
    assert plan(PaperIds(doi="10.1/x"), located)[0].label == "open-access copy (repository, from Unpaywall)"


def test_an_entry_that_is_no_location_costs_only_itself():
    body = unpaywall(best_oa_location=None, oa_locations=["x", 3, {"url": "https://repo.example/a"}])
    assert [location.landing_url for location in unpaywall_locations(body)] == ["https://repo.example/a"]


def test_unpaywalls_words_are_kept_on_one_line():
    entry = {"url_for_pdf": "https://r.example/a.pdf", "license": " cc by\n 4.0 ", "version": "accepted\tVersion",
             "host_type": "\n"}
    [located] = unpaywall_locations(unpaywall(best_oa_location=entry))
    assert (located.license, located.version, located.host) == ("cc by 4.0", "accepted Version", None)
