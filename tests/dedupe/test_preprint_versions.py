"""A preprint and the article it became, joined when a record declares the link (Europe PMC's
"Preprint of" / "Preprint in", kept in external_ids as published_pmid, published_pmcid and
preprint_ppr: core/identifiers.py's vocabulary), and only then: a look-alike preprint without a link stays apart (different
DOIs), a link never lets two journal records with different DOIs join, and a link to an
unrelated paper is not followed. The merged row describes the published paper."""

from __future__ import annotations

from litsearch.biblio.writers import publication_kind
from litsearch.core.identifiers import PREPRINT_ID, PREPRINT_OF_ARTICLE, PUBLISHED_PMCID, PUBLISHED_PMID, id_kind
from litsearch.core.records import Paper
from litsearch.dedupe.clusters import dedupe, merge_records
from litsearch.dedupe.features import VERSION_LINK_KEYS

TITLE = "Off-target effects in CRISPR/Cas9 gene editing"
AUTHORS = ["Congting Guo", "Xiaoding Ma", "Fei Gao"]


def preprint(**fields) -> Paper:
    values = dict(provider="europepmc", title=TITLE, authors=AUTHORS, year=2021, journal="bioRxiv (preprint)",
                  doi="10.1101/2021.11.02.514901", publication_types=["Preprint"],
                  external_ids={"doi": "10.1101/2021.11.02.514901", "ppr": "PPR571234",
                                "published_pmid": "36970624"})
    return Paper(**{**values, **fields})


def article(**fields) -> Paper:
    values = dict(provider="europepmc", title=TITLE + ".", authors=AUTHORS, year=2023, pmid="36970624",
                  journal="Frontiers in Bioengineering and Biotechnology", doi="10.3389/fbioe.2023.1143157",
                  publication_types=["Journal Article"],
                  external_ids={"doi": "10.3389/fbioe.2023.1143157", "pmid": "36970624", "preprint_ppr": "PPR571234"})
    return Paper(**{**values, **fields})


def clusters_of(records: list[Paper]) -> list[list[int]]:
    return [cluster.members for cluster in dedupe(records).clusters]


def test_the_engine_reads_every_link_of_the_vocabulary_and_none_is_an_id_of_the_record():
    assert set(VERSION_LINK_KEYS) == {PUBLISHED_PMID, PUBLISHED_PMCID, PREPRINT_OF_ARTICLE}
    assert all(id_kind(key) is None for key in (PREPRINT_ID, *VERSION_LINK_KEYS))


def test_linked_versions_from_every_provider_make_one_row():
    records = [
        preprint(),
        article(),
        Paper(provider="pubmed", title=TITLE + ".", authors=AUTHORS, year=2023, pmid="36970624",
              journal="Frontiers in bioengineering and biotechnology", external_ids={"pmid": "36970624"}),
        Paper(provider="openalex", title=TITLE, authors=AUTHORS, year=2021, doi="10.1101/2021.11.02.514901",
              openalex_id="W4300000001", publication_types=["preprint"], journal="bioRxiv"),
        Paper(provider="semantic_scholar", title=TITLE, authors=AUTHORS, year=2023,
              doi="10.3389/fbioe.2023.1143157", semantic_scholar_id="ab" * 20, publication_types=["JournalArticle"]),
    ]
    result = dedupe(records)
    assert [cluster.members for cluster in result.clusters] == [[0, 1, 2, 3, 4]]
    assert any(reason.startswith("preprint and published version") for reason in result.clusters[0].reasons)
    (merged,) = merge_records(records)
    assert (merged.doi, merged.pmid, merged.year) == ("10.3389/fbioe.2023.1143157", "36970624", 2023)
    assert merged.journal == "Frontiers in Bioengineering and Biotechnology"
    assert merged.external_ids["ppr"] == "PPR571234"
    # The published paper, exported as the journal article it is.
    assert publication_kind(merged) == "journal"
    assert not {"preprint"} & {kind.lower() for kind in merged.publication_types}


def test_either_side_of_the_link_is_enough():
    one_way = preprint(external_ids={"doi": "10.1101/2021.11.02.514901", "ppr": "PPR571234"})
    assert clusters_of([one_way, article()]) == [[0, 1]]
    other_way = article(external_ids={"doi": "10.3389/fbioe.2023.1143157", "pmid": "36970624"})
    assert clusters_of([preprint(), other_way]) == [[0, 1]]
    by_pmcid = preprint(external_ids={"ppr": "PPR571234", "published_pmcid": "PMC10034092"})
    assert clusters_of([by_pmcid, article(external_ids={"pmcid": "PMC10034092"}, pmid=None)]) == [[0, 1]]


def test_a_renamed_preprint_joins_by_its_link_and_first_author():
    renamed = preprint(title="Detecting and reducing off-target cleavage by Cas9: a review")
    assert clusters_of([renamed, article()]) == [[0, 1]]


def test_without_a_link_a_look_alike_preprint_stays_apart():
    unlinked = preprint(external_ids={"doi": "10.1101/2021.11.02.514901"})
    # Same title, same authors: the two DOIs still say two records (the engine's rule before links).
    assert clusters_of([unlinked, article(external_ids={"doi": "10.3389/fbioe.2023.1143157",
                                                        "pmid": "36970624"})]) == [[0], [1]]


def test_a_link_never_joins_two_journal_records_with_different_dois():
    other_journal = article(doi="10.1000/other.2023.1", pmid="37000001",
                            external_ids={"doi": "10.1000/other.2023.1", "pmid": "37000001"})
    records = [preprint(), article(), other_journal]
    assert clusters_of(records) == [[0, 1], [2]]


def test_a_link_to_an_unrelated_paper_is_not_followed():
    unrelated = article(title="Gut microbiota in type 2 diabetes", authors=["Ana Souza", "Li Wei"],
                        external_ids={"doi": "10.3389/fbioe.2023.1143157", "pmid": "36970624"})
    assert clusters_of([preprint(), unrelated]) == [[0], [1]]


def test_two_preprints_are_never_waved_through_by_a_link():
    # Two different preprint DOIs stay a conflict even when both name the same article.
    second = preprint(doi="10.1101/2022.01.01.000001", external_ids={"doi": "10.1101/2022.01.01.000001",
                                                                     "ppr": "PPR999999", "published_pmid": "36970624"})
    clusters = clusters_of([preprint(), second, article()])
    assert sorted(len(members) for members in clusters) == [1, 2]
