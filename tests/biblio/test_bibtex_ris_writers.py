"""The BibTeX and RIS writers (biblio/writers.py) byte for byte on real papers: a journal
article, an arXiv preprint, a conference paper, a retracted article, and records of every other
kind with every character TeX treats specially. Written to kill the mutants of the writers
(bench/mutation.py); test_exports.py checks the same output with independent parsers."""

from __future__ import annotations

import pytest

from litsearch.biblio.writers import bibtex_text, bibtex_type, publication_kind, to_bibtex, to_ris, update_note
from litsearch.core.records import Paper
from litsearch.core.updates import update

JINEK = Paper(
    provider="openalex", title="A Programmable Dual-RNA–Guided DNA Endonuclease in Adaptive Bacterial Immunity",
    authors=["Martin Jinek", "Krzysztof Chylinski", "Ines Fonfara", "Michael Hauer", "Jennifer A. Doudna",
             "Emmanuelle Charpentier"],
    year=2012, journal="Science", volume="337", issue="6096", pages="816-821", doi="10.1126/science.1225829",
    pmid="22745249", publication_types=["journal-article"])
VASWANI = Paper(
    provider="arxiv", title="Attention Is All You Need", authors=["Ashish Vaswani", "Noam Shazeer"], year=2017,
    journal="arXiv", arxiv_id="1706.03762", doi="10.48550/arXiv.1706.03762",
    abstract="The dominant sequence  transduction models\nare based on RNNs -- or CNNs.")
HE = Paper(
    provider="openalex", title="Deep Residual Learning for Image Recognition", authors=["Kaiming He", "Xiangyu Zhang"],
    year=2016, journal="2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)", pages="770--778",
    doi="10.1109/CVPR.2016.90")
WAKEFIELD = Paper(
    provider="pubmed", title="Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental "
                             "disorder in children",
    authors=["A J Wakefield", "Smith, John, Jr."], year=1998, journal="The Lancet", volume="351", issue="9103",
    pages="637–41", doi="10.1016/S0140-6736(97)11096-0", pmid="9500320", retracted=True,
    updates=[update("retraction", "10.1016/S0140-6736(10)60175-4", "2010-02-06", "crossref")])

FOUR_BIBTEX = r"""@article{jinek2012programmable,
  author = {Jinek, Martin and Chylinski, Krzysztof and Fonfara, Ines and Hauer, Michael and Doudna, Jennifer A. and Charpentier, Emmanuelle},
  title = {A Programmable {Dual-RNA–Guided} {DNA} Endonuclease in Adaptive Bacterial Immunity},
  journal = {Science},
  year = {2012},
  volume = {337},
  number = {6096},
  pages = {816--821},
  doi = {10.1126/science.1225829},
  pmid = {22745249}
}

@misc{vaswani2017attention,
  author = {Vaswani, Ashish and Shazeer, Noam},
  title = {Attention Is All You Need},
  year = {2017},
  doi = {10.48550/arXiv.1706.03762},
  eprint = {1706.03762},
  archivePrefix = {arXiv},
  abstract = {The dominant sequence transduction models are based on RNNs -{}- or CNNs.}
}

@inproceedings{he2016deep,
  author = {He, Kaiming and Zhang, Xiangyu},
  title = {Deep Residual Learning for Image Recognition},
  booktitle = {2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)},
  year = {2016},
  pages = {770--778},
  doi = {10.1109/CVPR.2016.90}
}

@article{wakefield1998ileal,
  author = {Wakefield, A J and Smith, John, Jr.},
  title = {Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children},
  journal = {The Lancet},
  year = {1998},
  volume = {351},
  number = {9103},
  pages = {637--41},
  doi = {10.1016/S0140-6736(97)11096-0},
  pmid = {9500320},
  note = {RETRACTED (retraction: 10.1016/S0140-6736(10)60175-4 (2010-02-06))}
}
"""

