"""Property tests over the full-text parsers, as tests/providers/test_parser_properties.py does for
the search parsers: arbitrary bodies, and real-shaped documents with arbitrary Unicode in their
text. Invariants: only ValueError or NoFullText escape (never a crash); what comes out is free of
the characters the sanitizer removes; nesting never exhausts the recursion limit."""

from __future__ import annotations

import os
from html import escape

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pdf_maker import make_pdf
from render.test_output_properties import FORBIDDEN

from litsearch.fulltext.document import NoFullText
from litsearch.fulltext.htmlpage import parse_article_page
from litsearch.fulltext.htmltree import parse_html
from litsearch.fulltext.jats import parse_jats
from litsearch.fulltext.latexml import parse_latexml
from litsearch.fulltext.pdf import extract_pdf_text, parse_pdf

PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
any_text = st.text(st.characters(codec=None, categories=None), max_size=60)
xml_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=60)


def check(document) -> None:
    for value in [document.title or ""] + document.authors + [s.heading for s in document.sections] + [
            s.text for s in document.sections]:
        assert not FORBIDDEN.search(value), value
    assert len({s.name for s in document.sections}) == len(document.sections)


@PROPERTY
@given(st.binary(max_size=400) | any_text.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_body_as_jats(body):
    try:
        check(parse_jats(body))
    except (ValueError, NoFullText):
        pass


@PROPERTY
@given(xml_text, xml_text, xml_text, xml_text)
def test_jats_with_any_text(title, heading, paragraph, author):
    body = (f"<article><front><article-meta><title-group><article-title>{escape(title)}</article-title>"
            f"</title-group><contrib-group><contrib contrib-type='author'><name><surname>{escape(author)}</surname>"
            f"</name></contrib></contrib-group></article-meta></front><body><sec><title>{escape(heading)}</title>"
            f"<p>{escape(paragraph)} x</p></sec></body></article>")
    document = parse_jats(body.encode("utf-8"))
    check(document)
    assert document.sections[0].text.endswith("x")


@PROPERTY
@given(any_text | st.text(st.sampled_from("<>/=\"' abcdefghijklmnopqrstuvwxyz-_"), max_size=200))
def test_any_text_as_latexml_or_an_article_page(text):
    for parser in (parse_latexml, parse_article_page):
        try:
            check(parser(text))
        except NoFullText:
            pass


@PROPERTY
@given(any_text, any_text, any_text)
def test_latexml_with_any_text(title, heading, paragraph):
    page = (f'<article class="ltx_document"><h1 class="ltx_title ltx_title_document">{escape(title)}</h1>'
            f'<section class="ltx_section"><h2 class="ltx_title">{escape(heading)}</h2>'
            f'<div class="ltx_para"><p class="ltx_p">{escape(paragraph)} x</p></div></section></article>')
    check(parse_latexml(page))


def test_deep_nesting_is_bounded():
    page = '<article class="ltx_document">' + "<div>" * 50_000 + '<p class="ltx_p">deep</p>' + "</div>" * 50_000
    page += '<section class="ltx_section"><h2>S</h2><p class="ltx_p">shallow</p></section></article>'
    document = parse_latexml(page)  # no RecursionError
    assert "shallow" in document.sections[-1].text
    jats = "<article><body><sec><title>S</title><p>" + "<bold>" * 500 + "x" + "</bold>" * 500 + "</p></sec></body></article>"
    parse_jats(jats)
    hostile = "<article><body><sec><p>" + "<bold>" * 20_000 + "x" + "</bold>" * 20_000 + "</p></sec></body></article>"
    try:
        parse_jats(hostile)
    except ValueError as exc:
        assert "nested too deeply" in str(exc)
    tree = parse_html("<div>" * 5000)
    depth, node = 0, tree.root
    while node.children:
        node, depth = node.children[0], depth + 1
    assert depth <= 202


@PROPERTY
@given(st.binary(max_size=300), st.booleans())
def test_any_bytes_as_pdf(data, with_header):
    try:
        extract_pdf_text((b"%PDF-1.4\n" if with_header else b"") + data)
    except (ValueError, NoFullText):
        pass


@PROPERTY
@given(st.lists(st.lists(st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=60), max_size=8),
                min_size=1, max_size=3))
def test_made_pdfs_with_any_lines(pages):
    try:
        document = parse_pdf(make_pdf(pages))
    except NoFullText:  # too little text to be anything but a scan
        return
    check(document)
    text = "\n".join(s.text for s in document.sections)
    assert all(f"[page {n}]" in text for n in range(1, len(pages) + 1))
