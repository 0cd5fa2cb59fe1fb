"""JATS XML (PubMed Central through NCBI efetch ``db=pmc``, Europe PMC ``fullTextXML``, PMC OAI-PMH)
into a ``FullText``: title, authors, licence, the abstract, the body's sections in order, the back
matter (acknowledgements, appendices, notes), figure and table captions, and the reference list.

Pure: bytes in, document out. Accepts ``<pmc-articleset>``, a bare ``<article>`` and an OAI-PMH
envelope, with or without an XML declaration, DOCTYPE or namespace. XML that declares entities
is refused (defusedxml), never expanded.
"""

from __future__ import annotations

import re
from typing import Iterator
from xml.etree.ElementTree import Element

from .document import MAX_SECTIONS, FullText, NoFullText, Section, finish_sections

# NCBI answers 200 with only the front matter when the publisher does not allow XML.
_NOT_ALLOWED = re.compile(rb"does not allow downloading of the full text", re.I)
# Floats and notes have sections of their own (captions) or none; they are not running text.
_FLOATS = {"fig", "table-wrap", "fig-group", "table-wrap-group", "supplementary-material", "object-id", "graphic",
           "media", "inline-graphic", "fn", "table"}
_NAMES = {"name", "string-name", "collab"}
# Elements whose end separates words even when the XML puts nothing between them.
_SPACED = {"p", "list-item", "title", "label", "term", "def", "td", "th", "tr", "sec", "caption"} | _NAMES
_BLOCKS = {"p", "list", "disp-quote", "def-list", "boxed-text", "speech", "statement", "verse-group", "disp-formula",
           "preformat", "code", "array"}
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:])(?=\s|$)")
# The body's sections listed one by one at most (room left for the back matter, captions and
# references within document.py's MAX_SECTIONS).
BODY_SECTIONS = MAX_SECTIONS - 20
_EXPAT_NO_MEMORY = 1  # xml.parsers.expat.errors.codes[XML_ERROR_NO_MEMORY]
_CC_URL = re.compile(r"creativecommons\.org/(?:licenses/([a-z-]+)/(\d\.\d)|publicdomain/(zero)/(\d\.\d))", re.I)


def parse_jats(body: bytes | str) -> FullText:
    """The article in a JATS document; ``NoFullText`` when it has no body text, ValueError when
    the bytes are no JATS at all (or nest elements thousands deep, as no article does)."""
    try:
        return _parse_article(body)
    except RecursionError:
        raise ValueError("not a JATS article (elements nested too deeply)") from None


def _parse_article(body: bytes | str) -> FullText:
    raw = body.encode("utf-8") if isinstance(body, str) else body
    root = _parse_xml(raw)
    article = next((el for el in root.iter() if _local(el.tag) == "article"), None)
    if article is None:
        raise ValueError("not JATS XML (no <article> element)")
    _strip_namespaces(article)
    meta = article.find("front/article-meta")
    body_el = article.find("body")
    sections: list[Section] = []
    sections += _abstract_sections(meta)
    if body_el is not None:
        sections += _body_sections(body_el)
    if not any(s.text for s in sections if s.kind != "abstract"):
        if _NOT_ALLOWED.search(raw):
            raise NoFullText("the publisher does not allow the full text in XML (PMC holds the front matter only)")
        raise NoFullText("the XML holds no body text (front matter only)")
    back = article.find("back")
    if back is not None:
        sections += list(_back_sections(back))
    sections += _caption_sections(article)
    references = _references(article)
    if references:
        sections.append(Section("References", "\n".join(references), kind="references"))
    return FullText(title=_title(meta), authors=_authors(meta), sections=finish_sections(_without_empty(sections)),
                    identifiers=_identifiers(meta))


def _without_empty(sections: list[Section]) -> list[Section]:
    """Sections with text, and headings whose subsections have text (a back-matter <sec> that
    only wraps the reference list, already given as References, is no section). One pass from
    the end: ``open`` holds the following sections not yet under a heading, with whether their
    subtree has text."""
    keep = [False] * len(sections)
    open_: list[tuple[int, bool]] = []  # (level, text in this section or below), nearest first at the end
    for index in range(len(sections) - 1, -1, -1):
        section = sections[index]
        below = False
        while open_ and open_[-1][0] > section.level:  # exactly the sections up to the next of its level
            below = open_.pop()[1] or below
        keep[index] = bool(section.text.strip()) or below
        open_.append((section.level, keep[index]))
    return [section for section, kept in zip(sections, keep) if kept]


