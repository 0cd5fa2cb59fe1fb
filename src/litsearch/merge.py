"""Find records that describe the same paper and merge each group into one record.

Used twice: to fold the answers of several providers into one table, and by
`lit-search dedupe` on reviewers' exports. The priorities are those of a
systematic review: a false merge silently loses a paper, so every rule is
conservative, and pairs that look alike but fail a guard are reported as
*uncertain* for a human instead of being merged (`dedupe` returns both).

How it works:
1. Identity: records sharing a DOI, PMID, arXiv id (versionless; arXiv DataCite
   DOIs 10.48550/arXiv.* count as arXiv ids, not DOIs), OpenAlex, Semantic
   Scholar, PMC or DBLP id are united (union-find), so a preprint joins its
   journal version when any record links the two ids. A shared DOI between
   clearly different titles (one DOI for a whole abstract supplement) is ignored.
2. Fuzzy: candidate pairs come from blocking keys (title start and end, the
   longest title words, volume+page, first author+page), never from all pairs.
   Each pair is judged on a cleaned title (markup, database notes such as
   "[Review] [24 refs]" or "[Erratum appears in …]", language tags and
   "(author's transl)" removed; bilingual titles split) plus year, authors,
   journal, volume, pages and abstract. Near-identical titles merge when nothing
   contradicts them; similar titles need the citation (volume and pages) to
   agree; generic titles ("Editorial", "Introduction to the minitrack on …")
   need the full citation; one author, year, volume and page range is one
   article whatever its (translated) title.
3. Vetoes hold at cluster level, so no chain of pairs can join what a direct
   comparison forbids: two different (non-arXiv) DOIs, or PMIDs, never share a
   cluster; neither do an erratum/reply/comment and an article, titles whose
   numbers differ ("Part 1"/"Part 2"), nor years more than one apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from .identifiers import (
    arxiv_id_from_doi,
    is_arxiv_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmid,
)
from .records import Paper
from .text import plain_text

__all__ = [
    "Cluster",
    "DedupeResult",
    "UncertainPair",
    "dedupe",
    "find_clusters",
    "find_uncertain_pairs",
    "merge_cluster",
    "merge_records",
]


# --------------------------------------------------------------------------- public API


@dataclass
class Cluster:
    """Indices (ascending) of input records that are one paper, and why they were joined."""

    members: list[int]
    reasons: list[str] = field(default_factory=list)


@dataclass
class UncertainPair:
    """Two records that look alike but were kept apart; for a human to decide."""

    first: int
    second: int
    title_similarity: float
    reason: str


@dataclass
class DedupeResult:
    """What `lit-search dedupe --report` shows: the clusters with their reasons, and the pairs
    a human should look at (one per two clusters, the most similar, ordered by record)."""

    clusters: list[Cluster]
    uncertain_pairs: list[UncertainPair]


def dedupe(records: Sequence[Paper]) -> DedupeResult:
    """Clusters (every record in exactly one) plus the near-miss pairs left unmerged."""
    profiles = _ProfileBuilder().profiles(records)
    clusters = _ClusterBuilder(profiles)
    clusters.unite_by_identifiers()
    uncertain = clusters.unite_by_similarity()
    result = clusters.result()
    return DedupeResult(clusters=result, uncertain_pairs=_one_pair_per_cluster_pair(uncertain, result))


def _one_pair_per_cluster_pair(pairs: list[UncertainPair], clusters: list[Cluster]) -> list[UncertainPair]:
    """The most similar uncertain pair for each two clusters; none inside a cluster."""
    cluster_of = {member: number for number, cluster in enumerate(clusters) for member in cluster.members}
    best: dict[tuple[int, int], UncertainPair] = {}
    for pair in pairs:
        key = tuple(sorted((cluster_of[pair.first], cluster_of[pair.second])))
        if key[0] != key[1] and (key not in best or pair.title_similarity > best[key].title_similarity):
            best[key] = pair
    return sorted(best.values(), key=lambda pair: (pair.first, pair.second))


def find_clusters(records: Sequence[Paper]) -> list[Cluster]:
    """Every record in exactly one cluster, singletons included, ordered by first member."""
    return dedupe(records).clusters


def find_uncertain_pairs(records: Sequence[Paper]) -> list[UncertainPair]:
    """Pairs that resemble each other but were not merged (near threshold or failing one guard)."""
    return dedupe(records).uncertain_pairs


def merge_records(records: Sequence[Paper]) -> list[Paper]:
    """One record per cluster, in cluster order (singletons returned unchanged)."""
    merged = []
    for cluster in find_clusters(records):
        members = [records[i] for i in cluster.members]
        merged.append(members[0] if len(members) == 1 else merge_cluster(members))
    return merged


def merge_cluster(records: Sequence[Paper]) -> Paper:
    """One record holding the richest value of each field of the cluster's records.

    Longest abstract, highest citation counts, union of identifiers, longest
    author list; for the other fields the first non-empty value, taking journal
    versions before preprints so DOI, journal and year are the published ones.
    """
    if not records:
        raise ValueError("merge_cluster needs at least one record")
    ordered = sorted(records, key=_is_preprint)  # stable: journal versions first, input order kept
    first = lambda name: _first_present(getattr(r, name) for r in ordered)  # noqa: E731

    external_ids: dict[str, str] = {}
    for record in ordered:
        for key, value in record.external_ids.items():
            external_ids.setdefault(key, value)

    return Paper(
        provider="merged",
        title=first("title") or "",
        authors=max((r.authors for r in ordered), key=len),
        year=first("year"),
        publication_date=first("publication_date"),
        journal=first("journal"),
        doi=_preferred_doi(ordered),
        pmid=first("pmid"),
        paper_id=first("paper_id"),
        arxiv_id=first("arxiv_id") or _first_present(arxiv_id_from_doi(r.doi) for r in ordered),
        openalex_id=first("openalex_id"),
        abstract=max((r.abstract for r in ordered if r.abstract), key=len, default=None),
        tldr=first("tldr"),
        citation_count=max((r.citation_count for r in ordered if r.citation_count is not None), default=None),
        influential_citation_count=max(
            (r.influential_citation_count for r in ordered if r.influential_citation_count is not None),
            default=None,
        ),
        oa_url=first("oa_url"),
        publication_types=list(dict.fromkeys(t for r in ordered for t in r.publication_types)),
        external_ids=external_ids,
        volume=first("volume"),
        issue=first("issue"),
        pages=first("pages"),
        url=first("url"),
        rank=min((r.rank for r in records if r.rank is not None), default=None),
        score=max((r.score for r in records if r.score is not None), default=None),
    )


# --------------------------------------------------------------------------- merging helpers

_PREPRINT_VENUES = re.compile(
    r"\b(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|ssrn|research square|preprints?\.org|techrxiv|"
    r"osf preprints)\b",
    re.I,
)


def _is_preprint(record: Paper) -> bool:
    if is_arxiv_doi(record.doi) or record.provider == "arxiv":
        return True
    if not record.doi and record.arxiv_id and not record.journal:
        return True
    if any(t.lower() in {"preprint", "posted-content"} for t in record.publication_types):
        return True
    return bool(record.journal and _PREPRINT_VENUES.search(record.journal))


def _preferred_doi(ordered: Sequence[Paper]) -> str | None:
    """A publisher DOI when any record has one; an arXiv DataCite DOI only as a fallback."""
    dois = [r.doi for r in ordered if r.doi]
    return _first_present(d for d in dois if not is_arxiv_doi(d)) or _first_present(dois)


def _first_present(values: Iterable):
    for value in values:
        if value not in (None, "", [], {}):
            return value
    return None


# --------------------------------------------------------------------------- record profile
# Everything a comparison needs, computed once per record.


@dataclass(frozen=True, slots=True)
class _Profile:
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
    volume: str | None
    first_page: str | None
    last_page: str | None
    article_number: bool  # pages is an electronic locator such as e12724 or CD006828
    abstract: str  # start of the abstract as given, folded only when a comparison needs it


_AUTHORS_COMPARED = 30  # consortium papers list hundreds; the first thirty identify the paper


class _ProfileBuilder:
    """Profiles for one run, analysing each distinct title, name, journal and page field once.

    Exports repeat all of these (that is why they need deduplicating); the memo lives
    only as long as the run, so a long-lived process keeps nothing.
    """

    def __init__(self) -> None:
        self.titles: dict[str, tuple] = {}
        self.authors: dict[str, tuple | None] = {}
        self.journals: dict[str | None, tuple] = {}
        self.pages: dict[str | None, tuple] = {}

    def profiles(self, records: Sequence[Paper]) -> list[_Profile]:
        return [self.profile(record) for record in records]

    def profile(self, record: Paper) -> _Profile:
        title, variants, numbers, notice, generic = _memo(self.titles, record.title or "", _title_features)
        authors = [
            features for author in record.authors[:_AUTHORS_COMPARED]
            if (features := _memo(self.authors, author, _author_features)) is not None
        ]
        first_page, last_page = _memo(self.pages, record.pages, _page_range)
        if first_page == "1" and not record.volume:
            first_page = last_page = None  # online-first pagination, renumbered in the issue
        dois, pmids, arxiv_ids, other_ids = _identifiers(record)
        return _Profile(
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
            volume=_leading_number(record.volume),
            first_page=first_page,
            last_page=last_page,
            article_number=bool(_ARTICLE_NUMBER.match(record.pages or "")),
            abstract=(record.abstract or "")[:_ABSTRACT_COMPARED],
        )


def _memo(memo: dict, key, compute):
    try:
        return memo[key]
    except KeyError:
        memo[key] = value = compute(key)
        return value


def _title_features(raw_title: str) -> tuple[str, tuple[str, ...], frozenset[str], str | None, bool]:
    """(comparison title, its variants, its numbers, notice kind, generic?) of a raw title."""
    plain = _plain_title(raw_title)
    variants = tuple(_title_variants(plain))
    title = variants[0] if variants else ""
    return title, variants, frozenset(_title_numbers(title)), _notice_kind(plain), _is_generic_title(title)


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
    if not (extra or record.doi or record.pmid or record.arxiv_id or record.openalex_id or record.paper_id):
        return _NO_IDS
    dois = [normalize_doi(value) for value in (record.doi, extra.get("doi"))]
    publisher_dois = frozenset(doi for doi in dois if doi and not is_arxiv_doi(doi))
    arxiv_ids = [normalize_arxiv_id(value) for value in (record.arxiv_id, extra.get("arxiv"))]
    arxiv_ids += [arxiv_id_from_doi(doi) for doi in dois]
    pmids = (normalize_pmid(record.pmid), normalize_pmid(extra.get("pmid")))
    others = (
        f"{kind} id {value}"
        for kind, value in (("OpenAlex", normalize_openalex_id(record.openalex_id or extra.get("openalex"))),
                            ("Semantic Scholar", record.paper_id), ("PMC", _pmc_number(extra.get("pmc"))),
                            ("DBLP", extra.get("dblp")))
        if value
    )
    return publisher_dois, frozenset(p for p in pmids if p), frozenset(a for a in arxiv_ids if a), frozenset(others)


_NO_IDS = (frozenset(), frozenset(), frozenset(), frozenset())
# Each provider names its external ids its own way ("DOI"/"doi", "PubMed"/"pmid", "PubMedCentral"/"pmcid").
_EXTERNAL_ID_KINDS = {"doi": "doi", "pubmed": "pmid", "pmid": "pmid", "arxiv": "arxiv", "pubmedcentral": "pmc",
                      "pmcid": "pmc", "pmc": "pmc", "dblp": "dblp", "openalex": "openalex"}


def _external_ids_by_kind(external_ids: dict[str, str]) -> dict[str, str]:
    return {kind: value for key, value in external_ids.items()
            if value and (kind := _EXTERNAL_ID_KINDS.get(key.lower()))}


def _pmc_number(value: str | None) -> str | None:
    match = _DIGITS.search(value or "")
    return match.group(0).lstrip("0") if match else None


# ---- titles

# Bibliographic databases append notes to titles; they say nothing about which paper it is.
_ORIGINAL_TITLE_MARK = re.compile(r"<\s*original\s*>", re.I)  # Embase: "English <ORIGINAL> original-language"
_RETRACTED_PREFIX = re.compile(r"^\s*(?:retracted(?:\s+article)?|withdrawn)\s*[:.\-]\s*", re.I)
# MEDLINE notes like "[Erratum appears in N Engl J Med. 2005;352:2146]", often cut off by export length limits.
_DATABASE_NOTE = re.compile(
    r"\[\s*(?:published\s+)?(?:erratum|errata|corrigendum|retraction|retracted|comment|comments|update|updated|"
    r"summary for patients|republished|reprint|expression of concern|see comments?|see also|corrected and republished)"
    r"\b[^\]]*(?:\]|$)",
    re.I,
)
_TRAILING_NOTE = re.compile(
    r"\s*\[\s*(?:\d+\s*refs?|abstract(?:\s*(?:no|number)\.?\s*:?\s*[\w.\-]+)?|poster[^\]]*|tp\s*\d+|[pe]\s*\d+|"
    r"isrctn\s*\d+|nct\s*\d+|epub ahead of print|electronic resource|corrected|"
    r"[^\]\d]{1,60})\s*\]\s*\.?\s*$",
    re.I,
)
_PAREN_NOTE = re.compile(
    r"\(\s*(?:author'?s'?\s+transl(?:ation)?\.?|(?:provisional|structured)\s+abstract|provisional record|"
    r"abstract|panel|demo|demonstration(?:\s+description)?|poster|invited talk|keynote(?:\s+address)?)\s*\)",
    re.I,
)
_CORRECTED_MARK = re.compile(r"\[\s*corrected\s*\]", re.I)
_LEADING_BRACKETS = re.compile(r"^\[([^\]]+)\]\.?\s*(?:to\s*:)?\s*(\S.{10,})$", re.I)
_BILINGUAL_SPLIT = re.compile(r"\s+=\s+|;\s+|\ue000")
_BILINGUAL_HINT = re.compile(r"\s=\s|;\s|^\[[^\]]+\]\.?\s*\S")


_ORIGINAL_BOUNDARY = "\ue000"  # private-use character: survives plain_text, never in real titles
_NON_WORD = re.compile(r"[^\w\s]|_")


def _fold_plain(text: str) -> str:
    """`fold_title` for text that is already plain (no markup): accents off, lower-case, no punctuation."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def _plain_title(value: str | None) -> str:
    """Title without markup; an <ORIGINAL> mark (Embase) becomes a boundary character."""
    text = value or ""
    if "<" in text or "&" in text or not text.isprintable():
        return plain_text(_ORIGINAL_TITLE_MARK.sub(_ORIGINAL_BOUNDARY, text)) or ""
    return " ".join(text.split())  # the common case, without plain_text's regex passes


