"""Fake full-text sources, mounted beside the fake APIs (``fake_apis.install``) on one server:
NCBI efetch ``db=pmc``, Europe PMC ``fullTextXML``, arXiv ``/html`` and ``/pdf``, Unpaywall with
its open-access locations, and one publisher host (``/oa/…``) those locations point at.

The texts are the real recorded ones in ../shared/fixtures/fulltext (JATS from PMC and Europe PMC,
arXiv's LaTeXML output, the SPECTER PDF) where a test needs real data, and small made ones
(``pdf_maker``) where it needs to know every word. ``install`` returns the environment that
points lit-search at all of it.

| id | what the fakes hold |
|---|---|
| PMC3299399 | NCBI: the 2016 efetch body (Frontiers, CC BY-NC) |
| PMC13173394 | NCBI: front matter only (publisher does not allow XML); Europe PMC: the full text |
| PMC13244564 | NCBI: 404-free empty set; Europe PMC: the letter (no abstract) |
| PMC0000009 | NCBI: front matter only; Europe PMC: 404 -> no open copy |
| arXiv 2302.00001 | HTML: the LaTeXML fixture |
| arXiv 2302.00002 | HTML: 404; PDF: a made 2-page paper |
| 10.7717/fake.pdfonly | Unpaywall: a PDF only, at /oa/pdfonly.pdf |
| 10.7717/fake.landing | Unpaywall: a landing page without text that links its PDF (citation_pdf_url) |
| 10.7717/fake.article | Unpaywall: an article page with the text (HTML) |
| 10.7717/fake.scan | Unpaywall: a PDF without a text layer |
| 10.7717/fake.closed | Unpaywall: is_oa false |
| arXiv 2004.07180 | HTML: 404; PDF: the real SPECTER PDF (shared fixture) |
| 10.7717/peerj.1120 | Unpaywall: the real PeerJ PDF only (shared fixture) |
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import fake_apis
from conftest import FIXTURES
from fake_server import Answer, FakeServer, SeenRequest, serve_until_interrupted
from pdf_maker import blank_pages, make_pdf

PMC = FIXTURES / "fulltext" / "pmc"
ARXIV_HTML = FIXTURES / "fulltext" / "arxiv_html" / "arxivviewashtml__latexml_0.8.7_output_analyzing_astronomical_data_ml.html"
PDFS = FIXTURES / "fulltext" / "pdf"
# Real papers under their real ids (the docs' examples): SPECTER has no HTML here, only its PDF;
# the PeerJ paper's only open copy is its PDF at the publisher.
REAL_PDFS = {"arxiv:2004.07180": PDFS / "doc2json__acl_2020.acl-main.207_specter.pdf",
             "peerj.1120.pdf": PDFS / "fulltext__peerj_1120_drageset2015_cc_by_4.0.pdf"}
NCBI_FILES = {"3299399": PMC / "eutils__efetch_pmc_3299399_body_2016.xml"}
EUROPEPMC_FILES = {
    "PMC13173394": PMC / "pyeuropepmc__fullTextXML_PMC13173394_structured_abstract_figs_tables_formulas.xml",
    "PMC13244564": PMC / "pyeuropepmc__fullTextXML_PMC13244564_letter_no_abstract.xml",
    "PMC13133655": PMC / "pyeuropepmc__fullTextXML_PMC13133655_structured_abstract_jats14_mathml.xml",
    "PMC13238313": PMC / "pyeuropepmc__fullTextXML_PMC13238313_plain_abstract_no_figures.xml",
}
FRONT_ONLY = {"13173394", "0000009"}
FRONT_MATTER_ONLY = (
    '<?xml version="1.0" ?><!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" '
    '"https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd"><pmc-articleset><article>'
    "<!--The publisher of this article does not allow downloading of the full text in XML form.-->"
    "<front><article-meta><article-id pub-id-type=\"pmc\">{id}</article-id><title-group><article-title>"
    "A closed article</article-title></title-group></article-meta></front></article></pmc-articleset>")

PDF_PAPER_LINES = [
    ["Open Copies of Papers: A Made Example", "Ada Lovelace, Charles Babbage",
     "Abstract", "We show that open copies can be read in sections.", "1 Introduction",
     "Readers need the text of papers, not only their titles.", "Open copies are legal to read."],
    ["2 Methods", "We made a PDF with two pages and known words.", "3 Results",
     "Every section was found where it was written.", "References",
     "[1] Babbage C. On the economy of machinery. 1832."],
]
ARTICLE_PAGE = """<!DOCTYPE html><html><head><title>Article</title>
<meta name="citation_title" content="An Article Page With Its Text">
<meta name="citation_author" content="Grace Hopper"><meta name="citation_author" content="Alan Turing">
<meta name="citation_doi" content="10.7717/fake.article">
<meta name="citation_abstract" content="We read an article page.">
</head><body><nav><a href="/">Journal home</a> <p>Menu text that is no article.</p></nav>
<main><article><h1>An Article Page With Its Text</h1>
<h2>Introduction</h2><p>{intro}</p>
<h2>Methods</h2><p>{methods}</p><h3>Data</h3><p>We used data.</p>
<figure><img src="f1.png"><figcaption>Figure 1. A figure of the data.</figcaption></figure>
<h2>Discussion</h2><p>{discussion}</p></article></main>
<footer><p>Copyright the publisher. Cookies.</p></footer></body></html>"""
LANDING_PAGE = """<html><head><meta name="citation_title" content="A Landing Page">
<meta name="citation_pdf_url" content="/oa/landing.pdf"></head>
<body><h1>A Landing Page</h1><p>Abstract only. Download the PDF.</p></body></html>"""


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def ncbi_efetch(fallback: Callable[[SeenRequest], Answer]) -> Callable[[SeenRequest], Answer]:
    """efetch: ``db=pmc`` here, every other database (PubMed) from the fake APIs."""
    def answer(request: SeenRequest) -> Answer:
        if request.param("db") != "pmc":
            return fallback(request)
        uid = request.param("id") or ""
        if uid in FRONT_ONLY:
            return Answer(200, FRONT_MATTER_ONLY.replace("{id}", uid), content_type="text/xml; charset=UTF-8")
        body = _read(NCBI_FILES[uid]) if uid in NCBI_FILES else None
        if body is None:  # NCBI answers an unknown UID with an empty set, status 200
            return Answer(200, "<pmc-articleset></pmc-articleset>", content_type="text/xml; charset=UTF-8")
        return Answer(200, body, content_type="text/xml; charset=UTF-8")
    return answer


def europepmc_fulltext(request: SeenRequest) -> Answer:
    pmcid = request.path.split("/")[-2]
    body = _read(EUROPEPMC_FILES[pmcid]) if pmcid in EUROPEPMC_FILES else None
    if body is None:
        return Answer(404, "", content_type="text/plain")
    return Answer(200, body, content_type="application/xml")


def arxiv_web(request: SeenRequest) -> Answer:
    kind, _, arxiv_id = request.path[len("/arxiv-web/"):].partition("/")
    if kind == "html" and arxiv_id.startswith("2302.00001"):
        body = _read(ARXIV_HTML)
        if body is not None:
            return Answer(200, body, content_type="text/html; charset=utf-8")
    if kind == "pdf" and arxiv_id.startswith("2302.00002"):
        return Answer(200, make_pdf(PDF_PAPER_LINES, title="Open Copies of Papers: A Made Example"),
                      content_type="application/pdf")
    if kind == "pdf" and arxiv_id.startswith("2004.07180") and (body := _read(REAL_PDFS["arxiv:2004.07180"])):
        return Answer(200, body, content_type="application/pdf")
    return Answer(404, "<html><body>Not found</body></html>", content_type="text/html")


def open_access_host(request: SeenRequest) -> Answer:
    name = request.path[len("/oa/"):]
    if name in ("pdfonly.pdf", "landing.pdf"):
        return Answer(200, make_pdf(PDF_PAPER_LINES), content_type="application/pdf")
    if name == "peerj.1120.pdf" and (body := _read(REAL_PDFS[name])):
        return Answer(200, body, content_type="application/pdf")
    if name == "scan.pdf":
        return Answer(200, blank_pages(4), content_type="application/pdf")
    if name == "landing":
        return Answer(200, LANDING_PAGE, content_type="text/html; charset=utf-8")
    if name == "article":
        words = "This paragraph is part of the article's own text and long enough to count. " * 12
        return Answer(200, ARTICLE_PAGE.format(intro=words, methods=words, discussion=words),
                      content_type="text/html; charset=utf-8")
    return Answer(404, "<html>Not found</html>", content_type="text/html")


def unpaywall(server_url: str, fallback: Callable[[SeenRequest], Answer]) -> Callable[[SeenRequest], Answer]:
    locations: dict[str, dict[str, Any] | None] = {
        "10.7717/fake.pdfonly": {"url_for_pdf": f"{server_url}/oa/pdfonly.pdf", "url_for_landing_page": None},
        "10.7717/fake.landing": {"url_for_pdf": None, "url_for_landing_page": f"{server_url}/oa/landing"},
        "10.7717/fake.article": {"url_for_pdf": None, "url_for_landing_page": f"{server_url}/oa/article"},
        "10.7717/fake.scan": {"url_for_pdf": f"{server_url}/oa/scan.pdf", "url_for_landing_page": None},
        "10.7717/fake.closed": None,
        "10.7717/peerj.1120": {"url_for_pdf": f"{server_url}/oa/peerj.1120.pdf", "url_for_landing_page": None},
    }

    def answer(request: SeenRequest) -> Answer:
        doi = request.path[len("/unpaywall/v2/"):].lower()
        if doi not in locations:
            return fallback(request)
        best = locations[doi]
        location = {**best, "host_type": "publisher", "version": "publishedVersion", "license": "cc-by",
                    "url": best.get("url_for_pdf") or best.get("url_for_landing_page")} if best else None
        return Answer(200, json.dumps({"doi": doi, "is_oa": bool(best), "best_oa_location": location,
                                       "oa_locations": [location] if location else []}))
    return answer


def install(server: FakeServer, overrides: dict[str, Any] | None = None) -> dict[str, str]:
    """The fake APIs plus the full-text sources; returns every LITSEARCH_*_URL variable."""
    env = fake_apis.install(server)
    server.route("/eutils/efetch.fcgi", ncbi_efetch(fake_apis.pubmed_efetch))
    server.route("/europepmc/", europepmc_fulltext)
    server.route("/arxiv-web/", arxiv_web)
    server.route("/oa/", open_access_host)
    server.route("/unpaywall/v2/", unpaywall(server.url, fake_apis.unpaywall_lookup))
    for path, responder in (overrides or {}).items():
        server.route(path, responder)
    return {**env, "LITSEARCH_EUROPEPMC_URL": server.url + "/europepmc",
            "LITSEARCH_ARXIV_WEB_URL": server.url + "/arxiv-web"}


if __name__ == "__main__":
    serve_until_interrupted(install)
