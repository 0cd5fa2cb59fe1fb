"""Write Paper records as BibTeX, RIS, CSL-JSON or CSV (reference managers; `dedupe --merged`).

Each writer takes the papers and, optionally, one key per paper (the BibTeX key, RIS ``ID``,
CSL ``id`` and CSV ``ID``); without keys, `citation_keys` makes them. Choices:

- **Citation keys**: first author's surname, year, first significant title word, folded to
  lower-case ASCII (``vaswani2017attention``); a repeat gets ``a``, ``b``, … (``vaswani2017attentiona``).
  Missing parts become ``anon`` (no author) and ``nd`` (no year).
- **Kind of publication** (`publication_kind`): preprint (arXiv-only records, preprint servers,
  preprint/posted-content types), conference paper (conference types or a conference,
  symposium or workshop venue), journal article (any other record with a venue) or other.
  BibTeX: ``misc`` with ``eprint``/``archivePrefix``, ``inproceedings``, ``article``, ``misc``;
  RIS: ``UNPB``, ``CONF``, ``JOUR``, ``GEN``; CSL: ``article``, ``paper-conference``,
  ``article-journal``, ``document``.
- **BibTeX text** keeps non-ASCII characters as UTF-8 (biber/biblatex, bibtexparser and
  reference managers read it; classic BibTeX needs ``\\usepackage[utf8]{inputenc}``, the
  default since LaTeX 2018) and escapes TeX's special characters ``\\ { } & % $ # _ ~ ^``
  (braces as ``\\textbraceleft{}``, which keeps BibTeX's brace count right); ``--`` in prose is
  written ``-{}-`` so that TeX keeps two hyphens rather than setting a dash.
  Title words with inner capitals or digits (``DNA``, ``mRNA``, ``Cas9``) are braced so that
  styles which lower-case titles keep them. ``doi`` and ``url`` are verbatim fields and are
  written as they are (braces percent-encoded).
- **Names** are split by `split_name`: "Family, Given", PubMed's "Family GI", or
  "Given Family" (with particles such as van/de/von kept in the family name). Group authors
  ("WHO Collaborating Group", "ALTS Group") become literal names: braced in BibTeX, written
  whole in RIS, ``literal`` in CSL.
- **RIS** lines end in CRLF as the RIS specification asks; values are single lines.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .identifiers import is_arxiv_doi
from .records import Paper
from .render import citation_uri
from .text import plain_text

__all__ = ["CSV_COLUMNS", "PersonName", "citation_keys", "publication_kind", "split_name",
           "to_bibtex", "to_csl_json", "to_csv", "to_ris"]

# --------------------------------------------------------------------------- names


@dataclass(frozen=True)
class PersonName:
    """One author: a person (family, given, suffix) or a group (literal)."""

    family: str | None = None
    given: str | None = None
    suffix: str | None = None
    literal: str | None = None


_GROUP_WORDS = re.compile(
    r"\b(?:group|consortium|collaborat\w*|committee|organi[sz]ation|society|association|institute|network|team|"
    r"investigators|council|agency|foundation|initiative|working party|panel|trialists|alliance|cent(?:er|re)|"
    r"university|department|project|task force|registry|programme|ministry|commission)\b",
    re.I,
)
_PARTICLES = {"van", "von", "de", "der", "den", "del", "della", "da", "di", "du", "dos", "das", "des", "le", "la",
              "ten", "ter", "van't", "bin", "ibn", "al", "el", "st.", "zu", "y"}
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
_DIGIT = re.compile(r"\d")
_CONJUNCTION = re.compile(r"\band\b|&", re.I)  # "Barnes and Noble": never one person
_INITIALS = re.compile(r"^(?:[A-Z]{1,3}|(?:[A-Z]\.){1,3})$")


@lru_cache(maxsize=65_536)  # exports repeat author names: each is analysed once
def split_name(name: str) -> PersonName | None:
    """Family and given names of an author string, or a literal group name; None when empty."""
    text = _plain(name)
    if len(text) > 2 and text[0] == "{" and text[-1] == "}":
        return PersonName(literal=text[1:-1].strip())  # BibTeX's way of saying "one name, do not split"
    if not text:
        return None
    if _GROUP_WORDS.search(text) or _CONJUNCTION.search(text) or _DIGIT.search(text):
        return PersonName(literal=text)
    if "," in text:
        return _split_comma_name(text)
    words = text.split(" ")
    suffix = None
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix, words = words[-1], words[:-1]
    if len(words) == 1:
        return PersonName(family=words[0], suffix=suffix)
    if len(words) > 4:
        return PersonName(literal=text)  # too long for a person: an unrecognised group name
    if _INITIALS.match(words[-1]):  # PubMed: "Hsu PD", "van der Berg J"
        return PersonName(family=" ".join(words[:-1]), given=_dotted_initials(words[-1]), suffix=suffix)
    start = next((i for i, word in enumerate(words[1:-1], start=1) if word.lower() in _PARTICLES), len(words) - 1)
    return PersonName(family=" ".join(words[start:]), given=" ".join(words[:start]), suffix=suffix)


def _split_comma_name(text: str) -> PersonName:
    """BibTeX order: "Family, Given" or "Family, Jr, Given"."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) >= 3 and parts[1].lower() in _SUFFIXES:
        return PersonName(family=parts[0], given=", ".join(parts[2:]) or None, suffix=parts[1])
    family, given = parts[0], ", ".join(part for part in parts[1:] if part)
    if not family:
        return PersonName(literal=text)
    return PersonName(family=family, given=given or None)