def _clean_title(text: str) -> str:
    """Plain title without database notes and language tags."""
    # Each pattern only runs when its telltale character is present: most titles need none.
    text = _RETRACTED_PREFIX.sub("", text.strip("\"'“” "))
    if "(" in text:
        text = _PAREN_NOTE.sub("", _CITED_CORRECTION.sub("", text))
    if "[" in text:
        text = _CORRECTED_MARK.sub("", text)
        # Notes only when something precedes them: "[Erratum for …]" alone *is* the title.
        text = _DATABASE_NOTE.sub(lambda m: "" if m.start() > 0 else m.group(0), text)
        for _ in range(4):  # "Title. [Review] [24 refs]" carries several trailing notes
            stripped = _TRAILING_NOTE.sub("", text)
            if stripped == text or len(_fold_plain(stripped).split()) < 3:
                break
            text = stripped
    return _DIGIT_GROUP.sub("", text.strip())


_DIGIT_GROUP = re.compile(r"(?<=\d)[ ,\u2009\u202f](?=\d{3}\b)")  # "10 000" / "10,000" -> "10000"


def _title_variants(plain: str) -> list[str]:
    """Folded title, then each part of a bilingual title ("English; Original", "… <ORIGINAL> …")."""
    cleaned = _clean_title(plain)
    if not cleaned:
        return []
    main = _fold_plain(cleaned.split(_ORIGINAL_BOUNDARY)[0])
    variants = [main] if main else []
    if _ORIGINAL_BOUNDARY not in cleaned and not _BILINGUAL_HINT.search(cleaned):
        return variants
    whole = _fold_plain(cleaned.replace(_ORIGINAL_BOUNDARY, " "))
    if whole and whole not in variants:
        variants.append(whole)
    leading = _LEADING_BRACKETS.match(cleaned)  # "[English title] Original title" / "[…] TO: …"
    parts = _BILINGUAL_SPLIT.split(cleaned) + ([leading.group(1), leading.group(2)] if leading else [])
    for part in parts:
        folded = _fold_plain(part)
        if len(folded.split()) >= 4 and folded not in variants:
            variants.append(folded)
    return variants


