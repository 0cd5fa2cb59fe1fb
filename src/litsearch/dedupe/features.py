"""A record's profile: everything a comparison needs, computed once per record (identifiers,
title features, authors' name words, journal name variants, volume and page range)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.identifiers import (
    PREPRINT_ID,
    PREPRINT_OF_ARTICLE,
    PUBLISHED_PMCID,
    PUBLISHED_PMID,
    arxiv_id_from_doi,
    id_kind,
    is_arxiv_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmid,
    normalize_s2_id,
)
from ..core.records import Paper
from ..core.text import plain_text
from .merge import is_preprint
from .titles import (
    DIGITS,
    fold_plain,
    is_generic_title,
    main_title_of,
    notice_kind,
    plain_title,
    title_language,
    title_numbers,
    title_variants,
)

# --------------------------------------------------------------------------- record profile
# Everything a comparison needs, computed once per record.


@dataclass(frozen=True, slots=True)
class Profile:
    dois: frozenset[str]  # publisher DOIs (arXiv DataCite DOIs excluded)
    pmids: frozenset[str]
    arxiv_ids: frozenset[str]
    other_ids: frozenset[str]  # "OpenAlex id W…", "Semantic Scholar id …", "PMC id …", "DBLP id …"
    title: str  # folded, cleaned main title ("" when missing)
    variants: tuple[str, ...]  # title plus its parts for bilingual titles
    numbers: frozenset[str]  # numbers in the title ("Part 2", "phase II" -> "2")
    notice: str | None  # "erratum", "retraction" or "reply" for notices about another article
    generic: bool  # "Editorial", "Introduction", very short: a title that identifies nothing
    year: int | None
    first_author: frozenset[str]  # name tokens of the first author
    surnames: tuple[str, ...]  # main surname token of each author (first 12)
    author_pool: frozenset[str]  # every name token of every author
    journal: tuple[tuple[str, ...], ...]  # token lists of the journal name's variants
    volume: str | None  # a plain number only: "1)" or "Suppl 2" say nothing comparable
    issues: frozenset[str]  # issue number(s) when the field is a plain number or range; empty: unknown
    first_page: str | None
    last_page: str | None
    article_number: bool  # pages is an electronic locator such as e12724 or CD006828
    abstract: str  # start of the abstract as given, folded only when a comparison needs it
    main_title: str = ""  # the title before its subtitle ("Title: subtitle" -> "title"); "" without one
    language: str = ""  # "en", "other" (another language or script) or "" (cannot tell): see titles.title_language
    journal_language: str = ""  # the journal name's language, as for titles
    conference: bool = False  # a conference paper (entry type or a proceedings venue)
    supplement: bool = False  # printed in a supplement or an abstract book (issue, volume, pages or venue say so)
    recurring: bool = False  # the title recurs in one venue with different citations (set by the clusterer)
    preprint: bool = False  # a preprint server's record (merge.is_preprint)
    version_links: frozenset[str] = frozenset()  # ids of its other version, as other records carry them

    @property
    def weak_title(self) -> bool:
        """A title that does not identify the paper on its own: generic, or recurring in its venue."""
        return self.generic or self.recurring


ABSTRACT_COMPARED = 800  # characters: enough to tell two studies apart, cheap to compare
_AUTHORS_COMPARED = 30  # consortium papers list hundreds; the first thirty identify the paper


class ProfileBuilder:
    """Profiles for one run, analysing each distinct title, name, journal and page field once.

    Exports repeat all of these (that is why they need deduplicating); the memo lives
    only as long as the run, so a long-lived process keeps nothing.
    """

    def __init__(self) -> None:
        self.titles: dict[str, tuple] = {}
        self.authors: dict[str, tuple | None] = {}
        self.journals: dict[str | None, tuple] = {}
        self.pages: dict[str | None, tuple] = {}
        self.issues: dict[str | None, frozenset[str]] = {}
        self.journal_languages: dict[str | None, str] = {}

    def profiles(self, records: Sequence[Paper]) -> list[Profile]:
        return [self.profile(record) for record in records]

    def profile(self, record: Paper) -> Profile:
        title, variants, numbers, notice, generic, main_title, language = _memo(
            self.titles, record.title or "", _title_features)
        authors = [
            features for author in record.authors[:_AUTHORS_COMPARED]
            if (features := _memo(self.authors, author, _author_features)) is not None
        ]
        first_page, last_page = _memo(self.pages, record.pages, _page_range)
        if first_page == "1" and not record.volume:
            first_page = last_page = None  # online-first pagination, renumbered in the issue
        dois, pmids, arxiv_ids, other_ids = _identifiers(record)
        return Profile(
            dois=dois,
            pmids=pmids,
            arxiv_ids=arxiv_ids,
            other_ids=other_ids,
            title=title,
            variants=variants,
            numbers=numbers,
            notice=notice,
            generic=generic,
            year=record.year,
            first_author=authors[0][0] if authors else frozenset(),
            surnames=tuple(surname for _, surname in authors[:12] if surname),
            author_pool=frozenset(token for tokens, _ in authors for token in tokens),
            journal=_memo(self.journals, record.journal, _journal_variants),
            volume=plain_volume(record.volume),
            issues=_memo(self.issues, record.issue, plain_issues),
            first_page=first_page,
            last_page=last_page,
            article_number=bool(_ARTICLE_NUMBER.match(record.pages or "")),
            abstract=(record.abstract or "")[:ABSTRACT_COMPARED],
            main_title=main_title,
            language=language,
            journal_language=_memo(self.journal_languages, record.journal, _journal_language),
            conference=_is_conference(record),
            supplement=_in_supplement(record),
            preprint=is_preprint(record),
            version_links=_version_links(record),
        )


def _memo(memo: dict, key, compute):
    try:
        return memo[key]
    except KeyError:
        memo[key] = value = compute(key)
        return value


def _title_features(raw_title: str) -> tuple:
    """(comparison title, its variants, its numbers, notice kind, generic?, main title,
    language) of a raw title."""
    plain = plain_title(raw_title)
    variants = tuple(title_variants(plain))
    title = variants[0] if variants else ""
    return (title, variants, frozenset(title_numbers(title)), notice_kind(plain), is_generic_title(title),
            main_title_of(plain), title_language(plain))


def _author_features(author: str) -> tuple[frozenset[str], str | None] | None:
    """(name words, main surname) of one author string; None for "Anonymous" and the like."""
    if "&" in author or "<" in author:
        author = plain_text(author) or ""
    if not _is_person(author):
        return None
    return frozenset(_name_tokens(author)), _surname(author)


def _identifiers(record: Paper) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(publisher DOIs, PMIDs, arXiv ids, other ids) from the record's fields and its external_ids."""
    extra = _external_ids_by_kind(record.external_ids)
    if not (extra or record.doi or record.pmid or record.arxiv_id or record.openalex_id or record.semantic_scholar_id):
        return _NO_IDS
    dois = [normalize_doi(value) for value in (record.doi, extra.get("doi"))]
    publisher_dois = frozenset(doi for doi in dois if doi and not is_arxiv_doi(doi))
    arxiv_ids = [normalize_arxiv_id(value) for value in (record.arxiv_id, extra.get("arxiv_id"))]
    arxiv_ids += [arxiv_id_from_doi(doi) for doi in dois]
    pmids = (normalize_pmid(record.pmid), normalize_pmid(extra.get("pmid")))
    others = (
        f"{kind} id {value}"
        for kind, value in (("OpenAlex", normalize_openalex_id(record.openalex_id or extra.get("openalex_id"))),
                            ("Semantic Scholar", normalize_s2_id(record.semantic_scholar_id)),
                            ("PMC", _pmc_number(extra.get("pmcid"))), ("DBLP", extra.get("dblp")),
                            ("PPR", _ppr_id(record.external_ids.get(PREPRINT_ID))))
        if value
    )
    return publisher_dois, frozenset(p for p in pmids if p), frozenset(a for a in arxiv_ids if a), frozenset(others)


