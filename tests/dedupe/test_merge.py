"""The merge engine on hand-made records: identifiers, fuzzy titles, and the traps that must stay apart."""

from __future__ import annotations

import pytest

from litsearch.dedupe.clusters import Cluster, DedupeResult, dedupe, find_clusters, find_uncertain_pairs, merge_records
from litsearch.dedupe.merge import merge_cluster
from litsearch.core.records import Paper


def paper(title: str = "Deep residual learning for image recognition in medical imaging", **fields) -> Paper:
    fields.setdefault("provider", "test")
    fields.setdefault("authors", ["Smith, J.", "Jones, K."])
    fields.setdefault("year", 2019)
    return Paper(title=title, **fields)


def together(records: list[Paper]) -> bool:
    """All records in one cluster."""
    return len(find_clusters(records)) == 1


def apart(records: list[Paper]) -> bool:
    """Every record in its own cluster."""
    return len(find_clusters(records)) == len(records)


# --------------------------------------------------------------------------- identifiers


def test_doi_in_url_form_and_upper_case_merges():
    records = [paper(doi="https://doi.org/10.1000/ABC.123"), paper(doi="10.1000/abc.123", authors=["J Smith"])]
    clusters = find_clusters(records)
    assert [c.members for c in clusters] == [[0, 1]]
    assert clusters[0].reasons == ["same DOI 10.1000/abc.123"]


def test_arxiv_version_suffix_and_datacite_doi_are_one_preprint():
    records = [
        paper(provider="arxiv", arxiv_id="2101.00001v2"),
        paper(provider="semantic_scholar", arxiv_id="2101.00001"),
        paper(provider="openalex", doi="10.48550/arXiv.2101.00001"),
    ]
    clusters = find_clusters(records)
    assert [c.members for c in clusters] == [[0, 1, 2]]
    assert clusters[0].reasons == ["same arXiv id 2101.00001"]


def test_preprint_and_journal_version_linked_by_ids_merge():
    preprint = paper(provider="arxiv", arxiv_id="2101.00001", year=2020, journal="arXiv")
    s2_record = paper(provider="semantic_scholar", doi="10.1038/s41586-021-00001-x", arxiv_id="2101.00001",
                      year=2021, journal="Nature")
    openalex_record = paper(provider="openalex", doi="10.1038/s41586-021-00001-x", year=2021, journal="Nature",
                            title="DEEP RESIDUAL LEARNING FOR IMAGE RECOGNITION IN MEDICAL IMAGING", authors=[])
    assert [c.members for c in find_clusters([preprint, s2_record, openalex_record])] == [[0, 1, 2]]


def test_arxiv_record_carrying_the_journal_doi_joins_the_journal_record():
    arxiv_record = paper(provider="arxiv", arxiv_id="1706.03762", doi="10.5555/3295222.3295349", year=2017)
    journal_record = paper(provider="openalex", doi="10.5555/3295222.3295349", year=2017)
    assert together([arxiv_record, journal_record])


def test_shared_identifier_outweighs_conflicting_years_but_not_a_second_doi():
    records = [
        paper(doi="10.1000/abc", year=2019),
        paper(doi="10.1000/abc", year=2022),  # a metadata error, the DOI says one paper
        paper(doi="10.1000/xyz", pmid="42", year=2019),
        paper(doi="10.1000/abc", pmid="42", year=2019),  # links both DOIs through the PMID: refused
    ]
    clusters = find_clusters(records)
    cluster_of = {m: n for n, c in enumerate(clusters) for m in c.members}
    assert cluster_of[0] == cluster_of[1] == cluster_of[3]
    assert cluster_of[2] != cluster_of[0]


def test_pmid_only_match_merges_with_reason():
    records = [paper(pmid="123456", year=2010), paper(pmid="PMID:123456", year=2011, authors=[])]
    clusters = find_clusters(records)
    assert [c.members for c in clusters] == [[0, 1]]
    assert clusters[0].reasons == ["same PMID 123456"]


def test_supplement_doi_shared_by_different_abstracts_does_not_merge_them():
    supplement = "10.1016/S0140-6736(13)62000-0"
    records = [
        paper("Effect of statins on mortality after stroke: a cohort study", doi=supplement, authors=["Lee, A."]),
        paper("Genomic predictors of response to immunotherapy in melanoma", doi=supplement, authors=["Kim, B."]),
        paper("Effect of statins on mortality after stroke: a cohort study.", doi=supplement, authors=["Lee, A."]),
    ]
    assert [c.members for c in find_clusters(records)] == [[0, 2], [1]]


# --------------------------------------------------------------------------- fuzzy titles


