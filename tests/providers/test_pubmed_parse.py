"""PubMed parsing (esearch JSON, efetch XML: the whole record), fed the real recorded bodies
from ../shared (skipped when absent), plus small bodies written here for the error shapes."""

from __future__ import annotations

import time

import pytest

from conftest import shared_file
from litsearch.core.errors import ProviderError
from litsearch.providers import pubmed


def raw(name: str) -> bytes:
    return shared_file(f"pubmed/{name}").read_bytes()


# ---------------------------------------------------------------- esearch

def test_esearch_ids_and_count():
    body = raw("raw/fabia88__esearch_json_term_eye_retmax20_2017.json")
    ids, count = pubmed.parse_esearch_page(body)
    assert count == 561276
    assert len(ids) == 20
    assert ids[:3] == ["28806736", "28806672", "28806669"]
    assert ids[-1] == "28805710"
    assert pubmed.parse_esearch(body.decode()) == ids


def test_esearch_with_history_prototype():
    ids, count = pubmed.parse_esearch_page(raw("raw/PROTOTYPE_klortho__esearch_json_cancer_100ids_2012.json"))
    assert (len(ids), count) == (100, 15169)
    assert (ids[0], ids[-1]) == ("23175848", "23174999")


def test_esearch_errorlist_is_not_an_error():
    ids, count = pubmed.parse_esearch_page(raw("raw/PROTOTYPE_klortho__esearch_json_errorlist_phrasesnotfound.json"))
    assert count == 5163
    assert ids[:2] == ["101595451", "101594756"]


def test_esearch_ERROR_raises():
    with pytest.raises(ProviderError, match="Invalid db name specified: fleegle"):
        pubmed.parse_esearch(raw("raw/PROTOTYPE_klortho__esearch_json_ERROR_invalid_db.json"))


def test_esearch_rate_limit_answer_raises():
    body = '{"error":"API rate limit exceeded","api-key":"192.0.2.7","count":"4","limit":"3"}'
    with pytest.raises(ProviderError, match="API rate limit exceeded"):
        pubmed.parse_esearch(body)


@pytest.mark.parametrize("body, reason", [
    ("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", "an HTML page"),
    ("", "an empty body"),
    ("[1, 2]", "not an object"),
    ('{"header": {"type": "esearch"}}', "no 'esearchresult'"),
])
def test_esearch_non_json_or_wrong_shape_raises(body, reason):
    with pytest.raises(ProviderError, match=reason):
        pubmed.parse_esearch(body)


# ---------------------------------------------------------------- efetch

def test_efetch_structured_abstract_with_inline_markup():
    details = pubmed.parse_efetch(raw("raw/biopython__efetch_pubmed_28775130_structured_abstract.xml"))
    item = details["28775130"]
    abstract = item.abstract
    assert abstract.startswith("OBJECTIVES: Animal studies suggest that exposure to pesticides may alter thyroid function")
    for label in ("METHODS: Self-reported lifetime pesticide use", "RESULTS: Higher exposure to the insecticide aldrin",
                  "CONCLUSIONS: Our results suggest"):
        assert f" {label}" in abstract
    # <u>&lt;</u>, <sub>…</sub> flattened in place; the copyright line is not abstract text.
    assert "compared with normal TSH (0.4-<4.5 mIU/L)" in abstract
    assert "(ORQ3=4.15, 95% CI 1.56 to 11.01, ORQ4=4.76" in abstract
    assert "©" not in abstract
    assert abstract.endswith("may alter thyroid function among male pesticide applicators.")
    assert item.title == "Occupational pesticide exposure and subclinical hypothyroidism among male pesticide applicators."
    assert item.doi == "10.1136/oemed-2017-104431"
    assert (item.year, item.journal) == (2018, "Occupational and environmental medicine")
    assert item.authors[:2] == ["Catherine C Lerro", "Laura E Beane Freeman"]
    assert len(item.authors) == 12
    # What esummary used to give, read from the same efetch answer.
    assert (item.volume, item.issue, item.pages, item.publication_types) == ("75", "2", "79-89", ["Journal Article"])
    assert item.external_ids == {"pmid": "28775130", "doi": "10.1136/oemed-2017-104431", "pmcid": "PMC5771820"}
    assert item.publication_date is None  # the print date names no day