FOUR_RIS = """TY  - JOUR
ID  - jinek2012programmable
AU  - Jinek, Martin
AU  - Chylinski, Krzysztof
AU  - Fonfara, Ines
AU  - Hauer, Michael
AU  - Doudna, Jennifer A.
AU  - Charpentier, Emmanuelle
TI  - A Programmable Dual-RNA–Guided DNA Endonuclease in Adaptive Bacterial Immunity
PY  - 2012
JO  - Science
VL  - 337
IS  - 6096
SP  - 816
EP  - 821
DO  - 10.1126/science.1225829
UR  - https://doi.org/10.1126/science.1225829
ER  - 

TY  - UNPB
ID  - vaswani2017attention
AU  - Vaswani, Ashish
AU  - Shazeer, Noam
TI  - Attention Is All You Need
PY  - 2017
JO  - arXiv
DO  - 10.48550/arXiv.1706.03762
AB  - The dominant sequence transduction models are based on RNNs -- or CNNs.
UR  - https://doi.org/10.48550/arXiv.1706.03762
UR  - https://arxiv.org/abs/1706.03762
ER  - 

TY  - CONF
ID  - he2016deep
AU  - He, Kaiming
AU  - Zhang, Xiangyu
TI  - Deep Residual Learning for Image Recognition
PY  - 2016
T2  - 2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)
SP  - 770
EP  - 778
DO  - 10.1109/CVPR.2016.90
UR  - https://doi.org/10.1109/CVPR.2016.90
ER  - 

TY  - JOUR
ID  - wakefield1998ileal
AU  - Wakefield, A J
AU  - Smith, John, Jr.
TI  - Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children
PY  - 1998
JO  - The Lancet
VL  - 351
IS  - 9103
SP  - 637
EP  - 41
DO  - 10.1016/S0140-6736(97)11096-0
N1  - RETRACTED (retraction: 10.1016/S0140-6736(10)60175-4 (2010-02-06))
UR  - https://doi.org/10.1016/S0140-6736%2897%2911096-0
ER  - 
""".replace("\n", "\r\n")


def test_four_real_papers_in_bibtex():
    assert to_bibtex([JINEK, VASWANI, HE, WAKEFIELD]) == FOUR_BIBTEX


def test_four_real_papers_in_ris():
    assert to_ris([JINEK, VASWANI, HE, WAKEFIELD]) == FOUR_RIS


AWKWARD = Paper(
    provider="import", title="50% of R&D_costs: $x^2$ ~ #1 {braces} \\ and a -- dash in mRNA COVID-19 work",
    authors=["The ENCODE Project Consortium", "John Smith Jr.", "Ludwig van Beethoven"], year=2020,
    journal="Proc. R&D_Lab #3", volume="1_2", issue="3%", pages="e1001", publication_types=["book"],
    doi="10.1002/(SICI)1097-4636(199703)35:1<1::AID-JBM1>3.0.CO;2-{X}", url="javascript:alert(1)",
    oa_url="https://europepmc.org/articles/PMC123;jsessionid=1")
OTHERS = [
    AWKWARD,
    Paper(provider="import", title="A chapter", authors=["Ann Lee"], year=2001, journal="Handbook of Things",
          publication_types=["book-chapter"]),
    Paper(provider="import", title="A thesis", year=1999, publication_types=["dissertation"],
          url="https://repo.example.edu/t/1"),
    Paper(provider="import", title="A report", publication_types=["techreport"], pmid="9086401"),
    Paper(provider="import", title="Untyped", doi="10.48550/arXiv.2101.00001"),
    Paper(provider="import", title="Corrected only", journal="PLoS One",
          updates=[update("correction", None, None, "pubmed", notice_pmid="111")]),
    Paper(provider="import", title="Nothing known"),
]
KEYS = ["smith 2020,{x}", "lee2001", "", "r", "u", "c", "n"]

OTHERS_BIBTEX = r"""@book{smith_2020__x_,
  author = {{The ENCODE Project Consortium} and Smith, Jr., John and van Beethoven, Ludwig},
  title = {50\% of {R\&D\_costs:} \$x\textasciicircum{}2\$ \textasciitilde{} \#1 \textbraceleft{}braces\textbraceright{} \textbackslash{} and a -{}- dash in {mRNA} {COVID-19} work},
  howpublished = {Proc. R\&D\_Lab \#3},
  year = {2020},
  volume = {1\_2},
  number = {3\%},
  pages = {e1001},
  doi = {10.1002/(SICI)1097-4636(199703)35:1<1::AID-JBM1>3.0.CO;2-%7BX%7D},
  url = {https://europepmc.org/articles/PMC123;jsessionid=1}
}

@incollection{lee2001,
  author = {Lee, Ann},
  title = {A chapter},
  booktitle = {Handbook of Things},
  year = {2001}
}

@phdthesis{ref,
  title = {A thesis},
  year = {1999},
  url = {https://repo.example.edu/t/1}
}

@techreport{r,
  title = {A report},
  pmid = {9086401},
  url = {https://pubmed.ncbi.nlm.nih.gov/9086401/}
}

@misc{u,
  title = {Untyped},
  doi = {10.48550/arXiv.2101.00001},
  eprint = {2101.00001},
  archivePrefix = {arXiv}
}

@article{c,
  title = {Corrected only},
  journal = {PLoS One},
  note = {Notices: correction: PMID 111}
}

@misc{n,
  title = {Nothing known}
}
"""

