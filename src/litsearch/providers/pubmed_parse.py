"""PubMed's answers, parsed (pure functions, fed real bodies in tests): esearch JSON (the
PMIDs, in relevance order) and efetch XML (the whole record: metadata, and abstracts split
into labelled parts with inline markup and MathML)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Any, Iterable

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi, normalize_pmid
from ..core.records import Paper
from ..core.text import one_line
from ..core.updates import PUBMED_RETRACTED_TYPE, combined_retracted, doi_in_citation, pubmed_ref_type, update
from ._common import Parsed, ParsedById, as_int, as_year, parse_each, shorten

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

NAME = "pubmed"
PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
ERROR_CHARS = 200  # of NCBI's own error text

_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")
_MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}

# ---------------------------------------------------------------- esearch (pure)

def parse_esearch(body: str | bytes) -> list[str]:
    """PMIDs of an esearch JSON answer, in relevance order."""
    return parse_esearch_page(body)[0]


def parse_esearch_page(body: str | bytes) -> tuple[list[str], int]:
    """(PMIDs, total hit count) of an esearch JSON answer.

    ``esearchresult.ERROR`` and NCBI's top-level ``error`` (rate limit) raise; an
    ``errorlist`` (e.g. phrases not found) only narrows the search, so it does not.
    """
    data = _load_json(body, "esearch")
    result = data.get("esearchresult")
    if not isinstance(result, dict):
        raise ProviderError("PubMed esearch answer has no 'esearchresult'")
    if result.get("ERROR"):
        raise ProviderError(f"PubMed esearch error: {shorten(result['ERROR'], ERROR_CHARS)}")
    ids = [pmid for raw in result.get("idlist") or [] if (pmid := normalize_pmid(raw))]
    return ids, as_int(result.get("count")) or 0


# ---------------------------------------------------------------- efetch (pure)

def parse_efetch(body: str | bytes) -> dict[str, Paper]:
    """One ``Paper`` per article of an efetch PubMed XML answer, keyed by PMID: everything
    esummary gives (title, authors, journal, dates, DOI, PMCID, publication types, volume,
    issue, pages) plus the abstract, so a search needs no esummary call. Book chapters
    (``PubmedBookArticle``) are read the same way where their layout allows. An article that
    cannot be read costs only itself (``skipped``)."""
    root = _load_xml(body, "efetch")
    if root.tag != "PubmedArticleSet":
        error = root.findtext(".//ERROR")
        if error:
            raise ProviderError(f"PubMed efetch error: {shorten(error, ERROR_CHARS)}")
        raise ProviderError(f"PubMed efetch answered <{root.tag}>, not a PubmedArticleSet")
    articles = parse_each(root.findall("PubmedArticle"), lambda article, _: _journal_article(article))
    books = parse_each(root.findall("PubmedBookArticle"), lambda book, _: _book_article(book))
    papers = ParsedById((paper.pmid, paper) for paper in [*articles, *books])
    papers.skipped = articles.skipped + books.skipped
    return papers


def _journal_article(article: Element) -> Paper | None:
    citation = article.find("MedlineCitation")
    # The article's own PMID is a direct child; CommentsCorrections carry other PMIDs.
    pmid = normalize_pmid(citation.findtext("PMID")) if citation is not None else None
    if not pmid:
        return None
    body = citation.find("Article")
    if body is None:
        return None
    journal = body.find("Journal")
    issue = body.find("Journal/JournalIssue")
    pub_date = body.find("Journal/JournalIssue/PubDate")
    article_ids = article.findall("PubmedData/ArticleIdList/ArticleId")
    year = _pub_date_year(pub_date) or _year(body.findtext("ArticleDate/Year"))
    publication_types = [text for element in body.findall("PublicationTypeList/PublicationType")
                         if (text := _flat_text(element))]
    updates = _notices(citation.findall("CommentsCorrectionsList/CommentsCorrections"))
    return _paper(
        pmid,
        title=_title(body.find("ArticleTitle")) or _title(body.find("VernacularTitle")),
        authors=_author_names(body.findall("AuthorList/Author")),
        journal=(_flat_text(journal.find("Title")) or _flat_text(journal.find("ISOAbbreviation"))
                 if journal is not None else None) or _flat_text(citation.find("MedlineJournalInfo/MedlineTA")),
        year=year,
        publication_date=_publication_date(pub_date, body.find("ArticleDate"), year),
        doi=_doi_from_article_ids(article_ids) or _doi_from_elocations(body.findall("ELocationID")),
        pmcid=_article_id(article_ids, "pmc"),
        abstract=_abstract(body.find("Abstract")),
        publication_types=publication_types,
        # MEDLINE marks every retracted article: a record without the mark is not retracted.
        retracted=combined_retracted([PUBMED_RETRACTED_TYPE in publication_types], updates),
        updates=updates,
        volume=_flat_text(issue.find("Volume")) if issue is not None else None,
        issue=_flat_text(issue.find("Issue")) if issue is not None else None,
        pages=_pages(body.find("Pagination")),
    )


def _notices(comments: list[Element]) -> list[dict[str, Any]]:
    """Retraction, erratum and concern notices from CommentsCorrections (RetractionIn, …)."""
    notices = []
    for comment in comments:
        kind = pubmed_ref_type(comment.get("RefType"))
        if kind:
            source_text = _flat_text(comment.find("RefSource"))
            notices.append(update(kind, doi_in_citation(source_text), None, NAME,
                                  notice_pmid=normalize_pmid(comment.findtext("PMID"))))
    return notices


def _book_article(book: Element) -> Paper | None:
    document = book.find("BookDocument")
    pmid = normalize_pmid(document.findtext("PMID")) if document is not None else None
    if not pmid:
        return None
    chapter_title = _title(document.find("ArticleTitle"))
    book_title = _title(document.find("Book/BookTitle"))
    article_ids = document.findall("ArticleIdList/ArticleId") + book.findall(
        "PubmedBookData/ArticleIdList/ArticleId")
    year = _pub_date_year(document.find("Book/PubDate"))
    return _paper(
        pmid,
        title=chapter_title or book_title,
        # The document's own author list; Book/AuthorList holds the editors.
        authors=_author_names(document.findall("AuthorList/Author")),
        # A chapter appears "in" its book; a whole book has no container.
        journal=book_title if chapter_title else None,
        year=year,
        publication_date=_publication_date(document.find("Book/PubDate"), None, year),
        doi=_doi_from_article_ids(article_ids),
        pmcid=_article_id(article_ids, "pmc"),
        abstract=_abstract(document.find("Abstract")),
        publication_types=[text for element in document.findall("PublicationType")
                           if (text := _flat_text(element))],
    )


def _paper(pmid: str, *, pmcid: str | None = None, **fields: Any) -> Paper:
    doi = fields.get("doi")
    external_ids = {"pmid": pmid, **({"doi": doi} if doi else {}),
                    **({"pmcid": pmcid.upper()} if pmcid and pmcid.upper().startswith("PMC") else {})}
    return Paper(provider=NAME, pmid=pmid, external_ids=external_ids, url=PUBMED_URL.format(pmid=pmid),
                 **{**fields, "title": fields.get("title") or ""})


def _title(element: Element | None) -> str | None:
    """An article title; PubMed's placeholder "[Not Available]." is no title."""
    text = _flat_text(element)
    return None if text is None or text.lower().strip("[]. ") == "not available" else text