def _dotted_initials(initials: str) -> str:
    """"PD" -> "P. D."; already dotted initials stay."""
    letters = initials.replace(".", "")
    return " ".join(f"{letter}." for letter in letters)


# --------------------------------------------------------------------------- citation keys

_TO_ASCII = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l",
                           "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i"})
_NOT_KEY_CHAR = re.compile(r"[^a-z0-9]")
_STOP_WORDS = set(
    "a an the on of in for and to with from by at is are as via into using about toward towards its their "
    "do does can what how why when which who whether or not no".split())


def ascii_fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: "Müller-Lüdenscheidt" -> "mullerludenscheidt"."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text.translate(_TO_ASCII)).encode("ascii", "ignore").decode()
    return _NOT_KEY_CHAR.sub("", text.lower())


def _key_surname(paper: Paper) -> str:
    name = split_name(paper.authors[0]) if paper.authors else None
    if name is None:
        return "anon"
    if name.literal:
        words = (ascii_fold(word) for word in name.literal.split())
        return next((word for word in words if word and word not in _STOP_WORDS), "anon")
    return ascii_fold(name.family or "") or "anon"


_TITLE_WORD_BREAK = re.compile(r"[\s\-–—/:]+")


def _key_title_word(title: str) -> str:
    words = (ascii_fold(word) for word in _TITLE_WORD_BREAK.split(plain_text(title) or ""))
    return next((word for word in words if word and not word.isdigit() and word not in _STOP_WORDS), "")


def base_citation_key(paper: Paper) -> str:
    year = str(paper.year) if paper.year else "nd"
    return f"{_key_surname(paper)}{year}{_key_title_word(paper.title)}"


def citation_keys(papers: Sequence[Paper]) -> list[str]:
    """One unique key per paper, in order; the second use of a key gets "a", then "b", …"""
    used: set[str] = set()
    keys = []
    for paper in papers:
        base = key = base_citation_key(paper)
        number = 0
        while key in used:
            key = base + _letters(number)
            number += 1
        used.add(key)
        keys.append(key)
    return keys


def _letters(number: int) -> str:
    """0 -> "a", 25 -> "z", 26 -> "aa": suffixes that never run out."""
    suffix = ""
    number += 1
    while number:
        number, remainder = divmod(number - 1, 26)
        suffix = chr(ord("a") + remainder) + suffix
    return suffix


def _keys_for(papers: Sequence[Paper], keys: Sequence[str] | None) -> list[str]:
    if keys is None:
        return citation_keys(papers)
    if len(keys) != len(papers):
        raise ValueError(f"{len(keys)} keys given for {len(papers)} papers")
    return list(keys)


# --------------------------------------------------------------------------- kind of publication

_PREPRINT_TYPES = {"preprint", "posted-content", "unpublished", "manuscript"}
_CONFERENCE_TYPES = {"inproceedings", "conference", "proceedings-article", "conference paper", "conferencepaper",
                     "paper-conference", "conf", "cpaper", "proceedings"}
