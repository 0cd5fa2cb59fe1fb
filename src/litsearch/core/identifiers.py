"""One identifier vocabulary: how each kind of paper id is named, spelled and normalized,
and one parser for the ids users type (DOI, PMID, PMCID, arXiv, S2, OpenAlex, CorpusId).

Render, store, merge, ``paper`` and ``network`` all use these tables, so an id has one
meaning everywhere."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import unquote

from .errors import UnknownIdError

_DOI_PREFIXES = re.compile(
    r"^\s*(?:(?:https?://)?(?:dx\.|www\.)?doi\.org/|info:doi/|\[?doi\]?\s*[:=]?\s*)", re.I
)
_DOI_NOTE = re.compile(r"\s*\[doi\]\s*$", re.I)  # PubMed's "10.1/x [doi]"
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")
# No registered DOI has a "." or ".." path segment or a control character; such text is a
# path trick (10.1/../../x, also %2e%2e once decoded), not an id, and never reaches a URL.
_DOI_UNSAFE = re.compile(r"(?:^|/)\.{1,2}(?:/|$)|[\x00-\x1f\x7f]|%2e%2e|%2f", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?", re.I)
# Old-style ids: "hep-th/9901001"; a subject class ("math.GT/0309136") is not part of the id.
_ARXIV_OLD = re.compile(r"([a-z\-]+)(?:\.[A-Z]{2})?/(\d{7})(v\d+)?", re.I)


def normalize_doi(value: str | None) -> str | None:
    """Bare, lower-case DOI from any of the forms APIs and exports use.

    Accepts ``10.1/x``, ``doi:10.1/x``, ``DOI 10.1/x``, ``Doi: 10.1/x``, ``https://doi.org/10.1/x``,
    ``http://dx.doi.org/10.1/x``, ``10.1/x [doi]`` (also percent-encoded and upper-case), with
    trailing punctuation or an unbalanced closing bracket dropped. Returns None for anything
    that is not a DOI.
    """
    if not value:
        return None
    text = unquote(str(value).strip())
    text = _DOI_NOTE.sub("", _DOI_PREFIXES.sub("", text)).strip()
    while text and (text[-1] in ".;,'\"" or (text[-1] in _CLOSERS and text.count(text[-1]) > text.count(
            _CLOSERS[text[-1]]))):
        text = text[:-1]
    text = text.lower()
    if not _DOI_SHAPE.match(text) or _DOI_UNSAFE.search(text):
        return None
    return text


def is_arxiv_doi(doi: str | None) -> bool:
    """True for DataCite DOIs arXiv mints for every preprint (10.48550/arXiv.*)."""
    return bool(doi and _ARXIV_DOI.match(doi))


def arxiv_id_from_doi(doi: str | None) -> str | None:
    match = _ARXIV_DOI.match(doi or "")
    return normalize_arxiv_id(match.group(1)) if match else None


def split_arxiv_id(value: str | None) -> tuple[str | None, str | None]:
    """(versionless id, version) from ``2101.00001v2``, an abs/pdf URL or ``arXiv:…``."""
    if not value:
        return None, None
    text = str(value).strip()
    text = re.sub(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", "", text, flags=re.I)
    text = re.sub(r"^arxiv:", "", text, flags=re.I)
    text = re.sub(r"\.pdf$", "", text, flags=re.I)
    match = _ARXIV_NEW.fullmatch(text)
    if match:
        return match.group(1), match.group(2) or None
    match = _ARXIV_OLD.fullmatch(text)
    if match:
        return f"{match.group(1).lower()}/{match.group(2)}", match.group(3) or None
    return None, None


def normalize_arxiv_id(value: str | None) -> str | None:
    """Versionless arXiv id (``2101.00001``, ``hep-th/9901001``) or None."""
    return split_arxiv_id(value)[0]


def normalize_pmid(value: str | int | None) -> str | None:
    """Digits of a PMID from ``123``, ``PMID:123`` or a pubmed.ncbi.nlm.nih.gov URL."""
    if value is None:
        return None
    match = re.search(r"(\d{1,9})/?\s*$", str(value).strip())
    return str(int(match.group(1))) if match else None


def normalize_openalex_id(value: str | None) -> str | None:
    """``W123…`` from ``https://openalex.org/W123…`` (works only)."""
    if not value:
        return None
    match = re.search(r"(W\d+)\s*$", str(value).strip(), re.I)
    return match.group(1).upper() if match else None


