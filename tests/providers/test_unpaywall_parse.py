"""Unpaywall parsing, fed real recorded DOI objects from ../shared."""

from __future__ import annotations

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import unpaywall

REPOSITORY_PDF = "unpaywall/raw/unpywall__v2_10.1038_nature12373.json"
ACCEPTED_MANUSCRIPT = "unpaywall/raw/unpywall__v2_10.1103_physreve.88.012814.json"
PDF_WITHOUT_LANDING = "unpaywall/raw/unpywall__v2_10.1016_j.jns.2020.116832.json"
LANDING_ONLY_GOLD = "unpaywall/raw/unpywall__v2_10.1016_j.envint.2020.105730.json"
LANDING_ONLY_BRONZE = "unpaywall/raw/unpywall__v2_10.1016_j.tmaid.2020.101663.json"
PUBLISHER_PDF = "unpaywall/bodies/paperqa__doi_search_10.1073_pnas.1414271111__00_200.json"
HYBRID_LANDING = "unpaywall/bodies/paperqa__doi_search_10.1016_j.addr.2015.01.008__00_200.json"
CLOSED = "unpaywall/bodies/paperqa__doi_search_10.1023_a_1007154515475__00_200.json"
CLOSED_2 = "unpaywall/bodies/paperqa__doi_search_10.1007_s40278-023-41815-2__00_200.json"
SEARCH_ANSWER = "unpaywall/bodies/paperqa__title_search_PaperQA__00_200.json"


def parse(relative: str) -> dict:
    return unpaywall.parse_oa(shared_file(relative).read_bytes())


def test_repository_pdf():
    assert parse(REPOSITORY_PDF) == {
        "doi": "10.1038/nature12373",
        "is_oa": True,
        "url": "https://dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale%20Thermometry.pdf",
        "is_pdf": True,
        "host_type": "repository",
        "version": "publishedVersion",
        "license": None,
    }


def test_accepted_manuscript_with_licence_text():
    oa = parse(ACCEPTED_MANUSCRIPT)
    assert oa["doi"] == "10.1103/physreve.88.012814"
    assert oa["url"] == "https://link.aps.org/accepted/10.1103/PhysRevE.88.012814"
    assert (oa["is_pdf"], oa["host_type"], oa["version"]) == (True, "publisher", "acceptedVersion")
    assert oa["license"].startswith("publisher-specific, author manuscript")


def test_pdf_when_the_landing_page_is_null():
    oa = parse(PDF_WITHOUT_LANDING)
    assert (oa["url"], oa["is_pdf"]) == ("https://doi.org/10.1016/j.jns.2020.116832", True)


def test_publisher_pdf_from_2025_format():
    oa = parse(PUBLISHER_PDF)
    assert oa["doi"] == "10.1073/pnas.1414271111"
    assert (oa["url"], oa["is_pdf"]) == ("https://www.pnas.org/content/pnas/111/45/E4832.full.pdf", True)
    assert (oa["host_type"], oa["version"], oa["license"]) == ("publisher", "publishedVersion", None)


@pytest.mark.parametrize("relative, url, licence", [
    (LANDING_ONLY_GOLD, "https://doi.org/10.1016/j.envint.2020.105730", "cc-by-nc-nd"),
    (LANDING_ONLY_BRONZE, "https://doi.org/10.1016/j.tmaid.2020.101663", None),
    (HYBRID_LANDING, "https://doi.org/10.1016/j.addr.2015.01.008", "cc-by-nc-nd"),
])
def test_landing_page_when_no_pdf_is_known(relative, url, licence):
    oa = parse(relative)
    assert oa["is_oa"] is True
    assert (oa["url"], oa["is_pdf"], oa["license"]) == (url, False, licence)


@pytest.mark.parametrize("relative, doi", [
    (CLOSED, "10.1023/a:1007154515475"),
    (CLOSED_2, "10.1007/s40278-023-41815-2"),
])
def test_closed_papers_have_no_url(relative, doi):
    assert parse(relative) == {"doi": doi, "is_oa": False, "url": None, "is_pdf": None,
                               "host_type": None, "version": None, "license": None}


def test_search_answer_is_not_a_doi_object():
    with pytest.raises(ProviderError, match="not a DOI object"):
        parse(SEARCH_ANSWER)


def test_error_and_non_json_bodies():
    with pytest.raises(ProviderError, match="API error: Please use your own email address"):
        unpaywall.parse_oa(b'{"HTTP_status_code": 422, "error": true, '
                           b'"message": "Please use your own email address in API calls."}')
    with pytest.raises(ProviderError, match="HTML page"):
        unpaywall.parse_oa(b"<!DOCTYPE html><title>502</title>")
    with pytest.raises(ProviderError, match="not JSON"):
        unpaywall.parse_oa(b"Service Unavailable")