_NO_IDS = (frozenset(), frozenset(), frozenset(), frozenset())
_EXTERNAL_ID_FIELDS = frozenset({"doi", "pmid", "arxiv_id", "pmcid", "dblp", "openalex_id"})


# The identity kind (as unite_by_identifiers groups records) each version link names.
VERSION_LINK_KEYS = {PUBLISHED_PMID: "PMID", PUBLISHED_PMCID: "PMC id", PREPRINT_OF_ARTICLE: "PPR id"}


def _version_links(record: Paper) -> frozenset[str]:
    """The identity keys (as ``unite_by_identifiers`` groups them) of the record's other version."""
    links = set()
    for name, kind in VERSION_LINK_KEYS.items():
        raw = record.external_ids.get(name)
        value = {"PMID": normalize_pmid, "PMC id": _pmc_number, "PPR id": _ppr_id}[kind](raw) if raw else None
        if value:
            links.add(f"{kind} {value}")
    return frozenset(links)


def _ppr_id(value: str | None) -> str | None:
    match = re.fullmatch(r"\s*(PPR\d+)\s*", str(value or ""), re.I)
    return match.group(1).upper() if match else None


def _external_ids_by_kind(external_ids: dict[str, str]) -> dict[str, str]:
    """The external ids that identify a paper, by field name, whatever each provider calls
    them ("DOI"/"doi", "PubMed"/"pmid", "PubMedCentral"/"pmcid")."""
    found = {}
    for key, value in external_ids.items():
        kind = id_kind(key)
        if value and kind is not None and kind.field in _EXTERNAL_ID_FIELDS:
            found[kind.field] = value
    return found


