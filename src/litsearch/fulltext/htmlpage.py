"""A publisher's article page (the open-access location Unpaywall names) into a ``FullText``, and
the PDF link such a page declares.

Publisher pages differ, but the ones that carry the article share a shape: Highwire ``citation_*``
meta tags (title, authors, DOI, PDF link) and the text inside ``<article>`` or ``<main>`` with
``h2``–``h4`` headings. A page with fewer than two headed sections or 2,000 characters of text is
a landing page, not the paper: ``NoFullText``, and the caller tries the PDF it links to.
"""

from __future__ import annotations

from urllib.parse import urljoin

from ..core.urls import http_url
from .document import FullText, NoFullText, Section, finish_sections
from .htmltree import Node, parse_html

MIN_ARTICLE_CHARS = 2_000
_LEVELS = {"h2": 1, "h3": 2, "h4": 3}
_CHROME = {"nav", "header", "footer", "aside", "form", "button", "select", "menu", "dialog"}
_CHROME_CLASSES = ("nav", "menu", "footer", "header", "sidebar", "cookie", "banner", "share", "toolbar", "breadcrumb")
_BLOCKS = {"p", "blockquote", "pre"}
# The tags Node.text() writes a space for (htmltree.py): counted the same way here.
_SPACED_IN_TEXT = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"}


def pdf_link(text: str, page_url: str) -> str | None:
    """The PDF the page declares (``citation_pdf_url``), as an absolute http(s) URL."""
    page = parse_html(text)
    for value in page.meta_values("citation_pdf_url"):
        if url := http_url(urljoin(page_url, value)):
            return url
    return None


def parse_article_page(text: str) -> FullText:
    """The article on a publisher's page; ``NoFullText`` for a landing page without the text."""
    page = parse_html(text)
    container = _content(page.root)
    sections: list[Section] = []
    abstract = page.meta_values("citation_abstract") or page.meta_values("dc.description")
    # Each section's paragraphs are gathered in a list and joined once (adding to a string per
    # paragraph copies the section each time: quadratic in a page of 200,000 paragraphs).
    current, paragraphs = Section("Main text", ""), []
    figures: list[str] = []
    tables: list[str] = []
    for node, kind in _walk(container):
        if kind == "heading":
            heading = _inline(node)
            if not heading:
                continue
            current.text = "\n\n".join(paragraphs)
            sections.append(current)
            current, paragraphs = Section(heading, "", level=_LEVELS[node.tag]), []
        elif kind == "figcaption":
            figures.append(_inline(node))
        elif kind == "caption":
            tables.append(_inline(node))
        elif kind == "list":
            items = [_inline(li) for li in node.children if isinstance(li, Node) and li.tag == "li"]
            paragraphs.append("\n".join(f"- {item}" for item in items if item))
        else:
            paragraphs.append(_inline(node))
    current.text = "\n\n".join(paragraphs)
    sections.append(current)
    body = [section for section in sections if section.text.strip()]
    headed = [section for section in body if section.heading != "Main text"]
    if len(headed) < 2 or sum(len(section.text) for section in body) < MIN_ARTICLE_CHARS:
        raise NoFullText("the page shows no article text (a landing page)")
    if abstract and not any(section.heading.lower().startswith("abstract") for section in body):
        body.insert(0, Section("Abstract", abstract[0], kind="abstract"))
    for heading, kind, captions in (("Figures", "figures", figures), ("Tables", "tables", tables)):
        if any(captions):
            body.append(Section(heading, "\n\n".join(c for c in captions if c), kind=kind))
    title = (page.meta_values("citation_title") or page.meta_values("dc.title") or [None])[0]
    authors = page.meta_values("citation_author") or page.meta_values("dc.creator")
    ids = {"doi": value for value in page.meta_values("citation_doi")[:1]}
    return FullText(title=title, authors=authors, sections=finish_sections(body), identifiers=ids)


def _content(root: Node) -> Node:
    """The element holding the article: the <article> (or <main>) with the most paragraph text."""
    nodes = list(root.iter())
    candidates = [node for node in nodes if node.tag in ("article", "main") or node.attrs.get("role") == "main"]
    if not candidates:
        return next((node for node in nodes if node.tag == "body"), root)
    paragraph_chars = _paragraph_chars(nodes)
    return max(candidates, key=lambda node: paragraph_chars[id(node)])


def _paragraph_chars(nodes: list[Node]) -> dict[int, int]:
    """For every node (``nodes`` in document order), the length of ``Node.text()`` summed over the
    <p> elements below it: one pass from the leaves up, where asking each candidate would read
    nested candidates again and again."""
    text_chars: dict[int, int] = {}
    below: dict[int, int] = {}
    for node in reversed(nodes):  # every child comes before its parent
        own = 1 if node.tag in _SPACED_IN_TEXT else 0
        own += sum(len(child) if isinstance(child, str) else text_chars[id(child)] for child in node.children)
        text_chars[id(node)] = own
        below[id(node)] = sum(below[id(child)] + (text_chars[id(child)] if child.tag == "p" else 0)
                              for child in node.children if isinstance(child, Node))
    return below


def _walk(container: Node):
    """(node, kind) for headings, paragraphs, lists and captions in document order, outside
    navigation and other page chrome."""
    stack = [child for child in reversed(container.children) if isinstance(child, Node)]
    while stack:
        node = stack.pop()
        classes = " ".join(node.classes).lower()
        if node.tag in _CHROME or any(word in classes for word in _CHROME_CLASSES):
            continue
        if node.tag in _LEVELS:
            yield node, "heading"
        elif node.tag == "figcaption":
            yield node, "figcaption"
        elif node.tag == "caption":
            yield node, "caption"
        elif node.tag in ("ul", "ol"):
            yield node, "list"
        elif node.tag in _BLOCKS:
            yield node, "block"
        else:
            stack.extend(child for child in reversed(node.children) if isinstance(child, Node))


def _inline(node: Node) -> str:
    return " ".join(node.text().split())

