"""Crossref's work records read field by field (providers/crossref_parse.py): the dates it
writes in four places and with gaps, JATS abstracts and their headings, notices in updated-by
and update-to, authors and organisations, and the API's error payloads word for word. Written
to kill the mutants of crossref_parse.py (bench/mutation.py); test_crossref_parse.py reads the
real recorded answers."""

from __future__ import annotations

import json

import pytest

from litsearch.core.errors import ProviderError
from litsearch.providers.crossref_parse import (
    first_text, jats_to_text, message_of, notices_about, parse_single, parse_work, parse_works, work_updates,
)


def work(**fields) -> dict:
    return {"DOI": "10.1038/NBT.2647", "title": ["DNA targeting specificity of RNA-guided Cas9 nucleases"], **fields}


@pytest.mark.parametrize("dates,year,day", [
    ({"issued": {"date-parts": [[2013, 7, 21]]}}, 2013, "2013-07-21"),
    ({"published-online": {"date-parts": [[2013, 7, 21]]}}, 2013, "2013-07-21"),
    ({"published-print": {"date-parts": [[2013, 9]]}}, 2013, "2013-09"),
    ({"issued": {"date-parts": [[None]]}, "published": {"date-parts": [[2014]]}}, 2014, "2014"),
    ({"issued": {"date-parts": [[2013, None, 5]]}}, 2013, "2013"),  # a gap ends the date
    ({"issued": {"date-parts": [[2013, 2, 30]]}, "published-online": {"date-parts": [[2013, 3, 1]]}}, 2013,
     "2013-03-01"),  # an impossible day: the next field
    ({"issued": {"date-parts": [[2013, 7, 21], [2014, 1, 1]]}}, 2013, "2013-07-21"),  # the first row
    ({"created": {"date-parts": [[2012, 1, 1]]}}, None, None),  # registration is no publication
    ({}, None, None),
])
def test_dates(dates, year, day):
    paper = parse_work(work(**dates))
    assert (paper.year, paper.publication_date) == (year, day)


@pytest.mark.parametrize("abstract,text", [
    ("<jats:title>Abstract</jats:title><jats:p>Cas9 cuts DNA.</jats:p>", "Cas9 cuts DNA."),
    ("<jats:title>Summary</jats:title><jats:p>Cas9 cuts DNA.</jats:p>", "Cas9 cuts DNA."),
    ("<jats:title>Background:</jats:title><jats:p>Cas9 cuts DNA.</jats:p>", "Background: Cas9 cuts DNA."),
    ("<jats:title></jats:title><jats:p>Cas9 cuts DNA.</jats:p>", "Cas9 cuts DNA."),
    ("<JATS:TITLE>Materials and\nmethods</JATS:TITLE><jats:p>We sequenced.</jats:p>",
     "Materials and methods: We sequenced."),
    ("<jats:title>SUPPLEMENTARY APPENDIX</jats:title><jats:p>Tables.</jats:p>", "SUPPLEMENTARY APPENDIX: Tables."),
    ("Earlier text.<jats:title>Abstract</jats:title>Cas9 cuts DNA.", "Earlier text. Cas9 cuts DNA."),
    ("<jats:p>Abstract.</jats:p>", None), ("<jats:p>Abstract:</jats:p>", None), ("<p>Abstract</p>", None),
    ("", None), (None, None),
])
def test_jats_abstracts(abstract, text):
    assert jats_to_text(abstract) == text


def test_a_work_without_notices_is_not_retracted_as_far_as_crossref_knows():
    assert parse_work(work()).retracted is False
    assert work_updates(work()) == {"retracted": False, "updates": []}


def test_notices_in_updated_by():
    updates = work_updates(work(**{"updated-by": [
        {"DOI": "10.1038/NBT0114-104A", "type": "correction", "updated": {"date-parts": [[2014, 1, 8], [2015]]}},
        {"DOI": "10.1/x", "type": "comment"},  # not a notice
        "garbage",
        {"DOI": "10.1038/nbt.9999", "type": "retraction", "updated": {"date-parts": [[None]]}, "source": "retraction-watch"},
    ]}))
    assert updates == {"retracted": True, "updates": [
        {"type": "correction", "notice_doi": "10.1038/nbt0114-104a", "notice_pmid": None, "date": "2014-01-08",
         "source": "crossref"},
        {"type": "retraction", "notice_doi": "10.1038/nbt.9999", "notice_pmid": None, "date": None,
         "source": "crossref (retraction-watch)"}]}


def test_a_notice_names_the_works_it_updates():
    notice = {"DOI": "10.1016/S0140-6736(10)60175-4", "update-to": [
        {"DOI": "10.1016/S0140-6736(97)11096-0", "type": "retraction", "updated": {"date-parts": [[2010, 2, 6]]},
         "source": "publisher"},
        {"DOI": "10.1016/S0140-6736(97)99999-9", "type": "comment"},  # no notice kind
        {"type": "retraction"},  # no target
        {"DOI": "not a doi", "type": "retraction"},
    ]}
    assert notices_about(notice) == [("10.1016/s0140-6736(97)11096-0", {
        "type": "retraction", "notice_doi": "10.1016/s0140-6736(10)60175-4", "notice_pmid": None,
        "date": "2010-02-06", "source": "crossref (publisher)"})]


def test_authors_and_organisations():
    paper = parse_work(work(author=[{"given": "Patrick D", "family": "Hsu"}, "garbage", {"family": "Scott"},
                                    {"name": "The CRISPR Consortium"}, {"given": "", "family": ""}]))
    assert paper.authors == ["Patrick D Hsu", "Scott", "The CRISPR Consortium"]


def test_first_text():
    assert first_text("Nature Biotechnology") == "Nature Biotechnology"
    assert first_text(["", "  ", "<i>Nature</i> Biotechnology"]) == "Nature Biotechnology"
    assert first_text([]) is None and first_text(None) is None


@pytest.mark.parametrize("payload,message", [
    ({"status": "failed", "message-type": "validation-failure",
      "message": [{"type": "parameter-not-allowed", "value": "x", "message": "Parameter x not allowed"},
                  {"type": "parameter-not-valid", "message": "rows is too big"}]},
     "API error: parameter-not-allowed: Parameter x not allowed; parameter-not-valid: rows is too big"),
    ({"status": "error", "message": {"name": "NotFound", "description": "Resource  not\nfound."}},
     "API error: NotFound: Resource not found."),
    ({"status": "failed", "message-type": "exception", "message": []}, "API error: exception"),
    ({"status": "failed", "message": "Plain words"}, "API error: Plain words"),
    ({"status": "failed"}, "API error (no message)"),
])
def test_error_payloads_word_for_word(payload, message):
    with pytest.raises(ProviderError) as caught:
        message_of(json.dumps(payload))
    assert str(caught.value) == message


def test_answers_that_are_not_works():
    with pytest.raises(ProviderError, match=r"^unexpected response \(no list of works\)$"):
        parse_works(json.dumps({"status": "ok", "message": {"items": None}}))
    with pytest.raises(ProviderError, match=r"^unexpected response \(not a work\)$"):
        parse_single(json.dumps({"status": "ok", "message": {"title": ["No DOI"]}}))
    assert parse_single(json.dumps({"status": "ok", "message": work(score=1.0)})).score is None
    assert parse_works(json.dumps({"status": "ok", "message": {"items": [work(), None, {"DOI": "10.1/x"}]}}))[0].rank == 1
