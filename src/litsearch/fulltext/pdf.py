"""PDF text through pypdf (pure Python, BSD licence), with page markers and recognised headings.

pypdf gives each page's text as lines. They are repaired where PDF typesetting breaks them
(ligatures, accents set as separate marks, words hyphenated across lines), split into sections
at the headings a paper uses ("Abstract", "2.1 Data", "METHODS", "References"), reflowed into
paragraphs, and every page starts with a ``[page N]`` marker so a quotation can be found in the
PDF. A PDF without a text layer (a scan) raises ``NoFullText`` with a clear reason; the time a
hostile PDF may take is bounded by the caller (``extract_pdf_text`` runs in a worker thread).
"""

from __future__ import annotations

import io
import logging
import re
import statistics
import unicodedata
from dataclasses import dataclass, field

from .document import FullText, NoFullText, Section, clean_text, finish_sections, heading_kind

MAX_PAGES = 1_000  # a longer PDF is a book or a thesis: its first pages are read, and the rest named
MIN_CHARS_PER_PAGE = 25  # fewer letters per page than this: no text layer (a scan)
PAGE_MARKER = "[page {}]"

_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
# Accents typeset as separate spacing marks ("Toma´ s", "Iba´ n˜ ez"): joined to their letter.
_SPACING_ACCENTS = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "˜": "\u0303", "ˆ": "\u0302", "¸": "\u0327",
                    "ˇ": "\u030c", "˚": "\u030a"}
_SPLIT_ACCENT = re.compile(r"([A-Za-zı])\s?([´`¨˜ˆ¸ˇ˚])\s?")
_HYPHENATED = re.compile(r"([a-z])-\n([a-z])")
_KNOWN_HEADING = re.compile(
    r"^(?:(?P<num>\d{1,2}(?:\.\d{1,2}){0,2}|[IVX]{1,4}|[A-H])\.?\s+)?(?P<title>abstract|summary|introduction|background|"
    r"aims?|objectives?|related work|prior work|literature review|materials? and methods|methods?|methodology|"
    r"experimental(?: section| procedures)?|experiments?|data|results?(?: and discussion| narrative)?|evaluation|"
    r"discussion|conclusions?(?: and [a-z ]{3,40})?|limitations|future work|acknowledge?ments?|funding|"
    r"author contributions|competing interests|conflicts? of interest|data availability|supporting information|"
    r"supplementary (?:information|material)|appendix(?: [a-z0-9]{1,3})?|appendices|references|bibliography|"
    r"literature cited|works cited)\s*$", re.I)
_RUN_IN_ABSTRACT = re.compile(r"^abstract\s*[.:—–-]\s*(?P<rest>\S.*)$", re.I)
_NUMBERED_HEADING = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,2}){0,2})\.?\s+(?P<title>[A-Z][^\n]{1,70})$")
_CAPS_HEADING = re.compile(r"^[A-Z][A-Z ,&:'-]{2,60}$")

log = logging.getLogger("pypdf")
log.setLevel(logging.ERROR)  # pypdf warns about fonts it can read anyway; those are no news to the user


@dataclass
class PdfPages:
    """What pypdf read: each page's text (in order), the PDF's own title and authors, and how
    many pages the file has (``texts`` may hold fewer: MAX_PAGES)."""

    texts: list[str]
    page_count: int
    title: str | None
    authors: list[str]
    # Pages pypdf refused (its error, one line each), so a PDF it could not read is not called a scan.
    unreadable: list[str] = field(default_factory=list)


def extract_pdf_text(data: bytes) -> PdfPages:
    """Each page's text (at most MAX_PAGES) and the document information. ValueError when the
    bytes are no PDF pypdf can open; NoFullText when the PDF is encrypted with a password."""
    head = data[:1024].lstrip()
    if b"%PDF-" not in head:
        raise ValueError("not a PDF (no %PDF- header)")
    from pypdf import PdfReader  # only a PDF needs it
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise NoFullText("the PDF is encrypted with a password")
        pages = reader.pages
        page_count = len(pages)
        texts, unreadable = [], []
        for index in range(min(page_count, MAX_PAGES)):
            try:
                texts.append(pages[index].extract_text() or "")
            except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
                texts.append("")  # one unreadable page costs that page only (named by its empty marker)
                unreadable.append(f"{type(exc).__name__}: {' '.join(str(exc).split())[:100]}")
        info = reader.metadata or {}
    except NoFullText:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError, OSError) as exc:
        raise ValueError(f"not a readable PDF ({type(exc).__name__}: {' '.join(str(exc).split())[:100]})") from None
    return PdfPages(texts, page_count, _pdf_title(info.get("/Title")), _pdf_authors(info.get("/Author")),
                    unreadable)


def parse_pdf_pages(pages: PdfPages) -> FullText:
    """Sections with page markers from the extracted pages (pure)."""
    texts = [repair_text(text) for text in pages.texts]
    letters = sum(sum(ch.isalnum() for ch in text) for text in texts)
    if letters < max(50, MIN_CHARS_PER_PAGE * len(texts)) and pages.unreadable:
        raise NoFullText(f"pypdf could not read {len(pages.unreadable)} of the PDF's {len(texts)} pages "
                         f"({pages.unreadable[0]}), and the rest hold too little text to read")
    if letters < max(50, MIN_CHARS_PER_PAGE * len(texts)):
        raise NoFullText(f"the PDF has no text layer ({letters} letters on {len(texts)} pages): probably a scan; "
                         "lit-search does not read images (OCR)")
    sections = _sections(texts)
    if pages.page_count > len(texts):
        sections.append(Section("Pages not read", f"This PDF has {pages.page_count} pages; pages {len(texts) + 1}–"
                                 f"{pages.page_count} were not read (lit-search reads at most {MAX_PAGES}).",
                                 kind="other"))
    return FullText(title=pages.title, authors=pages.authors, sections=finish_sections(sections),
                    pages=pages.page_count)