def test_efetch_italic_title_and_superscripts():
    details = pubmed.parse_efetch(raw("raw/biopython__efetch_pubmed_29106400_structured_abstract.xml"))
    item = details["27797938"]
    assert item.title == "Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer."
    assert item.abstract.startswith("OBJECTIVE: Telomere shortening occurs as an early event in pancreatic tumorigenesis")
    assert "(linkage disequilibrium r2<0.25)" in item.abstract
    assert " DESIGN: We measured prediagnostic leucocyte telomere length" in item.abstract
    assert (item.journal, item.year, item.doi) == ("Gut", 2017, "10.1136/gutjnl-2016-312510")


def test_efetch_mathml_flattened_and_collective_author():
    item = pubmed.parse_efetch(raw("raw/biopython__efetch_pubmed_29963580.xml"))["29963580"]
    assert "(1) inhaled He 3 / Xe 129 MRI ventilation and apparent diffusion coefficients" in item.abstract
    assert "mml" not in item.abstract and "\n" not in item.abstract
    assert item.authors[0] == "Fumin Guo"
    assert item.authors[-1] == "Canadian Respiratory Research Network"
    assert item.doi == "10.1117/1.jmi.5.2.026002"


def test_efetch_two_articles():
    details = pubmed.parse_efetch(raw("raw/biopython__efetch_pubmed_2articles_11748933_11700088.xml"))
    assert list(details) == ["11748933", "11700088"]
    cryo, mri = details["11748933"], details["11700088"]
    assert cryo.title.startswith("Is cryopreservation a homogeneous process? Ultrastructure and motility")
    assert cryo.abstract.startswith("This study subdivides the cryopreservation procedure for Diplodus puntazzo")
    assert (cryo.doi, cryo.journal, cryo.year) == ("10.1006/cryo.2001.2328", "Cryobiology", 2001)
    assert cryo.authors[0] == "A R Taddei"
    assert mri.title == "Proton MRI of (13)C distribution by J and chemical shift editing."
    assert mri.doi == "10.1006/jmre.2001.2429"
    assert mri.authors[-1] == "F De Luca"


def test_efetch_article_without_abstract_or_doi():
    details = pubmed.parse_efetch(raw("raw/biopython__efetch_pubmed_2articles_12091962_9997_abstract.xml"))
    aids = details["12091962"]
    assert aids.title == "The treatment of AIDS behind the walls of correctional facilities."
    assert aids.abstract is None
    assert aids.doi is None
    assert aids.year == 1990  # PubDate with a Season, no Month
    assert details["9997"].doi == "10.1016/0005-2795(76)90109-4"
    assert details["9997"].abstract.startswith("Electron paramagnetic resonance and magnetic susceptibility")


def test_efetch_comment_without_abstract_ignores_other_pmids():
    details = pubmed.parse_efetch(raw("raw/pubmedclient__efetch_pubmed_27350240.xml"))
    # CommentsCorrections carries PMID 27350241; only the article's own PMID is a key.
    assert list(details) == ["27350240"]
    item = details["27350240"]
    assert item.abstract is None
    assert item.title == "Computational neuroscience: Species-specific motion detectors."
    assert (item.doi, item.journal, item.authors) == ("10.1038/nature18454", "Nature", ["Thomas Euler", "Tom Baden"])


def test_efetch_doi_is_the_articles_not_a_references():
    details = pubmed.parse_efetch(raw("bodies/biocommons__efetch_pubmed_29915538__00_200.xml"))
    assert details["29915538"].doi == "10.3389/fphar.2018.00576"
    assert details["29915538"].publication_date == "2018-06-04"  # the online date, same year as the citation
    assert details["29915538"].abstract.startswith("Background: Semaglutide, a newly once-weekly")


