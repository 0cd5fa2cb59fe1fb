"""Europe PMC's records beside the others': the parser writes the version links in the keys the
merge engine reads, and on the fake APIs the CRISPR article is one row, the review one row with
its bioRxiv preprint, the standalone Research Square preprint its own row (a preprint)."""

from __future__ import annotations

import fake_apis
import fake_europepmc
from litsearch.biblio.writers import publication_kind
from litsearch.dedupe.clusters import merge_records
from litsearch.dedupe.features import VERSION_LINK_KEYS
from litsearch.providers import europepmc_parse
from litsearch.providers.europepmc_parse import parse_search
from litsearch.providers.pubmed_parse import parse_efetch


def test_the_engine_reads_the_keys_the_parser_writes():
    assert europepmc_parse.PREPRINT_ID == "ppr"
    assert set(VERSION_LINK_KEYS) == {europepmc_parse.PUBLISHED_PMID, europepmc_parse.PUBLISHED_PMCID,
                                      europepmc_parse.PREPRINT_OF_ARTICLE}


def test_the_fake_apis_give_one_row_per_paper():
    """Europe PMC's records (from tests/fake_europepmc.py) beside PubMed's (tests/fake_apis.py):
    the CRISPR article once, the review once with its bioRxiv preprint, the standalone
    Research Square preprint on its own."""
    from fake_server import SeenRequest

    def seen(path: str, **params: str) -> SeenRequest:
        return SeenRequest(0.0, "GET", path, {name: [value] for name, value in params.items()}, {}, b"")

    answer = fake_europepmc.search(seen(fake_europepmc.SEARCH_ROUTE, query="crispr off-target", format="json",
                                        resultType="core", pageSize="25"))
    europe = list(parse_search(answer.body).records)
    pubmed = list(parse_efetch(fake_apis.pubmed_efetch(seen("/eutils/efetch.fcgi", id="23873081,36970624")).body)
                  .values())
    rows = merge_records([*europe, *pubmed])
    assert len(europe) == 4 and len(pubmed) == 2 and len(rows) == 3
    review = next(row for row in rows if row.pmid == "36970624")
    assert review.external_ids["ppr"] == "PPR571234" and review.doi == "10.3389/fbioe.2023.1143157"
    assert publication_kind(review) == "journal"
    standalone = next(row for row in rows if row.external_ids.get("ppr") == "PPR602468")
    assert standalone.journal == "Research Square (preprint)" and publication_kind(standalone) == "preprint"
