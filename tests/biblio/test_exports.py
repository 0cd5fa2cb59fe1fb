"""The export writers, checked with real parsers: bibtexparser, rispy, our own readers and the
CSL-JSON schema (a hand-written subset: no package ships the official one; see the file)."""

from __future__ import annotations

import json

import bibtexparser
import jsonschema
import pytest
from conftest import DATA as TEST_DATA
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts

from litsearch.biblio.readers import read_records
from litsearch.biblio.names import PersonName, citation_keys, split_name
from litsearch.biblio.writers import publication_kind, to_bibtex, to_csl_json, to_csv, to_ris
from litsearch.core.records import Paper

CSL_SCHEMA = TEST_DATA / "csl-data.subset.json"
SPECIAL_TITLE = r"DNA & RNA: 50% of cases_x cost $5 #1 ~ a^b back\slash {braces} in Zürich"


def paper(**fields) -> Paper:
    return Paper(provider=fields.pop("provider", "test"), title=fields.pop("title", "A title"), **fields)


@pytest.fixture
def papers() -> list[Paper]:
    return [
        paper(title="Attention Is All You Need", authors=["Ashish Vaswani", "Noam Shazeer"], year=2017,
              journal="Neural Information Processing Systems", publication_types=["Conference"],
              pages="5998-6008", volume="30", doi="10.5555/3295222.3295349"),
        paper(title="Attention is all you need", authors=["Vaswani A", "Shazeer N"], year=2017,
              arxiv_id="1706.03762", journal="ArXiv", publication_types=["preprint"],
              abstract="The dominant sequence\ntransduction models."),
        paper(title="DNA targeting specificity of RNA-guided Cas9 nucleases", year=2013,
              authors=["Hsu PD", "Scott DA", "Weinstein JA"], journal="Nature Biotechnology", volume="31",
              issue="9", pages="827-832", doi="10.1038/nbt.2647", pmid="23873081", publication_date="2013-07-21",
              abstract="BACKGROUND: The <i>Streptococcus pyogenes</i> Cas9 nuclease.", publication_types=["Journal Article"]),
        paper(title=SPECIAL_TITLE, authors=["Müller, Jörg", "WHO Collaborating Group", "Barnes and Noble"],
              year=2020, journal="Revue européenne & co", volume="7", issue="2", pages="e12724"),
        paper(title="", authors=[], year=None),
    ]


# --------------------------------------------------------------------------- names and keys


@pytest.mark.parametrize(("name", "expected"), [
    ("Vaswani, Ashish", PersonName(family="Vaswani", given="Ashish")),
    ("Ashish Vaswani", PersonName(family="Vaswani", given="Ashish")),
    ("Hsu PD", PersonName(family="Hsu", given="P. D.")),
    ("Smith J.", PersonName(family="Smith", given="J.")),
    ("Ludwig van Beethoven", PersonName(family="van Beethoven", given="Ludwig")),
    ("van der Berg, Jan", PersonName(family="van der Berg", given="Jan")),
    ("Martin Luther King Jr.", PersonName(family="King", given="Martin Luther", suffix="Jr.")),
    ("King, Jr., Martin Luther", PersonName(family="King", given="Martin Luther", suffix="Jr.")),
    ("Aristotle", PersonName(family="Aristotle")),
    ("WHO Collaborating Group", PersonName(literal="WHO Collaborating Group")),
    ("Group, ALTS", PersonName(literal="Group, ALTS")),
    ("The 1000 Genomes Project Consortium", PersonName(literal="The 1000 Genomes Project Consortium")),
    ("Barnes and Noble", PersonName(literal="Barnes and Noble")),
    ("{Smith Family Trust}", PersonName(literal="Smith Family Trust")),
    ("  ", None),
])
def test_split_name(name, expected):
    assert split_name(name) == expected


def test_citation_keys_are_stable_ascii_and_deduplicated():
    records = [
        paper(title="Attention Is All You Need", authors=["Ashish Vaswani"], year=2017),
        paper(title="Attention is all you need", authors=["Vaswani, A."], year=2017),
        paper(title="Attention: all you need?", authors=["Vaswani A"], year=2017),
        paper(title="The Über-study of Ørsted's law", authors=["Müller-Lüdenscheidt, Jörg"], year=2001),
        paper(title="On the 2019 novel coronavirus", authors=["World Health Organization"]),
        paper(title="", authors=[]),
    ]
    keys = citation_keys(records)
    assert keys == ["vaswani2017attention", "vaswani2017attentiona", "vaswani2017attentionb",
                    "mullerludenscheidt2001uber", "worldndnovel", "anonnd"]
    assert citation_keys(records) == keys  # same input, same keys


def test_suffixes_continue_past_z():
    keys = citation_keys([paper(title="Same", authors=["Lee, K"], year=2000)] * 28)
    assert keys[:2] == ["lee2000same", "lee2000samea"] and keys[26:] == ["lee2000samez", "lee2000sameaa"]
    assert len(set(keys)) == 28