def test_title_markup_case_and_trailing_period_merge():
    records = [
        paper("Effects of <i>Helicobacter pylori</i> eradication on gastric cancer incidence"),
        paper("EFFECTS OF HELICOBACTER PYLORI ERADICATION ON GASTRIC CANCER INCIDENCE."),
        paper("Effects of Helicobacter pylori eradication on gastric cancer incidence", authors=["J Smith", "K Jones"]),
    ]
    assert together(records)


def test_language_tags_and_translation_notes_match_their_untagged_twin():
    records = [
        paper("Efficacy observation of batroxobin for treatment of vascular cognitive impairment. [Chinese]"),
        paper("[Efficacy observation of batroxobin for treatment of vascular cognitive impairment]"),
        paper("Efficacy observation of batroxobin for treatment of vascular cognitive impairment (author's transl)"),
    ]
    assert together(records)


def test_database_notes_on_a_title_do_not_stop_a_merge():
    records = [
        paper("Timing of chest tube removal after coronary artery bypass surgery."
              "[Erratum appears in J Card Surg. 2011 Mar;26(2):236]", journal="J Card Surg", volume="20",
              pages="142-146"),
        paper("Timing of chest tube removal after coronary artery bypass surgery", journal="Journal of Cardiac Surgery",
              volume="20", pages="142-6"),
        paper("Timing of chest tube removal after coronary artery bypass surgery. [Review] [24 refs]"),
    ]
    assert together(records)


def test_abbreviated_page_range_is_the_same_range():
    base = dict(journal="Journal of Clinical Oncology", volume="7", authors=["Zhai, Q. J.", "Yue, X. Y."])
    same = [paper(year=2019, pages="73-76", **base), paper(year=2020, pages="73-6", **base)]
    different = [paper(year=2019, pages="73-76", **base), paper(year=2019, pages="83-86", **base)]
    assert together(same)
    assert apart(different)


def test_translated_title_merges_on_identical_citation():
    records = [
        paper("Antibiotic prophylaxis in pulmonary surgery. A controlled double-blind study of amoxicillin",
              authors=["Train, M.", "Soulard, D."], year=1994, journal="Ann Fr Anesth Reanim", volume="13",
              pages="280-284"),
        paper("[Comparison of amoxicillin and cefamandole in the prevention of bronchopulmonary infections]",
              authors=["Train, M.", "Soulard, D."], year=1994, volume="13", pages="280-4",
              journal="Annales francaises d'anesthesie et de reanimation"),
    ]
    clusters = find_clusters(records)
    assert [c.members for c in clusters] == [[0, 1]]
    assert clusters[0].reasons[0].startswith("same year, volume and pages")


def test_reason_names_similarity_years_and_first_author():
    records = [
        paper("Deep residual learning for image recognition in medical imaging", year=2019, volume="12",
              pages="100-110"),
        paper("Deep residual learning for image recognition in medical imagings", year=2020, volume="12",
              pages="100-110", authors=["Smith, John", "Jones, Kate"]),
    ]
    (cluster,) = find_clusters(records)
    (reason,) = cluster.reasons
    assert reason.startswith("title 99% similar, year 2019/2020, first author Smith")


# --------------------------------------------------------------------------- hard negatives


def test_two_different_dois_with_identical_titles_stay_apart():
    assert apart([paper(doi="10.1000/one"), paper(doi="10.1000/two")])


def test_different_dois_are_never_joined_through_a_third_record():
    records = [
        paper(doi="10.1000/one", journal="Journal A", volume="3", pages="10-20"),
        paper(journal="Journal A", volume="3", pages="10-20"),  # matches both on everything but a DOI
        paper(doi="10.1000/two", journal="Journal A", volume="3", pages="10-20"),
    ]
    clusters = find_clusters(records)
    cluster_of = {m: n for n, c in enumerate(clusters) for m in c.members}
    assert cluster_of[0] != cluster_of[2]
    assert sorted(len(c.members) for c in clusters) == [1, 2]


def test_editorial_in_two_years_and_twice_in_one_year_stays_apart():
    editorials = [
        paper("Editorial", authors=["Doe, J."], year=2020, journal="Journal of Things"),
        paper("Editorial", authors=["Doe, J."], year=2021, journal="Journal of Things"),
        paper("Editorial", authors=["Doe, J."], year=2021, journal="Journal of Things"),
    ]
    assert apart(editorials)


def test_generic_title_merges_when_the_citation_matches():
    records = [
        paper("Editorial", authors=["Doe, J."], year=2021, journal="J Things", volume="5", pages="1-2"),
        paper("Editorial.", authors=["Doe, J."], year=2021, journal="Journal of Things", volume="5", pages="1-2"),
    ]
    assert together(records)


