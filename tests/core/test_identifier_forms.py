"""Every spelling of every paper id that users type and APIs send, on real ids, and the
spellings that must be refused (path tricks, near misses, ids of another kind). Written to
kill the mutants of core/identifiers.py (bench/mutation.py): each case names the real id."""

from __future__ import annotations

import pytest

from litsearch.core.errors import UnknownIdError
from litsearch.core.identifiers import (
    ID_VOCABULARY, PaperRef, field_label, id_kind, id_label, identity, normalize_doi, normalize_identifier,
    normalize_openalex_id, normalize_pmcid, normalize_pmid, normalize_s2_id, parse_paper_ref, parse_pmcid_ref,
    record_identities, split_arxiv_id,
)

ATTENTION_S2 = "204e3073870fae3d05bcbc2f6a8e263d9b72e776"  # "Attention is all you need"


@pytest.mark.parametrize("raw,expected", [
    # prefixes APIs and exports put before a DOI
    ("doi:10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("DOI 10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("Doi: 10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("doi=10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("[doi] 10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("info:doi/10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("https://www.doi.org/10.1038/nbt.2647", "10.1038/nbt.2647"),
    ("HTTPS://DOI.ORG/10.1038/NBT.2647", "10.1038/nbt.2647"),
    ("  10.1038/nbt.2647  ", "10.1038/nbt.2647"),
    # PubMed's suffix
    ("10.1038/nbt.2647 [doi]", "10.1038/nbt.2647"),
    ("10.1038/nbt.2647 [DOI]", "10.1038/nbt.2647"),
    # punctuation a sentence or a citation leaves behind
    ("10.1038/nbt.2647;", "10.1038/nbt.2647"),
    ("10.1038/nbt.2647,", "10.1038/nbt.2647"),
    ("'10.1038/nbt.2647'", None),  # a leading quote is not a DOI prefix
    ("10.1038/nbt.2647'", "10.1038/nbt.2647"),
    ('10.1038/nbt.2647"', "10.1038/nbt.2647"),
    ("10.1038/nbt.2647.,;", "10.1038/nbt.2647"),
    # closing brackets: dropped only when unbalanced
    ("(see 10.1038/nbt.2647)", None),
    ("10.1038/nbt.2647)", "10.1038/nbt.2647"),
    ("10.1038/nbt.2647]", "10.1038/nbt.2647"),
    ("10.1038/nbt.2647}", "10.1038/nbt.2647"),
    ("10.1038/nbt.2647>", "10.1038/nbt.2647"),
    ("10.1016/S0140-6736(20)30183-5", "10.1016/s0140-6736(20)30183-5"),
    ("10.1016/S0140-6736(20)30183-5).", "10.1016/s0140-6736(20)30183-5"),
    ("10.1002/(SICI)1097-4636[199703]", "10.1002/(sici)1097-4636[199703]"),
    ("10.1093/nar/{gkh}", "10.1093/nar/{gkh}"),
    ("10.1093/nar/<gkh>", "10.1093/nar/<gkh>"),
    ("10.1002/(SICI)1097-4636(199703)", "10.1002/(sici)1097-4636(199703)"),
    # Wiley's DOIs end in ".x": a letter, not punctuation
    ("10.1111/j.1365-2133.2005.06597.x", "10.1111/j.1365-2133.2005.06597.x"),
    ("10.1111/J.1365-2133.2005.06597.X", "10.1111/j.1365-2133.2005.06597.x"),  # as Crossref's API sends it
    # registrant codes of 4 to 9 digits only
    ("10.123/x", None), ("10.1234/x", "10.1234/x"), ("10.123456789/x", "10.123456789/x"),
    ("10.1234567890/x", None), ("11.1038/nbt.2647", None), ("10.1038", None), ("10.1038/", None),
    ("10.1038/nbt 2647", None),
    # path tricks are not ids
    ("10.1234/../../../../X", None), ("10.1234/./x", None), ("10.1234/x/../y", None), ("10.1234/x/./y", None),
    ("10.1234/%2e%2e/x", None), ("10.1234%2F..%2Fx", None), ("10.1234/x%2fy", "10.1234/x/y"), ("10.1234/x%252fy", None), ("10.1234/x\x00y", None),
    ("10.1234/x\x7f", None), ("10.1234/%252e%252e/x", None),
    ("10.1234/a..b", "10.1234/a..b"), ("10.1234/a.b/c", "10.1234/a.b/c"),
    (12345, None),
])
def test_doi_spellings(raw, expected):
    assert normalize_doi(raw) == expected


@pytest.mark.parametrize("raw,expected", [
    ("2101.00001", ("2101.00001", None)),
    ("2101.00001v12", ("2101.00001", "v12")),
    ("0704.0001", ("0704.0001", None)),  # four-digit numbers (2007-2014)
    ("2101.000011", (None, None)),
    ("210.00001", (None, None)),
    ("arXiv:2101.00001", ("2101.00001", None)),
    ("ARXIV:2101.00001V3", ("2101.00001", "V3")),
    ("https://arxiv.org/abs/2101.00001v2", ("2101.00001", "v2")),
    ("https://export.arxiv.org/abs/2101.00001", ("2101.00001", None)),
    ("arxiv.org/pdf/2101.00001.PDF", ("2101.00001", None)),
    ("https://example.org/abs/2101.00001", (None, None)),
    ("hep-th/9901001", ("hep-th/9901001", None)),
    ("HEP-TH/9901001v2", ("hep-th/9901001", "v2")),
    ("math.GT/0309136", ("math/0309136", None)),
    ("math.gt/0309136", ("math/0309136", None)),
    ("hep-th/990100", (None, None)),
    ("hep-th/99010011", (None, None)),
    ("2101.00001 extra", (None, None)),
    (" 2101.00001 ", ("2101.00001", None)),
    ("", (None, None)), (None, (None, None)),
])
def test_arxiv_spellings(raw, expected):
    assert split_arxiv_id(raw) == expected


@pytest.mark.parametrize("raw,expected", [
    ("31452104", "31452104"), ("PMID: 31452104", "31452104"), ("0031452104", "31452104"),
    ("https://pubmed.ncbi.nlm.nih.gov/31452104/", "31452104"), ("31452104 ", "31452104"),
    (31452104, "31452104"), ("1234567890", "234567890"), ("no digits", None), (None, None),
])
def test_pmid_spellings(raw, expected):
    assert normalize_pmid(raw) == expected


@pytest.mark.parametrize("raw,expected", [
    ("https://openalex.org/W2741809807", "W2741809807"), ("w2741809807", "W2741809807"),
    ("W2741809807  ", "W2741809807"), ("A5023888391", None), ("", None), (None, None),
])
def test_openalex_spellings(raw, expected):
    assert normalize_openalex_id(raw) == expected


@pytest.mark.parametrize("raw,expected", [
    ("PMC3299399", "PMC3299399"), ("pmc3299399", "PMC3299399"), ("3299399", "PMC3299399"),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC3299399/", "PMC3299399"), ("none", None), (None, None),
])
def test_pmcid_spellings(raw, expected):
    assert normalize_pmcid(raw) == expected


@pytest.mark.parametrize("raw,expected", [
    (ATTENTION_S2.upper(), ATTENTION_S2),
    (f"https://www.semanticscholar.org/paper/{ATTENTION_S2}", ATTENTION_S2),
    (f"https://semanticscholar.org/paper/Attention-is-All-you-Need-Vaswani/{ATTENTION_S2}/", ATTENTION_S2),
    ("  CorpusId:13756489  ", "CorpusId:13756489"),  # opaque ids are kept as given
    ("", None), ("   ", None), (None, None),
])
def test_semantic_scholar_spellings(raw, expected):
    assert normalize_s2_id(raw) == expected


@pytest.mark.parametrize("name,field", [
    ("DOI", "doi"), ("PubMed", "pmid"), ("pubmed_id", "pmid"), ("PubMed Central", "pmcid"), ("arXiv-ID", "arxiv_id"),
    ("ArXiv", "arxiv_id"), ("openalex id", "openalex_id"), ("paperId", "paper_id"), ("S2", "paper_id"),
    ("CorpusId", "corpus_id"), ("PMID", "pmid"), ("PMCID", "pmcid"), ("PMC", "pmcid"), ("S2-id", "paper_id"),
    ("MAG", "mag"), ("DBLP", "dblp"), ("ACL", "acl"), ("ISBN", None), (7, None),
])
def test_id_names_in_any_spelling(name, field):
    kind = id_kind(name)
    assert (kind.field if kind else None) == field


def test_labels_and_prose():
    assert [kind.label for kind in ID_VOCABULARY] == ["DOI", "PMID", "PMCID", "ArXiv", "OpenAlex", "S2", "CorpusId",
                                                     "MAG", "DBLP", "ACL"]
    assert field_label("arxiv_id") == "ArXiv" and field_label("paper_id") == "S2"
    assert id_label("pubmed") == "PMID" and id_label("arxiv") == "ArXiv" and id_label("ISBN") == "ISBN"
    assert PaperRef("arxiv", "1706.03762").label == "arXiv 1706.03762"
    assert PaperRef("openalex", "W2741809807").label == "OpenAlex id W2741809807"
    assert PaperRef("s2", ATTENTION_S2).identity == ("paper_id", ATTENTION_S2)
    assert PaperRef("corpusid", "13756489").field == "corpus_id"


@pytest.mark.parametrize("kind,field,label", [
    ("doi", "doi", "DOI 10.1038/nbt.2647"), ("pmid", "pmid", "PMID 31452104"), ("pmcid", "pmcid", "PMCID PMC3299399"),
    ("arxiv", "arxiv_id", "arXiv 1706.03762"), ("openalex", "openalex_id", "OpenAlex id W2741809807"),
    ("s2", "paper_id", f"Semantic Scholar id {ATTENTION_S2}"), ("corpusid", "corpus_id", "CorpusId 13756489"),
    ("mag", "mag", "MAG id 2963403868"), ("dblp", "dblp", "DBLP key conf/nips/VaswaniSPUJGKP17"),
    ("acl", "acl", "ACL id W17-1001"),
])
def test_each_kind_of_ref_names_its_field_and_reads_in_a_sentence(kind, field, label):
    value = label.rsplit(" ", 1)[1]
    ref = PaperRef(kind, value)
    assert (ref.field, ref.label, ref.identity) == (field, label, (field, value))


@pytest.mark.parametrize("field,value,expected", [
    ("doi", "https://doi.org/10.1038/NBT.2647", "10.1038/nbt.2647"),
    ("pmid", " PMID: 31452104 ", "31452104"),
    ("pmcid", "3299399", "PMC3299399"),
    ("arxiv_id", "arXiv:1706.03762v7", "1706.03762"),
    ("openalex_id", "https://openalex.org/W2741809807", "W2741809807"),
    ("paper_id", ATTENTION_S2.upper(), ATTENTION_S2),
    ("dblp", "  conf/nips/VaswaniSPUJGKP17\n", "conf/nips/VaswaniSPUJGKP17"),
    ("mag", "2963403868", "2963403868"),
    ("dblp", "conf/nips/Vaswani \t 2017", "conf/nips/Vaswani 2017"),
    ("dblp", "   ", None), ("dblp", None, None), ("mag", None, None), ("doi", "", None), ("doi", None, None), ("pmid", 0, "0"),
])
def test_normalize_identifier_by_field(field, value, expected):
    assert normalize_identifier(field, value) == expected


def test_identity_turns_arxiv_dois_into_arxiv_ids_and_keeps_publisher_dois():
    assert identity("doi", "10.48550/arXiv.1706.03762") == ("arxiv_id", "1706.03762")
    assert identity("doi", "10.48550/arXiv.not-an-id") is None
    assert identity("doi", "10.1038/NBT.2647") == ("doi", "10.1038/nbt.2647")
    assert identity("pmid", "PMID:31452104") == ("pmid", "31452104")
    assert identity("doi", "no doi here") is None


def test_record_identities_in_order_from_every_spelling():
    record = {
        "title": "Attention is all you need",
        "paper_id": ATTENTION_S2,
        "doi": "10.48550/arXiv.1706.03762",
        "external_ids": {"PubMed": ["31452104", "PMID:31452104"], "OpenAlex": "https://openalex.org/W2741809807",
                         "DOI": "10.5555/3295222.3295349", "MAG": "2963403868", "PMCID": "PMC3299399"},
    }
    assert record_identities(record) == [
        ("doi", "10.5555/3295222.3295349"), ("pmid", "31452104"), ("arxiv_id", "1706.03762"),
        ("openalex_id", "W2741809807"), ("paper_id", ATTENTION_S2)]
    assert record_identities({"external_ids": ["10.1038/nbt.2647"], "doi": None}) == []


def test_several_values_of_one_kind_come_in_order():
    pmids = ["31452104", "20301425", "9", "123456789", "55555"]
    assert record_identities({"pmid": pmids}) == [("pmid", value) for value in sorted(pmids)]


@pytest.mark.parametrize("typed,kind,value", [
    ("10.1038/NBT.2647", "doi", "10.1038/nbt.2647"),
    ("doi:10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("DOI 10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("https://doi.org/10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("dx.doi.org/10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("https://doi.org/10.48550/arXiv.1706.03762", "arxiv", "1706.03762"),
    ("10.48550/arXiv.1706.03762", "arxiv", "1706.03762"),
    ("doi:10.48550/arXiv.1706.03762", "arxiv", "1706.03762"),
    ("31452104", "pmid", "31452104"),
    ("031452104", "pmid", "31452104"),
    ("PMID: 31452104", "pmid", "31452104"),
    ("pmid 031452104", "pmid", "31452104"),
    ("https://pubmed.ncbi.nlm.nih.gov/31452104/", "pmid", "31452104"),
    ("https://www.ncbi.nlm.nih.gov/pubmed/031452104?dopt=Abstract", "pmid", "31452104"),
    ("1706.03762", "arxiv", "1706.03762"),
    ("arXiv:1706.03762v7", "arxiv", "1706.03762"),
    ("ARXIV 1706.03762", "arxiv", "1706.03762"),
    ("https://arxiv.org/abs/1706.03762v5", "arxiv", "1706.03762"),
    ("https://arxiv.org/pdf/hep-th/9901001v2", "arxiv", "hep-th/9901001"),
    ("hep-th/9901001", "arxiv", "hep-th/9901001"),
    (ATTENTION_S2.upper(), "s2", ATTENTION_S2),
    (f"https://www.semanticscholar.org/paper/Attention-Is-All-You-Need/{ATTENTION_S2.upper()}", "s2", ATTENTION_S2),
    ("CorpusId:013756489", "corpusid", "13756489"),
    ("corpusid 13756489", "corpusid", "13756489"),
    ("W2741809807", "openalex", "W2741809807"),
    ("https://openalex.org/works/w2741809807", "openalex", "W2741809807"),
    ("https://api.openalex.org/W2741809807/", "openalex", "W2741809807"),
    ("  10.1038/nbt.2647\n", "doi", "10.1038/nbt.2647"),
])
def test_every_typed_id_form(typed, kind, value):
    assert parse_paper_ref(typed) == PaperRef(kind, value)


@pytest.mark.parametrize("typed,message", [
    ("", "the paper id is empty!"),
    ("   ", "the paper id is empty!"),
    (None, "the paper id is empty!"),
    ("10.1234/" + "x" * 293, "the paper id is 301 characters long; ids are at most 300"),
    ("doi:not-a-doi", "'doi:not-a-doi' is not a valid doi id: use a DOI"),
    ("PMID: 12a", "'PMID: 12a' is not a valid PMID id"),
    ("arxiv: 99", "'arxiv: 99' is not a valid arxiv id"),
    ("CorpusId:x1", "'CorpusId:x1' is not a valid CorpusId id"),
    ("https://doi.org/10.1234/../../x", "unrecognised paper id 'https://doi.org/10.1234/../../x'"),
    ("https://arxiv.org/abs/nonsense", "unrecognised paper id"),
    ("https://example.org/31452104", "unrecognised paper id"),
    ("1234567890", "unrecognised paper id '1234567890': use a DOI (10.…"),
    ("a study of cats", "or an OpenAlex id (W…)"),
])
def test_ids_that_are_refused_say_why(typed, message):
    with pytest.raises(UnknownIdError) as caught:
        parse_paper_ref(typed)
    if message.endswith("!"):  # the whole message
        assert str(caught.value) == message[:-1]
    else:
        assert message in str(caught.value)


def test_an_id_of_exactly_300_characters_is_read():
    doi = "10.1234/" + "x" * 292
    assert len(doi) == 300
    assert parse_paper_ref(doi) == PaperRef("doi", doi)


@pytest.mark.parametrize("typed,value", [
    ("PMC3299399", "PMC3299399"), ("pmc3299399", "PMC3299399"), ("PMCID: PMC3299399", "PMC3299399"),
    ("pmcid:pmc3299399", "PMC3299399"), ("PMC3299399.1", "PMC3299399"),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC3299399/", "PMC3299399"),
    ("https://pmc.ncbi.nlm.nih.gov/articles/PMC3299399", "PMC3299399"),
    ("https://europepmc.org/article/PMC/PMC3299399", "PMC3299399"),
    ("europepmc.org/articles/PMC3299399", "PMC3299399"),
    ("  PMC3299399  ", "PMC3299399"),
])
def test_pmcid_refs(typed, value):
    assert parse_pmcid_ref(typed) == PaperRef("pmcid", value)


@pytest.mark.parametrize("typed", ["3299399", "PMC", "PMC12345678901", "https://example.org/PMC3299399", "", None])
def test_text_that_is_not_a_pmcid_ref(typed):
    assert parse_pmcid_ref(typed) is None

# An id copied from the Markdown lit-search prints carries the renderer's escapes.
@pytest.mark.parametrize("spelled", [
    "doi:10.1007/978-3-319-89929-9_12", "10.1002/(SICI)1097-4636(199603)30:3<353::AID-JBM9>3.0.CO;2-S",
    "doi:10.1000/a*b_[c]#d", "arXiv:2101.00001", "PMID:123", "W2741809807",
])
def test_an_id_copied_from_printed_markdown_reads_as_the_id(spelled):
    from litsearch.render.markup import markdown_text

    printed = markdown_text(spelled, None)
    assert parse_paper_ref(printed) == parse_paper_ref(spelled)
    if "_" in spelled:
        assert "\\_" in printed  # the escape the test is about is really there