def test_publication_kind():
    assert publication_kind(paper(journal="Nature")) == "journal"
    assert publication_kind(paper(arxiv_id="2101.00001")) == "preprint"
    assert publication_kind(paper(doi="10.48550/arxiv.2101.00001")) == "preprint"
    assert publication_kind(paper(journal="bioRxiv")) == "preprint"
    assert publication_kind(paper(journal="Cell", arxiv_id="2101.00001")) == "journal"
    assert publication_kind(paper(journal="Proc. ACL", publication_types=["inproceedings"])) == "conference"
    assert publication_kind(paper(journal="International Workshop on Things")) == "conference"
    assert publication_kind(paper(journal="Proceedings of the National Academy of Sciences")) == "journal"
    assert publication_kind(paper()) == "other"


def test_wrong_number_of_keys_is_an_error(papers):
    with pytest.raises(ValueError, match="keys given"):
        to_bibtex(papers, keys=["only-one"])


# --------------------------------------------------------------------------- BibTeX


def parse_bibtex(text: str, *middleware):
    library = bibtexparser.parse_string(text, append_middleware=list(middleware))
    assert not library.failed_blocks, [block.error for block in library.failed_blocks]
    return library


def test_bibtex_parses_with_bibtexparser(papers):
    library = parse_bibtex(to_bibtex(papers))
    entries = {entry.key: entry for entry in library.entries}
    assert list(entries) == ["vaswani2017attention", "vaswani2017attentiona", "hsu2013dna", "muller2020dna",
                             "anonnd"]
    conference, preprint, article, special, empty = entries.values()
    assert conference.entry_type == "inproceedings"
    assert conference["booktitle"] == "Neural Information Processing Systems"
    assert conference["pages"] == "5998--6008" and conference["doi"] == "10.5555/3295222.3295349"
    assert preprint.entry_type == "misc"
    assert (preprint["eprint"], preprint["archivePrefix"]) == ("1706.03762", "arXiv")
    assert preprint["abstract"] == "The dominant sequence transduction models."
    assert article.entry_type == "article" and article["journal"] == "Nature Biotechnology"
    assert article["title"] == "{DNA} targeting specificity of {RNA-guided} {Cas9} nucleases"
    assert (article["volume"], article["number"], article["pmid"]) == ("31", "9", "23873081")
    assert article["abstract"] == "BACKGROUND: The Streptococcus pyogenes Cas9 nuclease."
    assert special["journal"] == r"Revue européenne \& co"
    assert empty.entry_type == "misc" and empty.fields == []


def test_bibtex_escapes_decode_back_to_the_original(papers, tmp_path):
    text = to_bibtex(papers)
    # Our reader undoes every escape, braces included.
    path = tmp_path / "out.bib"
    path.write_text(text, encoding="utf-8")
    assert read_records(path)[3].title == SPECIAL_TITLE
    # pylatexenc (through bibtexparser) agrees on everything but \textbraceleft/right, which it
    # does not know: they are still standard LaTeX and, unlike \{, keep BibTeX's brace count right.
    decoded = parse_bibtex(text, LatexDecodingMiddleware()).entries[3]["title"]
    assert decoded.replace("ˆ", "^") == SPECIAL_TITLE.replace("{braces}", "braces")


def test_bibtex_names_split_as_bibtex_does(papers):
    library = parse_bibtex(to_bibtex(papers), SeparateCoAuthors(), SplitNameParts())
    special = library.entries[3]["author"]
    assert [(name.last, name.first) for name in special] == [
        (["Müller"], ["Jörg"]), (["{WHO Collaborating Group}"], []), (["{Barnes and Noble}"], [])]
    hsu = library.entries[2]["author"][0]
    assert (hsu.last, hsu.first) == (["Hsu"], ["P.", "D."])


def test_bibtex_round_trips_through_our_reader(papers, tmp_path):
    path = tmp_path / "out.bib"
    path.write_text(to_bibtex(papers), encoding="utf-8")
    again = read_records(path)
    assert [p.external_ids["ID"] for p in again] == citation_keys(papers)
    assert again[2].authors == ["Hsu, P. D.", "Scott, D. A.", "Weinstein, J. A."]
    assert again[3].authors == ["Müller, Jörg", "WHO Collaborating Group", "Barnes and Noble"]
    assert (again[2].doi, again[2].pmid, again[2].pages, again[2].year) == ("10.1038/nbt.2647", "23873081",
                                                                          "827-832", 2013)
    assert again[1].arxiv_id == "1706.03762"


# --------------------------------------------------------------------------- RIS


def test_ris_layout(papers):
    text = to_ris(papers)
    records = [record for record in text.split("\r\n\r\n") if record.strip()]
    assert len(records) == len(papers)
    for record in records:
        lines = record.strip("\r\n").split("\r\n")
        assert lines[0].startswith("TY  - ") and lines[-1] == "ER  - "
        assert all(line[2:6] == "  - " for line in lines)
    assert "\n" not in text.replace("\r\n", "")


