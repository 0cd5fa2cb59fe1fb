"""Property tests over every provider parser (issue 11): real-shaped answers (as the fake APIs
build them) with arbitrary JSON in one field of one record, arbitrary Unicode in every string,
or an arbitrary body. Invariants: only ProviderError ever escapes; a bad field costs only that
field, a bad record only itself (the other records are kept); what comes out is plausible
(counts 0..10^9, years 1000..2200, http(s) URL fields) and free of forbidden characters."""

from __future__ import annotations

import json
import os
from html import escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fake_apis
from litsearch.core.errors import ProviderError
from litsearch.providers import crossref_parse, openalex, semantic_scholar, unpaywall, web
from litsearch.providers.arxiv import parse_feed
from litsearch.providers.pubmed_parse import parse_efetch
from render.test_output_properties import FORBIDDEN

PROPERTY = settings(max_examples=int(os.environ.get("LITSEARCH_PROPERTY_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

any_text = st.text(st.characters(codec=None, categories=None), max_size=30)
numbers = (st.integers(min_value=-10**400, max_value=10**400)
           | st.floats(allow_nan=True, allow_infinity=True) | st.just(1e308) | st.just(-1))
any_json = st.recursive(st.none() | st.booleans() | numbers | any_text,
                        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
                        max_leaves=12)

CORPUS = [p for p in fake_apis.CORPUS if p.get("doi")][:3]
JSON_PROVIDERS = {
    "semantic_scholar": (lambda: [fake_apis.s2_paper(p) for p in CORPUS],
                         lambda records: {"total": len(records), "offset": 0, "data": records},
                         semantic_scholar.parse_search),
    "semantic_scholar_bulk": (lambda: [fake_apis.s2_paper(p) for p in CORPUS],
                              lambda records: {"total": len(records), "token": None, "data": records},
                              semantic_scholar.parse_bulk),
    "openalex": (lambda: [fake_apis.openalex_work(p, i) for i, p in enumerate(CORPUS)],
                 lambda records: {"meta": {"count": len(records)}, "results": records},
                 openalex.parse_works),
    "crossref": (lambda: [fake_apis.crossref_item(p) for p in CORPUS],
                 lambda records: {"status": "ok", "message": {"items": records}},
                 crossref_parse.parse_works),
}


def body(data) -> str:
    # What a server can send: Python's json writes NaN, Infinity and huge integers as they are.
    return json.dumps(data, allow_nan=True)


def check_papers(papers) -> None:
    for paper in papers:
        for name, value in paper.to_dict().items():
            for text in ([value] if isinstance(value, str) else value if isinstance(value, list)
                         else value.values() if isinstance(value, dict) else []):
                if isinstance(text, str):
                    assert not FORBIDDEN.search(text), (name, text)
        assert isinstance(paper.title, str)
        for count in (paper.citation_count, paper.influential_citation_count):
            assert count is None or (type(count) is int and 0 <= count <= 10**9), count
        assert paper.year is None or (type(paper.year) is int and 1000 <= paper.year <= 2200), paper.year
        for url in (paper.oa_url, paper.url):
            assert url is None or url.startswith(("http://", "https://")), url
        assert all(isinstance(author, str) and author for author in paper.authors)


def field_paths(record, prefix=()):
    """Every (path) to a value in a record, nested dicts and list items included."""
    yield prefix
    if isinstance(record, dict):
        for key, value in record.items():
            yield from field_paths(value, (*prefix, key))
    elif isinstance(record, list):
        for index, value in enumerate(record):
            yield from field_paths(value, (*prefix, index))


def replaced(record, path, value):
    if not path:
        return value
    copy = dict(record) if isinstance(record, dict) else list(record)
    copy[path[0]] = replaced(record[path[0]], path[1:], value)
    return copy


@pytest.mark.parametrize("provider", JSON_PROVIDERS)
@PROPERTY
@given(data=st.data())
def test_one_bad_value_anywhere_costs_at_most_its_record(provider, data):
    build, wrap, parse = JSON_PROVIDERS[provider]
    records = build()
    paths = [path for path in field_paths(records[0]) if path]
    path = data.draw(st.sampled_from(paths), label="path")
    records[0] = replaced(records[0], path, data.draw(any_json, label="value"))
    papers = parse(body(wrap(records)))
    check_papers(papers)
    titles = [paper.title for paper in papers]
    # The untouched records are all there, in their order.
    assert [t for t in titles if t in (CORPUS[1]["title"], CORPUS[2]["title"])] == [
        CORPUS[1]["title"], CORPUS[2]["title"]], titles


@pytest.mark.parametrize("provider", JSON_PROVIDERS)
@PROPERTY
@given(data=st.data())
def test_arbitrary_unicode_in_every_string_is_made_safe(provider, data):
    build, wrap, parse = JSON_PROVIDERS[provider]

    def scramble(value):
        if isinstance(value, str):
            return data.draw(any_text | st.just(value + "\ud800\x1b[2J\U000e0041\u202e"))
        if isinstance(value, dict):
            return {key: scramble(item) for key, item in value.items()}
        if isinstance(value, list):
            return [scramble(item) for item in value]
        return value

    papers = parse(body(wrap([scramble(record) for record in build()])))
    check_papers(papers)


@pytest.mark.parametrize("parse", [semantic_scholar.parse_search, semantic_scholar.parse_bulk, openalex.parse_works,
                                   crossref_parse.parse_works, unpaywall.parse_oa, web.parse_results,
                                   parse_feed, parse_efetch], ids=lambda f: f"{f.__module__}.{f.__name__}")
@PROPERTY
@given(value=any_json | any_text.map(lambda text: text.encode("utf-8", "surrogatepass")) | st.binary(max_size=200))
def test_any_body_is_an_answer_or_a_provider_error(parse, value):
    raw = value if isinstance(value, bytes) else body(value)
    try:
        parse(raw)
    except ProviderError:
        pass


def xml_text():
    # XML 1.0 cannot carry most control characters or lone surrogates: what a server can send.
    allowed = st.characters(codec="utf-8", exclude_categories=("Cs",),
                            exclude_characters="".join(map(chr, [*range(0, 9), 11, 12, *range(14, 32)])))
    return st.text(allowed, max_size=40) | st.sampled_from(["\u202e\u2066x\u2069", "\U000e0049\U000e0067",
                                                            "\x85\u00ad\ufeff", "<b>x</b>", "&amp;"])


@PROPERTY
@given(title=xml_text(), author=xml_text(), summary=xml_text(), doi=xml_text())
def test_arxiv_entries_with_any_text(title, author, summary, doi):
    entry = (f"<entry><id>http://arxiv.org/abs/2101.00001v1</id><published>2021-01-01T00:00:00Z</published>"
             f"<title>{escape(title)}</title><summary>{escape(summary)}</summary>"
             f"<author><name>{escape(author)}</name></author><arxiv:doi>{escape(doi)}</arxiv:doi></entry>")
    feed = ('<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">'
            f"{entry}{fake_apis.arxiv_entry(CORPUS[0] | {'arxiv': '2101.00002'})}</feed>")
    try:
        papers = parse_feed(feed)
    except ProviderError:
        return
    check_papers(papers)
    assert any(paper.arxiv_id == "2101.00002" for paper in papers)


@PROPERTY
@given(title=xml_text(), last=xml_text(), journal=xml_text(), year=xml_text(), doi=xml_text())
def test_pubmed_articles_with_any_text(title, last, journal, year, doi):
    article = ("<PubmedArticle><MedlineCitation><PMID>111</PMID><Article><Journal><JournalIssue><PubDate>"
               f"<Year>{escape(year)}</Year></PubDate></JournalIssue><Title>{escape(journal)}</Title></Journal>"
               f"<ArticleTitle>{escape(title)}</ArticleTitle><AuthorList><Author><LastName>{escape(last)}"
               "</LastName></Author></AuthorList></Article></MedlineCitation><PubmedData><ArticleIdList>"
               f'<ArticleId IdType="doi">{escape(doi)}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>'
               "<PubmedArticle><MedlineCitation><PMID>222</PMID><Article><ArticleTitle>Kept</ArticleTitle>"
               "</Article></MedlineCitation></PubmedArticle>")
    try:
        papers = parse_efetch(f"<PubmedArticleSet>{article}</PubmedArticleSet>")
    except ProviderError:
        return
    check_papers(list(papers.values()))
    assert papers["222"].title == "Kept"


@PROPERTY
@given(url=any_json)
def test_unpaywall_links_are_http_or_nothing(url):
    answer = unpaywall.parse_oa(body({"doi": "10.1/x", "is_oa": True,
                                      "best_oa_location": {"url_for_pdf": url, "url_for_landing_page": url}}))
    assert answer["url"] is None or answer["url"].startswith(("http://", "https://"))
