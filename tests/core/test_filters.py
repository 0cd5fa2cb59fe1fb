"""Filters: parsing, each filter's translation into every provider's own parameters
(checked on the outgoing requests), OpenAlex name resolution, and post-filtering."""

from __future__ import annotations

import json
from datetime import date

import pytest

import fake_apis
from fake_server import FakeServer
from fault_support import run_cli
from litsearch.core.filters import Filters, build_filters, matches, parse_year_range
from litsearch.core.records import Paper

FIVE = "semantic_scholar,openalex,pubmed,arxiv,crossref"
ROUTES = {"semantic_scholar": "/s2/graph/v1/paper/search", "openalex": "/openalex/works",
          "pubmed": "/eutils/esearch.fcgi", "arxiv": "/arxiv/query", "crossref": "/crossref/works"}


# --- parsing ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("2019-2024", (date(2019, 1, 1), date(2024, 12, 31))),
    ("2019-", (date(2019, 1, 1), None)),
    ("-2015", (None, date(2015, 12, 31))),
    ("2020", (date(2020, 1, 1), date(2020, 12, 31))),
    (" 2019 – 2024 ", (date(2019, 1, 1), date(2024, 12, 31))),
])
def test_year_ranges(text, expected):
    assert parse_year_range(text) == expected


@pytest.mark.parametrize("kwargs,message", [
    ({"year": "20-24"}, "--year takes"), ({"year": "2024-2019"}, "backwards"),
    ({"since": "2020-13-01"}, "--since takes"), ({"types": ["thesis"]}, "--type takes"),
    ({"year": "2020", "since": "2021-01-01"}, "empty range"), ({"min_citations": -1}, "negative"),
])
def test_bad_filter_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_filters(**kwargs)


def test_since_and_until_narrow_a_year_range():
    filters = build_filters(year="2019-2024", since="2020-03-01", until="2021-06-30", types=["review,article"])
    assert (filters.date_from, filters.date_to) == (date(2020, 3, 1), date(2021, 6, 30))
    assert filters.types == ("review", "article")
    assert filters.active() == ["date", "type"]


def test_matching_a_papers_own_data():
    paper = Paper("openalex", "t", authors=["Geoffrey E. Hinton", "Yann LeCun"], year=2015,
                  publication_date="2015-05-27", journal="Nature Biotechnology", oa_url=None,
                  publication_types=["Journal Article", "Review"], citation_count=40)
    assert matches(paper, build_filters(year="2015"), "date")
    assert not matches(paper, build_filters(since="2015-06-01"), "date")
    assert matches(paper, build_filters(venue="Nat Biotechnol"), "venue")
    assert not matches(paper, build_filters(venue="Nature Medicine"), "venue")
    assert matches(paper, build_filters(author="Hinton"), "author")
    assert matches(paper, build_filters(author="G. Hinton"), "author")
    assert not matches(paper, build_filters(author="Bengio"), "author")
    assert not matches(paper, build_filters(open_access=True), "open_access")
    assert matches(paper, build_filters(types=["review"]), "type")
    assert not matches(paper, build_filters(types=["preprint"]), "type")
    assert matches(paper, build_filters(min_citations=40), "min_citations")
    assert not matches(paper, build_filters(min_citations=41), "min_citations")


# --- outgoing parameters, per filter and provider -----------------------------------------

@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


# OpenAlex resolves author and venue names only with a key: without one each lookup would
# spend the small keyless allowance (see test_without_an_openalex_key_names_are_not_resolved).
KEYED = {"OPENALEX_API_KEY": "oa-test-key-123"}


def search(server, monkeypatch, capsys, *flags: str, env_extra: dict[str, str] = KEYED):
    env = {**fake_apis.install(server), **env_extra}
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", FIVE, "--format", "json",
                                             "--no-verify", *flags])
    assert run.exit_code == 0, run.stderr
    return json.loads(run.stdout), run, {name: server.requests_to(route)[0] for name, route in ROUTES.items()}


def test_year_range_on_every_provider(server, monkeypatch, capsys):
    payload, _, sent = search(server, monkeypatch, capsys, "--year", "2020-2024")
    assert sent["semantic_scholar"].param("year") == "2020-2024"
    assert "from_publication_date:2020-01-01" in sent["openalex"].param("filter")
    assert "to_publication_date:2024-12-31" in sent["openalex"].param("filter")
    assert (sent["pubmed"].param("datetype"), sent["pubmed"].param("mindate"), sent["pubmed"].param("maxdate")) \
        == ("pdat", "2020/01/01", "2024/12/31")
    assert "submittedDate:[202001010000 TO 202412312359]" in sent["arxiv"].param("search_query")
    assert sent["crossref"].param("filter") == "from-pub-date:2020-01-01,until-pub-date:2024-12-31"
    assert payload["filters"] == ["year 2020–2024: applied by semantic_scholar, openalex, pubmed, arxiv, crossref"]
    # The fake APIs ignore filters; the merged list is still held to the range.
    assert payload["results"] and all(2020 <= r["year"] <= 2024 for r in payload["results"])


