"""What every full-text parser produces: a ``FullText`` with its sections in reading order.

A section is one heading with its own text (its subsections follow it as entries of their own,
one level deeper), so a reader can ask for any of them by name and the size of each is known
before its text is shown. Parsers never do I/O; they raise ``NoFullText`` when the document
holds no text to read (front matter only, a scanned PDF, a page that is not the paper).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from ..core.errors import LitSearchError
from ..core.sanitize import safe_text

# The kinds a heading can stand for, with the words that name each: `--section methods`
# finds "Materials and Methods", "Experimental procedures" or "2. Methodology".
SECTION_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern, re.I)) for kind, pattern in (
    ("abstract", r"^(?:abstract|summary|structured abstract)$"),
    ("introduction", r"\b(?:introduction|background|motivation|overview)\b"),
    ("related-work", r"\b(?:related work|prior work|literature review|previous work)\b"),
    ("methods", r"\b(?:methods?|methodology|materials|experimental|procedures?|study design|patients and|data and)\b"),
    ("results", r"\b(?:results?|findings|experiments?|evaluation)\b"),
    ("discussion", r"\bdiscussion\b"),
    ("conclusions", r"\b(?:conclusions?|concluding|summary and|future work)\b"),
    ("acknowledgements", r"\backnowledge?ments?\b|\bfunding\b"),
    ("appendix", r"\b(?:appendix|appendices|supplementary|supporting information)\b"),
    ("figures", r"^figures?(?: and tables)?$"),
    ("tables", r"^tables?$"),
    ("references", r"^(?:references?|bibliography|literature cited|works cited|reference list)$"),
))
# No paper has more headings than this; a document with more (built to be costly to list, or a
# book) keeps the first ones, and the text of the rest in one section (capped).
MAX_SECTIONS = 400
# Kinds a parser gives the sections it adds after the body: they stay listed whatever the count.
_CLOSING_KINDS = ("figures", "tables", "references")
_NUMBER_PREFIX = re.compile(r"^(?:[0-9IVX]+(?:\.[0-9]+)*\.?|[A-Z]\.(?:[0-9]+\.?)*)\s+")


class NoFullText(LitSearchError):
    """The document was fetched but holds no text to read (parsers raise it; the source
    choice then tries the next copy). ``str`` says why, in one line."""


@dataclass
class Section:
    """One heading and its own text. ``number``: "3" or "3.2" (position, not the paper's own
    numbering); ``name``: the handle for ``--section``, the heading's words ("materials-and-methods",
    unique in the document); ``kind``: one of SECTION_KINDS or "other", so that ``--section
    methods`` finds it too; ``level``: 1 for top-level entries."""

    heading: str
    text: str
    level: int = 1
    kind: str = "other"
    name: str = ""
    number: str = ""

    @property
    def chars(self) -> int:
        return len(self.text)


@dataclass
class Source:
    """Where the copy came from: ``name`` (PubMed Central, Europe PMC, arXiv, a publisher host),
    its ``url``, the ``format`` read (jats, latexml, html, pdf) and the open-access ``license``
    when the copy or Unpaywall states one."""

    name: str
    url: str
    format: str
    license: str | None = None
    version: str | None = None  # Unpaywall's publishedVersion / acceptedVersion / submittedVersion


@dataclass
class FullText:
    title: str | None
    authors: list[str]
    sections: list[Section]
    source: Source | None = None
    identifiers: dict[str, str] = field(default_factory=dict)  # doi, pmid, pmcid, arxiv_id found in the copy
    pages: int | None = None  # PDFs only

    def __post_init__(self) -> None:
        # Text from a copy is third-party data: no character that hides, reorders or acts on a terminal.
        self.title = " ".join(safe_text(self.title).split()) or None if self.title else None
        self.authors = [name for name in (" ".join(safe_text(a).split()) for a in self.authors) if name]

    @property
    def chars(self) -> int:
        return sum(section.chars for section in self.sections)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FullText":
        """The document as ``to_dict`` wrote it (the local cache); KeyError/TypeError on anything else."""
        source = data.get("source")
        return cls(title=data["title"], authors=[str(a) for a in data["authors"]],
                   sections=[Section(**section) for section in data["sections"]],
                   source=Source(**source) if source else None,
                   identifiers={str(k): str(v) for k, v in (data.get("identifiers") or {}).items()},
                   pages=data.get("pages"))


def clean_text(text: str) -> str:
    """Paragraphs of plain text: NFC, spaces collapsed within lines, at most one blank line."""
    text = unicodedata.normalize("NFC", safe_text(text))
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def heading_kind(heading: str) -> str:
    """The kind of section a heading names ("2.1 Materials and methods" -> "methods")."""
    bare = _NUMBER_PREFIX.sub("", " ".join(heading.split())).strip(" .:")
    for kind, pattern in SECTION_KINDS:
        if pattern.search(bare):
            return kind
    return "other"


def slug(text: str) -> str:
    """"2.1 Materials & Methods" -> "materials-methods": lower-case ASCII words joined by hyphens."""
    bare = _NUMBER_PREFIX.sub("", " ".join(text.split()))
    folded = unicodedata.normalize("NFKD", bare).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", folded)
    return "-".join(words[:6]) or "section"


def finish_sections(sections: Iterable[Section]) -> list[Section]:
    """Sections with their text cleaned, empty ones (no heading, no text) dropped, at most
    MAX_SECTIONS of them (``capped``), and each given its kind, a unique name and its number
    (1, 2, 2.1 …) from the levels."""
    finished: list[Section] = []
    sections = capped(list(sections))
    used: dict[str, int] = {}
    counters: list[int] = []
    for section in sections:
        section.text = clean_text(section.text)
        section.heading = " ".join(safe_text(section.heading).split())
        if not section.text and not section.heading:
            continue
        level = max(1, min(section.level, len(counters) + 1))
        counters = counters[:level]
        while len(counters) < level:
            counters.append(0)
        counters[level - 1] += 1
        section.level = level
        section.number = ".".join(str(n) for n in counters)
        if section.kind == "other":
            section.kind = heading_kind(section.heading)
        base = section.name or slug(section.heading)
        used[base] = used.get(base, 0) + 1
        section.name = base if used[base] == 1 else f"{base}-{used[base]}"
        finished.append(section)
    return finished


def capped(sections: list[Section]) -> list[Section]:
    """At most MAX_SECTIONS entries: the first ones as they are; the rest of the body in one
    last section, "Further sections", each heading kept as a line above its text (nothing is
    dropped, only no longer listed one by one); the closing figures, tables and references
    stay entries of their own."""
    if len(sections) <= MAX_SECTIONS:
        return sections
    closing = len(sections)
    while closing > 0 and sections[closing - 1].kind in _CLOSING_KINDS and len(sections) - closing < 3:
        closing -= 1
    body, tail = sections[:closing], sections[closing:]
    keep = MAX_SECTIONS - len(tail) - 1
    rest = body[keep:]
    parts = [part for section in rest for part in (" ".join(section.heading.split()), section.text) if part.strip()]
    merged = Section("Further sections", f"This document has {len(rest):,} more sections than lit-search lists "
                                         f"one by one (at most {MAX_SECTIONS}); their headings and text follow "
                                         "in order.\n\n" + "\n\n".join(parts), kind="other")
    return body[:keep] + [merged] + tail
