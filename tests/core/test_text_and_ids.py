"""Text cleaning and identifier normalization: the small functions everything relies on."""

import pytest
from hypothesis import given, settings, strategies as st

from litsearch.core.identifiers import arxiv_id_from_doi, is_arxiv_doi, normalize_arxiv_id, normalize_doi, normalize_openalex_id, normalize_pmid, split_arxiv_id
from litsearch.core.text import fold_title, plain_text


@pytest.mark.parametrize("raw,expected", [
    ("10.1038/NBT.2647", "10.1038/nbt.2647"),
    ("https://doi.org/10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("http://dx.doi.org/10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("doi: 10.1016/S0140-6736(20)30183-5", "10.1016/s0140-6736(20)30183-5"),
    ("https://doi.org/10.1023%2Fa%3A1007154515475", "10.1023/a:1007154515475"),
    ("10.1038/nbt.2647.", "10.1038/nbt.2647"),
    ("not a doi", None), ("", None), (None, None),
])
def test_normalize_doi(raw, expected):
    assert normalize_doi(raw) == expected


def test_arxiv_ids_and_dois():
    assert split_arxiv_id("http://arxiv.org/abs/1706.03762v7") == ("1706.03762", "v7")
    assert split_arxiv_id("https://www.arxiv.org/pdf/2005.14165v4.pdf") == ("2005.14165", "v4")
    assert normalize_arxiv_id("arXiv:hep-th/9901001v2") == "hep-th/9901001"
    assert normalize_arxiv_id("math.GT/0309136v1") == "math/0309136"
    assert normalize_arxiv_id("nonsense") is None
    assert is_arxiv_doi("10.48550/arXiv.2312.07559") and not is_arxiv_doi("10.1038/nbt.2647")
    assert arxiv_id_from_doi("10.48550/arxiv.2312.07559") == "2312.07559"


def test_pmid_and_openalex_ids():
    assert normalize_pmid("https://pubmed.ncbi.nlm.nih.gov/23873081") == "23873081"
    assert normalize_pmid("PMID: 0123") == "123"
    assert normalize_pmid(None) is None
    assert normalize_openalex_id("https://openalex.org/W2626778328") == "W2626778328"
    assert normalize_openalex_id("https://openalex.org/A123") is None


@pytest.mark.parametrize("raw,expected", [
    ("significant (p<0.05) in group A, larger when n>30", "significant (p<0.05) in group A, larger when n>30"),
    ("&lt;i&gt;E. coli&lt;/i&gt; &amp; H<sub>2</sub>O", "E. coli & H2O"),
    ("<jats:p>One.</jats:p><jats:p>Two.</jats:p>", "One. Two."),
    ("Title with\n   hard wrap", "Title with hard wrap"),
    ("bell\x07 and \u202eRTL override", "bell and RTL override"),
    ("   ", None), (None, None),
])
def test_plain_text(raw, expected):
    assert plain_text(raw) == expected


def test_fold_title_ignores_case_accents_markup_and_punctuation():
    assert fold_title("Genome-wide <i>in vivo</i> Édition.") == fold_title("genome wide in vivo edition")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ09 _-.,;:()[]/'\"<>&;#\t\n\x0b\x1f\x7féÉ\u0301\u200bß"), max_size=40)
       | st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=40) | st.none()
       | st.lists(st.sampled_from(["Tabu", " search", "&amp;", "&#233;", "&lt;i&gt;", "<i>", "</i>", "_", "-"]),
                  max_size=8).map("".join))
def test_fold_title_fast_path_folds_as_the_full_path(title):
    # Plain ASCII titles skip plain_text (the deep-search pool keys thousands a round): the key
    # must be the one the full path gives, whatever the title holds.
    from litsearch.core.text import _fold_any_title

    assert fold_title(title) == _fold_any_title(title)


@pytest.mark.parametrize("url, is_pdf", [
    ("https://arxiv.org/pdf/1706.03762", True),
    ("https://example.org/paper.PDF", True),
    ("https://example.org/files/paper.pdf?download=1", True),
    ("https://europepmc.org/articles/PMC12124214?pdf=render", True),  # Europe PMC's fullTextUrl, documentStyle pdf
    ("https://europepmc.org/articles/PMC12124214?pdf", True),
    ("https://europepmc.org/articles/PMC12124214", False),
    ("https://example.org/article?format=html&pdfview=1", False),
    ("https://example.org/pdfs-and-more/index.html", False),
    ("https://example.org/view#pdf=1", False),
    (None, False), ("", False),
])
def test_a_pdf_link_is_told_by_its_path_or_its_pdf_parameter(url, is_pdf):
    from litsearch.core.urls import is_pdf_url

    assert is_pdf_url(url) is is_pdf