def jats_license(body: bytes | str) -> str | None:
    """The article's licence in a few words ("CC BY 4.0 (https://…)"), or None when it states none."""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    try:
        return _license(_parse_xml(raw))
    except RecursionError:
        return None


def _license(root: Element) -> str | None:
    _strip_namespaces(root)
    license_el = next((el for el in root.iter("license")), None)
    if license_el is None:
        return None
    for el in license_el.iter():
        for name, value in el.attrib.items():
            if _local(name) == "href" and (match := _CC_URL.search(value)):
                return _cc_name(match, value)
    text = " ".join(_text(license_el).split())
    if match := _CC_URL.search(text):
        return _cc_name(match, match.group(0))
    kind = license_el.get("license-type")
    return (text[:200] + ("…" if len(text) > 200 else "")) or kind


def _cc_name(match: re.Match[str], url: str) -> str:
    if match.group(3):
        return f"CC0 {match.group(4)} ({url.strip()})"
    return f"CC {match.group(1).upper()} {match.group(2)} ({url.strip()})"


# ---------------------------------------------------------------- parts of the article

def _abstract_sections(meta: Element | None) -> list[Section]:
    if meta is None:
        return []
    sections = []
    for abstract in meta.findall("abstract"):
        kind = (abstract.get("abstract-type") or "").lower()
        if kind in ("graphical", "teaser", "toc", "web-summary"):
            continue
        title = abstract.findtext("title") or ("Abstract" if not kind or kind == "abstract" else kind.title())
        parts = []
        for child in abstract:
            tag = _local(child.tag)
            if tag == "sec":  # a structured abstract: "Background: …"
                heading = " ".join(_text(child.find("title")).split()) if child.find("title") is not None else ""
                text = "\n\n".join(_blocks(child))
                parts.append(f"{heading}: {text}" if heading else text)
            elif tag in _BLOCKS:
                parts.append(_block_text(child))
        sections.append(Section(" ".join(title.split()), "\n\n".join(p for p in parts if p.strip()),
                                kind="abstract" if not kind or kind == "abstract" else "other"))
    return sections


def _body_sections(body: Element) -> list[Section]:
    """The body's own paragraphs (before its first <sec>) as "Main text", then each <sec> in
    document order, at most BODY_SECTIONS of them; the rest of the body is read as plain text
    into one last section, with no work per section (a file built with 300,000 of them)."""
    sections = []
    loose = [_block_text(child) for child in body if _local(child.tag) in _BLOCKS]
    if any(loose):
        sections.append(Section("Main text", "\n\n".join(loose)))
    pending = [(child, 1) for child in reversed(body) if _local(child.tag) == "sec"]  # the next one last
    while pending:
        sec, level = pending.pop()
        if len(sections) >= BODY_SECTIONS:
            rest = [sec] + [element for element, _ in reversed(pending)]  # in document order, none inside another
            # Pieces joined by a space: a title and its paragraph must not run together.
            texts = (" ".join(" ".join(element.itertext()).split()) for element in rest)
            sections.append(Section("Further sections", f"This article has {len(rest):,} more sections (and what "
                                    "they hold) than lit-search lists one by one; their text follows in order.\n\n"
                                    + "\n\n".join(text for text in texts if text)))
            break
        sections.append(_sec_section(sec, level))
        pending += [(child, level + 1) for child in reversed(sec) if _local(child.tag) == "sec"]
    return sections


def _sec_section(sec: Element, level: int) -> Section:
    """One <sec>: its label and title as the heading, its own paragraphs (not its subsections')."""
    title = sec.find("title")
    label = sec.findtext("label") or ""
    heading = " ".join(f"{label} {_text(title) if title is not None else ''}".split()) or "(untitled section)"
    return Section(heading, "\n\n".join(_blocks(sec)), level=level)


def _sec(sec: Element, level: int) -> Iterator[Section]:
    yield _sec_section(sec, level)
    for child in sec:
        if _local(child.tag) == "sec":
            yield from _sec(child, level + 1)


def _back_sections(back: Element) -> Iterator[Section]:
    for child in back:
        tag = _local(child.tag)
        if tag in ("ack", "sec", "app", "glossary", "notes", "fn-group", "bio"):
            default = {"ack": "Acknowledgements", "glossary": "Abbreviations", "fn-group": "Notes",
                       "app": "Appendix", "notes": "Notes", "bio": "Biography"}.get(tag, "(untitled section)")
            title = child.find("title")
            heading = _text(title) if title is not None and _text(title).strip() else default
            text = "\n\n".join(_blocks(child)) if tag != "fn-group" else "\n\n".join(
                _block_text(p) for fn in child.iter("fn") for p in fn if _local(p.tag) == "p")
            yield Section(heading, text, kind="acknowledgements" if tag == "ack" else "other")
            for sub in child:
                if _local(sub.tag) == "sec":
                    yield from _sec(sub, 2)
        elif tag == "app-group":
            for app in child.findall("app"):
                title = app.find("title")
                yield Section(_text(title) if title is not None else "Appendix", "\n\n".join(_blocks(app)),
                              kind="appendix")
                for sub in app.findall("sec"):
                    yield from _sec(sub, 2)