def test_exact_dates(server, monkeypatch, capsys):
    _, _, sent = search(server, monkeypatch, capsys, "--since", "2020-03-05", "--until", "2021-06-30")
    assert sent["semantic_scholar"].param("publicationDateOrYear") == "2020-03-05:2021-06-30"
    assert sent["semantic_scholar"].param("year") is None
    assert sent["pubmed"].param("mindate") == "2020/03/05"
    assert "submittedDate:[202003050000 TO 202106302359]" in sent["arxiv"].param("search_query")


def test_venue_is_resolved_by_openalex_and_sent_everywhere_it_can_be(server, monkeypatch, capsys):
    payload, run, sent = search(server, monkeypatch, capsys, "--venue", "Nature Biotechnology")
    assert sent["semantic_scholar"].param("venue") == "Nature Biotechnology"
    assert "primary_location.source.id:S106963461" in sent["openalex"].param("filter")
    assert server.requests_to("/openalex/sources")[0].param("search") == "Nature Biotechnology"
    assert '"Nature Biotechnology"[journal]' in sent["pubmed"].param("term")
    assert sent["crossref"].param("query.container-title") == "Nature Biotechnology"
    assert "venue 'Nature Biotechnology' → Nature Biotechnology, S106963461" in run.stderr
    assert "applied after fetching for arxiv, crossref" in payload["filters"][0]
    assert [r["journal"] for r in payload["results"]] == ["Nature Biotechnology"]


def test_author_is_resolved_to_the_id_with_most_works(server, monkeypatch, capsys):
    payload, run, sent = search(server, monkeypatch, capsys, "--author", "Hinton")
    assert "authorships.author.id:A5108093963" in sent["openalex"].param("filter")
    assert "author 'Hinton' → Geoffrey E. Hinton, A5108093963" in run.stderr
    # Unquoted: quotes switch off PubMed's author-name expansion (Hinton G, Hinton GE …).
    assert "Hinton[au]" in sent["pubmed"].param("term") and '"Hinton"' not in sent["pubmed"].param("term")
    assert "au:Hinton" in sent["arxiv"].param("search_query")
    assert sent["crossref"].param("query.author") == "Hinton"
    assert sent["semantic_scholar"].param("author") is None  # S2 search has no author parameter
    line = payload["filters"][0]
    assert line.startswith("author 'Hinton': applied by openalex, pubmed, arxiv")
    assert "applied after fetching for semantic_scholar, crossref" in line
    assert payload["results"] == []  # no Hinton in the fake corpus


def test_unresolvable_author_falls_back_to_checking_after_fetching(server, monkeypatch, capsys):
    payload, run, sent = search(server, monkeypatch, capsys, "--author", "Vaswani")
    assert "filter" not in sent["openalex"].query
    assert "not found in OpenAlex" in run.stderr
    assert [r["title"] for r in payload["results"]] == ["Attention Is All You Need"]


def test_open_access(server, monkeypatch, capsys):
    payload, _, sent = search(server, monkeypatch, capsys, "--open-access")
    assert "openAccessPdf" in sent["semantic_scholar"].query
    assert "open_access.is_oa:true" in sent["openalex"].param("filter")
    assert "free full text[sb]" in sent["pubmed"].param("term")
    assert all(r["oa_url"] for r in payload["results"])
    assert "crossref" in payload["filters"][0].split("after fetching for")[1]


def test_type_and_min_citations(server, monkeypatch, capsys):
    payload, _, sent = search(server, monkeypatch, capsys, "--type", "review", "--min-citations", "50")
    assert sent["semantic_scholar"].param("publicationTypes") == "Review"
    assert sent["semantic_scholar"].param("minCitationCount") == "50"
    assert "type:review" in sent["openalex"].param("filter")
    assert "cited_by_count:>49" in sent["openalex"].param("filter")
    assert "review[pt]" in sent["pubmed"].param("term")
    assert "filter" not in sent["crossref"].query  # Crossref has no review type: checked afterwards
    assert all((r["citation_count"] or 0) >= 50 for r in payload["results"])


def test_conference_type_maps_per_api(server, monkeypatch, capsys):
    _, _, sent = search(server, monkeypatch, capsys, "--type", "conference")
    assert sent["semantic_scholar"].param("publicationTypes") == "Conference"
    assert "congress[pt]" in sent["pubmed"].param("term")
    assert sent["crossref"].param("filter") == "type:proceedings-article"
    assert "type:" not in (sent["openalex"].param("filter") or "")


