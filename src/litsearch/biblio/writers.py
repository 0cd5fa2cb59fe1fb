"""Write Paper records as BibTeX, RIS, CSL-JSON or CSV (reference managers; `dedupe --merged`).

Each writer takes the papers and, optionally, one key per paper (the BibTeX key, RIS ``ID``,
CSL ``id`` and CSV ``ID``); without keys, `citation_keys` makes them. Choices:

- **Citation keys**: first author's surname, year, first significant title word, folded to
  lower-case ASCII (``vaswani2017attention``); a repeat gets ``a``, ``b``, … (``vaswani2017attentiona``).
  Missing parts become ``anon`` (no author) and ``nd`` (no year).
- **Kind of publication** (`publication_kind`): preprint (arXiv-only records, preprint servers,
  preprint/posted-content types), conference paper (conference types or a conference,
  symposium or workshop venue), book, chapter, thesis or report (when a type says so),
  journal article (an article type, or any other record with a venue) or other.
  BibTeX: ``misc`` with ``eprint``/``archivePrefix``, ``inproceedings``, ``book``,
  ``incollection``, ``phdthesis``, ``techreport``, ``article``, ``misc``; RIS: ``UNPB``, ``CONF``,
  ``BOOK``, ``CHAP``, ``THES``, ``RPRT``, ``JOUR``, ``GEN``; CSL: ``article``,
  ``paper-conference``, ``book``, ``chapter``, ``thesis``, ``report``, ``article-journal``,
  ``document``.
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
- **Marks** (``Marks``): what a listing knows of a paper beyond its record (a deep search's
  verdict) is carried the way each format's readers keep such things: as keywords (BibTeX
  ``keywords``, which styles do not print; RIS ``KW``; CSL ``keyword``), which reference managers
  (Zotero, EndNote, JabRef) and screening tools (Rayyan) import as tags, and as CSV columns after
  the record's own. Without marks every writer's output is what it was.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence

from ..core.identifiers import arxiv_id_from_doi, is_arxiv_doi
from ..core.preprints import is_preprint
from ..core.records import Marks, Paper
from ..core.sanitize import json_text, spreadsheet_cell
from ..core.updates import notice_words
from ..core.urls import citation_uri, http_url
from .names import DIGIT, keys_for, plain_line, split_name

__all__ = ["CSV_COLUMNS", "Marks", "publication_kind", "to_bibtex", "to_csl_json", "to_csv", "to_ris"]


def _marks_for(papers: Sequence[Paper], marks: Sequence[Marks] | None) -> list[Marks]:
    if marks is None:
        return [Marks()] * len(papers)
    if len(marks) != len(papers):
        raise ValueError(f"{len(marks)} marks given for {len(papers)} papers")
    return list(marks)

# --------------------------------------------------------------------------- kind of publication

_CONFERENCE_TYPES = {"inproceedings", "conference", "proceedings-article", "conference paper", "conferencepaper",
                     "paper-conference", "conf", "cpaper", "proceedings"}
_CONFERENCE_VENUE = re.compile(r"\b(?:conference|symposium|workshop)\b", re.I)
# Entry types an import or an API states (BibTeX, RIS, OpenAlex/Crossref spellings).
_OTHER_KINDS = {"book": {"book", "monograph", "edited-book", "reference-book"},
                "chapter": {"incollection", "inbook", "book-chapter", "chapter", "book-section"},
                "thesis": {"phdthesis", "mastersthesis", "thesis", "dissertation"},
                "report": {"techreport", "report"}}
_ARTICLE_TYPES = {"article", "journal-article", "journalarticle", "journal article"}


def publication_kind(paper: Paper) -> str:
    """"preprint", "conference", "journal", "book", "chapter", "thesis", "report" or "other"
    (see the module docstring)."""
    types = {kind.lower() for kind in paper.publication_types}
    journal = paper.journal or ""
    if is_preprint(paper):  # core/preprints.py: the rule the merge and the filters use too
        return "preprint"
    if types & _CONFERENCE_TYPES or _CONFERENCE_VENUE.search(journal):
        return "conference"
    for kind, spellings in _OTHER_KINDS.items():
        if types & spellings:
            return kind
    return "journal" if journal or types & _ARTICLE_TYPES else "other"


def _arxiv_id(paper: Paper) -> str | None:
    # arXiv writes its own DOIs "10.48550/arXiv.…": the case of the DOI must not matter
    return paper.arxiv_id or arxiv_id_from_doi(paper.doi)


def _link(paper: Paper) -> str | None:
    """The record's own URL, else its open-access copy, else a landing page when there is no DOI;
    only http(s) links (a ``javascript:`` or ``data:`` value is no link to a paper)."""
    link = http_url(paper.url) or http_url(paper.oa_url)
    if link:
        return link
    return None if paper.doi else citation_uri(paper)


def _page_range(pages: str | None) -> tuple[str | None, str | None]:
    """("47", "65") from "47-65", "47--65" or "47–65"; (pages, None) for one page or locator."""
    text = (pages or "").strip()
    if not text:
        return None, None
    match = re.fullmatch(r"(\S+?)\s*(?:-{1,2}|–|—)\s*(\S+)", text)
    return (match.group(1), match.group(2)) if match else (text, None)


def update_note(paper: Paper) -> str:
    """"RETRACTED (retraction: 10.x/y (2021-03-01))", or the corrections: what a reference
    manager should show next to the record (BibTeX note, RIS N1, CSL note)."""
    notices = notice_words(paper.updates)
    if paper.retracted:
        return "RETRACTED" + (f" ({notices})" if notices else "")
    return f"Notices: {notices}" if notices else ""


def _single_line(value) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""


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
    words = bibtex_text(plain_line(title)).split(" ")
    return " ".join("{" + word + "}" if _keeps_its_case(word) else word for word in words)


def _keeps_its_case(word: str) -> bool:
    """Acronyms and names with inner capitals or digits: DNA, mRNA, RNA-guided, Cas9, COVID-19."""
    inner_capital = word[1:] != word[1:].lower()
    capital_with_digit = word[:1].isupper() and DIGIT.search(word) is not None
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
    return {"journal": "article", "conference": "inproceedings", "book": "book", "chapter": "incollection",
            "thesis": "phdthesis", "report": "techreport"}.get(publication_kind(paper), "misc")


def _bibtex_fields(paper: Paper) -> tuple[str, list[tuple[str, str]]]:
    """(entry type, [(field, already-escaped value)]) of one paper."""
    kind = publication_kind(paper)
    authors = [name for name in (_bibtex_name(a) for a in paper.authors) if name]
    arxiv_id = _arxiv_id(paper)
    first, last = _page_range(paper.pages)
    fields: list[tuple[str, str | None]] = [
        ("author", " and ".join(authors) or None),
        ("title", _bibtex_title(paper.title) or None),
        ("journal" if kind == "journal" else "booktitle" if kind in ("conference", "chapter") else "howpublished",
         bibtex_text(paper.journal) if paper.journal and not (kind == "preprint" and arxiv_id) else None),
        ("year", str(paper.year) if paper.year else None),
        ("volume", bibtex_escape(paper.volume) if paper.volume else None),
        ("number", bibtex_escape(paper.issue) if paper.issue else None),
        ("pages", bibtex_escape(f"{first}--{last}" if last else first) if first else None),
        ("doi", _verbatim(paper.doi) if paper.doi else None),
        ("eprint", _verbatim(arxiv_id) if arxiv_id else None),
        ("archivePrefix", "arXiv" if arxiv_id else None),
        ("pmid", bibtex_escape(_single_line(paper.pmid)) if paper.pmid else None),
        ("url", _verbatim(_link(paper)) if _link(paper) else None),
        ("abstract", bibtex_text(plain_line(paper.abstract)) if paper.abstract else None),
        ("note", bibtex_text(update_note(paper)) if update_note(paper) else None),
    ]
    return bibtex_type(paper), [(name, value) for name, value in fields if value]


def _bibtex_key(key: str) -> str:
    return _BIBTEX_KEY_UNSAFE.sub("_", key) or "ref"


def to_bibtex(papers: Sequence[Paper], keys: Sequence[str] | None = None, marks: Sequence[Marks] | None = None) -> str:
    """One BibTeX entry per paper (UTF-8 text; see the module docstring for the choices)."""
    entries = []
    for paper, key, marked in zip(papers, keys_for(papers, keys), _marks_for(papers, marks)):
        entry_type, fields = _bibtex_fields(paper)
        if marked.keywords:  # biblatex's separator: a comma (a keyword holds none)
            fields.append(("keywords", ", ".join(bibtex_text(word.replace(",", " ")) for word in marked.keywords)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{entry_type}{{{_bibtex_key(key)},\n{body}\n}}\n" if body
                       else f"@{entry_type}{{{_bibtex_key(key)}}}\n")
    return "\n".join(entries)


# --------------------------------------------------------------------------- RIS

_RIS_TYPE = {"journal": "JOUR", "conference": "CONF", "preprint": "UNPB", "book": "BOOK", "chapter": "CHAP",
             "thesis": "THES", "report": "RPRT", "other": "GEN"}


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
        ("TI", plain_line(paper.title)),
        ("PY", str(paper.year) if paper.year else ""),
        ("T2" if kind in ("conference", "chapter") else "JO", paper.journal or ""),
        ("VL", paper.volume or ""),
        ("IS", paper.issue or ""),
        ("SP", first or ""),
        ("EP", last or ""),
        ("DO", paper.doi or ""),
        ("AB", plain_line(paper.abstract)),
        ("N1", update_note(paper)),
    ]
    links = [_link(paper) or citation_uri(paper)]
    if _arxiv_id(paper):
        links.append(f"https://arxiv.org/abs/{_arxiv_id(paper)}")  # where RIS readers find the arXiv id
    # RIS readers (rispy, reference managers) split a UR value at ";": a DOI such as SICI's
    # "…3.0.CO;2-…" keeps its link whole percent-encoded.
    lines += [("UR", link.replace(";", "%3B")) for link in dict.fromkeys(links) if link]
    return [(tag, _single_line(value)) for tag, value in lines if _single_line(value)]


def to_ris(papers: Sequence[Paper], keys: Sequence[str] | None = None, marks: Sequence[Marks] | None = None) -> str:
    """RIS records (TY first, ER last, one AU per author, one KW per keyword), CRLF line ends."""
    records = []
    for paper, key, marked in zip(papers, keys_for(papers, keys), _marks_for(papers, marks)):
        tagged = _ris_lines(paper, key) + [("KW", _single_line(word)) for word in marked.keywords if _single_line(word)]
        lines = [f"{tag}  - {value}" for tag, value in tagged]
        records.append("\r\n".join([*lines, "ER  - "]) + "\r\n")
    return "\r\n".join(records)


# --------------------------------------------------------------------------- CSL-JSON

_CSL_TYPE = {"journal": "article-journal", "conference": "paper-conference", "preprint": "article",
             "book": "book", "chapter": "chapter", "thesis": "thesis", "report": "report", "other": "document"}
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
        "title": plain_line(paper.title),
        "author": [name for name in (_csl_name(a) for a in paper.authors) if name],
        "issued": _csl_issued(paper),
        "container-title": paper.journal if paper.journal and kind != "preprint" else None,
        # A preprint's server is its publisher (CSL's "article" is a preprint; genre says it to readers
        # of other styles): arXiv with its number, else the server the record names.
        "publisher": ("arXiv" if arxiv_id else _server(paper.journal)) if kind == "preprint" else None,
        "genre": "preprint" if kind == "preprint" else None,
        "number": f"arXiv:{arxiv_id}" if kind == "preprint" and arxiv_id else None,
        "volume": paper.volume,
        "issue": paper.issue,
        "page": f"{first}-{last}" if last else first,
        "DOI": paper.doi,
        "PMID": paper.pmid,
        "URL": _link(paper) or citation_uri(paper),
        "abstract": plain_line(paper.abstract) or None,
        "note": update_note(paper) or None,
    }
    return {name: value for name, value in item.items() if value not in (None, "", [])}


def _server(venue: str | None) -> str | None:
    """A preprint's server from its venue: "bioRxiv (preprint)" -> "bioRxiv"."""
    text = re.sub(r"\s*\(preprint\)\s*$", "", venue or "", flags=re.I).strip()
    return text if text and text.lower() != "preprint" else None