_DIGITS = re.compile(r"\d+")
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9",
          "x": "10", "xi": "11", "xii": "12"}
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10", "first": "1", "second": "2", "third": "3",
                 "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10"}
_MAY_HOLD_NUMBER = re.compile(r"\d|\b(?:%s)\b" % "|".join(sorted(set(_ROMAN) | set(_NUMBER_WORDS))))
# "I" is a pronoun or an initial unless it follows a word that numbers things.
_NUMBERING_WORDS = {"part", "phase", "stage", "type", "grade", "class", "study", "trial", "volume", "chapter",
                    "section", "series", "focus", "report", "paper", "experiment", "group", "level"}


def _title_numbers(title: str) -> Iterator[str]:
    """Numbers a title uses to tell siblings apart: digits, roman numerals, number words."""
    if not _MAY_HOLD_NUMBER.search(title):
        return
    previous = ""
    for token in title.split():
        digits = _DIGITS.findall(token)
        if digits:
            yield from (d.lstrip("0") or "0" for d in digits)
        elif token in _NUMBER_WORDS:
            yield _NUMBER_WORDS[token]
        elif token in _ROMAN and (len(token) > 1 and token not in {"vi", "xi"} or previous in _NUMBERING_WORDS):
            yield _ROMAN[token]
        previous = token


