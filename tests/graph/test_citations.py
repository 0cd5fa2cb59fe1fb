"""Paper ids, the reference/citation parsers (hand-written S2 pages and REAL recorded
OpenAlex and S2 bodies from ../shared/fixtures), and the network renderers."""

from __future__ import annotations

import asyncio
import json
import re
import sys

import pydot
import pytest
from conftest import REPO, shared_file

from litsearch.dedupe.clusters import merge_records as merge_duplicates
from litsearch.graph.bundle import rank_by_citations
from litsearch.providers import openalex, semantic_scholar
from litsearch.providers.openalex import ID_BATCH as OPENALEX_ID_BATCH
from litsearch.providers.openalex import id_batches as openalex_id_batches
from litsearch.providers.openalex import parse_work_with_references as parse_openalex_work
from litsearch.providers.openalex import referenced_work_ids
from litsearch.providers.semantic_scholar import parse_citations as parse_s2_citations
from litsearch.providers.semantic_scholar import parse_record as parse_s2_record
from litsearch.providers.semantic_scholar import parse_references as parse_s2_references
from litsearch.core.identifiers import PaperRef, parse_paper_ref
from litsearch.core.errors import UnknownIdError
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.graph.network import CitationNetwork, build_network, expansion_candidates, first_author_surname, node_label, shared_references
from litsearch.render.network import mermaid_text, network_markdown, node_ids, to_dot, to_mermaid
from litsearch.providers.openalex import parse_works
from litsearch.core.records import Paper
from litsearch.runtime.settings import settings_from_env

# pydot 4 calls pyparsing names that pyparsing 3.3 deprecates; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")

SNOWBALL = "openalex/bodies/openalexPro__works_filter_openalex_cites_citedby_pages__{:02d}_200.json"
SEED_IDS = ("W3046863325", "W3045921891")


# --------------------------------------------------------------------------- paper ids

