"""PubMed's answers, parsed (pure functions, fed real bodies in tests): esearch JSON (the
PMIDs), esummary JSON (clean metadata, no abstract) and efetch XML (abstracts split into
labelled parts, with inline markup and MathML), and the records assembled from both."""

from __future__ import annotations

import html
import json
import re
from datetime import date
from typing import Any, Iterable
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree as SafeET

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi, normalize_pmid
from ..core.records import Paper
from ..core.text import one_line
from ._common import ParsedById, as_int, as_list, as_year, clean, parse_each, shorten

NAME = "pubmed"
PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
ERROR_CHARS = 200  # of NCBI's own error text

_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")
# A real tag (``<i>``, ``<sup>``, ``<a href="…">``), not a comparison such as "p<0.05 and q>1".
_TAG_LIKE = re.compile(r"""</?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>""")
_DAY_DATE = re.compile(r"(\d{4}) ([A-Za-z]{3}) (\d{1,2})")
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


# ---------------------------------------------------------------- esummary (pure)

def parse_esummary(body: str | bytes) -> dict[str, Paper]:
    """One ``Paper`` per docsum of an esummary JSON answer, keyed by PMID.

    Unknown or withdrawn ids come back as entries with an ``error`` key; they are skipped.
    """
    data = _load_json(body, "esummary")
    result = data.get("result")
    if not isinstance(result, dict):
        messages = data.get("esummaryresult")
        if messages:
            raise ProviderError(f"PubMed esummary error: {shorten(messages, ERROR_CHARS)}")
        raise ProviderError("PubMed esummary answer has no 'result'")
    docsums = [result.get(str(uid)) for uid in as_list(result.get("uids")) if isinstance(uid, (str, int))]
    parsed = parse_each(docsums, lambda docsum, _: _paper_from_docsum(docsum))
    papers = ParsedById((paper.pmid, paper) for paper in parsed)
    papers.skipped = parsed.skipped
    return papers


def _paper_from_docsum(docsum: Any) -> Paper | None:
    """A docsum as a ``Paper``; its title may be "" (efetch can fill it in). None for an
    unknown or withdrawn id (an entry with an ``error`` key)."""
    if not isinstance(docsum, dict) or "error" in docsum:
        return None
    pmid = normalize_pmid(clean(docsum.get("uid")))
    if not pmid:
        return None
    title = _json_text(docsum.get("title")) or ""
    if title.lower().strip("[]. ") == "not available":  # PubMed's placeholder for no title
        title = ""
    ids = {clean(item.get("idtype")): clean(item.get("value")) or ""
           for item in as_list(docsum.get("articleids")) if isinstance(item, dict)}
    doi = normalize_doi(ids.get("doi")) or _doi_from_elocation(docsum.get("elocationid"))
    external_ids = {"pmid": pmid}
    if doi:
        external_ids["doi"] = doi
    if ids.get("pmc", "").upper().startswith("PMC"):
        external_ids["pmcid"] = ids["pmc"].upper()
    year = _year(docsum.get("sortpubdate")) or _year(docsum.get("pubdate"))
    return Paper(
        provider=NAME,
        title=title,
        authors=[name for author in as_list(docsum.get("authors"))
                 if isinstance(author, dict) and (name := _json_text(author.get("name")))],
        year=year,
        publication_date=_publication_date(docsum, year),
        journal=_json_text(docsum.get("fulljournalname")) or _json_text(docsum.get("source")),
        doi=doi,
        pmid=pmid,
        publication_types=[text for kind in as_list(docsum.get("pubtype")) if (text := clean(kind))],
        external_ids=external_ids,
        volume=clean(docsum.get("volume")),
        issue=clean(docsum.get("issue")),
        pages=clean(docsum.get("pages")),
        url=PUBMED_URL.format(pmid=pmid),
    )


def _doi_from_elocation(value: Any) -> str | None:
    """The DOI in an esummary ``elocationid`` such as ``"doi: 10.1/x. pii: S0-1"``."""
    match = re.search(r"doi:\s*(\S+)", str(value or ""), re.I)
    return normalize_doi(match.group(1)) if match else None


def _publication_date(docsum: dict[str, Any], year: int | None) -> str | None:
    """The print date when it names a day, else the online (epub) date of the same year.

    An epub date from another year (online in December, in print in January) would
    contradict ``year``, which follows PubMed's citation year.
    """
    printed = _iso_date(docsum.get("pubdate"))
    if printed:
        return printed
    online = _iso_date(docsum.get("epubdate"))
    return online if online and year and online.startswith(str(year)) else None


def _iso_date(value: Any) -> str | None:
    """``2000-11-12`` from a PubMed date that names a day (``"2000 Nov 12"``), else None.

    Partial dates ("2021 Jun", "2019 Spring") have no honest full-date form.
    """
    match = _DAY_DATE.fullmatch(str(value or "").strip())
    month = _MONTHS.get(match.group(2).lower()) if match else None
    if not month:
        return None
    try:
        return date(int(match.group(1)), month, int(match.group(3))).isoformat()
    except ValueError:
        return None


# ---------------------------------------------------------------- efetch (pure)