_PREPRINT_VENUE = re.compile(r"\b(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|ssrn|research square|"
                             r"preprints?\.org|techrxiv|osf preprints)\b", re.I)
_CONFERENCE_VENUE = re.compile(r"\b(?:conference|symposium|workshop)\b", re.I)


def publication_kind(paper: Paper) -> str:
    """"preprint", "conference", "journal" or "other" (see the module docstring)."""
    types = {kind.lower() for kind in paper.publication_types}
    journal = paper.journal or ""
    if types & _PREPRINT_TYPES or _PREPRINT_VENUE.search(journal):
        return "preprint"
    if not journal and (paper.arxiv_id or is_arxiv_doi(paper.doi)):
        return "preprint"
    if types & _CONFERENCE_TYPES or _CONFERENCE_VENUE.search(journal):
        return "conference"
    return "journal" if journal else "other"


def _arxiv_id(paper: Paper) -> str | None:
    if paper.arxiv_id:
        return paper.arxiv_id
    if is_arxiv_doi(paper.doi):
        return paper.doi.split("arxiv.", 1)[1]
    return None


def _link(paper: Paper) -> str | None:
    """The record's own URL, else its open-access copy, else a landing page when there is no DOI."""
    if paper.url or paper.oa_url:
        return paper.url or paper.oa_url
    return None if paper.doi else citation_uri(paper)


def _page_range(pages: str | None) -> tuple[str | None, str | None]:
    """("47", "65") from "47-65", "47--65" or "47–65"; (pages, None) for one page or locator."""
    text = (pages or "").strip()
    if not text:
        return None, None
    match = re.fullmatch(r"(\S+?)\s*(?:-{1,2}|–|—)\s*(\S+)", text)
    return (match.group(1), match.group(2)) if match else (text, None)


def _single_line(value) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""


def _plain(value: str | None) -> str:
    """Plain single-line text of a title, abstract or name (provider markup removed)."""
    if not value:
        return ""
    if "<" in value or "&" in value or not value.isprintable():
        return plain_text(value) or ""
    return " ".join(value.split())  # the common case, without plain_text's regex passes


# --------------------------------------------------------------------------- BibTeX

_BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}", "&": r"\&",
                   "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}
_BIBTEX_SPECIAL_CHAR = re.compile(r"[\\{}&%$#_~^]")
_DOUBLE_HYPHEN = re.compile(r"-(?=-)")
_BIBTEX_KEY_UNSAFE = re.compile(r"[\s,{}()=#%\"'\\~]")


def bibtex_escape(text: str) -> str:
    """Text with TeX's special characters escaped, in one pass (no double escaping)."""
    return _BIBTEX_SPECIAL_CHAR.sub(lambda match: _BIBTEX_SPECIAL[match.group()], text)


def bibtex_text(text: str) -> str:
    """Escaped prose: also "--" written "-{}-", so that TeX does not turn it into a dash."""
    return _DOUBLE_HYPHEN.sub("-{}", bibtex_escape(text))


def _bibtex_title(title: str) -> str:
    """Escaped title; words with inner capitals braced so that sentence-casing styles keep them."""
    # Escapes add no spaces, capitals or digits, so escaped words can be judged as they stand.
    words = bibtex_text(_plain(title)).split(" ")
    return " ".join("{" + word + "}" if _keeps_its_case(word) else word for word in words)


def _keeps_its_case(word: str) -> bool:
    """Acronyms and names with inner capitals or digits: DNA, mRNA, RNA-guided, Cas9, COVID-19."""
    inner_capital = word[1:] != word[1:].lower()
    capital_with_digit = word[:1].isupper() and _DIGIT.search(word) is not None
    return inner_capital or capital_with_digit


def _bibtex_name(name: str) -> str | None:
    parts = split_name(name)
    if parts is None:
        return None
    if parts.literal:
        return "{" + bibtex_escape(parts.literal) + "}"
    pieces = [parts.family, parts.suffix, parts.given]
    return ", ".join(bibtex_escape(piece) for piece in pieces if piece)


