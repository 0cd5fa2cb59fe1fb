"""Documents built to be costly (issue 31): a JATS file of 300,000 sections, an arXiv page of
200,000, a publisher page of 200,000 paragraphs in one section, a document of 100,000 sections
to render. The bookkeeping is linear (each piece checked against its plain definition on
random inputs), at most MAX_SECTIONS sections are listed and nothing is dropped, and each
document is read within a bound on CPU seconds (a child process given an RLIMIT_CPU: the
quadratic code kept `read` busy for minutes, and a bound on CPU time, unlike one on wall-clock
time, holds on a loaded machine)."""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import textwrap

import pytest

from litsearch.fulltext.document import MAX_SECTIONS, FullText, Section, finish_sections
from litsearch.fulltext.htmlpage import _paragraph_chars
from litsearch.fulltext.htmltree import parse_html
from litsearch.fulltext.jats import _without_empty, parse_jats
from litsearch.fulltext.limits import limit_sections, select_sections

CPU_SECONDS = 60  # each case takes a few; the quadratic code took minutes


def test_without_empty_is_its_plain_definition():
    def plain(sections):
        kept = []
        for index, section in enumerate(sections):
            deeper = []
            for later in sections[index + 1:]:
                if later.level <= section.level:
                    break
                deeper.append(later)
            if section.text.strip() or any(later.text.strip() for later in deeper):
                kept.append(section)
        return kept

    generator = random.Random(31)
    for _ in range(2000):
        sections = [Section(str(n), generator.choice(["", " ", "text"]), level=generator.randint(1, 4))
                    for n in range(generator.randint(0, 14))]
        assert [s.heading for s in _without_empty(sections)] == [s.heading for s in plain(sections)]


def test_paragraph_chars_is_its_plain_definition():
    generator = random.Random(31)
    tags = ["p", "div", "article", "main", "span", "li", "br", "h2", "section"]
    for _ in range(300):
        html = "".join(generator.choice([f"<{tag}>", f"</{tag}>", "text " + "x" * generator.randint(0, 6)])
                       for tag in (generator.choice(tags) for _ in range(generator.randint(1, 40))))
        nodes = list(parse_html(html).root.iter())
        counted = _paragraph_chars(nodes)
        for node in nodes:
            assert counted[id(node)] == sum(len(p.text()) for p in node.find_all("p")), html


def test_every_sections_status_is_its_plain_definition():
    generator = random.Random(31)
    for _ in range(200):
        sections = [Section(f"S{n}", "x" * generator.randint(0, 300), level=generator.randint(1, 3))
                    for n in range(generator.randint(1, 30))]
        document = FullText("t", [], finish_sections(sections))
        names = generator.sample([s.name for s in document.sections], k=min(2, len(document.sections)))
        selection = limit_sections(document, select_sections(document, names), generator.choice([None, 200, 900]))

        def plain(section):
            if any(section is s for s in selection.shown):
                return "shown"
            if selection.cut is section:
                return "cut"
            return "left out" if any(section is s for s in selection.left_out) else "not asked"
        assert [selection.status(s) for s in document.sections] == [plain(s) for s in document.sections]


def test_at_most_max_sections_are_listed_and_nothing_is_dropped():
    body = [Section(f"Heading {n}", f"text number {n}", level=1 + n % 3) for n in range(3 * MAX_SECTIONS)]
    closing = [Section("Figures", "Figure 1. A figure.", kind="figures"),
               Section("References", "[1] A reference.", kind="references")]
    sections = finish_sections(body + closing)
    assert len(sections) == MAX_SECTIONS
    assert [s.kind for s in sections[-2:]] == ["figures", "references"]
    merged = sections[-3]
    assert merged.heading == "Further sections" and merged.level == 1
    listed = {s.heading for s in sections}
    for n in range(3 * MAX_SECTIONS):  # every heading and text is somewhere, listed or in the merged one
        assert f"Heading {n}" in listed or (f"Heading {n}\n\ntext number {n}\n" in merged.text + "\n")


def test_a_jats_body_past_the_bound_is_read_as_one_section_in_order():
    secs = "".join(f"<sec><title>T{n}</title><p>p{n}</p><sec><title>U{n}</title><p>q{n}</p></sec></sec>"
                   for n in range(MAX_SECTIONS))
    document = parse_jats(f"<article><body>{secs}</body><back><ref-list><ref><mixed-citation>A ref."
                          f"</mixed-citation></ref></ref-list></back></article>")
    assert len(document.sections) <= MAX_SECTIONS and document.sections[-1].kind == "references"
    further = next(s for s in document.sections if s.heading == "Further sections")
    listed = " ".join(s.heading + " " + s.text for s in document.sections if s is not further)
    positions = [further.text.find(f"T{n} p{n} U{n} q{n}") for n in range(MAX_SECTIONS) if f"T{n} " not in listed + " "]
    assert positions and all(p > 0 for p in positions) and positions == sorted(positions)


# ---------------------------------------------------------------- within a bound on CPU seconds

CASES = {
    "JATS of 300,000 sections": """
        from litsearch.fulltext.jats import parse_jats
        document = parse_jats(("<article><body>" + "<sec><title>S</title><p>x</p></sec>" * 300_000
                               + "</body></article>").encode())
        assert len(document.sections) <= MAX_SECTIONS
    """,
    "arXiv page of 200,000 sections": """
        from litsearch.fulltext.latexml import parse_latexml
        sections = '<section class="ltx_section"><h2>S</h2><p class="ltx_p">x</p></section>' * 200_000
        document = parse_latexml(f'<article class="ltx_document">{sections}</article>')
        assert len(document.sections) <= MAX_SECTIONS
    """,
    "publisher page of 200,000 paragraphs": """
        from litsearch.fulltext.htmlpage import parse_article_page
        paragraphs = "<p>A paragraph of the article's own text.</p>" * 200_000
        document = parse_article_page(f"<main><article><h2>One</h2>{paragraphs}<h2>Two</h2><p>{'y' * 3000}</p>"
                                      "</article></main>")
        assert document.chars > 200_000 * 30
    """,
    "render 100,000 sections": """
        from litsearch.fulltext.document import FullText, Section
        from litsearch.fulltext.limits import limit_sections
        from litsearch.fulltext.read import ReadResult
        from litsearch.fulltext.read import parse_read_ref
        from litsearch.render.fulltext import read_json, read_markdown, read_text
        sections = [Section(f"S{n}", "x", name=f"s{n}", number=str(n)) for n in range(100_000)]
        document = FullText("t", [], sections)
        result = ReadResult(parse_read_ref("PMC1"), document, limit_sections(document, sections, 50_000))
        for render in (read_json, read_markdown, read_text):
            render(result)
    """,
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_costly_document_is_read_within_a_bound_on_cpu_seconds(case):
    code = "from litsearch.fulltext.document import MAX_SECTIONS\n" + textwrap.dedent(CASES[case])

    def limit_cpu():
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))
    done = subprocess.run([sys.executable, "-c", code], preexec_fn=limit_cpu, capture_output=True, text=True,
                          timeout=CPU_SECONDS * 20)
    assert done.returncode == 0, f"{case}: exit {done.returncode} (a signal past {CPU_SECONDS} CPU s?) {done.stderr}"