def parse_efetch(body: str | bytes) -> dict[str, dict[str, Any]]:
    """Details of each article in an efetch PubMed XML answer, keyed by PMID.

    Each value has ``abstract``, ``title``, ``doi``, ``year``, ``journal`` and
    ``authors`` (missing parts are None or empty). Book chapters
    (``PubmedBookArticle``) are read the same way where their layout allows.
    """
    root = _load_xml(body, "efetch")
    if root.tag != "PubmedArticleSet":
        error = root.findtext(".//ERROR")
        if error:
            raise ProviderError(f"PubMed efetch error: {shorten(error, ERROR_CHARS)}")
        raise ProviderError(f"PubMed efetch answered <{root.tag}>, not a PubmedArticleSet")
    articles = parse_each(root.findall("PubmedArticle"), lambda article, _: _journal_article_details(article))
    books = parse_each(root.findall("PubmedBookArticle"), lambda book, _: _book_article_details(book))
    details = ParsedById((item["pmid"], item) for item in [*articles, *books])
    details.skipped = articles.skipped + books.skipped
    return details


def _journal_article_details(article: Element) -> dict[str, Any] | None:
    citation = article.find("MedlineCitation")
    # The article's own PMID is a direct child; CommentsCorrections carry other PMIDs.
    pmid = normalize_pmid(citation.findtext("PMID")) if citation is not None else None
    if not pmid:
        return None
    body = citation.find("Article")
    if body is None:
        return None
    journal = body.find("Journal")
    pub_date = body.find("Journal/JournalIssue/PubDate")
    return {
        "pmid": pmid,
        "title": _flat_text(body.find("ArticleTitle")) or _flat_text(body.find("VernacularTitle")),
        "abstract": _abstract(body.find("Abstract")),
        "doi": (_doi_from_article_ids(article.findall("PubmedData/ArticleIdList/ArticleId"))
                or _doi_from_elocations(body.findall("ELocationID"))),
        "year": _pub_date_year(pub_date),
        "journal": _flat_text(journal.find("Title")) if journal is not None else None,
        "authors": _author_names(body.findall("AuthorList/Author")),
    }


def _book_article_details(book: Element) -> dict[str, Any] | None:
    document = book.find("BookDocument")
    pmid = normalize_pmid(document.findtext("PMID")) if document is not None else None
    if not pmid:
        return None
    chapter_title = _flat_text(document.find("ArticleTitle"))
    book_title = _flat_text(document.find("Book/BookTitle"))
    article_ids = document.findall("ArticleIdList/ArticleId") + book.findall(
        "PubmedBookData/ArticleIdList/ArticleId")
    return {
        "pmid": pmid,
        "title": chapter_title or book_title,
        "abstract": _abstract(document.find("Abstract")),
        "doi": _doi_from_article_ids(article_ids),
        "year": _pub_date_year(document.find("Book/PubDate")),
        # A chapter appears "in" its book; a whole book has no container.
        "journal": book_title if chapter_title else None,
        # The document's own author list; Book/AuthorList holds the editors.
        "authors": _author_names(document.findall("AuthorList/Author")),
    }


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


# ---------------------------------------------------------------- records from both answers

def records_in_order(pmids: list[str], summaries: dict[str, Paper],
                    details: dict[str, dict[str, Any]]) -> list[Paper]:
    papers: list[Paper] = []
    for pmid in pmids:
        paper = summaries.get(pmid)
        detail = details.get(pmid) or {}
        if paper is None:
            paper = _paper_from_details(pmid, detail)
        else:
            _fill_from_details(paper, detail)
        if paper is None or not paper.title:
            continue
        paper.rank = len(papers) + 1
        paper.score = None
        papers.append(paper)
    return papers


def _fill_from_details(paper: Paper, detail: dict[str, Any]) -> None:
    paper.abstract = detail.get("abstract") or paper.abstract
    paper.title = paper.title or detail.get("title") or ""
    # efetch has full names ("Patrick D Hsu") where esummary has "Hsu PD".
    if detail.get("authors"):
        paper.authors = list(detail["authors"])
    if not paper.doi and detail.get("doi"):
        paper.doi = detail["doi"]
        paper.external_ids["doi"] = detail["doi"]


def _paper_from_details(pmid: str, detail: dict[str, Any]) -> Paper | None:
    if not detail.get("title"):
        return None
    external_ids = {"pmid": pmid, **({"doi": detail["doi"]} if detail.get("doi") else {})}
    return Paper(provider=NAME, title=detail["title"], authors=list(detail.get("authors") or []),
                 year=detail.get("year"), journal=detail.get("journal"), doi=detail.get("doi"),
                 pmid=pmid, abstract=detail.get("abstract"), external_ids=external_ids,
                 url=PUBMED_URL.format(pmid=pmid))


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


def _json_text(value: Any) -> str | None:
    """A JSON string field as one line of plain text.

    esummary titles may carry escaped inline tags (``&lt;i&gt;``). Only real tags are
    removed: a generic tag stripper would eat "HbA1c <7% and BMI >30".
    """
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return None
    return one_line(_TAG_LIKE.sub("", html.unescape(str(value))))


def _year(value: Any) -> int | None:
    match = _YEAR.search(str(value or ""))
    return as_year(match.group(1)) if match else None


def _excerpt(body: str | bytes) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    text = " ".join(text.split())
    if text.lower().startswith(("<!doctype html", "<html")):
        return "an HTML page"
    return repr(text[:80]) if text else "an empty body"
