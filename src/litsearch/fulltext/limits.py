"""Which sections a reader gets: those named with ``--section`` (all by default), within
``--max-chars``, and an exact account of what was left out. The text is filled in reading order:
whole sections while they fit, then the section that does not fit is cut (at a paragraph, else a
word) with a marker saying how much is left, and every later one is left out. Nothing is
skipped to show a later, smaller section, so a reader gets the paper's beginning rather than
fragments from its middle, and nothing is cut silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import UsageError
from .document import SECTION_KINDS, FullText, Section, heading_kind, slug


@dataclass
class Selection:
    """``shown``: whole sections, in document order; ``cut``: a section shown in part (its first
    ``cut_chars`` characters, ending at a paragraph or word), or None; ``left_out``: asked for
    but over the limit; ``not_asked``: sections ``--section`` did not name."""

    shown: list[Section]
    left_out: list[Section] = field(default_factory=list)
    not_asked: list[Section] = field(default_factory=list)
    cut: Section | None = None
    cut_chars: int = 0
    max_chars: int | None = None
    _statuses: dict[int, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def shown_chars(self) -> int:
        return sum(section.chars for section in self.shown) + self.cut_chars

    def status(self, section: Section) -> str:
        """"shown", "cut", "left out" or "not asked": one look-up (a renderer asks for every
        section, and a document may have thousands)."""
        if self._statuses is None:
            self._statuses = {id(s): "not asked" for s in self.not_asked}
            self._statuses.update({id(s): "left out" for s in self.left_out})
            self._statuses.update({id(s): "shown" for s in self.shown})
            if self.cut is not None:
                self._statuses[id(self.cut)] = "cut"
        return self._statuses.get(id(section), "not asked")


def select_sections(document: FullText, names: list[str]) -> list[Section]:
    """The sections ``names`` ask for (each with its subsections), in document order; all when
    ``names`` is empty. A name is a section's name or number, a kind of section ("methods"
    finds "Materials and Methods"), or a part of a heading. UsageError naming the sections
    there are when a name matches none."""
    if not names:
        return list(document.sections)
    chosen: set[int] = set()
    for name in names:
        matched = _matches(document.sections, name)
        if not matched:
            available = ", ".join(section.name for section in document.sections if section.level == 1)
            raise UsageError(f"no section {name!r} in this paper; its sections are: {available}")
        for index in matched:
            if index not in chosen:  # else its subsections are chosen already, with the section above it
                chosen.add(index)
                chosen.update(_descendants(document.sections, index))
    return [section for index, section in enumerate(document.sections) if index in chosen]


# A cut that would show less than this is not worth a section heading: when something is
# already shown, the section is left out instead (the summary names it with its size).
MIN_CUT_CHARS = 200


def limit_sections(document: FullText, wanted: list[Section], max_chars: int | None) -> Selection:
    """Whole sections in reading order while they fit in ``max_chars`` (None or 0: no limit);
    the first that does not fit is cut to what is left of the limit (when that start is worth
    showing), and it and every later one are otherwise left out."""
    wanted_ids = {id(section) for section in wanted}
    not_asked = [section for section in document.sections if id(section) not in wanted_ids]
    if not max_chars:
        return Selection(shown=list(wanted), not_asked=not_asked, max_chars=None)
    shown: list[Section] = []
    total = 0
    for position, section in enumerate(wanted):
        if total + section.chars <= max_chars:
            shown.append(section)
            total += section.chars
            continue
        selection = Selection(shown=shown, left_out=list(wanted[position + 1:]), not_asked=not_asked,
                              max_chars=max_chars)
        start = cut_text(section.text, max_chars - total)
        if start and (len(start) >= MIN_CUT_CHARS or not any(s.chars for s in shown)):
            selection.cut, selection.cut_chars = section, len(start)
        else:
            selection.left_out.insert(0, section)
        return selection
    return Selection(shown=shown, not_asked=not_asked, max_chars=max_chars)


def cut_text(text: str, max_chars: int) -> str:
    """The start of ``text`` within ``max_chars``: up to the last paragraph break that fits,
    else the last space, else exactly ``max_chars`` characters."""
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    for boundary in ("\n\n", "\n", " "):
        position = head.rfind(boundary)
        if position > max_chars // 3:
            return head[:position].rstrip()
    return head


def _matches(sections: list[Section], name: str) -> list[int]:
    wanted = " ".join(name.split()).lower()
    wanted_slug = slug(wanted)
    exact = [i for i, s in enumerate(sections) if s.name == wanted or s.number == wanted or s.name == wanted_slug]
    if exact:
        return exact
    kind = wanted if wanted in {k for k, _ in SECTION_KINDS} else heading_kind(wanted)
    if kind != "other":
        of_kind = [i for i, s in enumerate(sections) if s.kind == kind]
        if of_kind:  # the shallowest ones: "methods" is the Methods section, not every subsection named so
            top = min(sections[i].level for i in of_kind)
            return [i for i in of_kind if sections[i].level == top]
    return [i for i, s in enumerate(sections) if s.name.startswith(wanted_slug) or wanted in s.heading.lower()]


def _descendants(sections: list[Section], index: int) -> list[int]:
    found = []
    for later in range(index + 1, len(sections)):
        if sections[later].level <= sections[index].level:
            break
        found.append(later)
    return found