def _pmc_number(value: str | None) -> str | None:
    match = DIGITS.search(value or "")
    return match.group(0).lstrip("0") if match else None


# ---- authors

_NAME_WORD = re.compile(r"[a-z?]+")
_INITIALS = re.compile(r"[A-Z]{1,3}\.?")
_NAME_PARTICLES = {"van", "von", "de", "der", "den", "del", "della", "di", "da", "du", "le", "la", "st", "ste",
                   "saint", "jr", "sr", "ii", "iii", "iv", "ten", "ter", "dos", "das", "do", "el", "al", "bin",
                   "ben", "mc", "mac", "y", "e"}
_NOT_A_PERSON = re.compile(r"^\W*(?:anonymous|anon|et\.? al\.?|n/?a|none|unknown|\[?no authors? listed\]?)\W*$", re.I)


def _is_person(author: str) -> bool:
    return bool(author and author.strip() and not _NOT_A_PERSON.match(author))


# Letters NFKD does not decompose; "?" and U+FFFD are what lossy exports leave of any non-ASCII letter.
_NAME_LETTERS = str.maketrans({"ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d",
                               "þ": "th", "ı": "i", "\ufffd": "?"})


def _fold_name(text: str) -> str:
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text.lower().translate(_NAME_LETTERS))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def _name_words(text: str) -> list[str]:
    return [t for t in _NAME_WORD.findall(_fold_name(text)) if len(t) > 1 and t not in _NAME_PARTICLES]


def _name_tokens(author: str) -> list[str]:
    """Name words of one author (surname and given names, no initials or particles)."""
    if _initials_after_surname(author):
        author = author.rsplit(None, 1)[0]
    return _name_words(author)


def same_name_word(x: str, y: str) -> bool:
    """Equal, or equal but for letters a lossy export turned into "?" or dropped at the end ("Muli"/"Mulić")."""
    if x == y:
        return True
    if len(x) == len(y) and ("?" in x or "?" in y):
        return all(a == b or "?" in (a, b) for a, b in zip(x, y))
    short, long = sorted((x.rstrip("?"), y.rstrip("?")), key=len)
    return len(short) >= 4 and len(long) - len(short) <= 1 and long.startswith(short)


def _initials_after_surname(author: str) -> bool:
    """PubMed style "Smith JA": the last word is upper-case initials."""
    words = author.strip().split()
    return "," not in author and len(words) > 1 and bool(_INITIALS.fullmatch(words[-1]))


def _surname(author: str) -> str | None:
    """Main surname word: "Smith, J." / "John Smith" / "Smith JA" -> "smith"."""
    if "," in author:
        part = author.split(",", 1)[0]
    elif _initials_after_surname(author):
        part = " ".join(author.split()[:-1])
    else:  # the last word that is a name: "Martin Luther King Jr" -> "King", not the suffix
        part = next((word for word in reversed(author.split()) if _name_words(word)), "")
    tokens = _name_words(part)
    return max(tokens, key=len) if tokens else None


# ---- venue

_JOURNAL_STOPWORDS = {"the", "of", "and", "for", "in", "on", "de", "la", "le", "les", "des", "du", "der", "die",
                      "das", "und", "fur", "y", "e", "et", "a", "an", "d", "l", "i", "di", "del", "della",
                      "proceedings", "official", "electronic", "resource", "online", "print", "impr"}
# Journal fields hold several names: "A = B", "A: subtitle", "A [English name]", "A. Journal international du …".
_JOURNAL_PARTS = re.compile(r"\s*=\s*|\s*:\s*|\.\s+|\.(?=conference\b)|\s*/\s*|\s*[\[\]()]\s*", re.I)


def _journal_variants(value: str | None) -> tuple[tuple[str, ...], ...]:
    """Token lists for the journal name and each of its parts."""
    text = plain_text(value) or ""
    if not text:
        return ()
    variants = []
    for part in [text, *_JOURNAL_PARTS.split(text)]:
        tokens = tuple(t for t in fold_plain(part).split() if t not in _JOURNAL_STOPWORDS and not t.isdigit())
        if tokens and tokens not in variants:
            variants.append(tokens)
    return tuple(variants)


def _journal_language(value: str | None) -> str:
    return title_language(plain_text(value) or "") if value else ""