def _verbatim(value: str) -> str:
    """DOIs and URLs are verbatim in BibTeX: only braces (which would unbalance the entry) change."""
    return _single_line(value).replace("{", "%7B").replace("}", "%7D").replace("\\", "%5C")


def bibtex_type(paper: Paper) -> str:
    return {"journal": "article", "conference": "inproceedings"}.get(publication_kind(paper), "misc")


def _bibtex_fields(paper: Paper) -> tuple[str, list[tuple[str, str]]]:
    """(entry type, [(field, already-escaped value)]) of one paper."""
    kind = publication_kind(paper)
    authors = [name for name in (_bibtex_name(a) for a in paper.authors) if name]
    arxiv_id = _arxiv_id(paper)
    first, last = _page_range(paper.pages)
    fields: list[tuple[str, str | None]] = [
        ("author", " and ".join(authors) or None),
        ("title", _bibtex_title(paper.title) or None),
        ("journal" if kind == "journal" else "booktitle" if kind == "conference" else "howpublished",
         bibtex_text(paper.journal) if paper.journal and not (kind == "preprint" and arxiv_id) else None),
        ("year", str(paper.year) if paper.year else None),
        ("volume", bibtex_escape(paper.volume) if paper.volume else None),
        ("number", bibtex_escape(paper.issue) if paper.issue else None),
        ("pages", bibtex_escape(f"{first}--{last}" if last else first) if first else None),
        ("doi", _verbatim(paper.doi) if paper.doi else None),
        ("eprint", arxiv_id),
        ("archivePrefix", "arXiv" if arxiv_id else None),
        ("pmid", paper.pmid),
        ("url", _verbatim(_link(paper)) if _link(paper) else None),
        ("abstract", bibtex_text(_plain(paper.abstract)) if paper.abstract else None),
    ]
    return bibtex_type(paper), [(name, value) for name, value in fields if value]


def _bibtex_key(key: str) -> str:
    return _BIBTEX_KEY_UNSAFE.sub("_", key) or "ref"


def to_bibtex(papers: Sequence[Paper], keys: Sequence[str] | None = None) -> str:
    """One BibTeX entry per paper (UTF-8 text; see the module docstring for the choices)."""
    entries = []
    for paper, key in zip(papers, _keys_for(papers, keys)):
        entry_type, fields = _bibtex_fields(paper)
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{entry_type}{{{_bibtex_key(key)},\n{body}\n}}\n" if body
                       else f"@{entry_type}{{{_bibtex_key(key)}}}\n")
    return "\n".join(entries)


# --------------------------------------------------------------------------- RIS

_RIS_TYPE = {"journal": "JOUR", "conference": "CONF", "preprint": "UNPB", "other": "GEN"}


def _ris_name(name: str) -> str | None:
    parts = split_name(name)
    if parts is None:
        return None
    if parts.literal:
        return parts.literal
    return ", ".join(piece for piece in (parts.family, parts.given, parts.suffix) if piece)


def _ris_lines(paper: Paper, key: str) -> list[tuple[str, str]]:
    kind = publication_kind(paper)
    first, last = _page_range(paper.pages)
    lines = [("TY", _RIS_TYPE[kind]), ("ID", key)]
    lines += [("AU", name) for name in (_ris_name(a) for a in paper.authors) if name]
    lines += [
        ("TI", _plain(paper.title)),
        ("PY", str(paper.year) if paper.year else ""),
        ("T2" if kind == "conference" else "JO", paper.journal or ""),
        ("VL", paper.volume or ""),
        ("IS", paper.issue or ""),
        ("SP", first or ""),
        ("EP", last or ""),
        ("DO", paper.doi or ""),
        ("AB", _plain(paper.abstract)),
    ]
    links = [_link(paper) or citation_uri(paper)]
    if _arxiv_id(paper):
        links.append(f"https://arxiv.org/abs/{_arxiv_id(paper)}")  # where RIS readers find the arXiv id
    lines += [("UR", link) for link in dict.fromkeys(links) if link]
    return [(tag, _single_line(value)) for tag, value in lines if _single_line(value)]


def to_ris(papers: Sequence[Paper], keys: Sequence[str] | None = None) -> str:
    """RIS records (TY first, ER last, one AU per author), CRLF line ends."""
    records = []
    for paper, key in zip(papers, _keys_for(papers, keys)):
        lines = [f"{tag}  - {value}" for tag, value in _ris_lines(paper, key)]
        records.append("\r\n".join([*lines, "ER  - "]) + "\r\n")
    return "\r\n".join(records)


