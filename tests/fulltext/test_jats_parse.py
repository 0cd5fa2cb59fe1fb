"""The JATS parser on the real recorded full texts in ../shared/fixtures/fulltext/pmc: NCBI efetch
(2016 body and the 2024 vcr cassette), four Europe PMC fullTextXML bodies and a namespaced PMC
OAI-PMH record; plus the ways a JATS answer can hold no text or no XML at all."""

from __future__ import annotations

import pytest
import yaml

from litsearch.fulltext.document import NoFullText
from litsearch.fulltext.jats import jats_license, parse_jats

PMC = "fulltext/pmc/"
EFETCH_2016 = PMC + "eutils__efetch_pmc_3299399_body_2016.xml"
EFETCH_CASSETTE = PMC + "eutils__efetch_pmc_3299399_vcr_cassette_2024.yaml"
STRUCTURED = PMC + "pyeuropepmc__fullTextXML_PMC13173394_structured_abstract_figs_tables_formulas.xml"
MATHML = PMC + "pyeuropepmc__fullTextXML_PMC13133655_structured_abstract_jats14_mathml.xml"
PLAIN = PMC + "pyeuropepmc__fullTextXML_PMC13238313_plain_abstract_no_figures.xml"
LETTER = PMC + "pyeuropepmc__fullTextXML_PMC13244564_letter_no_abstract.xml"
OAI = PMC + "pubmedclient__oai_pmh_getrecord_pmc_7500000_namespaced_jats.xml"


def by_kind(document, kind):
    return [section for section in document.sections if section.kind == kind]


def test_efetch_body_gives_every_part_in_order(shared):
    body = shared(EFETCH_2016).read_bytes()
    document = parse_jats(body)
    assert document.title == "The Effects of Psychosis Risk Variants on Brain Connectivity: A Review"
    assert document.authors == ["Omar Mothersill", "Sinead Kelly", "Emma Jane Rose", "Gary Donohoe"]
    assert document.identifiers == {"pmid": "22416237", "pmcid": "PMC3299399", "doi": "10.3389/fpsyt.2012.00018"}
    assert jats_license(body) == "CC BY-NC 3.0 (http://creativecommons.org/licenses/by-nc/3.0/)"
    kinds = [section.kind for section in document.sections if section.level == 1]
    # abstract first; body sections in order; captions; the reference list last
    assert kinds[0] == "abstract" and kinds[-3:] == ["figures", "tables", "references"]
    assert kinds.index("methods") < kinds.index("results") < kinds.index("discussion")
    assert [s.number for s in document.sections][:4] == ["1", "2", "2.1", "2.2"]
    references = by_kind(document, "references")[0].text.split("\n")
    assert len(references) == 76  # one line per <ref>
    # names are people ("Braff D. L., Freedman R."), ids are set apart from the pages before them
    assert references[0].startswith("Braff D. L., Freedman R., Schork N. J., Gottesman I. I. (2007).")
    assert "33, 21 doi:10.1093/schbul/sbl049 PMID:17088422" in references[0]
    assert len(by_kind(document, "figures")[0].text.split("\n\n")) == 2
    assert by_kind(document, "figures")[0].text.startswith("Figure 1. ")
    # figure captions are not repeated inside the running text
    caption = by_kind(document, "figures")[0].text.split("\n\n")[0][len("Figure 1. "):][:60]
    assert all(caption not in s.text for s in document.sections if s.kind != "figures")
    names = [s.name for s in document.sections]
    assert len(names) == len(set(names))


def test_the_2024_efetch_answer_reads_like_the_2016_one(shared):
    cassette = yaml.safe_load(shared(EFETCH_CASSETTE).read_text(encoding="utf-8"))
    body = cassette["interactions"][0]["response"]["body"]["string"]  # XML declaration and DOCTYPE this time
    assert body.startswith("<?xml") and "<!DOCTYPE" in body
    recent, old = parse_jats(body), parse_jats(shared(EFETCH_2016).read_bytes())
    assert recent.title == old.title
    assert [s.heading for s in recent.sections] == [s.heading for s in old.sections]


def test_structured_abstract_keeps_its_labels_and_formulas_their_tex(shared):
    document = parse_jats(shared(STRUCTURED).read_bytes())
    abstract = by_kind(document, "abstract")[0].text
    for label in ("Rationale:", "Methods:", "Results:", "Conclusions:"):
        assert label in abstract
    assert len(by_kind(document, "figures")[0].text.split("\n\n")) == 9
    assert len(by_kind(document, "references")[0].text.split("\n")) == 53
    # the <ref-list> inside a back-matter <sec> is not a second, empty References section
    assert [s.kind for s in document.sections].count("references") == 1
    assert all(s.text or any(o.level > s.level for o in document.sections) for s in document.sections)