def test_ris_round_trips_through_rispy(papers):
    entries = rispy.loads(to_ris(papers))
    assert len(entries) == len(papers)
    conference, preprint, article, special, empty = entries
    assert conference["type_of_reference"] == "CONF"
    assert conference["secondary_title"] == "Neural Information Processing Systems"
    assert (conference["start_page"], conference["end_page"]) == ("5998", "6008")
    assert preprint["type_of_reference"] == "UNPB" and "https://arxiv.org/abs/1706.03762" in preprint["urls"]
    assert article["type_of_reference"] == "JOUR"
    assert article["authors"] == ["Hsu, P. D.", "Scott, D. A.", "Weinstein, J. A."]
    assert (article["journal_name"], article["volume"], article["number"], article["doi"]) == (
        "Nature Biotechnology", "31", "9", "10.1038/nbt.2647")
    assert article["year"] == "2013" and article["id"] == "hsu2013dna"
    assert special["title"] == SPECIAL_TITLE
    assert special["authors"] == ["Müller, Jörg", "WHO Collaborating Group", "Barnes and Noble"]
    assert empty["type_of_reference"] == "GEN"


def test_ris_round_trips_through_our_reader(papers, tmp_path):
    path = tmp_path / "out.ris"
    path.write_text(to_ris(papers), encoding="utf-8", newline="")
    again = read_records(path)
    assert [p.external_ids["ID"] for p in again] == citation_keys(papers)
    for before, after in zip(papers[:4], again):
        assert after.title == before.title or after.title == " ".join(before.title.split())
        assert after.year == before.year
    assert again[0].pages == "5998-6008" and again[0].journal == "Neural Information Processing Systems"
    assert again[1].arxiv_id == "1706.03762"
    assert again[1].abstract == "The dominant sequence transduction models."
    assert (again[2].doi, again[2].volume, again[2].issue) == ("10.1038/nbt.2647", "31", "9")
    assert again[3].pages == "e12724"


# --------------------------------------------------------------------------- CSL-JSON


@pytest.fixture(scope="module")
def csl_validator():
    schema = json.loads(CSL_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_csl_json_is_valid_against_the_schema(papers, csl_validator):
    items = json.loads(to_csl_json(papers))
    errors = [f"{list(error.path)}: {error.message}" for error in csl_validator.iter_errors(items)]
    assert errors == []


def test_the_schema_catches_mistakes(csl_validator):
    assert not csl_validator.is_valid([{"id": "x", "type": "journal-article"}])  # not a CSL type
    assert not csl_validator.is_valid([{"id": "x", "type": "article", "doi": "10.1/x"}])  # DOI is upper-case
    assert not csl_validator.is_valid([{"id": "x", "type": "article", "author": [{"last": "X"}]}])
    assert not csl_validator.is_valid([{"type": "article"}])  # id is required


def test_csl_json_fields(papers):
    conference, preprint, article, special, empty = json.loads(to_csl_json(papers))
    assert (conference["type"], conference["page"], conference["volume"]) == ("paper-conference", "5998-6008", "30")
    assert preprint["type"] == "article"
    assert (preprint["number"], preprint["publisher"]) == ("arXiv:1706.03762", "arXiv")
    assert "container-title" not in preprint
    assert article == {
        "id": "hsu2013dna", "type": "article-journal",
        "title": "DNA targeting specificity of RNA-guided Cas9 nucleases",
        "author": [{"family": "Hsu", "given": "P. D."}, {"family": "Scott", "given": "D. A."},
                   {"family": "Weinstein", "given": "J. A."}],
        "issued": {"date-parts": [[2013, 7, 21]]}, "container-title": "Nature Biotechnology",
        "volume": "31", "issue": "9", "page": "827-832", "DOI": "10.1038/nbt.2647", "PMID": "23873081",
        "URL": "https://doi.org/10.1038/nbt.2647",
        "abstract": "BACKGROUND: The Streptococcus pyogenes Cas9 nuclease.",
    }
    assert special["author"] == [{"family": "Müller", "given": "Jörg"}, {"literal": "WHO Collaborating Group"},
                                 {"literal": "Barnes and Noble"}]
    assert special["issued"] == {"date-parts": [[2020]]} and special["title"] == SPECIAL_TITLE
    assert empty == {"id": "anonnd", "type": "document"}


# --------------------------------------------------------------------------- CSV


def test_csv_round_trips_through_our_reader(papers, tmp_path):
    path = tmp_path / "out.csv"
    path.write_text(to_csv(papers), encoding="utf-8", newline="")
    again = read_records(path)
    assert [p.external_ids["ID"] for p in again] == citation_keys(papers)
    for before, after in zip(papers, again):
        assert (after.year, after.volume, after.issue, after.pages, after.doi, after.pmid) == (
            before.year, before.volume, before.issue, before.pages, before.doi, before.pmid)
    assert again[3].title == SPECIAL_TITLE
    assert again[3].authors == ["Müller, Jörg", "WHO Collaborating Group", "Barnes and Noble"]
    assert again[0].publication_types == ["inproceedings"] and again[0].journal == papers[0].journal
    assert again[1].arxiv_id == "1706.03762" and again[2].abstract == papers[2].abstract.replace("<i>", "").replace(
        "</i>", "")