# --------------------------------------------------------------------------- CSL-JSON

_CSL_TYPE = {"journal": "article-journal", "conference": "paper-conference", "preprint": "article",
             "other": "document"}
_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


def _csl_name(name: str) -> dict[str, str] | None:
    parts = split_name(name)
    if parts is None:
        return None
    if parts.literal:
        return {"literal": parts.literal}
    fields = {"family": parts.family, "given": parts.given, "suffix": parts.suffix}
    return {key: value for key, value in fields.items() if value}


def _csl_issued(paper: Paper) -> dict | None:
    """{"date-parts": [[year, month, day]]}: the full date when it agrees with the year."""
    match = _ISO_DATE.match(paper.publication_date or "")
    if match and (paper.year is None or int(match.group(1)) == paper.year):
        return {"date-parts": [[int(part) for part in match.groups() if part]]}
    return {"date-parts": [[paper.year]]} if paper.year else None


def csl_item(paper: Paper, key: str) -> dict:
    """One CSL-JSON item; empty fields left out."""
    kind = publication_kind(paper)
    first, last = _page_range(paper.pages)
    arxiv_id = _arxiv_id(paper)
    item = {
        "id": key,
        "type": _CSL_TYPE[kind],
        "title": _plain(paper.title),
        "author": [name for name in (_csl_name(a) for a in paper.authors) if name],
        "issued": _csl_issued(paper),
        "container-title": paper.journal if paper.journal and not (kind == "preprint" and arxiv_id) else None,
        "publisher": "arXiv" if kind == "preprint" and arxiv_id else None,
        "number": f"arXiv:{arxiv_id}" if kind == "preprint" and arxiv_id else None,
        "volume": paper.volume,
        "issue": paper.issue,
        "page": f"{first}-{last}" if last else first,
        "DOI": paper.doi,
        "PMID": paper.pmid,
        "URL": _link(paper) or citation_uri(paper),
        "abstract": _plain(paper.abstract) or None,
    }
    return {name: value for name, value in item.items() if value not in (None, "", [])}


def to_csl_json(papers: Sequence[Paper], keys: Sequence[str] | None = None) -> str:
    """A JSON list of CSL items (the format of Zotero, Pandoc and citeproc)."""
    items = [csl_item(paper, key) for paper, key in zip(papers, _keys_for(papers, keys))]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


# --------------------------------------------------------------------------- CSV

CSV_COLUMNS = ["ID", "ENTRYTYPE", "title", "author", "year", "journal", "booktitle", "volume", "number", "pages",
               "doi", "pmid", "eprint", "url", "abstract"]


_AND_WORD = re.compile(r"\sand\s", re.I)


def _csv_authors(authors: Sequence[str]) -> str:
    """BibTeX-style "A and B"; a name that itself contains " and " is braced so it stays whole."""
    return " and ".join("{" + name + "}" if _AND_WORD.search(name) else name for name in authors)


def csv_row(paper: Paper, key: str) -> dict[str, str]:
    kind = publication_kind(paper)
    row = {
        "ID": key,
        "ENTRYTYPE": bibtex_type(paper),
        "title": _plain(paper.title),
        "author": _csv_authors(paper.authors),
        "year": str(paper.year) if paper.year else "",
        "journal": paper.journal if kind != "conference" else "",
        "booktitle": paper.journal if kind == "conference" else "",
        "volume": paper.volume,
        "number": paper.issue,
        "pages": paper.pages,
        "doi": paper.doi,
        "pmid": paper.pmid,
        "eprint": _arxiv_id(paper),
        "url": _link(paper),
        "abstract": _plain(paper.abstract),
    }
    return {column: _single_line(value) for column, value in row.items()}


def to_csv(papers: Sequence[Paper], keys: Sequence[str] | None = None) -> str:
    """CSV in the layout `lit-search dedupe` reads (ID,ENTRYTYPE,title,author,…), one row per paper."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    for paper, key in zip(papers, _keys_for(papers, keys)):
        writer.writerow(csv_row(paper, key))
    return buffer.getvalue()