def to_csl_json(papers: Sequence[Paper], keys: Sequence[str] | None = None, marks: Sequence[Marks] | None = None) -> str:
    """A JSON list of CSL items (the format of Zotero, Pandoc and citeproc); marks' keywords in
    CSL's ``keyword`` (one string, comma-separated)."""
    items = []
    for paper, key, marked in zip(papers, keys_for(papers, keys), _marks_for(papers, marks)):
        item = csl_item(paper, key)
        if marked.keywords:
            item["keyword"] = ", ".join(_single_line(word).replace(",", " ") for word in marked.keywords)
        items.append(item)
    return json_text(items)


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
        "title": plain_line(paper.title),
        "author": _csv_authors(paper.authors),
        "year": str(paper.year) if paper.year else "",
        "journal": paper.journal if kind not in ("conference", "chapter") else "",
        "booktitle": paper.journal if kind in ("conference", "chapter") else "",
        "volume": paper.volume,
        "number": paper.issue,
        "pages": paper.pages,
        "doi": paper.doi,
        "pmid": paper.pmid,
        "eprint": _arxiv_id(paper),
        "url": _link(paper),
        "abstract": plain_line(paper.abstract),
    }
    # Every value came from an API (or was built from one): no cell may start a formula.
    return {column: spreadsheet_cell(_single_line(value)) for column, value in row.items()}


def to_csv(papers: Sequence[Paper], keys: Sequence[str] | None = None, marks: Sequence[Marks] | None = None,
           columns: Sequence[str] = ()) -> str:
    """CSV in the layout `lit-search dedupe` reads (ID,ENTRYTYPE,title,author,…), one row per paper;
    ``columns`` (a deep search's ``verdict``, ``judged_round``, ``why``) and any other of the marks'
    after those: ``columns`` head the file even with no row, so files of one kind line up."""
    marked = _marks_for(papers, marks)
    extra = list(dict.fromkeys(name for name in [*columns, *(name for each in marked for name, _ in each.columns)]
                               if name not in CSV_COLUMNS))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS + extra)
    writer.writeheader()
    for paper, key, each in zip(papers, keys_for(papers, keys), marked):
        row = csv_row(paper, key)
        given = {name: value for name, value in each.columns if name in extra}
        writer.writerow({**row, **{name: spreadsheet_cell(_single_line(given.get(name, ""))) for name in extra}})
    return buffer.getvalue()