def _article_id(article_ids: Iterable[Element], kind: str) -> str | None:
    for article_id in article_ids:
        if (article_id.get("IdType") or "").lower() == kind:
            return _flat_text(article_id)
    return None


def _pages(pagination: Element | None) -> str | None:
    """``MedlinePgn`` ("819-23"), else ``StartPage``-``EndPage``."""
    if pagination is None:
        return None
    pages = _flat_text(pagination.find("MedlinePgn"))
    if pages:
        return pages
    first, last = _flat_text(pagination.find("StartPage")), _flat_text(pagination.find("EndPage"))
    return f"{first}-{last}" if first and last and first != last else first or last


def _publication_date(pub_date: Element | None, article_date: Element | None, year: int | None) -> str | None:
    """The print date when it names a day, else the online (ArticleDate) date of the same year.

    An online date from another year (online in December, in print in January) would
    contradict ``year``, which follows PubMed's citation year. Partial dates ("2021 Jun",
    "2019 Spring") have no honest full-date form.
    """
    printed = _element_date(pub_date)
    if printed:
        return printed
    online = _element_date(article_date)
    return online if online and year and online.startswith(str(year)) else None


def _element_date(element: Element | None) -> str | None:
    """``2000-11-12`` from a date element with Year, Month (number or name) and Day."""
    if element is None:
        return None
    year, day = as_year(element.findtext("Year")), as_int(element.findtext("Day"))
    month_text = (element.findtext("Month") or "").strip()
    month = as_int(month_text) or _MONTHS.get(month_text[:3].lower())
    if not (year and month and day):
        return None
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _abstract(abstract: Element | None) -> str | None:
    """All ``AbstractText`` parts joined, labelled parts as ``"LABEL: text"``."""
    if abstract is None:
        return None
    parts = []
    for part in abstract.findall("AbstractText"):
        text = _flat_text(part)
        if not text:
            continue
        label = (part.get("Label") or "").strip()
        # "UNLABELLED" marks a part NLM could not name; it is not a heading.
        if label and label.upper() != "UNLABELLED":
            text = f"{label}: {text}"
        parts.append(text)
    return " ".join(parts) or None


