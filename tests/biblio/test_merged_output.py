"""`dedupe --merged` keeps a reviewer's records: a record without duplicates is written
exactly as read (every field, same entry type), a merged record keeps every field of its
members that does not conflict (page ranges whole, keyword lists united), and another
output format carries every field over. Checked through the real command and, for the
round trips, with independent parsers (bibtexparser, rispy)."""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path

import bibtexparser
import rispy

from command import lit_search_command

BIB_UNIQUE = r"""% exported by a reference manager
@string{jbiol = "Journal of Theoretical Biology"}

@book{knuth1984,
  author    = {Donald E. Knuth},
  title     = {The {\TeX}book},
  publisher = {Addison-Wesley},
  address   = {Reading, Mass.},
  edition   = {1st},
  isbn      = {0-201-13447-0},
  year      = 1984,
}

@article{turing1952,
  Author   = "Turing, A. M.",
  title    = {The chemical basis of morphogenesis},
  journal  = jbiol,
  year     = {1952},
  volume   = {237},
  pages    = {37--72},
  keywords = {morphogenesis; reaction-diffusion},
  note     = {Classic paper},
  file     = {:papers/turing1952.pdf:PDF},
  custom-field = {kept as is},
}

@inproceedings{lamport1978,
  author = {Lamport, Leslie},
  title = {Time, clocks, and the ordering of events},
  booktitle = {Communications of the ACM},
  year = {1978}, month = jul, pages = {558--565}
}
"""

RIS_UNIQUE = """TY  - JOUR
ID  - a1
AU  - Hsu, Patrick D
AU  - Scott, David A
TI  - DNA targeting specificity of RNA-guided Cas9 nucleases
PY  - 2013
VL  - 31
IS  - 9
SP  - 827
EP  - 832
KW  - CRISPR
KW  - off-target
N1  - screened: include
C1  - a custom tag
DO  - 10.1038/nbt.2647
ER  - 

TY  - JOUR
ID  - a2
AU  - Someone, A
TI  - An article whose journal field is missing
PY  - 2020
ER  - 

TY  - BOOK
ID  - a3
AU  - Alberts, Bruce
TI  - Molecular Biology of the Cell
PB  - Garland Science
CY  - New York
ET  - 6th
SN  - 978-0815344322
PY  - 2014
ER  - 
"""