def normalize_pmcid(value: Any) -> str | None:
    """``PMC123`` from ``PMC123``, ``123`` or a PMC article URL (OpenAlex drops the PMC)."""
    match = re.search(r"(?:PMC)?(\d+)/?\s*$", str(value or ""), re.I)
    return f"PMC{match.group(1)}" if match else None


_S2_SHA = re.compile(r"(?:https?://(?:www\.)?semanticscholar\.org/paper/(?:[^/]+/)?)?([0-9a-f]{40})/?", re.I)


def normalize_s2_id(value: Any) -> str | None:
    """The 40-hex Semantic Scholar paperId (lower case) from the id or its page URL; other
    text is kept as given (S2 ids are opaque to everyone but S2)."""
    text = str(value or "").strip()
    if not text:
        return None
    match = _S2_SHA.fullmatch(text)
    return match.group(1).lower() if match else text


# ---------------------------------------------------------------- the vocabulary

@dataclass(frozen=True)
class IdKind:
    """One kind of identifier.

    ``field``: the Paper and saved-record field (``arxiv_id``); ``short``: the kind a typed id
    is classified as (``arxiv``); ``label``: its key in ``external_ids`` output (``ArXiv``);
    ``prose``: its name in a sentence (``arXiv``); ``spellings``: every name APIs and exports
    give it, folded (lower case, no ``_``, ``-`` or spaces).
    """

    field: str
    short: str
    label: str
    prose: str
    spellings: tuple[str, ...]


ID_VOCABULARY = (
    IdKind("doi", "doi", "DOI", "DOI", ("doi",)),
    IdKind("pmid", "pmid", "PMID", "PMID", ("pmid", "pubmed", "pubmedid")),
    IdKind("pmcid", "pmcid", "PMCID", "PMCID", ("pmcid", "pmc", "pubmedcentral")),
    IdKind("arxiv_id", "arxiv", "ArXiv", "arXiv", ("arxiv", "arxivid")),
    IdKind("openalex_id", "openalex", "OpenAlex", "OpenAlex id", ("openalex", "openalexid")),
    IdKind("paper_id", "s2", "S2", "Semantic Scholar id", ("s2", "paperid", "s2id", "semanticscholarid")),
    IdKind("corpus_id", "corpusid", "CorpusId", "CorpusId", ("corpusid",)),
    IdKind("mag", "mag", "MAG", "MAG id", ("mag",)),
    IdKind("dblp", "dblp", "DBLP", "DBLP key", ("dblp",)),
    IdKind("acl", "acl", "ACL", "ACL id", ("acl",)),
)
_BY_SPELLING = {spelling: kind for kind in ID_VOCABULARY for spelling in kind.spellings}
_BY_FIELD = {kind.field: kind for kind in ID_VOCABULARY}
_BY_SHORT = {kind.short: kind for kind in ID_VOCABULARY}

# A preprint and the article it became, as a record may name them in ``external_ids``: the
# preprint's own id on a preprint server that numbers them (Europe PMC's "PPR…"), and the link to
# the other version (on a preprint: the article's PMID or PMCID; on an article: its preprint's
# PPR id). None of these keys spells a DOI or a PMID (id_kind knows none of them), so a link to
# *another* record is never taken for the record's own id, by the merge or by the library.
PREPRINT_ID = "ppr"
PUBLISHED_PMID = "published_pmid"
PUBLISHED_PMCID = "published_pmcid"
PREPRINT_OF_ARTICLE = "preprint_ppr"

# The kinds that identify a paper in the library and in merging, strongest first: when a
# record matches several papers, the first kind decides.
IDENTITY_FIELDS = ("doi", "pmid", "arxiv_id", "openalex_id", "paper_id")

_NORMALIZERS = {"doi": normalize_doi, "pmid": normalize_pmid, "pmcid": normalize_pmcid,
                "arxiv_id": normalize_arxiv_id, "openalex_id": normalize_openalex_id, "paper_id": normalize_s2_id}