def _numbers_differ(a: _Profile, b: _Profile) -> bool:
    """Both titles number something and the numbers differ ("Part 1"/"Part 2", "phase II"/"phase I/II").

    A title cut short by an export loses the numbers of its tail, so the longer
    title only counts numbers within the length of the shorter one.
    """
    if not a.numbers or not b.numbers or a.numbers == b.numbers:
        return False
    short, long = sorted((a.title, b.title), key=len)
    short_numbers = a.numbers if short is a.title else b.numbers
    return set(_title_numbers(long[: len(short) + 1])) != short_numbers


_NOTICE_PATTERNS = (
    ("erratum", re.compile(
        r"^(?:erratum|errata|corrigend(?:um|a)|addendum|(?:author|publisher)\s*(?:'s)?\s*correction|"
        r"publisher'?s note|correction(?:s)?(?=\s*(?::|to\b|for\b|of\s+(?:article|the\s+article|errors?)\b|$|notice))|"
        r"notice of correction)",
        re.I)),
    ("retraction", re.compile(
        r"^(?:retraction|notice of retraction|retraction notice|expression of concern|editorial expression of concern|"
        r"withdrawal(?=\s*(?::|of\b|notice|$)))",
        re.I)),
    ("reply", re.compile(
        r"^(?:reply|replies|in reply|authors?'?\s*(?:reply|response)|the authors?'?\s*(?:reply|response)|"
        r"response(?:s)?\s*(?:to|from)\s+(?:the\s+)?(?:letter|comment|commentary|editorial|correspondence|critique|"
        r"criticism|reviewer|authors?|dr\b|drs\b)|in response to|re\s*:|comments?\s+on\b|commentary\s+on\b|"
        r"letter to the editor|letter\s*:|comment\s*:|commentary\s*:|a reply to|rejoinder)",
        re.I)),
)


# Correction notices cite the corrected article after its title:
# Web of Science "Title (vol 360, pg 542, 2009)", Embase "Title (Journal (2009) 360 (542-544))".
_CITED_CORRECTION = re.compile(
    r"\(\s*vol\.?\s*\w+\s*,\s*pg\.?\s*\w+\s*,\s*(?:19|20)\d\d\s*\)\s*$|"
    r"\(\s*[A-Za-z][^()]*\(\s*(?:19|20)\d\d\s*\)\s*[\w.]+\s*(?:\([^()]*\)\s*)?\(\s*[\w\s\-\u2013]+\)\s*\)\s*$",
    re.I,
)


def _notice_kind(plain_title: str) -> str | None:
    """The kind of notice a title announces (erratum, retraction, reply/comment), else None."""
    text = plain_title.lstrip("[(\"'“ ")
    if _RETRACTED_PREFIX.match(text):  # "RETRACTED: Title" is the article itself, marked
        return None
    if _CITED_CORRECTION.search(text):
        return "erratum"
    for kind, pattern in _NOTICE_PATTERNS:
        if pattern.match(text):
            return kind
    return None