def test_minitrack_introductions_of_two_years_stay_apart():
    records = [
        paper("Introduction to the Minitrack on Crowdsourcing and Digital Workforce in the Gig Economy", year=2021,
              journal="Proceedings of the Annual Hawaii International Conference on System Sciences"),
        paper("Introduction to the Minitrack on Crowdsourcing and Digital Workforce in the Gig Economy", year=2022,
              journal="Proceedings of the Annual Hawaii International Conference on System Sciences"),
    ]
    assert apart(records)
    records[1].year = 2021
    assert apart(records)  # same year, no volume or pages: still nothing says it is one item


def test_conference_paper_and_extended_journal_version_stay_apart():
    records = [
        paper("Making the most of virtual expertise in telemedicine and telehealth environments", year=2013,
              doi="10.1109/DASC.2013.166", journal="Symposium on Dependable Autonomic and Secure Computing"),
        paper("Making the most of virtual expertise in telemedicine and telehealth environments", year=2014,
              doi="10.1080/10919392.2014.896714", journal="Journal of Organizational Computing"),
    ]
    assert apart(records)
    records[0].doi = records[1].doi = None
    assert apart(records)  # a year apart, different venues: reported, not merged
    assert len(find_uncertain_pairs(records)) == 1


@pytest.mark.parametrize("notice", [
    "Erratum to: Gain-of-function mutations in complement factor B are associated with atypical HUS",
    "Correction: Gain-of-function mutations in complement factor B are associated with atypical HUS",
    "Re: Gain-of-function mutations in complement factor B are associated with atypical HUS",
    "Reply to: Gain-of-function mutations in complement factor B are associated with atypical HUS",
    "Comment on: Gain-of-function mutations in complement factor B are associated with atypical HUS",
    "Gain-of-function mutations in complement factor B are associated with atypical HUS (vol 104, pg 240, 2007)",
])
def test_erratum_reply_or_comment_never_merges_with_its_article(notice):
    article = paper("Gain-of-function mutations in complement factor B are associated with atypical HUS",
                    year=2007, journal="PNAS", volume="104", pages="240-245")
    assert apart([article, paper(notice, year=2007, journal="PNAS", volume="104", pages="9912")])
    assert apart([article, paper(notice, year=2007)])


def test_same_title_in_other_journal_by_other_authors_stays_apart():
    records = [
        paper("Management of malignant pleural effusions today", authors=["Grossi, F."], year=1998, journal="Drugs"),
        paper("Management of malignant pleural effusions today", authors=["Lynch, T. J."], year=1998, journal="Chest"),
    ]
    assert apart(records)


def test_conference_abstract_and_article_in_different_journals_stay_apart():
    records = [
        paper("Complement factor H binds at two independent sites to C-reactive protein", year=2010,
              journal="Molecular Immunology", volume="47", pages="2263-2264"),
        paper("Complement factor H binds at two independent sites to C-reactive protein", year=2010,
              journal="Journal of Biological Chemistry", volume="285", pages="1053-1065"),
    ]
    assert apart(records)


def test_numbered_parts_stay_apart():
    records = [
        paper("Clustering validity checking methods: part I"),
        paper("Clustering validity checking methods: part II"),
    ]
    assert apart(records)


def test_different_abstracts_keep_same_titled_records_apart():
    records = [
        paper(abstract="We report a randomised trial of drug A against placebo in 300 adults with asthma; "
                       "the primary outcome was the exacerbation rate over one year of follow-up in clinics. "
                       "Exacerbations fell by a third with drug A, and adverse events were mild and rare."),
        paper(abstract="Poster presented at the annual meeting. Background: little is known. Methods: survey of "
                       "nurses about workload during night shifts in three hospitals in northern regions. "
                       "Results: workload was high. Conclusion: staffing should be reviewed by managers."),
    ]
    assert apart(records)


def test_a_semantic_scholar_id_matches_in_any_case_or_as_its_page_url():
    sha = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
    # Titles too short to merge on their own, different years: only the id can join them.
    records = [paper("Cas9 specificity", semantic_scholar_id=sha, year=2013, authors=[]),
               paper("Cas9 specificity.", semantic_scholar_id=sha.upper(), year=2014, authors=[]),
               paper("CAS9 SPECIFICITY", semantic_scholar_id=f"https://www.semanticscholar.org/paper/x/{sha}",
                     authors=[])]
    assert together(records)
    assert apart([records[0], paper("Cas9 specificity", semantic_scholar_id="b" * 40, year=2014, authors=[])])


def test_record_without_title_joins_only_through_an_identifier():
    records = [paper(""), paper(""), paper("", doi="10.1000/x"),
               paper("Some real title about something", doi="10.1000/x")]
    assert [c.members for c in find_clusters(records)] == [[0], [1], [2, 3]]


# --------------------------------------------------------------------------- result shape