def id_kind(name: Any) -> IdKind | None:
    """The kind an id name means in any spelling (``DOI``, ``PubMed``, ``arxiv_id``, ``S2`` …)."""
    return _BY_SPELLING.get(re.sub(r"[\s_\-]", "", str(name).lower()))


def field_label(field: str) -> str:
    """The output spelling of a Paper id field (``arxiv_id`` -> ``ArXiv``)."""
    return _BY_FIELD[field].label


def id_label(name: str) -> str:
    """The output spelling of an id name (``pubmed`` -> ``PMID``); unknown names stay as given."""
    kind = id_kind(name)
    return kind.label if kind else name


def normalize_identifier(field: str, value: Any) -> str | None:
    """``value`` normalized for its kind (bare lower-case DOI, digits, versionless arXiv …)."""
    if value is None or value == "":
        return None
    normalize = _NORMALIZERS.get(field)
    if normalize is None:
        text = " ".join(str(value).split())
        return text or None
    return normalize(str(value).strip())


def identity(field: str, value: Any) -> tuple[str, str] | None:
    """(field, normalized value) for identity matching. An arXiv DOI (10.48550/arXiv.*) is
    the arXiv id, not a DOI: the published version of the same paper has another DOI."""
    normalized = normalize_identifier(field, value)
    if not normalized:
        return None
    if field == "doi" and is_arxiv_doi(normalized):
        arxiv = arxiv_id_from_doi(normalized)
        return ("arxiv_id", arxiv) if arxiv else None
    return field, normalized