_GENERIC_TITLE = re.compile(
    r"^(?:(?:guest |invited )?editorials?(?: comment| note)?|"
    r"editors? (?:s )?(?:note|notes|comment|introduction|choice)|"
    r"introduction|introductory remarks|preface|foreword|prologue|epilogue|overview|summary|abstracts?|"
    r"(?:invited )?commentary|comments?|reply|replies|response|(?:the )?authors? (?:s )?reply|in reply|"
    r"letters?(?: to the editor)?|to the editor|correspondence|erratum|errata|corrigendum|corrections?|"
    r"retraction(?: notice)?|notice of retraction|expression of concern|in this issue|in brief|news(?: in brief)?|"
    r"book reviews?|(?:meeting |conference )?abstracts|posters?(?: session| sessions)?|oral presentations?|"
    r"(?:author |subject )?index|(?:table of )?contents|announcements?|obituary|in memoriam|acknowledg(?:e)?ments?|"
    r"(?:thank you to )?(?:our )?reviewers|highlights|discussion|conclusions?|untitled|no title|"
    r"title not available|not available|case reports?|images?|quiz|answers?|keynote(?: address)?|welcome|"
    r"opening remarks|closing remarks|special issue|mini ?track|"
    r"(?:introduction|preface|editorial) (?:to|for|of) (?:the )?(?:special|focus|mini ?track|minitrack|track|"
    r"symposium|section|issue|theme|virtual|thematic|supplement)\b.*|"
    r"(?:mini ?track|minitrack|track|symposium|special issue|special section) (?:introduction|overview)\b.*)$"
)


# Recurring features of a journal carry the same title in every issue, often by the same editor.
_RECURRING_FEATURE = re.compile(
    r"\b(?:column|corner|reminiscences|digest|spotlight|viewpoint|interview|puzzle|calendar|bulletin|newsletter|"
    r"news|notes|message|letter from|report from|highlights|roundup|round up|in brief|update on recent)\b"
)


def _is_generic_title(title: str) -> bool:
    """Titles shared by many unrelated items, or too short to identify one."""
    words = title.count(" ") + 1
    if len(title) < 16 or words < 3:
        return True
    return bool(_GENERIC_TITLE.match(title)) or (words <= 6 and bool(_RECURRING_FEATURE.search(title)))


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


def _same_name_word(x: str, y: str) -> bool:
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
    else:
        part = author.split()[-1] if author.split() else ""
    tokens = _name_words(part)
    return max(tokens, key=len) if tokens else None


def _authors_agree(a: _Profile, b: _Profile) -> bool | None:
    """True when the first authors share a name word or most surnames recur; None when unknown."""
    if not a.author_pool or not b.author_pool:
        return None
    if _first_authors_agree(a, b):
        return True
    shorter, other = (a, b) if len(a.surnames) <= len(b.surnames) else (b, a)
    if not shorter.surnames:
        return None
    found = sum(1 for surname in shorter.surnames if surname in other.author_pool)
    return found >= 1 and found * 2 >= len(shorter.surnames)  # half the shorter list, in any order


def _first_authors_agree(a: _Profile, b: _Profile) -> bool:
    if a.first_author & b.first_author:
        return True
    return any(_same_name_word(x, y) for x in a.first_author for y in b.first_author)


def _first_author_label(a: _Profile) -> str:
    return a.surnames[0].capitalize() if a.surnames else "?"


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
        tokens = tuple(t for t in _fold_plain(part).split() if t not in _JOURNAL_STOPWORDS and not t.isdigit())
        if tokens and tokens not in variants:
            variants.append(tokens)
    return tuple(variants)


def _journals_agree(a: _Profile, b: _Profile) -> bool | None:
    """True: same journal, allowing abbreviations ("J Clin Oncol", "Jthoraccardiovascsurg").

    False only when no word of one name even abbreviates a word of the other; None when
    unknown or unclear (journal names are too irregular to call a partial match different).
    """
    if not a.journal or not b.journal:
        return None
    if any(_abbreviates(x, y) or _abbreviates(y, x) for x in a.journal for y in b.journal):
        return True
    words_a = {w for variant in a.journal for w in variant}
    words_b = {w for variant in b.journal for w in variant}
    if any(_abbreviates((x,), (y,)) or _abbreviates((y,), (x,)) for x in words_a for y in words_b):
        return None
    if any(_is_acronym_of(w, variant) for w in words_a for variant in b.journal) or any(
        _is_acronym_of(w, variant) for w in words_b for variant in a.journal
    ):
        return None  # "vldb" / "very large data bases"
    return False


def _is_acronym_of(word: str, words: tuple[str, ...]) -> bool:
    """The word is the initials of consecutive words of the name."""
    if len(word) < 3 or len(word) > len(words):
        return False
    initials = "".join(w[0] for w in words)
    return word in initials