def parse_pdf(data: bytes) -> FullText:
    """``parse_pdf_pages(extract_pdf_text(data))``: a PDF's bytes into a document."""
    return parse_pdf_pages(extract_pdf_text(data))


def repair_text(text: str) -> str:
    """Ligatures spelled out, spacing accents joined to their letters, line-end hyphens of
    words (lower case on both sides) removed."""
    text = text.translate(_LIGATURES)
    text = _SPLIT_ACCENT.sub(lambda m: ("i" if m.group(1) == "ı" else m.group(1)) + _SPACING_ACCENTS[m.group(2)], text)
    text = _HYPHENATED.sub(r"\1\2", text)
    return unicodedata.normalize("NFC", text)


# ---------------------------------------------------------------- headings and paragraphs

@dataclass
class _Open:
    heading: str
    level: int
    lines: list[str]


def _sections(pages: list[str]) -> list[Section]:
    opened: list[_Open] = [_Open("Front matter", 1, [])]
    state = {"known": False, "top": 0, "references": False}
    for number, text in enumerate(pages, start=1):
        # A page's marker goes where its first line goes: before a heading that opens the page,
        # the marker opens that heading's section.
        pending: str | None = PAGE_MARKER.format(number)
        for raw in text.split("\n"):
            line = " ".join(raw.split())
            if not line:
                continue
            heading = _heading(line, state)
            if heading is not None:
                title, level, rest = heading
                opened.append(_Open(title, level, []))
                line = rest
                if not line:
                    continue
            if pending:
                opened[-1].lines.append(pending)
                pending = None
            opened[-1].lines.append(line)
        if pending:
            opened[-1].lines.append(pending)
    sections = []
    for index, section in enumerate(opened):
        if index == 0 and not any(not _is_marker(line) for line in section.lines):
            if len(opened) > 1:  # only page markers before the first heading: they move with the text
                opened[1].lines[:0] = section.lines
                continue
        sections.append(Section(section.heading, _paragraphs(section.lines), level=section.level,
                                kind=heading_kind(section.heading) if index else "other"))
    return sections


def _heading(line: str, state: dict) -> tuple[str, int, str] | None:
    """(heading, level, text after a run-in heading) when the line is a heading, else None.
    Known section names are headings anywhere; numbered and capitalised headings only after a
    known one, in sequence (a numbered affiliation or reference is no heading)."""
    if len(line) > 80:
        return None
    if match := _RUN_IN_ABSTRACT.match(line):
        if not state["known"]:
            state["known"] = True
            return "Abstract", 1, match.group("rest")
    if match := _KNOWN_HEADING.match(line):
        number = match.group("num") or ""
        if state["references"] and heading_kind(match.group("title")) not in ("appendix", "acknowledgements"):
            return None
        state["known"] = True
        state["references"] = heading_kind(match.group("title")) == "references"
        level = number.count(".") + 1 if number[:1].isdigit() else 1
        if number[:1].isdigit():
            state["top"] = int(number.split(".")[0])
        return line, level, ""
    if not state["known"] or state["references"]:
        return None
    if match := _NUMBERED_HEADING.match(line):
        number, title = match.group("num"), match.group("title")
        top = int(number.split(".")[0])
        words = title.split()
        letters = sum(ch.isalpha() for ch in title)
        if (top in (state["top"], state["top"] + 1) and len(words) <= 10 and letters >= 0.7 * len(title.replace(" ", ""))
                and not title.rstrip().endswith((".", ",", ";")) and ("." in number or top == state["top"] + 1)):
            state["top"] = top
            return line, number.count(".") + 1, ""
        return None
    if _CAPS_HEADING.match(line) and len(line.split()) <= 6 and sum(ch.isalpha() for ch in line) >= 3:
        return line, 1, ""
    return None


def _is_marker(line: str) -> bool:
    return line.startswith("[page ") and line.endswith("]")


def _paragraphs(lines: list[str]) -> str:
    """Lines joined into paragraphs: a line ends a paragraph when it ends a sentence and is
    clearly shorter than the lines around it; page markers stand alone."""
    widths = [len(line) for line in lines if not _is_marker(line)]
    typical = statistics.median(widths) if widths else 0
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if _is_marker(line):
            if current:
                paragraphs.append(" ".join(current))
                current = []
            paragraphs.append(line)
            continue
        current.append(line)
        if line.endswith((".", "?", "!", ":")) and len(line) < 0.8 * typical:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return clean_text("\n\n".join(paragraphs))


def _pdf_title(value: object) -> str | None:
    """The PDF's Title entry when it reads like a title (not "pone.0107412 1..10", "Microsoft Word - x.docx")."""
    text = " ".join(str(value or "").split())
    if len(text) < 12 or re.search(r"\.(?:pdf|docx?|tex|dvi)\b|^untitled|microsoft word|\d+\.\.\d+", text, re.I):
        return None
    return text.replace("---", "—")


def _pdf_authors(value: object) -> list[str]:
    text = " ".join(str(value or "").split())
    if not text:
        return []
    parts = re.split(r"\s*;\s*|\s+and\s+", text) if ";" in text or " and " in text else [text]
    return [part for part in parts if part]