BOOK = """<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">
<PubmedArticleSet><PubmedBookArticle><BookDocument>
  <PMID Version="1">20301999</PMID>
  <ArticleIdList><ArticleId IdType="bookaccession">NBK99999</ArticleId></ArticleIdList>
  <Book><Publisher><PublisherName>Example University Press</PublisherName></Publisher>
    <BookTitle book="examplebook">Reviews of <i>Rare</i> Disorders</BookTitle>
    <PubDate><Year>1993</Year></PubDate>
    <AuthorList Type="editors"><Author><LastName>Editor</LastName><ForeName>Eve</ForeName></Author></AuthorList>
  </Book>
  <ArticleTitle book="examplebook" part="x1">Example Syndrome</ArticleTitle>
  <AuthorList Type="authors"><Author><LastName>Writer</LastName><ForeName>Walt</ForeName></Author></AuthorList>
  <Abstract><AbstractText Label="CLINICAL CHARACTERISTICS">A made-up condition.</AbstractText>
    <AbstractText Label="UNLABELLED">Nothing more.</AbstractText></Abstract>
</BookDocument><PubmedBookData><ArticleIdList><ArticleId IdType="pubmed">20301999</ArticleId>
  <ArticleId IdType="doi">10.5555/BOOK.1</ArticleId></ArticleIdList></PubmedBookData></PubmedBookArticle>
</PubmedArticleSet>"""


def test_efetch_book_chapter():
    item = pubmed.parse_efetch(BOOK)["20301999"]
    assert item.title == "Example Syndrome"
    assert item.journal == "Reviews of Rare Disorders"
    assert item.authors == ["Walt Writer"]  # not the editor
    assert item.abstract == "CLINICAL CHARACTERISTICS: A made-up condition. Nothing more."
    assert (item.year, item.doi) == (1993, "10.5555/book.1")


def test_efetch_entity_bomb_is_refused_without_expanding():
    levels = "".join(f'<!ENTITY e{i} "{"".join(f"&e{i - 1};" for _ in range(10))}">' for i in range(1, 10))
    bomb = (f'<?xml version="1.0"?><!DOCTYPE PubmedArticleSet [<!ENTITY e0 "ha">{levels}]>'
            "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article>"
            "<ArticleTitle>&e9;</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")
    started = time.perf_counter()
    with pytest.raises(ProviderError, match="malformed XML from PubMed"):
        pubmed.parse_efetch(bomb)
    assert time.perf_counter() - started < 1.0


def test_efetch_external_entity_is_refused():
    body = ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
            "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article>"
            "<ArticleTitle>&secret;</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")
    with pytest.raises(ProviderError, match="malformed XML from PubMed"):
        pubmed.parse_efetch(body)


@pytest.mark.parametrize("body, reason", [
    ("<PubmedArticleSet><PubmedArticle>", "malformed XML from PubMed"),
    ("<!DOCTYPE html><html><body>Bad Gateway</body></html>", "not a PubmedArticleSet"),
    ("<eFetchResult><ERROR>Empty id list - nothing todo</ERROR></eFetchResult>", "Empty id list"),
    ('{"error":"API rate limit exceeded","count":"11"}', "API rate limit exceeded"),
])
def test_efetch_error_bodies_raise(body, reason):
    with pytest.raises(ProviderError, match=reason):
        pubmed.parse_efetch(body)


def test_efetch_empty_set_is_empty():
    assert pubmed.parse_efetch("<PubmedArticleSet></PubmedArticleSet>") == {}


# ---------------------------------------------------------------- query syntax