@pytest.mark.parametrize("text, kind, value", [
    ("10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("https://doi.org/10.1038/NBT.2647", "doi", "10.1038/nbt.2647"),
    ("http://dx.doi.org/10.1023/A:1007154515475", "doi", "10.1023/a:1007154515475"),
    ("doi: 10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("DOI:10.1038/nbt.2647", "doi", "10.1038/nbt.2647"),
    ("10.48550/arXiv.2312.07559", "arxiv", "2312.07559"),
    ("23873081", "pmid", "23873081"),
    ("PMID: 023873081", "pmid", "23873081"),
    ("https://pubmed.ncbi.nlm.nih.gov/23873081/", "pmid", "23873081"),
    ("2101.00001", "arxiv", "2101.00001"),
    ("arXiv:2101.00001v3", "arxiv", "2101.00001"),
    ("https://arxiv.org/pdf/2101.00001v2.pdf", "arxiv", "2101.00001"),
    ("hep-th/9901001", "arxiv", "hep-th/9901001"),
    ("DB3720C812A462EF955D5654B65CA9189D4B8372", "s2", "db3720c812a462ef955d5654b65ca9189d4b8372"),
    ("https://www.semanticscholar.org/paper/Some-Title/db3720c812a462ef955d5654b65ca9189d4b8372", "s2",
     "db3720c812a462ef955d5654b65ca9189d4b8372"),
    ("CorpusId:10888161", "corpusid", "10888161"),
    ("corpusid: 10888161", "corpusid", "10888161"),
    ("W2741809807", "openalex", "W2741809807"),
    ("https://openalex.org/w2741809807", "openalex", "W2741809807"),
    ("https://api.openalex.org/works/W2741809807", "openalex", "W2741809807"),
])
def test_every_id_form_is_classified(text, kind, value):
    assert parse_paper_ref(text) == PaperRef(kind, value)


@pytest.mark.parametrize("text", ["", "   ", "not an id", "1234567890123", "W", "doi:not-a-doi", "PMID:abc",
                                  "CorpusId:x1", "arXiv:banana", "https://example.org/paper/1", "x" * 400,
                                  "10.1038", "db3720c812a462ef955d5654b65ca9189d4b837"])
def test_unknown_ids_are_refused(text):
    with pytest.raises(UnknownIdError):
        parse_paper_ref(text)


def test_each_id_kind_maps_to_what_each_api_accepts():
    assert semantic_scholar.api_id(parse_paper_ref("10.1038/nbt.2647")) == "DOI:10.1038/nbt.2647"
    assert openalex.api_id(parse_paper_ref("10.1038/nbt.2647")) == "doi:10.1038/nbt.2647"
    assert semantic_scholar.api_id(parse_paper_ref("2101.00001")) == "ARXIV:2101.00001"
    assert openalex.api_id(parse_paper_ref("2101.00001")) == "doi:10.48550/arxiv.2101.00001"  # OpenAlex files arXiv by DOI
    assert semantic_scholar.api_id(parse_paper_ref("PMID:1")) == "PMID:1" and openalex.api_id(parse_paper_ref("PMID:1")) == "pmid:1"
    assert semantic_scholar.api_id(parse_paper_ref("CorpusId:5")) == "CorpusId:5" and openalex.api_id(parse_paper_ref("CorpusId:5")) is None
    assert semantic_scholar.api_id(parse_paper_ref("W12")) is None  # only OpenAlex resolves its own ids


# --------------------------------------------------------------------------- S2 pages (hand-written)

S2_REFERENCES = {
    "offset": 0, "next": 3,
    "data": [
        {"citedPaper": {"paperId": "a" * 40, "title": "First <i>cited</i> paper", "year": 2019,
                        "authors": [{"authorId": "1", "name": "Ann Author"}],
                        "externalIds": {"DOI": "10.1000/ABC", "ArXiv": "1901.00001v2", "CorpusId": 7},
                        "citationCount": 12, "venue": "Journal A"}},
        {"citedPaper": {"paperId": None, "title": "Not in the S2 corpus", "year": None, "authors": [],
                        "externalIds": None, "citationCount": None, "venue": None}},
        {"citedPaper": None},
        {"citedPaper": {"paperId": "b" * 40, "title": "", "year": 2000}},
        "junk",
        {"citedPaper": {"paperId": "c" * 40, "title": "Third", "year": "2001", "citationCount": "40"}},
    ],
}


def test_s2_references_page_keeps_titled_papers_ranked_by_position():
    papers = parse_s2_references(json.dumps(S2_REFERENCES))
    assert [p.title for p in papers] == ["First cited paper", "Not in the S2 corpus", "Third"]
    assert [p.rank for p in papers] == [1, 2, 6]
    first = papers[0]
    assert (first.doi, first.arxiv_id, first.semantic_scholar_id, first.citation_count) == \
        ("10.1000/abc", "1901.00001", "a" * 40, 12)
    assert papers[1].semantic_scholar_id is None and papers[1].citation_count is None
    assert papers[2].year == 2001 and papers[2].citation_count == 40
    assert all(p.provider == "semantic_scholar" for p in papers)


def test_s2_citations_page_reads_citing_paper():
    body = {"offset": 0, "data": [{"citingPaper": {"paperId": "d" * 40, "title": "Citer", "year": 2024},
                                   "isInfluential": False, "contexts": []},
                                  {"citedPaper": {"paperId": "e" * 40, "title": "Wrong side"}}]}
    assert [p.title for p in parse_s2_citations(json.dumps(body))] == ["Citer"]
    assert [p.title for p in parse_s2_references(json.dumps(body))] == ["Wrong side"]


@pytest.mark.parametrize("body", [b'{"offset": 0, "data": []}', b'{"offset": 0}', b'{"offset": 0, "data": null}'])
def test_s2_empty_pages(body):
    assert parse_s2_references(body) == [] and parse_s2_citations(body) == []


@pytest.mark.parametrize("body, message", [
    (b"<html>Bad gateway</html>", "not JSON"),
    (b"[1, 2]", "not an object"),
    (b'{"data": {"citedPaper": {}}}', "'data' is not a list"),
    (b'{"error": "Paper with id DOI:10.1/x not found"}', "API error: Paper with id DOI:10.1/x not found"),
])
def test_s2_bad_pages_raise_provider_errors(body, message):
    with pytest.raises(ProviderError, match=re.escape(message)):
        parse_s2_references(body)


# --------------------------------------------------------------------------- REAL S2 records

@pytest.mark.parametrize("name, doi, pmid, paper_id, year", [
    ("paperqa__doi_search_10.1073_pnas.1414271111__00_200.json", "10.1073/pnas.1414271111", "25349395",
     "db3720c812a462ef955d5654b65ca9189d4b8372", 2014),
    ("paperqa__doi_search_10.1023_a_1007154515475__00_200.json", "10.1023/a:1007154515475", "11330823",
     "19807da5b11f3e641535cb72e465001b49b48ee5", 2001),
    ("paperqa__doi_search_10.1016_j.xgen.2025.100814__00_200.json", "10.1016/j.xgen.2025.100814", "40120586",
     "7e5d4466c8b85f93775fe183e1a318a3e65ac8e4", 2024),
])
def test_real_s2_paper_records(name, doi, pmid, paper_id, year):
    paper, reference_count = parse_s2_record(shared_file(f"semantic_scholar/bodies/{name}").read_bytes())
    assert (paper.doi, paper.pmid, paper.semantic_scholar_id, paper.year) == (doi, pmid, paper_id, year)
    assert paper.title and paper.authors and paper.citation_count is not None
    assert reference_count is None  # these recordings did not ask for referenceCount


def test_real_s2_preprint_record_becomes_an_arxiv_paper():
    body = shared_file("semantic_scholar/bodies/paperqa__bulk_doi_search_6_dois_incl_404s__04_200.json").read_bytes()
    paper, _ = parse_s2_record(body)
    assert paper.title.startswith("PaperQA") and paper.arxiv_id == "2312.07559"
    assert paper.doi == "10.48550/arxiv.2312.07559"


def test_real_s2_404_body_is_an_api_error():
    body = shared_file("semantic_scholar/bodies/paperqa__bulk_doi_search_6_dois_incl_404s__03_404.json").read_bytes()
    with pytest.raises(ProviderError, match="API error"):
        parse_s2_record(body)


# --------------------------------------------------------------------------- REAL OpenAlex bodies

def test_real_openalex_work_record_with_its_referenced_works():
    work = parse_openalex_work(shared_file("openalex/raw/openalex_python__work_W2741809807_peerj.4375.json").read_bytes())
    assert work.paper.openalex_id == "W2741809807" and work.paper.doi == "10.7717/peerj.4375"
    assert work.paper.title.startswith("The state of OA")
    assert len(work.referenced_ids) == 45 == len(set(work.referenced_ids))
    assert all(re.fullmatch(r"W\d+", w) for w in work.referenced_ids)
    assert work.referenced_count >= 45


def test_real_openalex_doi_record_and_its_404_page():
    work = parse_openalex_work(shared_file("openalex/bodies/paperqa__doi_search_10.1073_pnas.1414271111__00_200.json")
                               .read_bytes())
    assert work.paper.doi == "10.1073/pnas.1414271111" and work.paper.pmid == "25349395"
    assert len(work.referenced_ids) == 73
    with pytest.raises(ProviderError, match="HTML"):
        parse_openalex_work(shared_file("openalex/bodies/paperqa__openalex_doi_not_found_404_html__00_404.html")
                            .read_bytes())


def _snowball(number: int) -> dict:
    return json.loads(shared_file(SNOWBALL.format(number)).read_text(encoding="utf-8"))


def test_real_snowball_seeds_share_one_reference():
    seeds = _snowball(1)["results"]
    assert [normalize(w["id"]) for w in seeds] == list(SEED_IDS)
    first, second = (referenced_work_ids(work) for work in seeds)
    assert (len(first), len(second)) == (6, 37)
    assert set(first) & set(second) == {"W2741809807"}  # "The state of OA", cited by both


def test_real_cited_by_page_resolves_the_seeds_references_and_ranks_by_citations():
    wanted = {w for work in _snowball(1)["results"] for w in referenced_work_ids(work)}
    page = _snowball(5)
    assert len(page["results"]) == 38
    assert len(wanted - {normalize(w["id"]) for w in page["results"]}) == 4  # OpenAlex had no record for four ids
    papers = parse_works(json.dumps(page))
    # One real record (W2963341956, 30,214 citations) has an empty title: it cannot be shown, so it is skipped.
    assert len(papers) == 37 and {p.openalex_id for p in papers} <= wanted
    assert "W2963341956" not in {p.openalex_id for p in papers}
    ranked = rank_by_citations(merge_duplicates(papers))
    assert len(ranked) == 37
    assert ranked[0].title == "Glove: Global Vectors for Word Representation" and ranked[0].citation_count == 32760
    counts = [p.citation_count for p in ranked]
    assert counts == sorted(counts, reverse=True)
    assert len(openalex_id_batches(sorted(wanted))) == 1  # 42 ids: one OR-filter call


def test_real_cites_page_lists_works_that_reference_a_seed():
    page = _snowball(3)
    papers = parse_works(json.dumps(page))
    assert len(papers) == 5 and all(p.title and p.openalex_id for p in papers)
    for work in page["results"]:
        assert set(referenced_work_ids(work)) & set(SEED_IDS)


def normalize(url: str) -> str:
    return url.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------- list helpers

def test_id_batches_hold_at_most_a_hundred():
    # An OR-filter takes up to 100 values and a list call costs the same at any size (issue 20, item 4).
    ids = [f"W{i}" for i in range(230)]
    batches = openalex_id_batches(ids)
    assert [len(b) for b in batches] == [100, 100, 30] and OPENALEX_ID_BATCH == 100
    assert sum(batches, []) == ids and openalex_id_batches([]) == []


def test_rank_by_citations_puts_unknown_counts_last_and_is_stable():
    papers = [Paper("x", "B", citation_count=None, year=2020), Paper("x", "A", citation_count=5, year=2010),
              Paper("x", "C", citation_count=5, year=2015), Paper("x", "D", citation_count=0)]
    assert [p.title for p in rank_by_citations(papers)] == ["C", "A", "D", "B"]


def test_merge_duplicates_joins_preprint_and_journal_records():
    papers = [Paper("semantic_scholar", "Deep mutational scanning", doi="10.1/x", arxiv_id="1901.00001", citation_count=8),
              Paper("semantic_scholar", "Deep mutational scanning", arxiv_id="1901.00001", citation_count=3),
              Paper("semantic_scholar", "Something else entirely", doi="10.1/y")]
    merged = merge_duplicates(papers)
    assert len(merged) == 2 and merged[0].doi == "10.1/x" and merged[0].citation_count == 8


# --------------------------------------------------------------------------- renderers

HOSTILE = 'A "b" | `c` [d](http://e) #f; g\\h %%{init}%% <x> & ]] \n next'


def _network(titles: list[str], edges: list[tuple[int, int]], seeds: list[int], counts=None) -> CitationNetwork:
    nodes = {f"k{i}": Paper("openalex", title, authors=[f"Author{i} Surname{i}"], year=2000 + i,
                            citation_count=(counts or {}).get(i, i)) for i, title in enumerate(titles)}
    return CitationNetwork(seeds=[f"k{i}" for i in seeds], nodes=nodes,
                           edges=sorted({(f"k{a}", f"k{b}") for a, b in edges}))


def test_mermaid_text_turns_every_special_character_into_an_entity_code():
    text = mermaid_text(HOSTILE)
    assert text == ('A #34;b#34; #124; #96;c#96; #91;d#93;(http://e) #35;f#59; g#92;h #37;#37;#123;init#125;#37;#37; '
                    '#38; #93;#93; next')  # the <x> tag is stripped as markup
    assert not re.search(r'["|`\[\]<>{};%\\\n]', re.sub(r"#\d+;", "", text))


def test_node_labels_are_author_year_and_a_short_title():
    paper = Paper("x", "Attention is all you need, and a lot more words than fit in a label", authors=["Ashish Vaswani"],
                  year=2017)
    assert node_label(paper) == "Vaswani 2017: Attention is all you need, and a lot more words…"
    assert node_label(Paper("x", "Untitled work")) == "n.d.: Untitled work"
    assert first_author_surname(["Hsu PD"]) == "Hsu" and first_author_surname(["Aristotle"]) == "Aristotle"
    assert first_author_surname(["Smith, John R."]) == "Smith" and first_author_surname([]) == ""


def test_shared_references_rank_by_seed_count_then_citations():
    # seeds 0, 1, 2; 3 is cited by all three, 4 and 5 by two (5 more cited), 6 by one.
    network = _network([f"Paper {i}" for i in range(7)],
                       [(0, 3), (1, 3), (2, 3), (0, 4), (1, 4), (1, 5), (2, 5), (0, 6), (1, 0)],
                       seeds=[0, 1, 2], counts={3: 10, 4: 50, 5: 60, 6: 999})
    assert [(p.title, n) for p, n in shared_references(network)] == [("Paper 3", 3), ("Paper 5", 2), ("Paper 4", 2)]
    # Depth-2 candidates: the seeds' references, most shared first (a seed cited by a seed is not one).
    assert expansion_candidates(network, limit=3) == ["k3", "k5", "k4"]


def test_node_ids_are_stable_and_seeds_come_first():
    network = _network(["Seed", "Ref big", "Ref small"], [(0, 1), (0, 2)], seeds=[0], counts={1: 100, 2: 1})
    assert node_ids(network) == {"k0": "n1", "k1": "n2", "k2": "n3"}
    assert node_ids(network) == node_ids(_network(["Seed", "Ref big", "Ref small"], [(0, 2), (0, 1)], seeds=[0],
                                                  counts={1: 100, 2: 1}))


def test_mermaid_block_caps_the_nodes_and_says_how_many_are_hidden():
    network = _network([HOSTILE] + [f"Reference {i}" for i in range(1, 80)], [(0, i) for i in range(1, 80)], seeds=[0])
    block = to_mermaid(network, max_nodes=60)
    lines = block.splitlines()
    assert lines[0] == "```mermaid" and lines[1] == "flowchart LR" and lines[-1] == "```"
    assert sum(1 for line in lines if re.match(r'^    n\d+\["', line)) == 60
    assert sum(1 for line in lines if " --> " in line) == 59  # only edges between drawn nodes
    assert "    %% 20 more papers not drawn (the drawing stops at 60); the JSON and DOT outputs have every paper" in lines
    assert "    class n1 seed" in lines
    assert lines[2].startswith('    n1["Surname0 2000: A #34;b#34; #124;')


def test_dot_output_with_hostile_labels_parses_back_to_the_same_text():
    network = _network([HOSTILE, 'Trailing backslash \\', 'Quote " only'], [(0, 1), (2, 0)], seeds=[0])
    text = to_dot(network)
    graph = pydot.graph_from_dot_data(text)[0]
    nodes = {n.get_name(): n for n in graph.get_nodes() if n.get_name() not in ("node", "graph", "edge")}
    assert set(nodes) == {"n1", "n2", "n3"}
    ids = node_ids(network)
    assert {(e.get_source(), e.get_destination()) for e in graph.get_edges()} == \
        {(ids["k0"], ids["k1"]), (ids["k2"], ids["k0"])}
    decoded = {name: _dot_unquote(node.get("label")) for name, node in nodes.items()}
    assert decoded[ids["k0"]] == node_label(network.nodes["k0"])
    assert decoded[ids["k1"]].endswith("Trailing backslash \\") and decoded[ids["k2"]].endswith('Quote " only')
    assert "\n" not in decoded["n1"]


def _dot_unquote(value: str) -> str:
    assert value.startswith('"') and value.endswith('"')
    return re.sub(r'\\(["\\])', r"\1", value[1:-1])


def test_network_markdown_escapes_the_shared_table():
    network = _network(["Seed one", "Seed two", HOSTILE], [(0, 2), (1, 2)], seeds=[0, 1], counts={2: 1234})
    out = network_markdown(network)
    row = next(line for line in out.splitlines() if line.startswith("| 1 |"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 6
    assert "| 2 of 2 | 1,234 |" in row and "<x>" not in row and "http://" not in row
    assert "```mermaid\nflowchart LR\n" in out
    assert "- 2 seeds, 3 papers, 2 citation links (depth 1)" in out


# --------------------------------------------------------------------------- a real network, in-process

def test_network_from_the_real_recorded_pages():
    """bench/network_demo serves the recorded OpenAlex snowball pages; both seeds cite "The state of OA"."""
    shared_file(SNOWBALL.format(1))
    sys.path.insert(0, str(REPO / "bench"))
    from fake_server import FakeServer
    from network_demo import SEEDS, install_fixture_apis

    with FakeServer() as server:
        env = install_fixture_apis(server)
        settings = settings_from_env({**env, "LITSEARCH_EMAIL": "t@example.org"})
        unpaced = {name: PacePolicy(0.0, 5, retries=0) for name in ("semantic_scholar", "openalex")}

        async def build():
            async with HttpClient(settings, policies=unpaced) as http:
                return await build_network(http, SEEDS)

        network = asyncio.run(build())
    titles = [network.nodes[key].title for key in network.seeds]
    assert titles[0].startswith("Trends of Publications' Citations") and titles[1].startswith("Measuring prominence")
    assert [(p.openalex_id, n) for p, n in shared_references(network)] == [("W2741809807", 2)]
    # 2 seeds + 5 + 33 references resolved (one shared) + 5 citing works.
    assert len(network.nodes) == 2 + 5 + 33 - 1 + 5
    citing_first = [a for a, b in network.edges if b == network.seeds[0]]
    assert len(citing_first) == 5
    assert any("33 of the 37 works" in note for note in network.notes)
