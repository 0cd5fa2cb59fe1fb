"""PubMed's HTTP flow replayed from the project's own hand-written cassettes."""

from __future__ import annotations

import asyncio

from cassettes_support import cassette_vcr
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import pubmed
from litsearch.runtime.settings import settings_from_env


def run_search(query: str, limit: int):
    settings = settings_from_env({"LITSEARCH_EMAIL": "test@example.org"})

    async def go():
        async with HttpClient(settings, policies={"pubmed": PacePolicy(min_interval=0, max_in_flight=3)}) as http:
            records = (await pubmed.search(http.session("pubmed"), query, limit)).records
        return records, http.request_counts

    return asyncio.run(go())


def test_search_reads_whole_records_from_efetch_in_esearch_order():
    with cassette_vcr().use_cassette("pubmed/search_crispr.yaml") as cassette:
        records, counts = run_search("crispr off-target detection", 3)
    assert counts == {"pubmed": 2}  # esearch, then efetch: no esummary round trip
    assert cassette.all_played

    assert [r.pmid for r in records] == ["38990003", "38990001", "38990002"]
    assert [r.rank for r in records] == [1, 2, 3]
    assert all(r.provider == "pubmed" and r.score is None for r in records)

    nanopore, t_cells, editorial = records
    # DOI only in elocationid; the collective author is kept; PMC id recorded.
    assert nanopore.doi == "10.5555/ncomms.2024.2291"
    # efetch's full names ("Chidi N Okafor", not "Okafor CN"); a collective author kept.
    assert nanopore.authors == ["Chidi N Okafor", "Maja Lindqvist", "Gene Editing Safety Consortium"]
    assert nanopore.external_ids == {"pmid": "38990003", "doi": "10.5555/ncomms.2024.2291",
                                     "pmcid": "PMC11000003"}
    assert nanopore.publication_date == "2024-03-14"
    # Unlabelled abstract: <i> flattened, the hard line break collapsed.
    assert nanopore.abstract == (
        "Long reads spanning each candidate site let us call Cas9 cuts without PCR bias. "
        "Editing at the HBB and CCR5 loci revealed 27 off-target sites, of which 4 were "
        "missed by short-read methods.")

    assert t_cells.title == "Genome-wide detection of CRISPR-Cas9 off-target cleavage in primary human T cells."
    assert t_cells.journal == "Nucleic acids research"
    assert (t_cells.year, t_cells.volume, t_cells.issue, t_cells.pages) == (2024, "52", "7", "3810-3824")
    assert t_cells.doi == "10.5555/nar/gkae0001"
    assert t_cells.url == "https://pubmed.ncbi.nlm.nih.gov/38990001/"
    assert t_cells.abstract == (
        "BACKGROUND: Therapeutic editing of T cells with Streptococcus pyogenes Cas9 requires a "
        "census of unintended cuts. METHODS: We tagged double-strand breaks with a short "
        "oligonucleotide in 12 donors and sequenced the tagged junctions in vitro and in edited "
        "cells. RESULTS: Across 30 guides we found 412 off-target sites; 9 guides produced none "
        "above 10-4 frequency (P<0.01). CONCLUSIONS: Guide choice, not delivery route, dominated "
        "off-target burden.")

    # An editorial: no abstract anywhere, still a full record; DOI lower-cased.
    assert editorial.abstract is None
    assert editorial.doi == "10.5555/crispr.2023.0117"
    assert editorial.publication_types == ["Editorial", "Comment"]
    # Print date "2023 Nov" names no day, so the online date of the same year is used.
    assert editorial.year == 2023 and editorial.publication_date == "2023-10-30"


def test_search_without_hits_stops_after_esearch():
    with cassette_vcr().use_cassette("pubmed/search_no_hits.yaml") as cassette:
        records, counts = run_search("qqxzv wrbltz", 5)
    assert records == []
    assert counts == {"pubmed": 1}
    assert cassette.all_played