def _caption_sections(article: Element) -> list[Section]:
    """Figure and table captions, each on its own paragraph ("Figure 2. Caption…")."""
    sections = []
    for tag, heading, kind in (("fig", "Figures", "figures"), ("table-wrap", "Tables", "tables")):
        captions = [caption for el in article.iter(tag) if (caption := _caption(el))]
        if captions:
            sections.append(Section(heading, "\n\n".join(captions), kind=kind))
    return sections


def _caption(el: Element) -> str:
    label = " ".join((el.findtext("label") or "").split())
    caption = el.find("caption")
    text = " ".join(_text(caption).split()) if caption is not None else ""
    if not label and not text:
        return ""
    return f"{label.rstrip('.:')}. {text}" if label and text else label or text


def _references(article: Element) -> list[str]:
    lines = []
    for ref in article.iter("ref"):
        label = " ".join((ref.findtext("label") or "").split()).rstrip(".")
        citation = next((c for c in ref if _local(c.tag) in ("mixed-citation", "element-citation", "citation",
                                                           "nlm-citation")), None)
        if citation is None:
            continue
        text = _element_citation(citation) if _local(citation.tag) != "mixed-citation" else _text(citation)
        text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(text.split()))
        if text:
            lines.append(f"[{label}] {text}" if label else text)
    return lines


def _element_citation(citation: Element) -> str:
    """A structured citation written out: "Authors. Title. Source. Year;Volume:pages. doi:…"."""
    names = [_name(name) for group in citation.iter("person-group") for name in group if _local(name.tag) in (
        "name", "collab", "string-name")]
    parts = [", ".join(n for n in names if n)]
    for tag in ("article-title", "chapter-title", "source"):
        el = citation.find(tag)
        if el is not None and _text(el).strip():
            parts.append(_text(el).strip().rstrip("."))
    where = citation.findtext("year") or ""
    if citation.findtext("volume"):
        where += f";{citation.findtext('volume')}"
    pages = "–".join(p for p in (citation.findtext("fpage"), citation.findtext("lpage")) if p)
    if pages:
        where += f":{pages}"
    parts.append(where)
    for pub_id in citation.findall("pub-id"):
        if pub_id.get("pub-id-type") == "doi" and pub_id.text:
            parts.append(f"doi:{pub_id.text.strip()}")
    if not any(parts):
        return _text(citation)
    return ". ".join(" ".join(p.split()) for p in parts if p and p.strip())


def _title(meta: Element | None) -> str | None:
    title = meta.find("title-group/article-title") if meta is not None else None
    text = " ".join(_text(title).split()) if title is not None else ""
    return text or None


def _authors(meta: Element | None) -> list[str]:
    if meta is None:
        return []
    authors = []
    for group in meta.findall("contrib-group"):
        group_type = (group.get("content-type") or "author").lower()
        for contrib in group.findall("contrib"):
            kind = (contrib.get("contrib-type") or group_type).lower()
            if kind != "author":
                continue
            name = next((el for el in contrib if _local(el.tag) in ("name", "collab", "string-name")), None)
            if name is None:
                name_alternatives = contrib.find("name-alternatives")
                name = name_alternatives.find("name") if name_alternatives is not None else None
            text = _name(name, given_first=True) if name is not None else ""
            if text:
                authors.append(text)
    return authors


def _identifiers(meta: Element | None) -> dict[str, str]:
    ids: dict[str, str] = {}
    for article_id in meta.findall("article-id") if meta is not None else []:
        kind = (article_id.get("pub-id-type") or "").lower()
        value = " ".join((article_id.text or "").split())
        field = {"doi": "doi", "pmid": "pmid", "pmc": "pmcid", "pmcid": "pmcid", "arxiv": "arxiv_id"}.get(kind)
        if field and value and field not in ids:
            ids[field] = f"PMC{value}" if field == "pmcid" and value.isdigit() else value
    return ids


# ---------------------------------------------------------------- text