_CONFERENCE_VENUE = re.compile(r"\b(?:conference|proceedings|proc|symposium|workshop|congress|colloquium)\b", re.I)
_CONFERENCE_TYPES = frozenset({"inproceedings", "conference", "proceedings-article", "conference paper", "conf",
                               "cpaper", "paper-conference"})


def _is_conference(record: Paper) -> bool:
    types = {kind.lower() for kind in record.publication_types}
    return bool(types & _CONFERENCE_TYPES) or bool(record.journal and _CONFERENCE_VENUE.search(record.journal))


_SUPPLEMENT_FIELD = re.compile(r"\bsup(?:p|pl|plement)?\b|\bsuppl|^\s*s\s*\d+\s*$", re.I)
_SUPPLEMENT_PAGE = re.compile(r"^\s*s\d", re.I)  # "S123": a supplement's page numbering


def _in_supplement(record: Paper) -> bool:
    """Printed in a supplement or an abstract book: the issue or volume field names a supplement
    ("Suppl 1", "Supplement 2", "S1", "61 Suppl 3"), the pages are numbered S…, or the venue is a
    conference or congress (Embase files abstracts as "Journal.Conference: …")."""
    fields = (record.issue or "", record.volume or "")
    return (any(_SUPPLEMENT_FIELD.search(field) for field in fields) or bool(_SUPPLEMENT_PAGE.match(record.pages or ""))
            or _is_conference(record))


_PAGE_COUNT = re.compile(r"\d+\s*p+\.?", re.I)
_RANGE_SEPARATOR = re.compile(r"[,;+]")
_ARTICLE_NUMBER = re.compile(r"^\s*[a-z]{1,4}\d+\s*$", re.I)
_SPREADSHEET_DATE = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)
_PAGE = re.compile(r"\s*([a-z]{0,4})(\d+)[a-z]{0,3}\s*(?:[-\u2010-\u2015]+\s*[a-z]{0,4}(\d+)[a-z]{0,3})?\b", re.I)


def _page_range(pages: str | None) -> tuple[str | None, str | None]:
    """(first, last) page digits: "73-76" and "73-6" -> ("73", "76"); unknown parts are None.

    A field listing several ranges ("233-8, 230-5") gives the range that starts first,
    so the same ranges listed in another order compare equal.
    """
    text = (pages or "").strip()
    if not text or _PAGE_COUNT.fullmatch(text):  # "94 p" is a page count
        return None, None
    if _SPREADSHEET_DATE.search(text):  # "01-Jun", "13-May": a spreadsheet ate the page range
        return None, None
    ranges = [r for r in (_one_page_range(part) for part in _RANGE_SEPARATOR.split(text)) if r[0] is not None]
    return min(ranges, key=lambda r: int(r[0])) if ranges else (None, None)


def _one_page_range(text: str) -> tuple[str | None, str | None]:
    match = _PAGE.match(text)
    if not match:
        return None, None
    first = match.group(2).lstrip("0") or "0"
    last = match.group(3)
    if last is not None:
        last = last.lstrip("0") or "0"
        if len(last) < len(first):  # abbreviated end page: 1183-7 -> 1187
            last = first[: len(first) - len(last)] + last
        if int(last) < int(first) and len(last) != len(first):
            last = None  # not a range; an equal-length "2297-2108" is a typo in the start page
    return first, last


_PLAIN_VOLUME = re.compile(r"^\s*(?:vol(?:ume)?\.?\s*)?(\d{1,6})\s*(?:\(\s*[\w\s\-/]*\s*\))?\s*\.?\s*$", re.I)
_PLAIN_ISSUE = re.compile(r"^\s*(?:no\.?\s*|issue\s*)?(\d{1,4})(?:\s*[-/–]\s*(\d{1,4}))?\s*$", re.I)


def plain_volume(value: str | None) -> str | None:
    """The volume number when the field is one ("12", "Vol. 12", "12(3)"); None otherwise.

    A garbled supplement field ("1)", "Suppl 2", "45 Pt B") says nothing that two records
    can be compared on, so it is unknown rather than a conflict."""
    match = _PLAIN_VOLUME.match(value or "")
    return (match.group(1).lstrip("0") or "0") if match else None


def plain_issues(value: str | None) -> frozenset[str]:
    """The issue numbers of a plain issue field ("3", "No. 3", "3-4" -> {"3", "4"}); empty
    (unknown) for anything else ("Suppl 1", "Spring")."""
    match = _PLAIN_ISSUE.match(value or "")
    if not match:
        return frozenset()
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    if last < first or last - first > 12:
        return frozenset({str(first)})
    return frozenset(str(number) for number in range(first, last + 1))
