"""arXiv's HTML rendering (LaTeXML, the same markup as ar5iv) into a ``FullText``.

The ``ltx_`` classes carry the structure: ``h1.ltx_title_document``, ``span.ltx_personname``,
``div.ltx_abstract``, nested ``section.ltx_section/ltx_subsection/…`` with an ``h2…h6`` title,
paragraphs ``p.ltx_p``, equations ``table.ltx_equation`` and inline ``math`` (written as their
LaTeX ``alttext``), ``figure.ltx_figure``/``figure.ltx_table`` with ``figcaption``, and the
bibliography ``section.ltx_bibliography`` of ``li.ltx_bibitem``. Pure: text in, document out.
"""

from __future__ import annotations

from .document import FullText, NoFullText, Section, finish_sections
from .htmltree import Node, parse_html

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# Inline parts that are no running text: footnote bodies, LaTeXML's conversion errors, images.
_SKIPPED_CLASSES = {"ltx_note_outer", "ltx_ERROR", "ltx_note_content", "ltx_role_footnote_mark"}


def parse_latexml(text: str) -> FullText:
    """The paper in a LaTeXML page; ``NoFullText`` when the page is no LaTeXML document (arXiv
    answers some ids with a page saying the HTML could not be made)."""
    page = parse_html(text)
    document = page.root.find("article", "ltx_document") or page.root.find(cls="ltx_document")
    if document is None:
        raise NoFullText("the page is not a LaTeXML rendering of the paper")
    title_node = document.find(cls="ltx_title_document")
    title = _inline(title_node) if title_node is not None else None
    sections: list[Section] = []
    abstract = document.find(cls="ltx_abstract")
    if abstract is not None:
        sections.append(Section("Abstract", "\n\n".join(_blocks(abstract)), kind="abstract"))
    loose = _blocks(document, skip_classes={"ltx_abstract", "ltx_authors", "ltx_dates", "ltx_page_footer",
                                            "ltx_title_document", "ltx_classification", "ltx_keywords"})
    if loose:
        sections.append(Section("Main text", "\n\n".join(loose)))
    references: list[Section] = []
    for node, level in _sectional_units(document):
        if node.has_class("ltx_bibliography"):
            references.append(Section("References", "\n".join(_bibitems(node)), kind="references"))
            continue
        heading = _heading(node)
        kind = "appendix" if node.has_class("ltx_appendix") else "other"
        sections.append(Section(heading, "\n\n".join(_blocks(node)), level=level, kind=kind))
    if not any(s.text for s in sections if s.kind != "abstract"):
        raise NoFullText("the LaTeXML page holds no body text")
    sections += _captions(document)
    sections += references
    authors = [_person(node) for node in document.find_all("span", "ltx_personname")]
    return FullText(title=title or None, authors=[a for a in authors if a], sections=finish_sections(sections))


def _sectional_units(document: Node) -> list[tuple[Node, int]]:
    """Every <section> below the document with its nesting level (1 = top), in document order."""
    units: list[tuple[Node, int]] = []
    stack: list[tuple[Node, int]] = [(child, 1) for child in reversed(document.children) if isinstance(child, Node)]
    while stack:
        node, level = stack.pop()
        if node.tag == "section":
            units.append((node, level))
            if not node.has_class("ltx_bibliography"):
                stack.extend((child, level + 1) for child in reversed(node.children) if isinstance(child, Node))
        elif node.tag != "figure":
            stack.extend((child, level) for child in reversed(node.children) if isinstance(child, Node))
    return units


def _heading(section: Node) -> str:
    title = next((child for child in section.children if isinstance(child, Node) and child.tag in _HEADINGS), None)
    return _inline(title) if title is not None else "(untitled section)"


def _blocks(container: Node, skip_classes: set[str] = frozenset()) -> list[str]:
    """The paragraphs, lists and equations of a container, not those of its subsections or floats."""
    blocks: list[str] = []
    stack = [child for child in reversed(container.children) if isinstance(child, Node)]
    while stack:
        node = stack.pop()
        if node.tag in ("section", "figure") or node.tag in _HEADINGS or node.classes & skip_classes:
            continue
        if node.tag in ("ul", "ol"):
            items = [_inline(item) for item in node.children if isinstance(item, Node) and item.tag == "li"]
            blocks.append("\n".join(f"- {item}" for item in items if item))
        elif node.tag == "table" and node.classes & {"ltx_equation", "ltx_equationgroup", "ltx_eqn_table"}:
            formula = " ".join(m.attrs.get("alttext", "") for m in node.find_all("math")).strip()
            blocks.append(formula or _inline(node))
        elif node.tag == "p" or node.has_class("ltx_p"):
            blocks.append(_inline(node))
        else:
            stack.extend(child for child in reversed(node.children) if isinstance(child, Node))
    return [block for block in blocks if block.strip()]


def _captions(document: Node) -> list[Section]:
    sections = []
    for cls, heading, kind in (("ltx_figure", "Figures", "figures"), ("ltx_table", "Tables", "tables")):
        captions = []
        for figure in document.find_all("figure", cls):
            caption = figure.find("figcaption")
            if caption is not None and (text := _inline(caption)):
                captions.append(text)
        if captions:
            sections.append(Section(heading, "\n\n".join(captions), kind=kind))
    return sections


def _bibitems(bibliography: Node) -> list[str]:
    lines = []
    for item in bibliography.find_all("li", "ltx_bibitem"):
        tag = item.find(cls="ltx_tag")
        label = _inline(tag).strip().strip("[]").strip() if tag is not None else ""
        blocks = [_inline(block) for block in item.find_all(cls="ltx_bibblock")]
        text = " ".join(b for b in blocks if b) or _inline(item)
        if text:
            lines.append(f"[{label}] {text}" if label and not text.startswith(label) else text)
    return lines


def _person(node: Node) -> str:
    """The name before any line break (LaTeXML puts affiliations after a <br> in the same span)."""
    parts: list[str] = []
    for child in node.children:
        if isinstance(child, Node) and child.tag == "br":
            break
        parts.append(child if isinstance(child, str) else _inline(child))
    return " ".join("".join(parts).split())


def _inline(node: Node) -> str:
    """The text of a node on one line: math as its LaTeX, footnotes and conversion errors left out."""
    out: list[str] = []
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if item is not node and (item.classes & _SKIPPED_CLASSES or item.tag in ("img", "button", "figure")):
            continue
        if item.tag == "math":
            alttext = item.attrs.get("alttext")
            out.append(f" {alttext} " if alttext else item.text())
            continue
        if item.tag in ("br", "li", "p", "div"):
            out.append(" ")
        stack.extend(reversed(item.children))
    return " ".join("".join(out).split())
