"""A small, tolerant HTML tree (the standard library's tokenizer, no dependency) for the two
HTML readers: LaTeXML pages (well formed) and publisher pages (often not).

Void elements never take children; a closing tag pops back to its matching open element (and
is ignored when none is open); ``<p>`` and ``<li>`` close an open sibling as HTML does. Script,
style, template and noscript content is dropped. Depth and node counts are bounded, so a page
built to exhaust memory or recursion stops growing instead."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Iterator

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})
_DROPPED = frozenset({"script", "style", "template", "noscript", "svg", "title"})
_AUTO_CLOSED = {"p": {"p", "div", "section", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "figure"},
                "li": {"li"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}, "tr": {"tr"}, "td": {"td", "th"},
                "th": {"td", "th"}}
MAX_DEPTH = 200
MAX_NODES = 500_000


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list["Node | str"] = field(default_factory=list)
    parent: "Node | None" = field(default=None, repr=False)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def has_class(self, name: str) -> bool:
        return name in self.classes

    def iter(self) -> Iterator["Node"]:
        """This node and every element below it, in document order (no recursion)."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(child for child in reversed(node.children) if isinstance(child, Node))

    def find(self, tag: str | None = None, cls: str | None = None) -> "Node | None":
        return next(self.find_all(tag, cls), None)

    def find_all(self, tag: str | None = None, cls: str | None = None) -> Iterator["Node"]:
        for node in self.iter():
            if node is not self and (tag is None or node.tag == tag) and (cls is None or node.has_class(cls)):
                yield node

    def text(self) -> str:
        """Every piece of text below this node, joined as written (no recursion)."""
        out: list[str] = []
        stack: list[Node | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            else:
                if item.tag in ("br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"):
                    out.append(" ")
                stack.extend(reversed(item.children))
        return "".join(out)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.current = self.root
        self.depth = 0
        self.nodes = 0
        self.dropping = 0  # inside <script>, <style> …
        self.meta: list[dict[str, str]] = []  # <meta> tags, for citation_* metadata

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name.lower(): value or "" for name, value in attrs}
        if tag == "meta":
            self.meta.append(values)
        if tag in _DROPPED:
            self.dropping += 1
            return
        if self.dropping or self.nodes >= MAX_NODES:
            return
        closes = {opened for opened, closers in _AUTO_CLOSED.items() if tag in closers}
        if self.current.tag in closes:
            self._pop()
        if self.depth >= MAX_DEPTH:
            return
        node = Node(tag, values, parent=self.current)
        self.current.children.append(node)
        self.nodes += 1
        if tag not in VOID:
            self.current = node
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and not self.dropping and self.current.tag == tag:
            self._pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropping = max(0, self.dropping - 1)
            return
        if self.dropping or tag in VOID:
            return
        node: Node | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is None or node is self.root:
            return  # a stray closing tag
        while self.current is not node:
            self._pop()
        self._pop()

    def handle_data(self, data: str) -> None:
        if not self.dropping and self.nodes < MAX_NODES:
            self.current.children.append(data)

    def _pop(self) -> None:
        if self.current.parent is not None:
            self.current = self.current.parent
            self.depth -= 1


@dataclass
class Page:
    root: Node
    meta: list[dict[str, str]]

    def meta_values(self, name: str) -> list[str]:
        """The contents of ``<meta name=…>`` (or ``property=``) tags with this name, in order."""
        return [m.get("content", "").strip() for m in self.meta
                if (m.get("name") or m.get("property") or "").lower() == name.lower() and m.get("content", "").strip()]


def parse_html(text: str) -> Page:
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return Page(builder.root, builder.meta)