def _blocks(container: Element) -> list[str]:
    """The paragraphs of a section (not its subsections), in order."""
    return [text for child in container if _local(child.tag) in _BLOCKS and (text := _block_text(child))]


def _block_text(el: Element) -> str:
    tag = _local(el.tag)
    if tag == "list":
        items = [" ".join(_text(item).split()) for item in el if _local(item.tag) == "list-item"]
        return "\n".join(f"- {item}" for item in items if item)
    if tag == "def-list":
        return "\n".join(f"- {' '.join(_text(item.find('term')).split())}: {' '.join(_text(item.find('def')).split())}"
                         for item in el.findall("def-item") if item.find("term") is not None
                         and item.find("def") is not None)
    if tag == "disp-formula":
        return _formula(el)
    if tag in ("boxed-text", "statement", "disp-quote"):
        return "\n\n".join(_blocks(el)) or " ".join(_text(el).split())
    return " ".join(_text(el).split())


def _formula(el: Element) -> str:
    """A formula as its TeX (or MathML alttext), else its text."""
    tex = next((t for t in el.iter("tex-math") if t.text), None)
    if tex is not None:
        return " ".join(tex.text.split())
    math = next(el.iter("math"), None)
    if math is not None and math.get("alttext"):
        return " ".join(math.get("alttext").split())
    label = el.findtext("label") or ""
    return " ".join(f"{_text(el, skip=('label',))} {label}".split())


def _text(el: Element | None, skip: tuple[str, ...] = ()) -> str:
    """All text of an element in document order: names as "Surname Given", formulas as TeX,
    floats (figures, tables) and their captions left out (they have a section of their own)."""
    if el is None:
        return ""
    out: list[str] = []
    _walk(el, out, skip, top=True)
    return "".join(out)


def _walk(el: Element, out: list[str], skip: tuple[str, ...], top: bool = False) -> None:
    tag = _local(el.tag)
    if not top:
        if tag in skip or tag in _FLOATS:
            return
        if tag in ("inline-formula", "disp-formula"):
            out.append(f" {_formula(el)} ")
            return
        if tag in _NAMES:
            out.append(_name(el))
            return
        if tag == "break":
            out.append(" ")
            return
        if tag == "pub-id":  # ids run into the text before them ("33, 2110.1093/…")
            kind = (el.get("pub-id-type") or "").lower()
            label = {"doi": "doi:", "pmid": "PMID:", "pmcid": "PMCID:"}.get(kind, "")
            out.append(f" {label}{' '.join((el.text or '').split())} ")
            return
    if el.text:
        out.append(el.text)
    children = list(el)
    for index, child in enumerate(children):
        _walk(child, out, skip)
        if child.tail and child.tail.strip():
            out.append(child.tail)
        elif _local(child.tag) in _NAMES and index + 1 < len(children) and _local(children[index + 1].tag) in _NAMES:
            out.append(", ")  # <name/><name/> with nothing between: two people, not one
        else:
            out.append(child.tail or " " if _local(child.tag) in _SPACED else child.tail or "")


def _name(el: Element | None, given_first: bool = False) -> str:
    if el is None:
        return ""
    tag = _local(el.tag)
    if tag == "collab":
        return " ".join(_text(el).split())
    surname = " ".join((el.findtext("surname") or "").split())
    given = " ".join((el.findtext("given-names") or "").split())
    suffix = " ".join((el.findtext("suffix") or "").split())
    if not surname and not given:
        return " ".join("".join(el.itertext()).split())
    parts = [given, surname] if given_first else [surname, given]
    return " ".join(p for p in parts + [suffix] if p)


# ---------------------------------------------------------------- XML

def _parse_xml(raw: bytes) -> Element:
    import defusedxml.ElementTree as defused  # parsing is the only place XML enters

    try:
        return defused.fromstring(raw.lstrip())
    except MemoryError:
        raise
    except Exception as exc:  # ParseError, and defusedxml's refusals of entity declarations
        if getattr(exc, "code", None) == _EXPAT_NO_MEMORY:  # out of memory is no property of the XML
            raise MemoryError from None
        reason = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise ValueError(f"not well-formed XML ({reason})") from None


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _strip_namespaces(root: Element) -> None:
    """Element and attribute names without their namespace: PMC OAI-PMH puts JATS in one."""
    for el in root.iter():
        if isinstance(el.tag, str) and "}" in el.tag:
            el.tag = el.tag.rsplit("}", 1)[1]
        for name in [name for name in el.attrib if "}" in name and not name.endswith("}href")]:
            el.attrib[name.rsplit("}", 1)[1]] = el.attrib.pop(name)
