"""The LaTeXML reader on arXiv's converter output, the publisher-page reader, and the PDF reader
on the four real open-access PDFs in ../shared/fixtures/fulltext/pdf and on made PDFs whose
every word is known (tests/pdf_maker.py)."""

from __future__ import annotations

import io

import pytest
from pdf_maker import blank_pages, make_pdf

from litsearch.fulltext.document import NoFullText
from litsearch.fulltext.htmlpage import parse_article_page, pdf_link
from litsearch.fulltext.latexml import parse_latexml
from litsearch.fulltext.pdf import MAX_PAGES, PdfPages, parse_pdf, parse_pdf_pages, repair_text

LATEXML = "fulltext/arxiv_html/arxivviewashtml__latexml_0.8.7_output_analyzing_astronomical_data_ml.html"
ABS_PAGE = "fulltext/arxiv_html/arxivbrowse__abs_page_0906.2112v3.html"
PDFS = "fulltext/pdf/"


def test_latexml_document(shared):
    document = parse_latexml(shared(LATEXML).read_text(encoding="utf-8"))
    assert document.title == "Analyzing Astronomical Data with Machine Learning Techniques"
    assert document.authors == ["Mohammad H. Zhoolideh Haghighi"]
    top = [(s.number, s.heading) for s in document.sections if s.level == 1]
    assert top[0] == ("1", "Abstract")
    assert [h for _, h in top if h[0].isdigit()] == ["1 Introduction", "2 Review; Popular Classification Algorithms",
                                                     "3 Data", "4 Classification metrics", "5 Results",
                                                     "6 Summary and Conclusion"]
    assert [s.heading for s in document.sections if s.number.startswith("4.")][:2] == ["2.1 Linear regression",
                                                                                         "2.2 Logistic regression"]
    text = "\n".join(s.text for s in document.sections)
    assert r"P(y\mid X)=\frac{P(X\mid y)P(y)}{P(X)}" in text  # an equation as its LaTeX
    figures = next(s for s in document.sections if s.kind == "figures").text.split("\n\n")
    assert len(figures) == 3 and figures[0].startswith("Figure 1: A schematic view of a Neural Network.")
    assert next(s for s in document.sections if s.kind == "tables").text.startswith("Table 1: Accuracy")
    references = document.sections[-1]
    assert references.kind == "references" and len(references.text.split("\n")) == 14
    assert references.text.startswith("[Campana et al. (2007)] Campana R., Massaro E.")
    assert "E-mail" not in document.authors[0]


def test_an_arxiv_abstract_page_is_no_full_text(shared):
    with pytest.raises(NoFullText, match="not a LaTeXML"):
        parse_latexml(shared(ABS_PAGE).read_text(encoding="utf-8"))


WORDS = "This paragraph belongs to the article and is long enough to be counted as its text. " * 15
ARTICLE = f"""<html><head><meta name="citation_title" content="A Title"><meta name="citation_author" content="A One">
<meta name="citation_doi" content="10.1/x"></head><body><header><p>{WORDS}</p></header><nav><p>{WORDS}</p></nav>
<article><h2>Introduction</h2><p>{WORDS}</p><h2>Results</h2><p>{WORDS}</p><h3>Detail</h3><ul><li>one</li><li>two</li>
</ul><figure><figcaption>Figure 1. The result.</figcaption></figure><table><caption>Table 1. Counts.</caption></table>
</article><footer><p>{WORDS}</p></footer></body></html>"""


def test_publisher_article_page():
    document = parse_article_page(ARTICLE)
    assert document.title == "A Title" and document.authors == ["A One"] and document.identifiers == {"doi": "10.1/x"}
    assert [(s.heading, s.level) for s in document.sections] == [
        ("Introduction", 1), ("Results", 1), ("Detail", 2), ("Figures", 1), ("Tables", 1)]
    assert document.sections[2].text == "- one\n- two"
    assert document.chars < 3 * len(WORDS)  # header, navigation and footer are not the article


def test_landing_page_is_no_full_text_but_names_its_pdf():
    page = ('<html><head><meta name="citation_pdf_url" content="/content/paper.pdf"></head>'
            "<body><h1>Title</h1><p>Abstract only.</p></body></html>")
    with pytest.raises(NoFullText, match="landing page"):
        parse_article_page(page)
    assert pdf_link(page, "https://journal.example/article/1") == "https://journal.example/content/paper.pdf"
    assert pdf_link('<meta name="citation_pdf_url" content="javascript:alert(1)">', "https://x.example/") is None