def record_identities(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every (field, value) of ``IDENTITY_FIELDS`` a record carries, strongest first: its
    top-level fields and ``external_ids`` in any spelling."""
    found: set[tuple[str, str]] = set()
    for source in (record, record.get("external_ids") or {}):
        if not isinstance(source, Mapping):
            continue
        for name, raw in source.items():
            kind = id_kind(name)
            if kind is None or kind.field not in IDENTITY_FIELDS:
                continue
            for value in raw if isinstance(raw, (list, tuple, set)) else [raw]:
                found_identity = identity(kind.field, value)
                if found_identity:
                    found.add(found_identity)
    return sorted(found, key=lambda item: (IDENTITY_FIELDS.index(item[0]), item[1]))


# ---------------------------------------------------------------- ids users type

@dataclass(frozen=True)
class PaperRef:
    """A paper id the user gave, classified and normalized.

    ``kind`` is the ``short`` name of its ``IdKind`` (doi, pmid, arxiv, s2, corpusid,
    openalex); ``value`` the bare normalized id (lower-case DOI, digits, versionless arXiv id, W…).
    """

    kind: str
    value: str

    @property
    def field(self) -> str:
        return _BY_SHORT[self.kind].field

    @property
    def label(self) -> str:
        return f"{_BY_SHORT[self.kind].prose} {self.value}"

    @property
    def identity(self) -> tuple[str, str]:
        return self.field, self.value


_PREFIXED = re.compile(r"^(doi|pmid|arxiv|corpusid)(?:\s*:\s*|\s+)(\S.*)$", re.I)
_DOI_URL = re.compile(r"^(?:https?://)?(?:dx\.)?doi\.org/", re.I)
_ARXIV_URL = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.I)
_PUBMED_URL = re.compile(
    r"^(?:https?://)?(?:pubmed\.ncbi\.nlm\.nih\.gov|(?:www\.)?ncbi\.nlm\.nih\.gov/pubmed)/(\d{1,9})/?(?:[?#].*)?$",
    re.I)
_S2_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?semanticscholar\.org/paper/(?:[^/?#]+/)?([0-9a-f]{40})/?(?:[?#].*)?$", re.I)
_OPENALEX_ID = re.compile(r"^(?:(?:https?://)?(?:api\.)?openalex\.org/(?:works/)?)?(W\d{2,12})/?$", re.I)
_SHA = re.compile(r"^[0-9a-f]{40}$", re.I)
_PMID = re.compile(r"^\d{1,9}$")
_CORPUS_ID = re.compile(r"^\d{1,12}$")
MAX_ID_CHARS = 300

ID_HELP = ("a DOI (10.…, doi:…, https://doi.org/…), a PMID (digits, PMID:…), an arXiv id (2101.00001, "
           "arXiv:…, arxiv.org URL), a Semantic Scholar id (40 hex characters, CorpusId:…) "
           "or an OpenAlex id (W…)")


_PMCID_REF = re.compile(
    r"^(?:pmcid\s*:?\s*|(?:https?://)?(?:www\.)?(?:ncbi\.nlm\.nih\.gov/pmc/articles/|pmc\.ncbi\.nlm\.nih\.gov/articles/|"
    r"europepmc\.org/articles?/(?:PMC/)?))?(PMC\d{1,10})(?:\.\d+)?/?$", re.I)


def parse_pmcid_ref(text: str) -> PaperRef | None:
    """A PubMed Central id as users type it (``PMC3299399``, ``PMCID: PMC3299399``, a PMC or
    Europe PMC article URL), or None. Commands that read full texts accept it besides
    ``parse_paper_ref``'s ids."""
    match = _PMCID_REF.match(" ".join(str(text or "").split()))
    return PaperRef("pmcid", "PMC" + match.group(1)[3:]) if match else None


_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def parse_paper_ref(text: str) -> PaperRef:
    """Classify a paper id in any of its usual spellings; ``UnknownIdError`` when it is none.

    A bare number is a PMID (Semantic Scholar corpus ids need their ``CorpusId:`` prefix),
    and arXiv's own DOIs (10.48550/arXiv.…) count as arXiv ids.
    """
    raw = " ".join(str(text or "").split())
    # An id copied from Markdown lit-search printed (or any renderer) carries its escapes:
    # "doi:10.1007/978-3-319-89929-9\_12". A backslash before ASCII punctuation is CommonMark's
    # escape, never part of a DOI, PMID, arXiv or OpenAlex id a provider gives.
    raw = _MARKDOWN_ESCAPE.sub(r"\1", raw)
    if not raw:
        raise UnknownIdError("the paper id is empty")
    if len(raw) > MAX_ID_CHARS:
        raise UnknownIdError(f"the paper id is {len(raw):,} characters long; ids are at most {MAX_ID_CHARS}")
    ref = _prefixed_ref(raw) or _url_ref(raw) or _bare_ref(raw)
    if ref is None:
        raise UnknownIdError(f"unrecognised paper id {raw!r}: use {ID_HELP}")
    arxiv_id = arxiv_id_from_doi(ref.value) if ref.kind == "doi" else None
    return PaperRef("arxiv", arxiv_id) if arxiv_id else ref


def _prefixed_ref(raw: str) -> PaperRef | None:
    match = _PREFIXED.match(raw)
    if not match:
        return None
    kind, rest = match.group(1).lower(), match.group(2).strip()
    value = {
        "doi": lambda: normalize_doi(rest),
        "pmid": lambda: rest if _PMID.match(rest) else None,
        "arxiv": lambda: normalize_arxiv_id(rest),
        "corpusid": lambda: rest if _CORPUS_ID.match(rest) else None,
    }[kind]()
    if value is None:
        raise UnknownIdError(f"{raw!r} is not a valid {match.group(1)} id: use {ID_HELP}")
    return PaperRef(kind, str(int(value)) if kind in ("pmid", "corpusid") else value)


def _url_ref(raw: str) -> PaperRef | None:
    if _DOI_URL.match(raw):
        doi = normalize_doi(raw)
        return PaperRef("doi", doi) if doi else None
    if _ARXIV_URL.match(raw):
        arxiv_id = normalize_arxiv_id(raw)
        return PaperRef("arxiv", arxiv_id) if arxiv_id else None
    if match := _PUBMED_URL.match(raw):
        return PaperRef("pmid", str(int(match.group(1))))
    if match := _S2_URL.match(raw):
        return PaperRef("s2", match.group(1).lower())
    if match := _OPENALEX_ID.match(raw):
        return PaperRef("openalex", match.group(1).upper())
    return None


def _bare_ref(raw: str) -> PaperRef | None:
    if _SHA.match(raw):
        return PaperRef("s2", raw.lower())
    if _PMID.match(raw):
        return PaperRef("pmid", str(int(raw)))
    doi = normalize_doi(raw)
    if doi:
        return PaperRef("doi", doi)
    arxiv_id, _version = split_arxiv_id(raw)
    return PaperRef("arxiv", arxiv_id) if arxiv_id else None