def run_dedupe(tmp_path: Path, name: str, text: str, merged: str, encoding: str = "utf-8") -> tuple[Path, str]:
    source = tmp_path / name
    source.write_bytes(text.encode(encoding))
    out = tmp_path / merged
    proc = subprocess.run([*lit_search_command(), "dedupe", str(source), "-o", str(tmp_path / "clusters.csv"),
                           "--merged", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return out, proc.stderr


def ris_records(text: str) -> list[str]:
    """Each record's lines (TY to ER), line ends normalised."""
    blocks = text.replace("\r\n", "\n").strip().split("\nER  - ")
    return [block.strip() + "\nER  -" for block in blocks if block.strip()]


# --------------------------------------------------------------------------- as read

def test_unique_bibtex_records_are_written_exactly_as_read(tmp_path):
    out, _ = run_dedupe(tmp_path, "refs.bib", BIB_UNIQUE, "merged.bib")
    written = out.read_text(encoding="utf-8")
    for key in ("knuth1984", "turing1952", "lamport1978"):
        start = BIB_UNIQUE.index("@", BIB_UNIQUE.index(key) - 20)
        end = BIB_UNIQUE.index("\n}", start) + 2 if key != "lamport1978" else BIB_UNIQUE.rindex("}") + 1
        assert BIB_UNIQUE[start:end] in written, key
    parsed = {entry.key: entry for entry in bibtexparser.parse_string(written).entries}
    assert parsed["knuth1984"].entry_type == "book"
    assert {"publisher", "address", "edition", "isbn"} <= set(parsed["knuth1984"].fields_dict)
    assert {"keywords", "note", "file", "custom-field"} <= {f.lower() for f in parsed["turing1952"].fields_dict}


def test_unique_ris_records_are_written_exactly_as_read(tmp_path):
    out, _ = run_dedupe(tmp_path, "refs.ris", RIS_UNIQUE, "merged.ris")
    written = out.read_text(encoding="utf-8")
    assert ris_records(written) == ris_records(RIS_UNIQUE)
    entries = rispy.loads(written)
    assert [entry["type_of_reference"] for entry in entries] == ["JOUR", "JOUR", "BOOK"]  # JOUR stays JOUR
    assert entries[2]["publisher"] == "Garland Science" and entries[0]["keywords"] == ["CRISPR", "off-target"]


def test_unique_csv_rows_keep_every_column(tmp_path):
    text = ("ID,title,author,year,publisher,my_notes,pages\n"
            "c1,A first title,Smith J,2001,Press One,include,10-20\n"
            "c2,\"A second, quoted title\",Jones K,2002,,exclude,\n")
    out, _ = run_dedupe(tmp_path, "refs.csv", text, "merged.csv")
    assert list(csv.reader(io.StringIO(out.read_text(encoding="utf-8")))) == list(csv.reader(io.StringIO(text)))


# --------------------------------------------------------------------------- merged

def test_a_merged_ris_record_keeps_every_field_and_the_whole_page_range(tmp_path):
    text = """TY  - JOUR
ID  - m1
AU  - Keller, M
TI  - Genome-wide detection of off-target sites
JO  - Genome Research
PY  - 2021
VL  - 31
SP  - 1616
KW  - CRISPR
DO  - 10.1101/gr.1616
ER  - 

TY  - JOUR
ID  - m2
AU  - Keller, Maria
AU  - Weber, J
TI  - Genome-wide detection of off-target sites.
PY  - 2021
SP  - 1616
EP  - 1620
KW  - off-target
KW  - CRISPR
N1  - from Embase
DO  - https://doi.org/10.1101/GR.1616
ER  - 
"""
    out, _ = run_dedupe(tmp_path, "pair.ris", text, "merged.ris")
    [entry] = rispy.loads(out.read_text(encoding="utf-8"))
    assert entry["id"] == "m1"
    assert (entry["start_page"], entry["end_page"]) == ("1616", "1620")
    # m2 has more fields, so it is the base: its values and order first, m1's additions after.
    assert entry["keywords"] == ["off-target", "CRISPR"]
    assert entry["journal_name"] == "Genome Research" and entry["notes"] == ["from Embase"]
    assert entry["authors"] == ["Keller, Maria", "Weber, J"]  # one record's list, whole
    assert entry["title"] == "Genome-wide detection of off-target sites."


def test_a_merged_bibtex_record_unites_keywords_and_keeps_the_range(tmp_path):
    text = """@article{x1, title = {Reaction and diffusion in the embryo}, author = {Roe, A and Poe, B},
  year = {2010}, doi = {10.1000/rd.1}, pages = {1616}, keywords = {embryo; diffusion}}
@article{x2, title = {Reaction and diffusion in the embryo}, author = {Roe, A. and Poe, B.},
  year = {2010}, doi = {10.1000/RD.1}, pages = {1616--1620}, keywords = {diffusion, morphogen},
  publisher = {Elsevier}}
"""
    out, _ = run_dedupe(tmp_path, "pair.bib", text, "merged.bib")
    [entry] = bibtexparser.parse_string(out.read_text(encoding="utf-8")).entries
    fields = {name: field.value for name, field in entry.fields_dict.items()}
    assert entry.key == "x1" and fields["pages"] == "1616--1620" and fields["publisher"] == "Elsevier"
    assert fields["keywords"] == "diffusion, morphogen, embryo"  # x2 (more fields) is the base


# --------------------------------------------------------------------------- other formats

def test_ris_to_bibtex_keeps_the_entry_type_and_every_field(tmp_path):
    out, _ = run_dedupe(tmp_path, "refs.ris", RIS_UNIQUE, "merged.bib")
    entries = {entry.key: entry for entry in bibtexparser.parse_string(out.read_text(encoding="utf-8")).entries}
    book = {name: field.value for name, field in entries["a3"].fields_dict.items()}
    assert entries["a3"].entry_type == "book"
    assert (book["publisher"], book["address"], book["edition"], book["isbn"]) == (
        "Garland Science", "New York", "6th", "978-0815344322")
    first = {name: field.value for name, field in entries["a1"].fields_dict.items()}
    assert entries["a2"].entry_type == "article"
    assert first["keywords"] == "CRISPR; off-target" and first["ris_c1"] == "a custom tag"
    assert first["pages"] == "827-832" and first["number"] == "9"


def test_bibtex_to_ris_and_csv_keep_every_field(tmp_path):
    ris, _ = run_dedupe(tmp_path, "refs.bib", BIB_UNIQUE, "merged.ris")
    entries = {entry["id"]: entry for entry in rispy.loads(ris.read_text(encoding="utf-8"))}
    book = entries["knuth1984"]
    assert book["type_of_reference"] == "BOOK" and book["publisher"] == "Addison-Wesley"
    assert book["place_published"] == "Reading, Mass." and book["edition"] == "1st"
    assert entries["turing1952"]["keywords"] == ["morphogenesis", "reaction-diffusion"]
    assert "custom-field: kept as is" in entries["turing1952"]["notes"]
    table, _ = run_dedupe(tmp_path, "refs2.bib", BIB_UNIQUE, "merged.csv")
    rows = {row["ID"]: row for row in csv.DictReader(io.StringIO(table.read_text(encoding="utf-8")))}
    assert rows["knuth1984"]["ENTRYTYPE"] == "book" and rows["knuth1984"]["isbn"] == "0-201-13447-0"
    assert rows["turing1952"]["journal"] == "Journal of Theoretical Biology"


# --------------------------------------------------------------------------- awkward inputs

def test_a_ris_file_cut_mid_record_is_read_and_the_record_named(tmp_path):
    cut = RIS_UNIQUE[: RIS_UNIQUE.index("PB  - Garland")]
    out, stderr = run_dedupe(tmp_path, "cut.ris", cut, "merged.ris")
    assert "warning: record 3 (ID a3, 'Molecular Biology of the Cell') end without an 'ER  -' line" in stderr
    rows = list(csv.reader((tmp_path / "clusters.csv").open(encoding="utf-8")))
    assert [row[0] for row in rows[1:]] == ["a1", "a2", "a3"]
    assert rispy.loads(out.read_text(encoding="utf-8"))[2]["title"] == "Molecular Biology of the Cell"


def test_a_field_over_128_kib_does_not_reject_the_file(tmp_path):
    huge = "word " * 60_000  # 300 KB abstract
    text = f"ID,title,abstract\nh1,A title,{huge}\nh2,Another title,short\n"
    out, stderr = run_dedupe(tmp_path, "huge.csv", text, "merged.csv")
    csv.field_size_limit(1 << 24)  # for this test's own reader
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [row["ID"] for row in rows] == ["h1", "h2"] and rows[0]["abstract"] == huge  # kept whole
    assert "compared by their first 64 KiB" in stderr


def test_utf16_without_a_byte_order_mark_is_read(tmp_path):
    for codec in ("utf-16-le", "utf-16-be"):
        out, _ = run_dedupe(tmp_path, f"{codec}.ris", RIS_UNIQUE.replace("Hsu", "Hsü"), f"{codec}-merged.ris",
                            encoding=codec)
        assert "Hsü, Patrick D" in out.read_text(encoding="utf-8")