def test_filters_combine_and_the_footer_says_where(server, monkeypatch, capsys):
    env = fake_apis.install(server)
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", FIVE, "--year", "2013-2020",
                                             "--open-access", "--no-verify"])
    assert run.exit_code == 0
    assert "- filter: year 2013–2020: applied by" in run.stdout
    assert "- filter: open access: applied by semantic\\_scholar, openalex, pubmed, arxiv; " \
           "applied after fetching for crossref" in run.stdout
    assert "papers removed by the filters" in run.stdout


def test_no_filters_send_no_filter_parameters(server, monkeypatch, capsys):
    payload, _, sent = search(server, monkeypatch, capsys)
    assert "filter" not in sent["openalex"].query and "year" not in sent["semantic_scholar"].query
    assert payload["filters"] == [] and server.requests_to("/openalex/authors") == []


def test_filters_object_is_falsy_when_empty():
    assert not Filters() and Filters(open_access=True)


def test_the_issue_example_year_open_access_author(server, monkeypatch, capsys):
    """lit-search "topic" --year 2020-2024 --open-access --author NAME: filters reach every
    provider, and the table shows verified DOIs and open-access links."""
    env = {**fake_apis.install(server), **KEYED}
    run = run_cli(monkeypatch, capsys, env, ["CRISPR off-target", "--providers", "semantic_scholar,openalex,pubmed,arxiv",
                                             "--year", "2020-2024", "--open-access", "--author", "Guo"])
    assert run.exit_code == 0, run.stderr
    s2, oa = server.requests_to(ROUTES["semantic_scholar"])[0], server.requests_to(ROUTES["openalex"])[0]
    pubmed, arxiv = server.requests_to(ROUTES["pubmed"])[0], server.requests_to(ROUTES["arxiv"])[0]
    assert s2.param("year") == "2020-2024" and "openAccessPdf" in s2.query
    assert oa.param("filter") == ("from_publication_date:2020-01-01,to_publication_date:2024-12-31,"
                                  "authorships.author.id:A5023888391,open_access.is_oa:true")
    assert pubmed.param("mindate") == "2020/01/01" and "Guo[au]" in pubmed.param("term")
    assert "free full text[sb]" in pubmed.param("term")
    assert "au:Guo" in arxiv.param("search_query") and "submittedDate:[20200101" in arxiv.param("search_query")
    rows = [line for line in run.stdout.splitlines() if line.startswith("| 1 |")]
    assert len(rows) == 1 and "Off-target effects in CRISPR/Cas9 gene editing" in rows[0]
    assert "10.3389/fbioe.2023.1143157) ✓" in rows[0]
    assert "[page](https://www.frontiersin.org/articles/10.3389/fbioe.2023.1143157)" in rows[0]
    assert "author 'Guo' → Congting Guo, A5023888391" in run.stderr


# --- requests corrected against the APIs' documentation (issue 13, item 9) ----------------------

@pytest.mark.parametrize("name, term", [
    ("Smith", "Smith[au]"),
    ("Geoffrey Hinton", "Hinton G[au]"),
    ("Hinton, Geoffrey", "Hinton G[au]"),
    ("JA Doudna", "Doudna JA[au]"),
    ("van der Berg J", '"van der Berg J"[au]'),
])
def test_pubmed_author_terms_keep_name_expansion(server, monkeypatch, capsys, name, term):
    _, _, sent = search(server, monkeypatch, capsys, "--author", name)
    assert sent["pubmed"].param("term").endswith(f" AND {term}")


def test_without_an_openalex_key_names_are_not_resolved(server, monkeypatch, capsys):
    payload, run, sent = search(server, monkeypatch, capsys, "--author", "Hinton", "--venue", "Nature",
                                env_extra={})
    assert server.requests_to("/openalex/authors") == [] and server.requests_to("/openalex/sources") == []
    assert "authorships" not in (sent["openalex"].param("filter") or "")
    assert "name lookups need OPENALEX_API_KEY" in run.stderr
    assert "applied after fetching for semantic_scholar, openalex" in payload["filters"][1]


def test_a_failed_openalex_name_lookup_does_not_fail_the_search(server, monkeypatch, capsys):
    env = {**fake_apis.install(server, {"/openalex/authors": [fake_apis.Answer(503, '{"error": "down"}')]}), **KEYED}
    run = run_cli(monkeypatch, capsys, env, ["deep learning", "--providers", "openalex", "--format", "json",
                                             "--no-verify", "--author", "Hinton"])
    assert run.exit_code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["errors"] == [] and payload["providers"][0]["results"] > 0
    assert "name lookup failed (HTTP 503" in run.stderr
    assert "filter" not in server.requests_to(ROUTES["openalex"])[0].query
