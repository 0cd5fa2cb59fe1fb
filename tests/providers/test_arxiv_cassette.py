"""arXiv's HTTP flow replayed from the project's own hand-written cassette."""

from __future__ import annotations

import asyncio

from cassettes_support import cassette_vcr
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.providers import arxiv
from litsearch.runtime.settings import settings_from_env


def run_search(query: str, limit: int):
    settings = settings_from_env({"LITSEARCH_EMAIL": "test@example.org"})

    async def go():
        async with HttpClient(settings, policies={"arxiv": PacePolicy(min_interval=0, max_in_flight=1)}) as http:
            records = (await arxiv.search(http.session("arxiv"), query, limit)).records
        return records, http.request_counts

    return asyncio.run(go())


def test_search_parses_the_feed_in_rank_order():
    with cassette_vcr().use_cassette("arxiv/search_protein_language_model.yaml") as cassette:
        records, counts = run_search("protein language model", 2)
    assert counts == {"arxiv": 1}
    assert cassette.all_played

    contacts, scaling = records
    assert [r.rank for r in records] == [1, 2]
    assert all(r.provider == "arxiv" and r.score is None for r in records)

    assert contacts.arxiv_id == "2312.99017"
    assert contacts.external_ids == {"arXiv": "2312.99017v2", "arxiv_primary_category": "q-bio.BM"}
    assert contacts.doi == "10.5555/bioinformatics/btae099"
    assert contacts.journal == "Bioinformatics 40 (2024) btae099"
    assert contacts.authors == ["Ingrid Solberg", "Tomás Ferreira"]
    assert (contacts.year, contacts.publication_date) == (2023, "2023-12-28")
    assert contacts.oa_url == "https://arxiv.org/pdf/2312.99017v2"
    assert contacts.url == "https://arxiv.org/abs/2312.99017"
    assert contacts.publication_types == ["preprint"]
    # Unwrapped, and "L<400" survives as text (the feed is type="text", not HTML).
    assert contacts.abstract == (
        "We train a masked language model on 40 million protein sequences and read residue "
        "contacts straight from its attention maps. Precision for long-range contacts reaches "
        "0.61 when L<400, with no structural labels seen in training.")

    assert scaling.title == "Scaling Laws for Protein Language Models Under a Fixed Compute Budget"
    assert scaling.arxiv_id == "2402.99123"
    assert scaling.doi is None and scaling.journal is None
    assert scaling.abstract.startswith("How should a fixed compute budget be split between model size")