OTHERS_RIS = """TY  - BOOK
ID  - smith 2020,{x}
AU  - The ENCODE Project Consortium
AU  - Smith, John, Jr.
AU  - van Beethoven, Ludwig
TI  - 50% of R&D_costs: $x^2$ ~ #1 {braces} \\ and a -- dash in mRNA COVID-19 work
PY  - 2020
JO  - Proc. R&D_Lab #3
VL  - 1_2
IS  - 3%
SP  - e1001
DO  - 10.1002/(SICI)1097-4636(199703)35:1<1::AID-JBM1>3.0.CO;2-{X}
UR  - https://europepmc.org/articles/PMC123%3Bjsessionid=1
ER  - 

TY  - CHAP
ID  - lee2001
AU  - Lee, Ann
TI  - A chapter
PY  - 2001
T2  - Handbook of Things
ER  - 

TY  - THES
TI  - A thesis
PY  - 1999
UR  - https://repo.example.edu/t/1
ER  - 

TY  - RPRT
ID  - r
TI  - A report
UR  - https://pubmed.ncbi.nlm.nih.gov/9086401/
ER  - 

TY  - UNPB
ID  - u
TI  - Untyped
DO  - 10.48550/arXiv.2101.00001
UR  - https://doi.org/10.48550/arXiv.2101.00001
UR  - https://arxiv.org/abs/2101.00001
ER  - 

TY  - JOUR
ID  - c
TI  - Corrected only
JO  - PLoS One
N1  - Notices: correction: PMID 111
ER  - 

TY  - GEN
ID  - n
TI  - Nothing known
ER  - 
""".replace("\n", "\r\n")


def test_every_other_kind_and_every_special_character_in_bibtex():
    assert to_bibtex(OTHERS, KEYS) == OTHERS_BIBTEX


def test_every_other_kind_and_every_special_character_in_ris():
    assert to_ris(OTHERS, KEYS) == OTHERS_RIS


@pytest.mark.parametrize("fields,kind,entry", [
    ({"publication_types": ["preprint"], "journal": "Cell"}, "preprint", "misc"),
    ({"publication_types": ["Posted-Content"]}, "preprint", "misc"),
    ({"publication_types": ["unpublished"]}, "preprint", "misc"),
    ({"publication_types": ["manuscript"]}, "preprint", "misc"),
    ({"journal": "bioRxiv"}, "preprint", "misc"),
    ({"journal": "medRxiv (Cold Spring Harbor Laboratory)"}, "preprint", "misc"),
    ({"journal": "SSRN Electronic Journal"}, "preprint", "misc"),
    ({"journal": "Research Square"}, "preprint", "misc"),
    ({"journal": "Preprints.org"}, "preprint", "misc"),
    ({"journal": "OSF Preprints"}, "preprint", "misc"),
    ({"arxiv_id": "1706.03762"}, "preprint", "misc"),
    ({"arxiv_id": "1706.03762", "journal": "NeurIPS"}, "journal", "article"),  # published: the venue decides
    ({"doi": "10.48550/ARXIV.1706.03762"}, "preprint", "misc"),
    ({"publication_types": ["proceedings-article"]}, "conference", "inproceedings"),
    ({"publication_types": ["paper-conference"]}, "conference", "inproceedings"),
    ({"publication_types": ["CPAPER"]}, "conference", "inproceedings"),
    ({"publication_types": ["proceedings"]}, "conference", "inproceedings"),
    ({"publication_types": ["Conference Paper"]}, "conference", "inproceedings"),
    ({"publication_types": ["ConferencePaper"]}, "conference", "inproceedings"),
    ({"publication_types": ["CONF"]}, "conference", "inproceedings"),  # RIS
    ({"publication_types": ["inproceedings"]}, "conference", "inproceedings"),
    ({"publication_types": ["conference"]}, "conference", "inproceedings"),
    ({"journal": "Proceedings of the 2019 Workshop on X"}, "conference", "inproceedings"),
    ({"journal": "International Symposium on Y"}, "conference", "inproceedings"),
    ({"journal": "Conferences in Z"}, "journal", "article"),  # a whole word only
    ({"publication_types": ["monograph"]}, "book", "book"),
    ({"publication_types": ["edited-book"]}, "book", "book"),
    ({"publication_types": ["reference-book"]}, "book", "book"),
    ({"publication_types": ["book"]}, "book", "book"),
    ({"publication_types": ["incollection"]}, "chapter", "incollection"),
    ({"publication_types": ["chapter"]}, "chapter", "incollection"),
    ({"publication_types": ["phdthesis"]}, "thesis", "phdthesis"),
    ({"publication_types": ["thesis"]}, "thesis", "phdthesis"),
    ({"publication_types": ["inbook"]}, "chapter", "incollection"),
    ({"publication_types": ["book-section"]}, "chapter", "incollection"),
    ({"publication_types": ["mastersthesis"]}, "thesis", "phdthesis"),
    ({"publication_types": ["report"]}, "report", "techreport"),
    ({"publication_types": ["Journal Article"]}, "journal", "article"),
    ({"publication_types": ["JournalArticle"]}, "journal", "article"),
    ({"publication_types": ["article"]}, "journal", "article"),  # no venue, but the type says so
    ({"publication_types": ["journal-article"]}, "journal", "article"),
    ({"publication_types": ["editorial"]}, "other", "misc"),
    ({"doi": "10.1038/nbt.2647"}, "other", "misc"),
])
def test_kind_of_publication(fields, kind, entry):
    paper = Paper(provider="import", title="t", **fields)
    assert (publication_kind(paper), bibtex_type(paper)) == (kind, entry)