@pytest.mark.parametrize("variants, expected", [
    (["crispr off-target", "Cas9 specificity"], "(crispr off-target) OR (Cas9 specificity)"),
    (["single variant"], "single variant"),
    # Unbalanced parentheses are removed; balanced ones are kept.
    (["(crispr AND cas9", "(a OR b) AND c"], "(crispr AND cas9) OR ((a OR b) AND c)"),
    (["cancer)) AND (tumour"], "cancer AND tumour"),
    # Dangling and doubled operators are dropped; arXiv's ANDNOT becomes NOT.
    (["AND crispr OR OR cas9 NOT", "mice ANDNOT rats"], "(crispr OR cas9) OR (mice NOT rats)"),
    (["() crispr ( OR )"], "crispr"),
    # Lower-case and/or/not are ordinary words in PubMed; other capitals are terms (HIV, DNA).
    (["HIV and DNA repair"], "HIV and DNA repair"),
    # An odd quote is dropped, field tags survive, duplicates and blanks vanish.
    (['"off target', 'crispr[tiab]', "crispr[tiab]", "  ", "AND"], "(off target) OR (crispr[tiab])"),
    (["broken[tiab"], "broken tiab"),
    ([], ""),
])
def test_combine_queries(variants, expected):
    assert pubmed.combine_queries(variants) == expected


# ---------------------------------------------------------------- CommentsCorrections (issue 20, item 2)

# What each RefType means for the record that carries it (../shared/reference/apis-more.md
# section 2): a notice about this paper (its updates[].type), or nothing (a link, a reprint,
# or the reverse form that sits on the notice or new version itself).
NOTICE_OF_REF_TYPE = {
    "RetractionIn": "retraction",
    "RetractedandRepublishedIn": "retracted_and_republished",
    "ErratumIn": "erratum",
    "ExpressionOfConcernIn": "expression_of_concern",
    "CorrectedandRepublishedIn": "correction",
    "UpdateIn": "new_version",
}
RETRACTING = {"RetractionIn", "RetractedandRepublishedIn"}


def test_every_dtd_ref_type_is_decided():
    import fake_apis
    from litsearch.core.updates import UPDATE_TYPES

    assert set(NOTICE_OF_REF_TYPE) < set(fake_apis.PUBMED_REF_TYPES)
    assert set(NOTICE_OF_REF_TYPE.values()) <= set(UPDATE_TYPES)


@pytest.fixture(scope="module")
def one_article_per_ref_type():
    """An efetch body (the fake API's real format) with one article per RefType of the DTD,
    each carrying that one CommentsCorrections entry, plus a PartialRetractionIn (no such
    PubMed value) that must be read as nothing."""
    import fake_apis

    articles = []
    kinds = list(fake_apis.PUBMED_REF_TYPES) + ["PartialRetractionIn"]
    for number, ref_type in enumerate(kinds):
        paper = {"title": f"An article carrying {ref_type}", "authors": ["Ann Author"], "year": 2019,
                 "venue": "Journal of Tests", "doi": f"10.5555/refs.{number}",
                 "pubmed_comments": [(ref_type, f"J Tests. 2021;2:{number}. doi: 10.5555/notice.{number}.",
                                      str(40000000 + number))]}
        articles.append(fake_apis.pubmed_article_xml(paper, str(30000000 + number)))
    papers = pubmed.parse_efetch(fake_apis.efetch_body(articles))
    return {kind: papers[str(30000000 + number)] for number, kind in enumerate(kinds)}


@pytest.mark.parametrize("ref_type", [*__import__("fake_apis").PUBMED_REF_TYPES, "PartialRetractionIn"])
def test_each_ref_type_maps_to_its_notice_or_to_none(one_article_per_ref_type, ref_type):
    paper = one_article_per_ref_type[ref_type]
    number = int(paper.pmid) - 30000000
    expected = NOTICE_OF_REF_TYPE.get(ref_type)
    if expected is None:
        assert paper.updates == [], ref_type
        assert paper.retracted is False  # MEDLINE marks every retracted article; this one is not
        return
    assert paper.updates == [{"type": expected, "notice_doi": f"10.5555/notice.{number}",
                              "notice_pmid": str(40000000 + number), "date": None, "source": "pubmed"}]
    assert paper.retracted is (ref_type in RETRACTING)