@pytest.mark.parametrize("name, title, headings, pages", [
    ("fulltext__peerj_1120_drageset2015_cc_by_4.0.pdf",
     "Suffering and mental health among older people living in nursing homes—a mixed-methods study",
     ["ABSTRACT", "INTRODUCTION", "METHODS", "RESULTS", "DISCUSSION", "REFERENCES"], 18),
    ("fulltext__plosone_0107412_soler2014_cc_by.pdf", None,
     ["Abstract", "Introduction", "Material and Methods", "Results", "Discussion", "References"], 10),
    ("doc2json__acl_N18-3011_literature_graph_semantic_scholar.pdf",
     "Construction of the Literature Graph in Semantic Scholar",
     ["Abstract", "1 Introduction", "2 Structure of The Literature Graph", "2.1 Node Types", "References"], 8),
    ("doc2json__acl_2020.acl-main.207_specter.pdf",
     "SPECTER: Document-level Representation Learning using Citation-informed Transformers",
     ["Abstract", "1 Introduction", "2 Model", "2.1 Overview", "7 Related Work", "References"], 13),
])
def test_real_pdfs(shared, name, title, headings, pages):
    document = parse_pdf(shared(PDFS + name).read_bytes())
    assert document.title == title  # the PLOS file's own Title entry is "pone.0107412 1..10": not a title
    assert document.pages == pages
    found = [s.heading for s in document.sections]
    positions = [found.index(h) for h in headings]
    assert positions == sorted(positions), found  # every heading, in reading order
    text = "\n\n".join(s.text for s in document.sections)
    assert [f"[page {n}]" in text for n in range(1, pages + 1)] == [True] * pages
    assert text.index("[page 2]") < text.index("[page 3]")
    assert "ﬁ" not in text


def test_pdf_accents_set_apart_are_joined(shared):
    text = "\n".join(s.text for s in parse_pdf(shared(PDFS + "fulltext__plosone_0107412_soler2014_cc_by.pdf")
                                                .read_bytes()).sections)
    assert "Ibáñez-Álamo" in text and "Macías-Sánchez" in text
    assert repair_text("Toma´ s Iba´ n˜ ez ingre-\ndient RNA-\nguided") == "Tomás Ibáñez ingredient RNA-\nguided"


def test_made_pdf_sections_and_page_markers():
    pdf = make_pdf([["A Title Line", "Abstract", "We did it.", "1 Introduction", "Why we did it."],
                    ["2 Methods", "How we did it.", "2.1 Data", "The data.", "References", "[1] A. Paper. 2020.",
                     "2 Not a heading after the references"]], title="A Made Paper", author="A One; B Two")
    document = parse_pdf(pdf)
    assert document.title == "A Made Paper" and document.authors == ["A One", "B Two"]
    assert [(s.number, s.heading) for s in document.sections] == [
        ("1", "Front matter"), ("2", "Abstract"), ("3", "1 Introduction"), ("4", "2 Methods"), ("4.1", "2.1 Data"),
        ("5", "References")]
    methods = document.sections[3]
    assert methods.text.startswith("[page 2]")  # the page opens with this heading: its marker is here
    assert "2 Not a heading" in document.sections[-1].text


def test_pdf_without_text_layer():
    with pytest.raises(NoFullText, match="no text layer"):
        parse_pdf(blank_pages(5))


def test_encrypted_pdf():
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(make_pdf([["Secret text"] * 20]))).pages:
        writer.add_page(page)
    writer.encrypt(user_password="open sesame", owner_password="owner")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(NoFullText, match="encrypted"):
        parse_pdf(out.getvalue())


@pytest.mark.parametrize("data", [b"", b"<html>not a pdf</html>", b"%PDF-1.4\n garbage that is no pdf",
                                  b"%PDF-1.7\n" + b"\x00" * 5000])
def test_what_is_no_pdf_raises_value_error(data):
    with pytest.raises((ValueError, NoFullText)):
        parse_pdf(data)


def test_a_longer_pdf_names_the_pages_not_read():
    pages = PdfPages([f"Abstract\nText of page {n} " * 5 for n in range(3)], page_count=MAX_PAGES + 7,
                     title=None, authors=[])
    document = parse_pdf_pages(pages)
    assert document.sections[-1].heading == "Pages not read"
    assert f"pages 4–{MAX_PAGES + 7} were not read" in document.sections[-1].text


def test_pages_pypdf_refused_are_said_as_such_not_called_a_scan():
    """pypdf 7.1 caps the work one content stream may take (LimitReachedError): a PDF whose pages
    it refused is not "probably a scan", and the reason names pypdf's error."""
    refused = PdfPages(["", ""], page_count=2, title=None, authors=[],
                       unreadable=["LimitReachedError: Reached maximum number of tokens per stream."])
    with pytest.raises(NoFullText, match=r"pypdf could not read 1 of the PDF's 2 pages \(LimitReachedError"):
        parse_pdf_pages(refused)
    with pytest.raises(NoFullText, match="probably a scan"):
        parse_pdf_pages(PdfPages(["", ""], page_count=2, title=None, authors=[]))


def test_a_page_pypdf_cannot_read_is_recorded_with_its_error(monkeypatch):
    from pypdf import PageObject
    from pypdf.errors import LimitReachedError

    def refuse(self, *args, **kwargs):
        raise LimitReachedError("Reached maximum number of tokens per stream.")
    monkeypatch.setattr(PageObject, "extract_text", refuse)
    from litsearch.fulltext.pdf import extract_pdf_text
    pages = extract_pdf_text(make_pdf([["Some words on a page"]]))
    assert pages.texts == [""] and pages.unreadable == ["LimitReachedError: Reached maximum number of tokens per stream."]
