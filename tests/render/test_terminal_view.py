"""The terminal view's layout on awkward papers at every width (issue 21): no line wider than
the terminal in cells, no Markdown escapes, the whole title kept; and the person's footer."""

from __future__ import annotations

import pytest

from litsearch.core.errors import ProviderError
from litsearch.core.records import Paper
from litsearch.render.terminal import text_width, wrap
from litsearch.render.terminal_results import footer_view, results_view
from litsearch.search.enrich import EnrichmentReport
from litsearch.search.pipeline import ProviderOutcome, SearchResult
from litsearch.search.rank import RankedPaper

AWKWARD = [
    Paper(provider="openalex", title="深度学习在医学图像分析中的应用研究进展与挑战以及未来的发展方向和机遇", year=2021,
          authors=["王 小明", "李 华"], journal="中华医学杂志", doi="10.1234/中文.2021"),
    Paper(provider="openalex", title="A_title with *stars*, [brackets](x) and <i>markup</i> | pipes", year=2019,
          authors=["Ann Author"], journal="J " + "Very Long Venue Name " * 8, doi="10.1007/" + "x" * 90,
          retracted=True, abstract="An abstract " * 80, citation_count=1234),
    Paper(provider="openalex", title="Emoji 🧬🧪 and combining e\u0301 letters", authors=[], year=None,
          updates=[{"type": "correction"}], arxiv_id="2101.00001"),
]


def result(papers, outcomes=(), notes=()) -> SearchResult:
    return SearchResult(query="q", variants=[], outcomes=list(outcomes),
                        results=[RankedPaper(paper=p, hits=[p]) for p in papers], provider_reason=None,
                        search_time_ms=1234, enrichment=EnrichmentReport(notes=list(notes)))


@pytest.mark.parametrize("width", [20, 33, 40, 61, 80, 100, 160])
@pytest.mark.parametrize("abstracts", [False, True])
def test_every_line_fits_and_nothing_is_escaped(width, abstracts):
    view = results_view(result(AWKWARD), 10, width, abstracts=abstracts)
    assert all(text_width(line) <= width for line in view.splitlines()), view
    assert "\\" not in view
    flat = "".join(view.split())
    assert "深度学习在医学图像分析中的应用研究进展与挑战以及未来的发展方向和机遇" in flat  # cut across lines, never lost
    assert "A_titlewith*stars*,[brackets](x)andmarkup|pipes" in flat  # markup taken out, the rest as written
    assert "⚠RETRACTED—A_title" in flat and "(correctionpublished)" in flat
    assert ("Anabstract" in flat) == abstracts


def test_wrap_cuts_words_wider_than_the_line_and_keeps_every_character():
    lines = wrap("x" * 50 + " tail", 12, "  ", first="1. ")
    assert all(len(line) <= 12 for line in lines) and "".join("".join(line.split()) for line in lines) == "1." + "x" * 50 + "tail"


def outcome(name, records=1, error=None, notes=()):
    failure = ProviderError(error, provider=name) if error else None
    return ProviderOutcome(provider=name, query="q", mode="search", records=[None] * records, failure=failure,
                           notes=list(notes), requests=1)


def test_the_footer_names_failures_and_skips_and_folds_the_rest():
    footer = "\n".join(footer_view(result([], [
        outcome("semantic_scholar", error="HTTP 429 rate limited: set SEMANTIC_SCHOLAR_API_KEY"),
        outcome("openalex", 7, notes=["author 'Hinton' applied after fetching (name lookups need OPENALEX_API_KEY)"]),
        outcome("pubmed", 2)], notes=[
        "Unpaywall skipped: it needs a contact email (set LITSEARCH_EMAIL)",
        "DOIs checked at Crossref: 4 of 5, 1 not found or not matching (marked ⚠)",
        "Unpaywall: free copies found for 1 of 2 papers without one; 1 lookups failed (HTTP 503)"]), 10, 200))
    lines = footer.splitlines()
    assert lines[0] == "! Semantic Scholar failed: HTTP 429 rate limited: set SEMANTIC_SCHOLAR_API_KEY"  # a failure
    assert "! Unpaywall: free copies found for 1 of 2 papers without one; 1 lookups failed (HTTP 503)" in lines
    summary = [line for line in lines if line.startswith("Searched")]
    assert summary == ["Searched OpenAlex (7), PubMed (2) · DOIs checked at Crossref: 4 of 5, 1 not found or not "
                       "matching (marked ⚠) · 3 requests in 1.2 s"]
    assert lines[-2].startswith("Not set: ") and ("Not set: OPENALEX_API_KEY (OpenAlex: author 'Hinton' applied after fetching); "
                                "LITSEARCH_EMAIL (Unpaywall skipped: it needs a contact email).") in " ".join(footer.split())
    assert footer.count("LITSEARCH_EMAIL") == 1 and footer.count("OPENALEX_API_KEY") == 1


def test_only_what_needs_a_look_starts_with_an_exclamation_mark():
    from dataclasses import replace

    search = result([Paper(provider="openalex", title="Retracted one", retracted=True)], [
        outcome("semantic_scholar", error="HTTP 503"),
        outcome("openalex", 7, notes=["author 'Hinton' → Geoffrey E. Hinton, A5108093963",
                                      "venue 'Nature' not found in OpenAlex; applied after fetching"])], notes=[
        "DOIs checked at Crossref: 4 of 5",
        "Unpaywall: no free copy found for the paper without one",
        "PMIDs checked at PubMed for retractions and notices: 2 of 2",
        "PubMed retraction check skipped for 2 PMIDs (HTTP 500)"])
    search = replace(search, filter_report=["year 2020–2024: applied by openalex"], filtered_out=3)
    lines = footer_view(search, 10, 200)
    marked = [line[2:] for line in lines if line.startswith("! ")]
    assert marked == ["Semantic Scholar failed: HTTP 503",
                      "OpenAlex: venue 'Nature' not found in OpenAlex; applied after fetching",
                      "PubMed retraction check skipped for 2 PMIDs (HTTP 500)",
                      "notices: 1 retracted paper (marked ⚠ RETRACTED) (from OpenAlex, PubMed and Crossref)"]
    assert "OpenAlex: author 'Hinton' → Geoffrey E. Hinton, A5108093963" in lines  # told, not warned
    assert "filter: year 2020–2024: applied by openalex" in lines and "3 papers removed by the filters" in lines
    summary = next(line for line in lines if line.startswith("Searched"))
    assert ("Unpaywall: no free copy found for the paper without one" in summary
            and "PMIDs checked at PubMed for retractions and notices: 2 of 2" in summary)