@pytest.mark.parametrize("pages,bibtex,ris", [
    ("816-821", "816--821", ("816", "821")), ("816--821", "816--821", ("816", "821")),
    ("816 – 821", "816--821", ("816", "821")), ("816—821", "816--821", ("816", "821")),
    ("e1001", "e1001", ("e1001", None)), ("  ", None, (None, None)), ("S1-S2 ", "S1--S2", ("S1", "S2")),
])
def test_page_ranges(pages, bibtex, ris):
    paper = Paper(provider="import", title="t", pages=pages)
    entry, lines = to_bibtex([paper], ["k"]), to_ris([paper], ["k"])
    assert (f"pages = {{{bibtex}}}" in entry) is (bibtex is not None)
    if bibtex:
        assert f"  pages = {{{bibtex}}}\n" in entry
    assert (("SP  - " + str(ris[0]) + "\r") in lines) is (ris[0] is not None)
    assert (("EP  - " + str(ris[1]) + "\r") in lines) is (ris[1] is not None)


def test_update_notes():
    retracted_alone = Paper(provider="openalex", title="t", retracted=True)
    assert update_note(retracted_alone) == "RETRACTED"
    assert update_note(WAKEFIELD) == "RETRACTED (retraction: 10.1016/S0140-6736(10)60175-4 (2010-02-06))"
    assert update_note(Paper(provider="openalex", title="t", retracted=False)) == ""
    assert update_note(OTHERS[5]) == "Notices: correction: PMID 111"


def test_prose_keeps_double_hyphens_apart():
    assert bibtex_text("a -- b --- c") == "a -{}- b -{}-{}- c"
    assert bibtex_text("a - b") == "a - b"


@pytest.mark.parametrize("title,shown", [
    ("COVID-19 and mRNA vaccines", "{COVID-19} and {mRNA} vaccines"),
    ("Cas9 in E. coli", "{Cas9} in E. coli"),
    ("A 3d model", "A 3d model"),  # a digit without a capital keeps no braces
    ("A 3D model", "A {3D} model"),
    ("ALL CAPS", "{ALL} {CAPS}"),
    ("Plain words only", "Plain words only"),
    ("iPhone use", "{iPhone} use"),
])
def test_words_that_keep_their_case_are_braced(title, shown):
    entry = to_bibtex([Paper(provider="import", title=title)], ["k"])
    assert f"  title = {{{shown}}}" in entry


def test_names_that_cannot_be_split_are_left_out():
    paper = Paper(provider="import", title="t", authors=["", "   ", "Ann Lee"])
    assert "  author = {Lee, Ann}," in to_bibtex([paper], ["k"])
    assert to_ris([paper], ["k"]).count("AU  - ") == 1


def test_a_value_on_several_lines_is_one_line_in_ris():
    paper = Paper(provider="import", title="t", journal="Journal of\nThings", volume="1\n2", pmid="1\t2")
    assert "pmid = {1 2}" in to_bibtex([paper], ["k"])  # BibTeX reads any other line break as a space
    lines = to_ris([paper], ["k"])
    assert "VL  - 1 2\r\n" in lines and "JO  - Journal of Things\r\n" in lines


def test_an_arxiv_preprint_without_its_own_venue_has_no_howpublished():
    with_venue = Paper(provider="import", title="t", journal="arXiv (Cornell University)", doi="10.1/x",
                       publication_types=["preprint"])
    assert "howpublished = {arXiv (Cornell University)}" in to_bibtex([with_venue], ["k"])
    assert "howpublished" not in to_bibtex([Paper(provider="arxiv", title="t", journal="arXiv", arxiv_id="2101.00001")],
                                           ["k"])


def test_verbatim_values_keep_the_entry_balanced():
    paper = Paper(provider="import", title="t", url="https://example.org/a\\b{c}")
    assert "  url = {https://example.org/a%5Cb%7Bc%7D}" in to_bibtex([paper], ["k"])