def test_doctype_after_a_leading_newline_and_mathml(shared):
    raw = shared(MATHML).read_bytes()
    assert raw.startswith(b"\n<!DOCTYPE")
    document = parse_jats(raw)
    assert document.title.startswith("Fast and Sensitive Measurement of Off")
    assert document.identifiers["pmcid"] == "PMC13133655"
    methods = [s for s in document.sections if s.kind == "methods" and s.level == 1]
    assert methods and methods[0].heading == "2 Materials and Methods"


def test_plain_abstract_and_untitled_body_text(shared):
    document = parse_jats(shared(PLAIN).read_bytes())
    assert document.sections[0].kind == "abstract" and ":" not in document.sections[0].text[:20]
    assert document.sections[1].heading == "Main text"  # paragraphs before the first <sec>
    assert not by_kind(document, "figures")


def test_letter_without_abstract(shared):
    document = parse_jats(shared(LETTER).read_bytes())
    assert not by_kind(document, "abstract")
    assert document.sections[0].text.startswith("To the Editor,")
    assert len(by_kind(document, "references")[0].text.split("\n")) == 4


def test_namespaced_jats_in_an_oai_pmh_envelope(shared):
    raw = shared(OAI).read_bytes()
    document = parse_jats(raw)
    assert document.title == "Multiple paragangliomas: a case report"
    assert document.identifiers["doi"] == "10.1186/s12920-020-00789-8"
    assert by_kind(document, "abstract")[0].text.startswith("Background: ")
    assert len(by_kind(document, "figures")[0].text.split("\n\n")) == 2
    assert jats_license(raw).startswith("CC BY 4.0")


FRONT_ONLY = ("<pmc-articleset><article><!--The publisher of this article does not allow downloading of the full "
              "text in XML form.--><front><article-meta><title-group><article-title>T</article-title>"
              "</title-group></article-meta></front></article></pmc-articleset>")


def test_front_matter_only_is_no_full_text():
    with pytest.raises(NoFullText, match="does not allow"):
        parse_jats(FRONT_ONLY)
    with pytest.raises(NoFullText, match="no body text"):
        parse_jats("<article><front/><body><sec><title>Empty</title></sec></body></article>")


@pytest.mark.parametrize("body", [b"", b"<html><body>Service unavailable</body></html>", b"\x89PNG\r\n",
                                  b"<pmc-articleset></pmc-articleset>", b"<article><body><p>unclosed"])
def test_what_is_no_jats_raises_value_error(body):
    with pytest.raises((ValueError, NoFullText)):
        parse_jats(body)


def test_entities_are_refused_not_expanded():
    bomb = ('<?xml version="1.0"?><!DOCTYPE article [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
            "<article><body><p>&b;&b;&b;</p></body></article>")
    with pytest.raises(ValueError, match="not well-formed XML"):
        parse_jats(bomb)


def test_hostile_characters_never_reach_the_text():
    # XML itself refuses terminal escapes; what it allows (bidi overrides, tag characters that can
    # carry hidden instructions, BOMs) is removed.
    body = ("<article><front><article-meta><title-group><article-title>T\u202eevil\U000e0041</article-title>"
            "</title-group></article-meta></front><body><sec><title>In\u2066tro</title><p>A\u200eB\ufeff</p></sec>"
            "</body></article>")
    document = parse_jats(body.encode())
    assert document.title == "Tevil"
    assert document.sections[0].heading == "Intro" and document.sections[0].text == "AB"


def test_floats_inside_a_paragraph_are_captions_not_running_text():
    body = ("<article><body><sec><title>Results</title><p>Before the figure <fig id='f9'><label>Figure 9</label>"
            "<caption><p>Caption words.</p></caption><graphic/></fig>after it <table-wrap><label>Table 2</label>"
            "<caption><title>Counts.</title></caption><table><tr><td>1</td></tr></table></table-wrap>end.</p>"
            "</sec></body></article>")
    document = parse_jats(body)
    assert document.sections[0].text == "Before the figure after it end."
    assert by_kind(document, "figures")[0].text == "Figure 9. Caption words."
    assert by_kind(document, "tables")[0].text == "Table 2. Counts."