def _author_names(authors: Iterable[Element]) -> list[str]:
    names = []
    for author in authors:
        collective = _flat_text(author.find("CollectiveName"))
        if collective:
            names.append(collective)
            continue
        given = _flat_text(author.find("ForeName")) or _flat_text(author.find("Initials"))
        family = _flat_text(author.find("LastName"))
        name = " ".join(part for part in (given, family) if part)
        if name:
            names.append(name)
    return names


def _doi_from_article_ids(article_ids: Iterable[Element]) -> str | None:
    for article_id in article_ids:
        if (article_id.get("IdType") or "").lower() == "doi":
            doi = normalize_doi(_flat_text(article_id))
            if doi:
                return doi
    return None


def _doi_from_elocations(elocations: Iterable[Element]) -> str | None:
    for elocation in elocations:
        if (elocation.get("EIdType") or "").lower() == "doi" and elocation.get("ValidYN", "Y") != "N":
            doi = normalize_doi(_flat_text(elocation))
            if doi:
                return doi
    return None


def _pub_date_year(pub_date: Element | None) -> int | None:
    if pub_date is None:
        return None
    return _year(pub_date.findtext("Year")) or _year(pub_date.findtext("MedlineDate"))


def _flat_text(element: Element | None) -> str | None:
    """All text of an element and its children (``<i>``, ``<sup>``, MathML), whitespace collapsed.

    ``element.text`` alone stops at the first child element. The XML parser has already
    turned ``&lt;`` into ``<``, so no tag stripping happens here: it would eat real text.
    """
    if element is None:
        return None
    return one_line("".join(element.itertext()))


# ---------------------------------------------------------------- records in esearch order

def records_in_order(pmids: list[str], papers: dict[str, Paper]) -> Parsed:
    """The records of ``pmids`` in esearch's (relevance) order, ranked 1..; ids efetch did not
    return, or returned without a title, are left out."""
    ordered = Parsed()
    ordered.skipped = getattr(papers, "skipped", 0)
    for pmid in pmids:
        paper = papers.get(pmid)
        if paper is None or not paper.title:
            continue
        ordered.append(replace(paper, rank=len(ordered) + 1))  # a new record: the parsed one is left as it was
    return ordered


# ---------------------------------------------------------------- small helpers

def _load_json(body: str | bytes, what: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        raise ProviderError(f"PubMed {what} did not answer JSON: {_excerpt(body)}") from None
    if not isinstance(data, dict):
        raise ProviderError(f"PubMed {what} answered JSON that is not an object")
    # NCBI's rate-limit answer: {"error":"API rate limit exceeded","count":"11"}
    if data.get("error"):
        raise ProviderError(f"PubMed {what} error: {shorten(data['error'], ERROR_CHARS)}")
    return data


def _load_xml(body: str | bytes, what: str) -> Element:
    """Parse with defusedxml, so entity declarations (expansion bombs) are refused, never expanded."""
    from xml.etree.ElementTree import (
        ParseError,  # the XML libraries load with the first answer
    )

    import defusedxml
    import defusedxml.ElementTree as SafeET

    raw = body.encode("utf-8") if isinstance(body, str) else body
    if raw.lstrip().startswith(b"{"):
        # NCBI sometimes answers JSON (e.g. the rate-limit error) whatever retmode asked for.
        _load_json(raw, what)
    try:
        return SafeET.fromstring(raw)
    except defusedxml.DefusedXmlException as error:
        raise ProviderError(f"malformed XML from PubMed {what}: refused {type(error).__name__}") from None
    except ParseError as error:
        raise ProviderError(f"malformed XML from PubMed {what}: {error}") from None


def _year(value: Any) -> int | None:
    match = _YEAR.search(str(value or ""))
    return as_year(match.group(1)) if match else None


def _excerpt(body: str | bytes) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    text = " ".join(text.split())
    if text.lower().startswith(("<!doctype html", "<html")):
        return "an HTML page"
    return repr(text[:80]) if text else "an empty body"
