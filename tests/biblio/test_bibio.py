"""The readers of `lit-search dedupe`: CSV, RIS and BibTeX, awkward encodings, IDs and errors."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from conftest import DATA as TEST_DATA, skip_without_shared
from conftest import SHARED

from litsearch.core.errors import InputError
from litsearch.biblio.bibtex import decode_latex
from litsearch.biblio.readers import decode_text, load_records, read_records, sniff_format
from litsearch.biblio.fields import read_benchmark_csv, split_bibtex_authors

DATA = TEST_DATA / "dedupe"
SAME_RECORDS = ["small.csv", "latin1.csv", "bom.csv", "records.ris", "records.txt", "records.bib", "records_bib.data"]


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the hand-made files


@pytest.mark.parametrize("name", SAME_RECORDS)
def test_every_format_of_the_same_export_reads_the_same(name):
    papers = read_records(DATA / name)
    assert [p.external_ids["ID"] for p in papers] == ["r1", "r2", "r3", "r4", "rec_000005", "r6", "r7"]
    muller = papers[4]
    assert muller.title == "Müller's study of café culture in Zürich"
    assert muller.authors[0] == "Müller, Jörg" and muller.year == 2019
    assert muller.journal == "Revue européenne" and muller.pages == "101-120"
    assert papers[0].authors == ["He, Kaiming", "Zhang, Xiangyu", "Ren, Shaoqing", "Sun, Jian"]
    assert papers[0].doi == papers[1].doi == "10.1109/cvpr.2016.90"
    assert papers[1].title.lower() == "deep residual learning for image recognition"
    assert papers[3].pages in ("5998-6008",) and papers[3].volume == "30"


def test_formats_are_detected_by_extension_then_by_content():
    assert load_records(DATA / "records.ris").format == "ris"
    assert load_records(DATA / "records.txt").format == "ris"  # .txt: sniffed
    assert load_records(DATA / "records.bib").format == "bibtex"
    assert load_records(DATA / "records_bib.data").format == "bibtex"  # unknown extension: sniffed
    assert load_records(DATA / "bom.csv").format == "csv"


def test_sniffing_recognises_each_format():
    assert sniff_format("TY  - JOUR\nTI  - x\nER  - \n") == "ris"
    assert sniff_format("% comment\n@Article{k,\n title={x}}\n") == "bibtex"
    assert sniff_format("Title,Authors,Year\nA,B,2001\n") == "csv"
    assert sniff_format("just some notes, nothing else\n") is None


def test_an_explicit_format_overrides_the_extension(tmp_path):
    path = write(tmp_path, "export.csv", "TY  - JOUR\nTI  - Misnamed\nER  - \n")
    assert read_records(path, format="ris")[0].title == "Misnamed"


# --------------------------------------------------------------------------- decoding


def test_decoding_handles_boms_legacy_encodings_and_line_ends():
    assert decode_text(codecs.BOM_UTF8 + "Zürich\r\n".encode()) == "Zürich\n"
    assert decode_text(codecs.BOM_UTF16_LE + "Zürich\r\n".encode("utf-16-le")) == "Zürich\n"
    assert decode_text("Zürich\r".encode("latin-1")) == "Zürich\n"
    # Windows-1252's curly quotes and dashes (0x93, 0x94, 0x96), as "ANSI" exports write them.
    assert decode_text(b"\x93Quoted\x94 \x96 dash") == "“Quoted” – dash"
    assert decode_text(b"\x81 undefined in cp1252") == "\x81 undefined in cp1252"  # Latin-1 fallback


def test_a_file_mixing_utf8_and_latin1_lines_keeps_both():
    mixed = "Zürich, UTF-8\n".encode() + "Zürich, Latin-1\r\n".encode("latin-1")
    assert decode_text(mixed) == "Zürich, UTF-8\nZürich, Latin-1\n"


def test_a_binary_file_is_refused():
    with pytest.raises(InputError, match="not a text file"):
        decode_text(b"PK\x03\x04\x00\x00binary", "archive.zip")


# --------------------------------------------------------------------------- CSV


def test_csv_with_missing_columns_cells_and_ids(tmp_path):
    path = write(tmp_path, "x.csv", "title,year\nFirst paper,2001\n\n,\nSecond paper,\n")
    first, second = read_records(path)
    assert (first.title, first.year, first.authors, first.doi) == ("First paper", 2001, [], None)
    assert [first.external_ids["ID"], second.external_ids["ID"]] == ["rec_000001", "rec_000002"]
    assert second.year is None


def test_csv_header_aliases_and_semicolon_delimiter(tmp_path):
    path = write(tmp_path, "x.csv", "Id;Title;Authors;Publication Year;Source Title;DOI\n"
                                    'a1;A title;"Smith, J.; Jones, K.";2015;Some Journal;doi:10.1234/ABC\n')
    (paper,) = read_records(path)
    assert paper.external_ids == {"ID": "a1"}
    assert paper.authors == ["Smith, J.", "Jones, K."]
    assert (paper.year, paper.journal, paper.doi) == (2015, "Some Journal", "10.1234/abc")


def test_csv_without_any_known_column_is_refused(tmp_path):
    path = write(tmp_path, "x.csv", "foo,bar\n1,2\n")
    with pytest.raises(InputError, match="names none of the expected columns"):
        read_records(path)


def test_repeated_ids_are_renamed_with_a_warning(tmp_path):
    path = write(tmp_path, "x.csv", "ID,title\nk,One\nk,Two\nk_2,Three\nk,Four\n")
    loaded = load_records(path)
    assert [p.external_ids["ID"] for p in loaded.papers] == ["k", "k_3", "k_2", "k_4"]
    assert len(loaded.warnings) == 1 and "2 record(s) repeat an ID" in loaded.warnings[0]


def test_a_generated_id_never_takes_an_id_the_file_uses(tmp_path):
    path = write(tmp_path, "x.csv", "ID,title\nrec_000002,One\n,Two\n")
    assert [p.external_ids["ID"] for p in read_records(path)] == ["rec_000002", "rec_000002_2"]


def test_split_bibtex_authors_respects_braces_and_semicolons():
    assert split_bibtex_authors("{Barnes and Noble} and Smith, J.") == ["Barnes and Noble", "Smith, J."]
    assert split_bibtex_authors("Smith, J.; Jones, K.;") == ["Smith, J.", "Jones, K."]
    assert split_bibtex_authors("Zuna, R E and Wang, S. S. and Group, ALTS") == ["Zuna, R E", "Wang, S. S.",
                                                                                 "Group, ALTS"]


# --------------------------------------------------------------------------- RIS

RIS = (
    "Provider: Some Database\r\nContent: text/plain\r\n\r\n"
    "TY  - JOUR\r\nAU  - Vaswani, Ashish\r\nAU  - Shazeer, Noam\r\nA1  - Parmar, Niki\r\n"
    "TI  - Attention is all\r\n   you need\r\nJF  - Full Journal\r\nJO  - Abbrev J\r\nPY  - 2017///\r\n"
    "SP  - 5998\r\nEP  - 6008\r\nVL  - 30\r\nIS  - 1\r\nAB  - First line\r\nsecond line.\r\n"
    "UR  - https://doi.org/10.5555/ABC\r\nUR  - https://arxiv.org/abs/1706.03762v5\r\nER  - \r\n"
    "TY  - CPAPER\r\nID  - own-id\r\nT1  - Conference paper\r\nT2  - Proc. Conf\r\nDO  - 10.1000/X\r\nER  -\r\n"
    "TY  - BOOK\r\nTI  - Left open at the end\r\nSP  - 5-9\r\n"
)


def test_ris_tags_repeats_continuations_and_open_records(tmp_path):
    first, second, third = read_records(write(tmp_path, "x.ris", RIS))
    assert first.authors == ["Vaswani, Ashish", "Shazeer, Noam", "Parmar, Niki"]
    assert first.title == "Attention is all you need"
    assert first.abstract == "First line second line."
    assert (first.journal, first.year, first.volume, first.issue, first.pages) == ("Full Journal", 2017, "30", "1",
                                                                                  "5998-6008")
    assert first.doi == "10.5555/abc" and first.arxiv_id == "1706.03762"
    assert first.url == "https://doi.org/10.5555/ABC"
    assert first.publication_types == ["article"] and first.external_ids == {"ID": "rec_000001"}
    assert (second.external_ids["ID"], second.title, second.journal, second.doi) == (
        "own-id", "Conference paper", "Proc. Conf", "10.1000/x")
    assert second.publication_types == ["inproceedings"]
    assert (third.title, third.pages, third.publication_types) == ("Left open at the end", "5-9", ["book"])


def test_ris_without_any_record_is_refused(tmp_path):
    with pytest.raises(InputError, match="no RIS records"):
        read_records(write(tmp_path, "x.ris", "AU  - Orphan, A.\nTI  - No TY line\n"))


# --------------------------------------------------------------------------- BibTeX

BIBTEX = r"""
This text outside entries is a comment, as is any line starting with %.
% @article{commented_out, title = {Never read}}
@String{nat = "Nature"}
@STRING(jn = {Journal of } # nat)
@comment{jabref-meta: databaseType:bibtex;}
@preamble{ "\newcommand{\noop}[1]{}" }

@Article{muller2020,
  Author = {M{\"u}ller, J{\"o}rg and {World Health Organization} and {Barnes and Noble} and Fran\c{c}ois, Ren\'{e}},
  title = {{DNA} repair in {\em E.~coli}: 50\% of \$ \& $\alpha$-synuclein --- a \textbf{review}},
  journal = jn,
  year = 2020, month = jan,
  pages = {47--65},
  doi = {10.1000/abc\_def},
  % a note between fields
  abstract = "Quoted {"}value{"} with \"{o} and \\ a line break",
}
@inproceedings{,
  title = {No key here},
  booktitle = {Proc. } # "ACL",
  year = {2019}
}
@misc{muller2020, title={Same key again}, eprint={1706.03762}, archivePrefix={arXiv}}
@article(paren, title = "Parenthesised entry", author = "Smith, John and Doe, Jane")
@article{biblatex, title = {Biblatex fields}, journaltitle = {A Journal}, date = {2018-05-01}, issue = {4},
         eprinttype = {pubmed}, eprint = {12345678}}
"""


def test_bibtex_grammar_macros_comments_and_keys(tmp_path):
    loaded = load_records(write(tmp_path, "x.bib", BIBTEX))
    first, keyless, repeat, paren, biblatex = loaded.papers
    assert [p.external_ids["ID"] for p in loaded.papers] == ["muller2020", "rec_000002", "muller2020_2", "paren",
                                                             "biblatex"]
    assert loaded.warnings and "muller2020" in loaded.warnings[0]
    assert first.journal == "Journal of Nature"
    assert (first.year, first.pages, first.doi) == (2020, "47-65", "10.1000/abc_def")
    assert first.abstract == 'Quoted "value" with ö and a line break'
    assert keyless.journal == "Proc. ACL" and keyless.publication_types == ["inproceedings"]
    assert repeat.arxiv_id == "1706.03762" and repeat.publication_types == ["misc"]
    assert paren.authors == ["Smith, John", "Doe, Jane"]
    assert (biblatex.journal, biblatex.year, biblatex.issue, biblatex.pmid, biblatex.arxiv_id) == (
        "A Journal", 2018, "4", "12345678", None)


def test_bibtex_accents_braces_and_group_authors(tmp_path):
    (first, *_) = read_records(write(tmp_path, "x.bib", BIBTEX))
    assert first.authors == ["Müller, Jörg", "World Health Organization", "Barnes and Noble", "François, René"]
    assert first.title == "DNA repair in E. coli: 50% of $ & α-synuclein — a review"


@pytest.mark.parametrize(("tex", "text"), [
    (r'{\"u}', "ü"), (r'\"{u}', "ü"), (r"\'e", "é"), (r"\'{\i}", "í"), (r"\c{c}", "ç"), (r"\c c", "ç"),
    (r"\v{s}", "š"), (r"\H{o}", "ő"), (r"\~n", "ñ"), (r"\^{o}", "ô"), (r"\`a", "à"), (r"\r{a}", "å"),
    (r"\k{a}", "ą"), (r"{\ss}", "ß"), (r"{\o}", "ø"), (r"\O{}rsted", "Ørsted"), (r"\aa", "å"), (r"\l{}", "ł"),
    (r"G\"{o}del's {T}heorem", "Gödel's Theorem"), (r"\textit{in vivo}", "in vivo"), (r"\LaTeX{} tips", "LaTeX tips"),
    (r"10--20", "10–20"), (r"\textbackslash{}", "\\"), (r"\textbraceleft{}x\textbraceright{}", "{x}"),
    (r"\{x\}", "{x}"), (r"\textasciitilde{}", "~"), (r"a~b", "a b"), (r"\#1 \_x", "#1 _x"),
])
def test_decode_latex(tex, text):
    assert decode_latex(tex) == text


def test_verbatim_fields_keep_their_characters():
    assert decode_latex(r"https://x.org/a\_b~c?d=%20", verbatim=True) == "https://x.org/a_b~c?d=%20"


def test_bibtex_errors_name_the_line_and_entry(tmp_path):
    with pytest.raises(InputError, match=r"line 4 \(in r3, which starts on line 2\).*brace left open"):
        read_records(write(tmp_path, "a.bib", "\n@article{r3, title = {Open {brace},\n year = {2001}}\n@article{r4,}\n"))
    with pytest.raises(InputError, match=r"line 1 \(in k\): the entry never closes"):
        read_records(write(tmp_path, "b.bib", "@article{k, title = {x\n"))
    with pytest.raises(InputError, match="unexpected 't' after the entry key"):
        read_records(write(tmp_path, "c.bib", "@article{k title = {x}}\n"))
    with pytest.raises(InputError, match="expected a field name"):
        read_records(write(tmp_path, "d.bib", "@article{k, = {x}}\n"))


def test_bibtex_file_with_only_macros_has_no_records(tmp_path):
    with pytest.raises(InputError, match="no records found"):
        read_records(write(tmp_path, "x.bib", "@string{a = {b}}\n"))


# --------------------------------------------------------------------------- bad input


def test_bad_input_raises_one_line_errors(tmp_path):
    cases = {
        tmp_path / "missing.csv": "no such file",
        tmp_path: "is a directory",
        write(tmp_path, "empty.csv", ""): "the file is empty",
        write(tmp_path, "blank.ris", " \n\r\n"): "the file is empty",
        write(tmp_path, "notes.xyz", "some notes\n"): "cannot tell the format",
    }
    for path, message in cases.items():
        with pytest.raises(InputError, match=message) as caught:
            read_records(path)
        assert "\n" not in str(caught.value)


def test_unknown_explicit_format_is_refused(tmp_path):
    with pytest.raises(InputError, match="unknown input format"):
        read_records(write(tmp_path, "x.csv", "title\nA\n"), format="endnote")


# --------------------------------------------------------------------------- the benchmark files


def test_read_records_matches_the_benchmark_reader():
    path = SHARED / "benchmarks" / "dedupe" / "special_cases" / "records_pre_merged.csv"
    if not path.exists():
        skip_without_shared(f"benchmark data not available: {path}")
    assert read_records(path) == read_benchmark_csv(path)
