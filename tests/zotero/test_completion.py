"""zotero/completion.py: what a citation needs, filled from OpenAlex's record of the same paper,
and nothing the file already has replaced."""

from __future__ import annotations

import pytest

from litsearch.core.records import Paper
from litsearch.zotero.completion import complete_from_works
from litsearch.zotero.inputs import needs_completing

TITLE = "Long-term outcomes of eculizumab in children"


def work(**fields) -> Paper:
    base = dict(provider="openalex", title=TITLE, authors=["Rhona Kelly", "Louise Arnold", "Peter Hillmen"],
                openalex_id="W1", doi="10.1182/blood.1", pmid="31", volume="134", issue="2", pages="S456",
                publication_date="2019-11-13", journal="Blood", publication_types=["article"])
    return Paper(**{**base, **fields})


@pytest.mark.parametrize("ids", [{"openalex_id": "W1"}, {"doi": "10.1182/BLOOD.1"}, {"pmid": "31"}])
def test_missing_fields_are_filled_by_any_shared_id(ids):
    paper = Paper(provider="file", title=TITLE.upper(), authors=["Rhona Kelly"], **ids)
    assert needs_completing(paper)
    assert complete_from_works([paper], [0], [work()]) == 1
    assert (paper.volume, paper.issue, paper.pages, paper.journal, paper.publication_types) == \
        ("134", "2", "S456", "Blood", ["article"])
    assert paper.authors == ["Rhona Kelly"]  # a list that was not cut stays the file's


def test_what_the_file_has_is_never_replaced():
    paper = Paper(provider="file", title=TITLE, doi="10.1182/blood.1", volume="99", pages="1-2", authors=["A B"])
    complete_from_works([paper], [0], [work()])
    assert (paper.volume, paper.pages, paper.issue) == ("99", "1-2", "2")


def test_another_paper_under_the_same_id_is_not_taken():
    paper = Paper(provider="file", title="Long-term outcomes of eculizumab in adults", doi="10.1182/blood.1")
    assert complete_from_works([paper], [0], [work()]) == 0 and paper.volume is None


@pytest.mark.parametrize("authors,cut,expected", [
    (["Rhona Kelly", "others"], set(), 3),  # BibTeX's "and others"
    (["Rhona Kelly", "et al."], set(), 3),
    ([], set(), 3),
    (["Rhona Kelly", "Louise Arnold"], {0}, 3),  # an older search JSON's five (here two) kept
    (["Rhona Kelly", "Louise Arnold"], set(), 2),
])
def test_authors_only_when_the_list_was_cut(authors, cut, expected):
    paper = Paper(provider="file", title=TITLE, openalex_id="W1", authors=list(authors))
    complete_from_works([paper], [0], [work()], cut)
    assert len(paper.authors) == expected


def test_a_complete_record_needs_nothing():
    assert not needs_completing(work())
    for name in ("volume", "issue", "pages", "publication_date", "journal"):
        assert needs_completing(work(**{name: None})), name
    assert needs_completing(work(publication_types=[])) and needs_completing(work(authors=["A", "others"]))