def test_every_record_in_exactly_one_cluster_in_deterministic_order():
    records = [paper(doi="10.1000/b"), paper("Unrelated"), paper(doi="10.1000/B"), paper("Something else entirely")]
    clusters = find_clusters(records)
    assert sorted(m for c in clusters for m in c.members) == list(range(len(records)))
    assert [c.members[0] for c in clusters] == sorted(c.members[0] for c in clusters)
    assert all(c.members == sorted(c.members) for c in clusters)
    assert [c.members for c in find_clusters(records)] == [c.members for c in clusters]
    assert [c.reasons for c in clusters if len(c.members) == 1] == [[], []]


def test_dedupe_returns_clusters_and_uncertain_pairs():
    records = [
        paper(year=2010, journal="Respirology", volume="16", pages="63"),
        paper(year=2010, journal="Chest", volume="138", pages="711-712"),
    ]
    result = dedupe(records)
    assert isinstance(result, DedupeResult)
    assert [c.members for c in result.clusters] == [[0], [1]]
    (pair,) = result.uncertain_pairs
    assert (pair.first, pair.second, pair.title_similarity) == (0, 1, 100.0)
    assert "volume or pages differ" in pair.reason
    assert isinstance(result.clusters[0], Cluster)


# --------------------------------------------------------------------------- merge_cluster


def test_merge_cluster_keeps_the_richest_values_and_prefers_the_journal_version():
    preprint = Paper(
        provider="arxiv", title="Attention is all you need", authors=["A. Vaswani"], year=2017, arxiv_id="1706.03762",
        doi="10.48550/arXiv.1706.03762", journal="arXiv", abstract="Short abstract.", citation_count=10,
        external_ids={"ArXiv": "1706.03762"}, publication_types=["preprint"], rank=3, score=0.5,
    )
    published = Paper(
        provider="semantic_scholar", title="Attention Is All You Need", year=2017, doi="10.5555/3295222.3295349",
        authors=["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"], journal="NeurIPS", citation_count=90000,
        influential_citation_count=9000, semantic_scholar_id="204e3073870fae3d05bcbc2f6a8e263d9b72e776",
        external_ids={"DOI": "10.5555/3295222.3295349", "ArXiv": "1706.03762"}, rank=1,
    )
    openalex = Paper(
        provider="openalex", title="Attention is All you Need", year=2017, openalex_id="W2963403868",
        abstract="The dominant sequence transduction models are based on complex recurrent networks.",
        citation_count=70000, external_ids={"MAG": "2963403868"}, publication_types=["article"],
    )
    merged = merge_cluster([preprint, published, openalex])
    assert merged.provider == "merged"
    assert merged.doi == "10.5555/3295222.3295349"
    assert merged.journal == "NeurIPS"
    assert merged.title == "Attention Is All You Need"
    assert merged.authors == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]
    assert merged.abstract.startswith("The dominant sequence")
    assert (merged.citation_count, merged.influential_citation_count) == (90000, 9000)
    assert (merged.arxiv_id, merged.openalex_id) == ("1706.03762", "W2963403868")
    assert merged.semantic_scholar_id == "204e3073870fae3d05bcbc2f6a8e263d9b72e776"
    assert merged.external_ids == {"DOI": "10.5555/3295222.3295349", "ArXiv": "1706.03762", "MAG": "2963403868"}
    # The journal version's types: a published paper is not exported as a preprint for having
    # its arXiv preprint merged in (the preprint stays known by its arXiv id).
    assert merged.publication_types == ["article"]
    assert (merged.rank, merged.score) == (1, 0.5)


def test_merge_cluster_falls_back_to_the_arxiv_doi_and_rejects_an_empty_cluster():
    only_preprint = paper(provider="arxiv", doi="10.48550/arXiv.2101.00001")
    assert merge_cluster([only_preprint]).doi == "10.48550/arXiv.2101.00001"
    assert merge_cluster([only_preprint]).arxiv_id == "2101.00001"
    with pytest.raises(ValueError):
        merge_cluster([])


def test_merge_records_gives_one_record_per_cluster():
    records = [paper(doi="10.1000/x", citation_count=3), paper(doi="10.1000/X", citation_count=7),
               paper("Other paper here")]
    merged = merge_records(records)
    assert len(merged) == 2
    assert merged[0].citation_count == 7 and merged[0].provider == "merged"
    assert merged[1] is records[2]


@pytest.mark.parametrize("title", [
    "Effects of <i>H. pylori</i> on gastric cancer", "Café-au-lait spots: a review.", "p<0.05 & n>30 in trials",
    "Tałałaj: ÉTUDE\tmulticentrique", "  Spaces   and_underscores  ",
])
def test_comparison_titles_fold_exactly_like_fold_title(title):
    # The engine folds with a faster copy of text.fold_title; the two must never drift apart.
    from litsearch.dedupe.titles import fold_plain, plain_title
    from litsearch.core.text import fold_title

    assert fold_plain(plain_title(title)) == fold_title(title)