@lru_cache(maxsize=20_000)
def _abbreviates(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """Whether each word of `short` abbreviates one or more consecutive words of `full`, covering all of them.

    A word abbreviates a word when it starts with the same letter and its letters
    appear in order ("dtsch" / "deutsche"); run-together abbreviations are pieces
    of consecutive words ("revargentcardiol" / "revista argentina cardiologia").
    """
    if short == full:
        return True

    @lru_cache(maxsize=None)
    def covers(i: int, j: int) -> bool:
        if i == len(short):
            return j == len(full)
        return any(covers(i + 1, k) for k in _spans(short[i], full, j))

    return covers(0, 0)


def _spans(word: str, full: tuple[str, ...], start: int) -> Iterator[int]:
    """End indices k such that `word` abbreviates full[start:k] as consecutive pieces."""

    def pieces(w: str, j: int) -> Iterator[int]:
        if j >= len(full):
            return
        target = full[j]
        if not w or w[0] != target[0]:
            return
        # Try every split: w[:cut] abbreviates target, the rest continues with the next word.
        for cut in range(len(w), 0, -1):
            if _is_subsequence(w[:cut], target):
                if cut == len(w):
                    yield j + 1
                else:
                    yield from pieces(w[cut:], j + 1)

    yield from pieces(word, start)


def _is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


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


def _leading_number(value: str | None) -> str | None:
    match = _DIGITS.search(value or "")
    return (match.group(0).lstrip("0") or "0") if match else None


def _venue(a: _Profile, b: _Profile) -> str:
    """'match' (volume and pages agree, or the same multi-page range), 'conflict', or 'unknown'."""
    volume = _agreement(a.volume, b.volume)
    pages = _pages_agree(a, b)
    if volume is False or pages is False:
        return "conflict"
    if volume and pages:
        return "match"
    if pages and a.first_page == b.first_page and a.last_page and a.last_page == b.last_page != a.first_page:
        return "match"
    return "unknown"


def _pages_agree(a: _Profile, b: _Profile) -> bool | None:
    if a.first_page is None or b.first_page is None:
        return None
    if a.article_number != b.article_number:
        return None  # an electronic article number (e12724) and printed pages cannot be compared
    if a.first_page == b.first_page:
        return True
    if a.last_page or b.last_page:
        # A typo or a dropped start page leaves the end page: "2297-2108"/"2097-2108", "488"/"487-488".
        return (a.last_page or a.first_page) == (b.last_page or b.first_page)
    return False


def _same_printed_item(a: _Profile, b: _Profile) -> bool:
    """Same volume and first page: two records of one printed item, whatever their titles say."""
    return (a.volume is not None and a.volume == b.volume and a.first_page is not None
            and a.first_page == b.first_page and a.article_number == b.article_number)


_ABSTRACT_COMPARED = 800  # characters: enough to tell two studies apart, cheap to compare


@lru_cache(maxsize=4_096)
def _folded_abstract(text: str) -> str:
    folded = _fold_plain(plain_text(text) or "")
    return folded[:600] if len(folded) >= 200 else ""  # a snippet says too little either way


def _abstracts_agree(a: _Profile, b: _Profile) -> bool | None:
    """True: the same abstract (small edits); False: clearly different texts; None: unknown or in between."""
    if not a.abstract or not b.abstract:
        return None
    x, y = _folded_abstract(a.abstract), _folded_abstract(b.abstract)
    if not x or not y:
        return None
    shorter = min(len(x), len(y))
    if fuzz.ratio(x[:shorter], y[:shorter]) >= 90:
        return True
    # Word sets, not order: a structured abstract's headings or a reordered copy are not "different".
    if fuzz.token_set_ratio(x, y) < 50:
        return False
    return None


def _agreement(x: str | None, y: str | None) -> bool | None:
    return None if x is None or y is None else x == y


# --------------------------------------------------------------------------- pair judgement

NEAR_IDENTICAL = 95.0  # % title similarity that counts as the same title
SIMILAR = 88.0  # % similarity that needs bibliographic confirmation
UNCERTAIN_FLOOR = 85.0  # % similarity from which a refused pair is reported


@dataclass
class _Verdict:
    merge: bool  # False: keep apart but report the pair as uncertain
    reason: str


def _identifier_conflict(a: _Profile, b: _Profile) -> str | None:
    """Two publisher DOIs, or two PMIDs, that differ: two papers, whatever else agrees."""
    if a.dois and b.dois and not a.dois & b.dois:
        return "different DOIs"
    if a.pmids and b.pmids and not a.pmids & b.pmids:
        return "different PMIDs"
    return None


def _hard_veto(a: _Profile, b: _Profile) -> str | None:
    """Why these two can never be one paper, whatever else agrees; None when nothing forbids it."""
    conflict = _identifier_conflict(a, b)
    if conflict:
        return conflict
    if a.year and b.year and abs(a.year - b.year) > 1:
        return f"years {a.year}/{b.year}"
    if _same_printed_item(a, b):
        return None  # one volume and page: a typo in a title number, or an erratum indexed without its label
    if a.notice != b.notice:
        return "a notice (erratum/reply/retraction) and another item"
    if _numbers_differ(a, b):
        return "titles carry different numbers"
    return None


def _title_similarity(a: _Profile, b: _Profile) -> float:
    """Best similarity (0-100) over title variants: edit ratio or word-order-insensitive ratio."""
    best = 0.0
    for x in a.variants:
        for y in b.variants:
            score = max(fuzz.ratio(x, y, score_cutoff=best), fuzz.token_sort_ratio(x, y, score_cutoff=best))
            best = max(best, score)
    return best


def _truncated_twin(a: _Profile, b: _Profile) -> bool:
    """One title is the other cut short (subtitle dropped, field length limit); needs 5+ words."""
    short, long = sorted((a.title, b.title), key=len)
    if len(short) == len(long) or short[:6] != long[:6] or short.count(" ") < 4:
        return False
    return fuzz.ratio(short, long[: len(short)]) >= 97 and long[len(short) : len(short) + 1] in ("", " ")


def _judge(a: _Profile, b: _Profile, similarity: float) -> _Verdict | None:
    """Merge or not, with a human-readable reason; None when the pair is not worth reporting.

    `similarity` is `_title_similarity(a, b)`, computed by the caller to order the pairs.
    """
    if not a.title or not b.title:
        return None  # a record without title only joins through an identifier
    # Most pairs that blocking proposes share little: leave early unless the titles or the citation may match.
    same_page = a.first_page is not None and a.first_page == b.first_page
    if similarity < UNCERTAIN_FLOOR and not same_page and not _truncated_twin(a, b):
        return None
    veto = _hard_veto(a, b)
    if veto:
        # Worth a look only when everything else says "same": same title and authors, no two DOIs.
        if (similarity >= NEAR_IDENTICAL and not (a.dois and b.dois) and not (a.generic or b.generic)
                and _authors_agree(a, b) is not False):
            return _Verdict(False, f"title {similarity:.0f}% similar but {veto}")
        return None

    authors = _authors_agree(a, b)
    journals = _journals_agree(a, b)
    venue = _venue(a, b)
    same_year = a.year is not None and a.year == b.year
    near_year = a.year is None or b.year is None or abs(a.year - b.year) <= 1
    facts = lambda: _describe(a, b, similarity, authors, journals, venue)  # noqa: E731 - only when reported

    similar_title = similarity >= SIMILAR or _truncated_twin(a, b)
    if similar_title:
        refusal = _refusal(a, b, similarity >= NEAR_IDENTICAL, authors, journals, venue, same_year, near_year)
        if refusal is None:
            return _Verdict(True, facts())
    else:
        refusal = f"titles only {similarity:.0f}% similar"

    if same_year and _same_page_range(a, b, venue):
        # Year, volume and page range identify one article: whatever the title says when the
        # first author agrees (translated titles), whatever the authors say when the title agrees
        # (group author in one record, a misspelt name in the other).
        if _first_authors_agree(a, b) or similarity >= NEAR_IDENTICAL:
            if journals is not False:
                return _Verdict(True, f"same year, volume and pages; {facts()}")
            return _Verdict(False, f"same citation but journals differ; {facts()}")

    worth_reporting = (similar_title or similarity >= UNCERTAIN_FLOOR) and authors is not False
    worth_reporting = worth_reporting and not ((a.generic or b.generic) and venue == "conflict")
    if not worth_reporting:
        return None
    return _Verdict(False, f"{refusal}; {facts()}")


def _same_page_range(a: _Profile, b: _Profile, venue: str) -> bool:
    """Same volume and the same multi-page range."""
    return (venue == "match" and a.volume is not None and a.first_page == b.first_page
            and a.last_page is not None and a.last_page == b.last_page and a.last_page != a.first_page)


def _refusal(a, b, strong_title, authors, journals, venue, same_year, near_year) -> str | None:
    """Why a pair with similar titles is not merged; None to merge."""
    if not near_year:
        return "years differ"
    if authors is False:
        return "authors differ"
    if venue == "conflict":
        return "volume or pages differ"
    abstracts = _abstracts_agree(a, b)
    if abstracts is False and venue != "match":
        return "abstracts differ (conference abstract and article?)"
    # A working paper or preprint keeps its abstract in the journal: a shared abstract
    # vouches for one record only within one venue.
    abstracts = abstracts and journals is not False
    if a.generic or b.generic:
        # "Editorial", "Introduction to the minitrack on …": the title identifies nothing.
        if same_year and venue == "match" and journals is not False and strong_title:
            return None
        return "generic title without matching journal, volume and pages"
    if not strong_title:
        # Similar but not identical titles need the bibliographic details or the abstract to agree.
        if authors and (venue == "match" or abstracts):
            return None
        return "titles similar but not identical, volume/pages not confirming"
    if venue == "match" or abstracts:
        return None
    if authors is None:
        return "same title but authors unknown"
    if same_year:
        if journals is not False:
            return None
        return "same title and year but different journals (conference abstract and article?)"
    if (a.year is None or b.year is None) and journals:
        return None
    # A year apart: epub and print years differ, but so do an abstract and its article.
    # Same journal and volume says it is one publication.
    if journals and a.volume is not None and a.volume == b.volume:
        return None
    return "same title, years one apart, volume and pages not confirming"


def _describe(a: _Profile, b: _Profile, similarity, authors, journals, venue) -> str:
    parts = [f"title {similarity:.0f}% similar"]
    if a.year or b.year:
        parts.append(f"year {a.year}" if a.year == b.year else f"year {a.year}/{b.year}")
    if authors:
        parts.append(f"first author {_first_author_label(a)}")
    elif authors is False:
        parts.append(f"first authors {_first_author_label(a)}/{_first_author_label(b)}")
    if venue == "match":
        parts.append(f"volume {a.volume or '?'} page {a.first_page}")
    elif venue == "conflict":
        parts.append(f"volume/page {a.volume}:{a.first_page} vs {b.volume}:{b.first_page}")
    if journals is False:
        parts.append("journals differ")
    return ", ".join(parts)


# --------------------------------------------------------------------------- blocking

_BLOCK_ALL_PAIRS = 40  # blocks up to this size compare every pair
_BLOCK_WINDOW = 12  # larger blocks compare neighbours in title order only


def _blocking_keys(p: _Profile) -> Iterator[str]:
    """Keys under which a record meets its candidate duplicates.

    Title start and end catch edits at the other end; the three longest words catch
    titles edited at both ends; volume+page and author+page catch translated titles.
    """
    for variant in p.variants:
        compact = variant.replace(" ", "")
        if len(compact) >= 12:
            yield "p" + compact[:24]
            yield "s" + compact[-24:]
        words = variant.split()
        if len(words) >= 4:
            yield "w" + " ".join(sorted(sorted(words, key=len)[-3:]))
    if p.first_page and p.volume:
        yield f"v{p.volume}:{p.first_page}:{p.year}"
    if p.first_page and p.surnames:
        yield f"a{p.surnames[0]}:{p.first_page}"


def _candidate_pairs(profiles: Sequence[_Profile], indices: Sequence[int]) -> set[tuple[int, int]]:
    """Pairs (i < j) of `indices` (one per profile) that share a blocking key."""
    blocks: dict[str, list[int]] = defaultdict(list)
    title_of: dict[int, str] = {}
    for index, profile in zip(indices, profiles):
        title_of[index] = profile.title
        if profile.title:
            for key in set(_blocking_keys(profile)):
                blocks[key].append(index)
    pairs: set[tuple[int, int]] = set()
    for members in blocks.values():
        if len(members) < 2:
            continue
        if len(members) <= _BLOCK_ALL_PAIRS:
            pairs.update((i, j) for n, i in enumerate(members) for j in members[n + 1 :])
        else:
            ordered = sorted(members, key=lambda i: (title_of[i], i))
            for n, i in enumerate(ordered):
                for j in ordered[n + 1 : n + 1 + _BLOCK_WINDOW]:
                    pairs.add((min(i, j), max(i, j)))
    return pairs


# --------------------------------------------------------------------------- clustering


class _ClusterBuilder:
    """Union-find whose unions respect the vetoes at cluster level."""

    def __init__(self, profiles: Sequence[_Profile]):
        self.profiles = profiles
        self.parent = list(range(len(profiles)))
        self.members: dict[int, list[int]] = {i: [i] for i in range(len(profiles))}
        # Distinct profiles per cluster: verbatim copies need checking against other clusters once.
        self.distinct: dict[int, set[_Profile]] = {i: {p} for i, p in enumerate(profiles)}
        self.reasons: dict[int, list[str]] = defaultdict(list)

    def root(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def unite(self, i: int, j: int, reason: str, *, by_identifier: bool) -> bool:
        """Join the clusters of i and j unless a veto holds between any of their members; True when joined.

        A shared identifier outweighs the soft vetoes (years, notices, title numbers: metadata
        errors), never a conflicting DOI or PMID, not even through a chain of records.
        """
        ri, rj = self.root(i), self.root(j)
        if ri == rj:
            return True
        veto = _identifier_conflict if by_identifier else _hard_veto
        if any(veto(x, y) for x in self.distinct[ri] for y in self.distinct[rj]):
            return False
        if len(self.members[ri]) < len(self.members[rj]):
            ri, rj = rj, ri
        self.parent[rj] = ri
        self.members[ri].extend(self.members.pop(rj))
        self.distinct[ri] |= self.distinct.pop(rj)
        self.reasons[ri].extend(self.reasons.pop(rj, []))
        self.reasons[ri].append(reason)
        return True

    def unite_by_identifiers(self) -> None:
        groups: dict[str, list[int]] = defaultdict(list)
        for index, p in enumerate(self.profiles):
            for doi in p.dois:
                groups[f"DOI {doi}"].append(index)
            for pmid in p.pmids:
                groups[f"PMID {pmid}"].append(index)
            for arxiv_id in p.arxiv_ids:
                groups[f"arXiv id {arxiv_id}"].append(index)
            for other in p.other_ids:
                groups[other].append(index)
        for key in sorted(groups, key=lambda k: (groups[k][0], k)):
            members = groups[key]
            for position, j in enumerate(members[1:], start=1):
                # Supplements give many abstracts one DOI: join only records whose titles agree.
                for i in members[:position]:
                    if self._titles_allow_identifier_match(i, j) and self.unite(i, j, f"same {key}", by_identifier=True):
                        break

    def _titles_allow_identifier_match(self, i: int, j: int) -> bool:
        a, b = self.profiles[i], self.profiles[j]
        if not a.title or not b.title:
            return True
        if _title_similarity(a, b) >= 60 or _truncated_twin(a, b):
            return True
        # Translations share the identifier but not the words: accept when the citation agrees.
        return bool(_authors_agree(a, b)) and _venue(a, b) == "match"

    def unite_by_similarity(self) -> list[UncertainPair]:
        profiles = self.profiles
        # Exports repeat records verbatim: when identical profiles merge, only the first
        # needs comparing with the others (its twins join whatever it joins).
        first_seen: dict[_Profile, int] = {}
        representatives = []
        uncertain = []
        for index, profile in enumerate(profiles):
            first = first_seen.setdefault(profile, index)
            if first != index:
                verdict = _judge(profile, profile, 100.0)
                if verdict is not None and verdict.merge and self.unite(first, index, verdict.reason, by_identifier=False):
                    continue
                if verdict is not None:
                    uncertain.append(UncertainPair(first, index, 100.0, verdict.reason))
            representatives.append(index)
        scored = [
            (_title_similarity(profiles[i], profiles[j]), i, j)
            for i, j in _candidate_pairs([profiles[k] for k in representatives], representatives)
        ]
        # Most similar titles first, so a doubtful link never pre-empts a sure one; pairs already
        # joined through others need no judgement at all.
        scored.sort(key=lambda item: (-item[0], item[1], item[2]))
        for similarity, i, j in scored:
            if self.root(i) == self.root(j):
                continue
            verdict = _judge(profiles[i], profiles[j], similarity)
            if verdict is None:
                continue
            if verdict.merge:
                if not self.unite(i, j, verdict.reason, by_identifier=False):
                    uncertain.append(UncertainPair(i, j, similarity, f"{verdict.reason}; conflicts with its cluster"))
            else:
                uncertain.append(UncertainPair(i, j, similarity, verdict.reason))
        uncertain.sort(key=lambda pair: (pair.first, pair.second))
        return uncertain

    def result(self) -> list[Cluster]:
        clusters = []
        for root, members in self.members.items():
            reasons = list(dict.fromkeys(self.reasons.get(root, [])))
            clusters.append(Cluster(members=sorted(members), reasons=reasons))
        clusters.sort(key=lambda c: c.members[0])
        return clusters
