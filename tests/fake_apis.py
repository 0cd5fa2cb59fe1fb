"""Fake Semantic Scholar, OpenAlex, PubMed, arXiv, Crossref and Unpaywall that speak each
real API's format.

They serve one small corpus of overlapping papers, so an end-to-end run exercises
cross-provider merging (DOI case and URL form, arXiv versions, a preprint/published
pair, a PMID-only link, title variants) and the hard negatives that must stay apart.
A query containing "nothingmatches" gets an empty answer from every provider.

Run ``python tests/fake_apis.py`` to serve them on a free loopback port and print the
environment variables that point lit-search at them.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import threading
import zlib
from html import escape
from typing import Any, Callable

import fake_openalex_entities
import fake_openalex_rules
from fake_server import Answer, FakeServer, SeenRequest, serve_until_interrupted  # noqa: F401 (re-exported for tests)

EMPTY_TRIGGER = "nothingmatches"

# Each paper: canonical metadata plus how each provider shows it ("in" lists providers;
# per-provider overrides model real differences between APIs).
CORPUS: list[dict[str, Any]] = [
    {
        "key": "transformer",
        "title": "Attention Is All You Need",
        "authors": ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit", "Llion Jones",
                    "Aidan N. Gomez", "Lukasz Kaiser", "Illia Polosukhin"],
        "year": 2017, "date": "2017-06-12", "venue": "Neural Information Processing Systems",
        "arxiv": "1706.03762", "arxiv_version": "v7", "s2": "204e3073870fae3d05bcbc2f6a8e263d9b72e776",
        "openalex": "W2626778328",
        "abstract": "The dominant sequence transduction models are based on complex recurrent or "
                    "convolutional neural networks that include an encoder and a decoder. We propose a new "
                    "simple network architecture, the Transformer, based solely on attention mechanisms.",
        "tldr": "A new simple network architecture, the Transformer, based solely on attention mechanisms.",
        "citations": 120345, "influential": 16012,
        "in": ["semantic_scholar", "openalex", "arxiv"],
        "openalex_doi": "https://doi.org/10.48550/arxiv.1706.03762",
        "pdf": "https://arxiv.org/pdf/1706.03762",
    },
    {
        "key": "crispr",
        "title": "DNA targeting specificity of RNA-guided Cas9 nucleases",
        "authors": ["Patrick D Hsu", "David A Scott", "Joshua A Weinstein", "F Ann Ran"],
        "year": 2013, "date": "2013-07-21", "venue": "Nature Biotechnology",
        "doi": "10.1038/nbt.2647", "pmid": "23873081", "s2": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
        "openalex": "W2022234560",
        "abstract": "The Streptococcus pyogenes Cas9 nuclease can be targeted to specific genomic loci by "
                    "single guide RNAs. Here we characterize off-target cleavage and its dependence on "
                    "mismatches between guide and target.",
        "citations": 5120, "influential": 310,
        "in": ["semantic_scholar", "openalex", "pubmed"],
        "unpaywall": {"url_for_pdf": "https://europepmc.org/articles/pmc3969858?pdf=render",
                      "url": "https://europepmc.org/articles/pmc3969858"},
        "s2_doi": "10.1038/NBT.2647",  # S2 keeps publisher case
        "openalex_doi": "https://doi.org/10.1038/nbt.2647",
    },
    {
        "key": "preprint_pair",
        "title": "Language Models are Few-Shot Learners",
        "authors": ["Tom B. Brown", "Benjamin Mann", "Nick Ryder", "Melanie Subbiah"],
        "year": 2020, "date": "2020-05-28", "venue": "Advances in Neural Information Processing Systems",
        "doi": "10.5555/3495724.3495883", "arxiv": "2005.14165", "arxiv_version": "v4",
        "s2": "90abbc2cf38462b954ae1b772fac9532e2ccd8b0", "openalex": "W3030163527",
        "abstract": "We show that scaling up language models greatly improves task-agnostic, few-shot "
                    "performance, sometimes even reaching competitiveness with prior state-of-the-art "
                    "fine-tuning approaches.",
        "citations": 30210,
        # arXiv lists the preprint without a DOI; S2 links both ids; OpenAlex has only the published DOI.
        "in": ["semantic_scholar", "openalex", "arxiv"],
        "refs": ["transformer"],
        "arxiv_doi": None,
    },
    {
        "key": "pmid_only",
        "title": "Off-target effects in CRISPR/Cas9 gene editing",
        "authors": ["Congting Guo", "Xiaoding Ma", "Fei Gao", "Yuxuan Guo"],
        "year": 2023, "date": "2023-03-09", "venue": "Frontiers in Bioengineering and Biotechnology",
        "doi": "10.3389/fbioe.2023.1143157", "pmid": "36970624", "openalex": "W4324371002",
        "abstract": "Off-target effects remain a major concern for therapeutic genome editing. This review "
                    "summarizes detection methods and strategies that reduce off-target cleavage.",
        "citations": 95,
        "in": ["openalex", "pubmed"],
        "unpaywall": {"url_for_pdf": None, "url": "https://www.frontiersin.org/articles/10.3389/fbioe.2023.1143157"},
        "refs": ["crispr", "title_variant"],
        "pubmed_doi": None,  # the esummary carries no DOI: only the PMID links the two
    },
    {
        "key": "title_variant",
        "title": "Genome-wide detection of off-target sites in <i>in vivo</i> editing",
        "s2_title": "Genome-wide detection of off-target sites in in vivo editing.",
        "authors": ["Maria Keller", "Jonas Weber"],
        "year": 2021, "venue": "Genome Research",
        "s2": "5f0e1d2c3b4a59687766554433221100aabbccdd", "openalex": "W3190000001",
        "abstract": "We present a genome-wide method to detect off-target sites after in vivo editing.",
        "citations": 42,
        "in": ["semantic_scholar", "openalex"],
        "refs": ["crispr"],
    },
    {
        "key": "editorial_2019",
        "title": "Editorial",
        "authors": ["Anne Editor"], "year": 2019, "venue": "Journal of Gene Medicine",
        "doi": "10.1002/jgm.3100", "openalex": "W2990000001", "citations": 0,
        "in": ["openalex"],
        "crossref_missing": True,  # Crossref answers 404 for this DOI
    },
    {
        "key": "editorial_2021",
        "title": "Editorial",
        "authors": ["Anne Editor"], "year": 2021, "venue": "Journal of Gene Medicine",
        "doi": "10.1002/jgm.3300", "s2": "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0", "citations": 1,
        "in": ["semantic_scholar"],
    },
    {
        "key": "conference",
        "title": "Fast off-target search for CRISPR guides",
        "authors": ["Lena Fischer", "Omar Haddad"], "year": 2018, "venue": "RECOMB",
        "doi": "10.1007/978-3-319-89929-9_12", "s2": "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0",
        "citations": 30, "in": ["semantic_scholar"],
        "refs": ["crispr"],  # known to Semantic Scholar only: its links come from the S2 batch endpoint
    },
    {
        "key": "journal_extension",
        "title": "Fast off-target search for CRISPR guides",
        "authors": ["Lena Fischer", "Omar Haddad"], "year": 2019, "venue": "Journal of Computational Biology",
        "doi": "10.1089/cmb.2018.0201", "openalex": "W2910000002", "citations": 55,
        "in": ["openalex"],
        # Crossref holds a different paper under this DOI: the check must flag it.
        "crossref_title": "Fish ladders and river connectivity",
    },
    # Fictional papers with notices, served only for queries about gastric organoids (so that
    # every other test sees the corpus above unchanged). Each source says it its own way.
    {
        "key": "retracted",
        "topic": "gastric organoid",
        "title": "Gastric organoids reveal a regenerative stem cell niche",
        "authors": ["Iris Falsa", "Tomas Ficticio"], "year": 2019, "date": "2019-04-02",
        "venue": "Journal of Fictional Gastroenterology",
        "doi": "10.5555/jfg.2019.0101", "pmid": "31000001", "s2": "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1",
        "openalex": "W3100000001", "citations": 210,
        "abstract": "Gastric organoids grown from single stem cells regenerate the epithelium.",
        "in": ["semantic_scholar", "openalex", "pubmed"],
        "openalex_retracted": True,
        "pubmed_types": ["Journal Article", "Retracted Publication"],
        "pubmed_comments": [("RetractionIn", "J Fict Gastroenterol. 2021;12:45. doi: 10.5555/jfg.2021.0045",
                             "34000002")],
        "crossref_updated_by": [{"DOI": "10.5555/jfg.2021.0045", "type": "retraction", "source": "retraction-watch",
                                 "label": "Retraction", "updated": {"date-parts": [[2021, 3, 1]]}}],
    },
    {
        "key": "corrected",
        "topic": "gastric organoid",
        "title": "Organoid cultures of gastric cancer biopsies predict drug response",
        "authors": ["Ana Inventada", "Bo Erdacht"], "year": 2020, "venue": "Journal of Fictional Gastroenterology",
        "doi": "10.5555/jfg.2020.0202", "s2": "f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2",
        "openalex": "W3100000002", "citations": 80,
        "in": ["semantic_scholar", "openalex"],
        "crossref_updated_by": [{"DOI": "10.5555/jfg.2020.0303", "type": "correction", "source": "publisher",
                                 "label": "Correction", "updated": {"date-parts": [[2020, 9, 1]]}}],
    },
    # Two abstracts of one congress supplement, sharing its DOI (issue 20, item 9): the same
    # group, titles a word apart, different pages. Semantic Scholar has one, OpenAlex the other.
    {
        "key": "supplement_adults",
        "topic": "eculizumab registry",
        "title": "Long-term outcomes of eculizumab in adults with paroxysmal nocturnal haemoglobinuria: "
                 "registry results",
        "authors": ["Rhona Kelly", "Louise Arnold", "Peter Hillmen"], "year": 2019, "venue": "Blood",
        "volume": "134", "pages": "S123", "doi": "10.1182/blood-2019-supplement.1",
        "s2": "f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4", "citations": 3, "in": ["semantic_scholar"],
    },
    {
        "key": "supplement_children",
        "topic": "eculizumab registry",
        "title": "Long-term outcomes of eculizumab in children with paroxysmal nocturnal haemoglobinuria: "
                 "registry results",
        "authors": ["Rhona Kelly", "Louise Arnold", "Peter Hillmen"], "year": 2019, "venue": "Blood",
        "volume": "134", "pages": "S456", "doi": "10.1182/blood-2019-supplement.1",
        "openalex": "W3100000005", "citations": 1, "in": ["openalex"],
    },
    # A retraction only PubMed knows (issue 20, item 1): OpenAlex has not caught up (is_retracted
    # false), Crossref has no notice, and the topic is one the automatic choice sends to Semantic
    # Scholar and OpenAlex only. Its PMID reaches the row through both.
    {
        "key": "pubmed_only_retraction",
        "topic": "turing pattern",
        "title": "Turing patterns on a growing reaction-diffusion domain",
        "authors": ["Rosa Ficta", "Ugo Inventato"], "year": 2018, "date": "2018-05-14",
        "venue": "Journal of Fictional Morphogenesis",
        "doi": "10.5555/jfm.2018.0042", "pmid": "29000003", "s2": "f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3",
        "openalex": "W3100000003", "citations": 64,
        "abstract": "Turing patterns emerge on a domain that grows while the reaction diffusion system runs.",
        "in": ["semantic_scholar", "openalex", "pubmed"],
        "pubmed_types": ["Journal Article", "Retracted Publication"],
        "pubmed_comments": [("RetractedandRepublishedIn", "J Fict Morphog. 2020;3:12. doi: 10.5555/jfm.2020.0012.",
                             "32000004")],
    },
]


def _has(paper: dict, provider: str, query: str = "") -> bool:
    return provider in paper["in"] and (not paper.get("topic") or paper["topic"] in query.lower())


def _query_of(request: SeenRequest, name: str) -> str:
    return request.param(name) or ""


def _papers_for(provider: str, query: str) -> list[dict]:
    if EMPTY_TRIGGER in query.lower():
        return []
    return [p for p in CORPUS if _has(p, provider, query)]


# --- Semantic Scholar -----------------------------------------------------------

def s2_paper(p: dict) -> dict:
    ids: dict[str, Any] = {"CorpusId": zlib.crc32(p["key"].encode()) % 10**8}
    doi = p.get("s2_doi", p.get("doi"))
    if doi:
        ids["DOI"] = doi
    if p.get("arxiv"):
        ids["ArXiv"] = p["arxiv"]
    if p.get("pmid"):
        ids["PubMed"] = p["pmid"]
    return {
        "paperId": p.get("s2"),
        "title": p.get("s2_title", p["title"]),
        "authors": [{"authorId": str(i + 1), "name": n} for i, n in enumerate(p["authors"])],
        "year": p["year"], "venue": p.get("venue", ""),
        "journal": {"name": p.get("venue", ""), **({"volume": p["volume"]} if p.get("volume") else {}),
                    **({"pages": p["pages"]} if p.get("pages") else {})},
        "externalIds": ids,
        "abstract": p.get("abstract"),
        "tldr": {"model": "tldr@v2.0.0", "text": p["tldr"]} if p.get("tldr") else None,
        "citationCount": p.get("citations", 0),
        "influentialCitationCount": p.get("influential", 0),
        "openAccessPdf": {"url": p["pdf"], "status": "GREEN"} if p.get("pdf") else None,
        "publicationDate": p.get("date"),
        "publicationTypes": ["JournalArticle"],
        "url": f"https://www.semanticscholar.org/paper/{p.get('s2')}",
    }


def s2_search(request: SeenRequest) -> Answer:
    papers = _papers_for("semantic_scholar", _query_of(request, "query"))
    data = [s2_paper(p) for p in papers]
    if request.path.endswith("/bulk"):
        return Answer(200, json.dumps({"total": len(data), "token": None, "data": data}))
    if not data:
        return Answer(200, json.dumps({"total": 0, "offset": 0}))
    return Answer(200, json.dumps({"total": len(data), "offset": 0, "data": data}))


# POST /paper/batch's documented limits (../shared/reference/apis.md A1): at most 500 ids, and
# at most 9,999 nested citations or references in one answer.
S2_BATCH_MAX_IDS = 500
S2_BATCH_NESTED_CAP = 9_999


def s2_batch_for(find: Callable[[str], dict | None], references: Callable[[dict], list[dict]]):
    """A POST /graph/v1/paper/batch responder: one entry per requested id (null when unknown),
    the fields asked in the query string (``referenceCount``, ``references.*``), and a 400 with
    S2's own words when a call passes a documented limit."""
    def responder(request: SeenRequest) -> Answer:
        wanted = json.loads(request.body or b"{}").get("ids", [])
        fields = (request.param("fields") or "").split(",")
        if len(wanted) > S2_BATCH_MAX_IDS:
            return Answer(400, json.dumps({"error": f"Cannot process more than {S2_BATCH_MAX_IDS} ids"}))
        papers = [find(paper_id) for paper_id in wanted]
        nested = sum(len(references(p)) for p in papers if p) if any(f.startswith("references.") for f in fields) \
            else 0
        if nested > S2_BATCH_NESTED_CAP:
            return Answer(400, json.dumps({"error": "Response would exceed maximum size. Too many references "
                                                    f"({nested}); at most {S2_BATCH_NESTED_CAP} per request"}))
        answers = []
        for p in papers:
            if p is None:
                answers.append(None)
                continue
            entry: dict[str, Any] = {"paperId": p.get("s2")}
            if "referenceCount" in fields:
                entry["referenceCount"] = len(references(p))
            if any(f.startswith("references.") for f in fields):
                entry["references"] = references(p)
            answers.append(entry)
        return Answer(200, json.dumps(answers))
    return responder


def _corpus_references(paper: dict) -> list[dict]:
    return [{"paperId": _by_key(k).get("s2"),
             "externalIds": {"DOI": _by_key(k)["doi"]} if _by_key(k).get("doi") else {}}
            for k in paper.get("refs", [])]


def s2_batch(request: SeenRequest) -> Answer:
    """POST /graph/v1/paper/batch over the corpus."""
    find = lambda wanted: next((p for p in CORPUS if "semantic_scholar" in p["in"] and wanted in _s2_keys(p)),  # noqa: E731
                               None)
    return s2_batch_for(find, _corpus_references)(request)


def _s2_keys(p: dict) -> set:
    return {p.get("s2"), f"DOI:{p.get('doi')}", f"ARXIV:{p.get('arxiv')}", f"PMID:{p.get('pmid')}"}


def s2_paper_details(request: SeenRequest) -> Answer:
    """/graph/v1/paper/{id}: by S2 id, DOI:…, ARXIV:… or PMID:…."""
    wanted = request.path[len("/s2/graph/v1/paper/"):]
    for p in CORPUS:
        keys = {p.get("s2"), f"DOI:{p.get('doi')}", f"ARXIV:{p.get('arxiv')}", f"PMID:{p.get('pmid')}"}
        if "semantic_scholar" in p["in"] and wanted in keys:
            return Answer(200, json.dumps(s2_paper(p)))
    return Answer(404, json.dumps({"error": f"Paper with id {wanted} not found"}))


# --- OpenAlex -------------------------------------------------------------------

def inverted_index(text: str | None) -> dict | None:
    if not text:
        return None
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def openalex_work(p: dict, position: int) -> dict:
    doi = p.get("openalex_doi") or (f"https://doi.org/{p['doi']}" if p.get("doi") else None)
    ids: dict[str, Any] = {"openalex": f"https://openalex.org/{p['openalex']}"}
    if doi:
        ids["doi"] = doi
    if p.get("pmid"):
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{p['pmid']}"
    return {
        "id": f"https://openalex.org/{p['openalex']}",
        "doi": doi,
        "title": p["title"], "display_name": p["title"],
        "publication_year": p["year"], "publication_date": p.get("date") or f"{p['year']}-01-01",
        "ids": ids,
        "authorships": [{"author_position": "first" if i == 0 else "middle",
                         "author": {"id": f"https://openalex.org/A{i}", "display_name": n}}
                        for i, n in enumerate(p["authors"])],
        "primary_location": {"source": {"display_name": p.get("venue")}},
        "best_oa_location": {"pdf_url": p["pdf"]} if p.get("pdf") else None,
        "open_access": {"is_oa": bool(p.get("pdf")), "oa_url": p.get("pdf")},
        "cited_by_count": p.get("citations", 0),
        "type": "preprint" if "arxiv" in (doi or "") else "article",
        "abstract_inverted_index": inverted_index(p.get("abstract")),
        "is_retracted": p.get("openalex_retracted", False),
        "biblio": {"volume": p.get("volume"), "issue": None, "first_page": (p.get("pages") or "").split("-")[0] or None,
                   "last_page": (p.get("pages") or "").split("-")[-1] or None},
        "relevance_score": round(1000.0 / (position + 1), 3),
        "referenced_works": [f"https://openalex.org/{_by_key(k)['openalex']}" for k in p.get("refs", [])
                             if _by_key(k).get("openalex")],
    }


def _by_key(key: str) -> dict:
    return next(p for p in CORPUS if p["key"] == key)


def _openalex_doi(p: dict) -> str | None:
    return (p.get("openalex_doi") or "").removeprefix("https://doi.org/") or p.get("doi")


def openalex_works(request: SeenRequest) -> Answer:
    single = request.path[len("/openalex/works"):].strip("/")
    if single:  # /works/W… or /works/doi:10.…: one work, as OpenAlex answers it
        key = single.lower().removeprefix("https://doi.org/")
        for position, p in enumerate(CORPUS):
            if "openalex" in p["in"] and key in {str(p.get("openalex")).lower(), f"doi:{p.get('doi')}".lower(),
                                                 f"pmid:{p.get('pmid')}"}:
                return Answer(200, json.dumps(openalex_work(p, position)))
        return Answer(404, "<html><body>Not Found</body></html>", content_type="text/html")
    refused = fake_openalex_rules.works_search_problem(
        {name: request.param(name) for name in ("search", "search.exact", "filter")})
    if refused is not None:  # OpenAlex's own 400 for a ? or * it does not take
        return refused
    wanted = (request.param("filter") or "")
    if wanted.startswith(("openalex_id:", "doi:")):  # a batch lookup by ids (reference lists, completions)
        field, values = wanted.split(":", 1)
        ids = {value.lower() for value in values.split("|")}
        papers = [p for p in CORPUS if "openalex" in p["in"]
                  and str(p.get("openalex") if field == "openalex_id" else _openalex_doi(p)).lower() in ids]
        results = [openalex_work(p, i) for i, p in enumerate(papers)]
        return Answer(200, json.dumps({"meta": {"count": len(results)}, "results": results}))
    papers = _papers_for("openalex", _query_of(request, "search") or _query_of(request, "search.exact"))
    results = [openalex_work(p, i) for i, p in enumerate(papers)]
    meta = {"count": len(results), "db_response_time_ms": 12, "page": 1, "per_page": 25}
    return Answer(200, json.dumps({"meta": meta, "results": results, "group_by": []}))


# OpenAlex's entities (/authors, /sources, …, /autocomplete/…): fake_openalex_entities.py. Its
# authors include Hinton (two hits; the one with the most works is the right one) and Guo, and
# its sources Nature Biotechnology, for the name resolution of --author and --venue.


# --- PubMed ---------------------------------------------------------------------

def _pubmed_corpus() -> dict[str, dict]:
    return {p["pmid"]: p for p in CORPUS if "pubmed" in p["in"] and p.get("pmid")}


def pubmed_esearch(request: SeenRequest) -> Answer:
    papers = _papers_for("pubmed", _query_of(request, "term"))
    ids = [p["pmid"] for p in papers]
    body = {"header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {"count": str(len(ids)), "retmax": str(len(ids)), "retstart": "0",
                              "idlist": ids, "translationset": [], "querytranslation": ""}}
    return Answer(200, json.dumps(body))


def _requested_ids(request: SeenRequest) -> list[str]:
    return [i for i in (request.param("id") or "").split(",") if i]


def _pubmed_name(name: str) -> str:
    parts = name.replace(".", "").split()
    return parts[-1] + " " + "".join(x[0] for x in parts[:-1])


# Every CommentsCorrections@RefType value of the PubMed DTD (pubmed_*.dtd, as listed in
# ../shared/reference/apis-more.md section 2): the "…In" forms sit on the original article,
# the "…Of/For/From" forms on the notice or new version.
PUBMED_REF_TYPES = (
    "AssociatedDataset", "AssociatedPublication", "Cites", "CommentIn", "CommentOn",
    "CorrectedandRepublishedFrom", "CorrectedandRepublishedIn", "ErratumFor", "ErratumIn",
    "ExpressionOfConcernFor", "ExpressionOfConcernIn", "OriginalReportIn", "ReprintIn", "ReprintOf",
    "RepublishedFrom", "RepublishedIn", "RetractedandRepublishedFrom", "RetractedandRepublishedIn",
    "RetractionIn", "RetractionOf", "SummaryForPatientsIn", "UpdateIn", "UpdateOf",
)


def comments_corrections_xml(comments: list[tuple[str, str, str]]) -> str:
    """``<CommentsCorrectionsList>`` as efetch writes it: (RefType, RefSource, PMID) each."""
    items = "".join(f'<CommentsCorrections RefType="{ref_type}"><RefSource>{escape(source)}</RefSource>'
                    f'<PMID Version="1">{pmid}</PMID></CommentsCorrections>'
                    for ref_type, source, pmid in comments)
    return f"<CommentsCorrectionsList>{items}</CommentsCorrectionsList>" if items else ""


def pubmed_article_xml(p: dict, pmid: str) -> str:
    """One ``<PubmedArticle>`` of an efetch answer (rettype=abstract, retmode=xml)."""
    sentences = (p.get("abstract") or "").split(". ")
    abstract = ""
    if sentences and sentences[0]:
        abstract = (
            "<Abstract>"
            f'<AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">{escape(sentences[0])}.</AbstractText>'
            f'<AbstractText Label="RESULTS" NlmCategory="RESULTS">{escape(". ".join(sentences[1:]))}'
            "</AbstractText></Abstract>"
        )
    authors = "".join(
        f"<Author><LastName>{escape(n.split()[-1])}</LastName><ForeName>{escape(' '.join(n.split()[:-1]))}</ForeName></Author>"
        for n in p["authors"])
    types = "".join(f"<PublicationType>{escape(kind)}</PublicationType>"
                    for kind in p.get("pubmed_types", ["Journal Article"]))
    comments = comments_corrections_xml(p.get("pubmed_comments", []))
    doi = p.get("pubmed_doi", p.get("doi"))
    doi_xml = f'<ArticleId IdType="doi">{escape(doi)}</ArticleId>' if doi else ""
    return (
        "<PubmedArticle><MedlineCitation Status=\"MEDLINE\" Owner=\"NLM\">"
        f"<PMID Version=\"1\">{pmid}</PMID><Article PubModel=\"Print\">"
        "<Journal><JournalIssue CitedMedium=\"Internet\"><Volume>11</Volume>"
        f"<PubDate><Year>{p['year']}</Year><Month>Mar</Month></PubDate></JournalIssue>"
        f"<Title>{escape(p['venue'])}</Title><ISOAbbreviation>{escape(p['venue'][:20])}</ISOAbbreviation></Journal>"
        f"<ArticleTitle>{escape(p['title'])}.</ArticleTitle><Pagination><MedlinePgn>1143157</MedlinePgn>"
        f"</Pagination>{abstract}<AuthorList>{authors}</AuthorList>"
        f"<PublicationTypeList>{types}</PublicationTypeList></Article>{comments}</MedlineCitation>"
        f"<PubmedData><ArticleIdList><ArticleId IdType=\"pubmed\">{pmid}</ArticleId>{doi_xml}"
        "</ArticleIdList></PubmedData></PubmedArticle>")


def efetch_body(articles: list[str]) -> str:
    return '<?xml version="1.0" ?>\n<PubmedArticleSet>' + "".join(articles) + "</PubmedArticleSet>"


def pubmed_efetch(request: SeenRequest) -> Answer:
    corpus = _pubmed_corpus()
    return pubmed_articles([corpus[pmid] for pmid in _requested_ids(request) if pmid in corpus])


def pubmed_articles(papers: list[dict]) -> Answer:
    """An efetch answer (a PubmedArticleSet) holding ``papers``."""
    articles = [pubmed_article_xml(p, p["pmid"]) for p in papers]
    return Answer(200, efetch_body(articles), content_type="text/xml; charset=UTF-8")


# --- arXiv ----------------------------------------------------------------------

def arxiv_entry(p: dict) -> str:
    version = p.get("arxiv_version", "v1")
    doi = p.get("arxiv_doi", p.get("doi"))
    doi_xml = f"<arxiv:doi>{escape(doi)}</arxiv:doi>" if doi else ""
    authors = "".join(f"<author><name>{escape(n)}</name></author>" for n in p["authors"])
    # Titles and abstracts arrive hard-wrapped, as arXiv sends them.
    title = escape(p["title"]).replace(" ", "\n  ", 1)
    return (
        f"<entry><id>http://arxiv.org/abs/{p['arxiv']}{version}</id>"
        f"<updated>{p.get('date', '2020-01-01')}T17:57:34Z</updated>"
        f"<published>{p.get('date', '2020-01-01')}T17:57:34Z</published>"
        f"<title>{title}</title><summary>  {escape(p.get('abstract') or '')}\n</summary>{authors}{doi_xml}"
        f'<link href="http://arxiv.org/abs/{p["arxiv"]}{version}" rel="alternate" type="text/html"/>'
        f'<link title="pdf" href="http://arxiv.org/pdf/{p["arxiv"]}{version}" rel="related" type="application/pdf"/>'
        '<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>'
        '<category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/></entry>')


def arxiv_query(request: SeenRequest) -> Answer:
    return arxiv_feed(_papers_for("arxiv", _query_of(request, "search_query")))


def arxiv_feed(papers: list[dict]) -> Answer:
    """An arXiv API answer (an Atom feed) holding ``papers``."""
    entries = "".join(arxiv_entry(p) for p in papers)
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
            'xmlns:arxiv="http://arxiv.org/schemas/atom">'
            '<link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>'
            '<title type="html">ArXiv Query</title><id>http://arxiv.org/api/fake</id>'
            '<updated>2026-11-22T00:00:00-05:00</updated>'
            f"<opensearch:totalResults>{len(papers)}</opensearch:totalResults>"
            "<opensearch:startIndex>0</opensearch:startIndex>"
            f"<opensearch:itemsPerPage>{len(papers)}</opensearch:itemsPerPage>{entries}</feed>")
    return Answer(200, body, content_type="application/atom+xml; charset=utf-8")


def _scripted(answers: list, normal):
    queue = list(answers)
    lock = threading.Lock()

    def responder(request: SeenRequest) -> Answer:
        with lock:
            item = queue.pop(0) if len(queue) > 1 or queue[0] is None else queue[0]
            if item is None:
                queue.insert(0, None)  # stay recovered
        return normal(request) if item is None else item

    return responder


# --- Crossref and Unpaywall (enrichment) -------------------------------------------

def _by_doi() -> dict[str, dict]:
    return {p["doi"].lower(): p for p in CORPUS if p.get("doi")}


def crossref_item(p: dict) -> dict:
    return {"DOI": p["doi"], "title": [p.get("crossref_title", p["title"])],
            **({"updated-by": p["crossref_updated_by"]} if p.get("crossref_updated_by") else {}),
            "issued": {"date-parts": [[p["year"]]]}, "type": "journal-article",
            "container-title": [p.get("venue", "")], "is-referenced-by-count": p.get("citations", 0),
            "author": [{"given": " ".join(n.split()[:-1]), "family": n.split()[-1]} for n in p["authors"]]}


def crossref_works(request: SeenRequest) -> Answer:
    corpus = _by_doi()
    single = request.path[len("/crossref/works"):].strip("/")
    if single:  # /works/{doi}
        paper = corpus.get(single.lower())
        if not paper or paper.get("crossref_missing"):
            return Answer(404, "Resource not found.", content_type="text/plain")
        return Answer(200, json.dumps({"status": "ok", "message-type": "work", "message": crossref_item(paper)}))
    wanted = [part[4:].lower() for part in (request.param("filter") or "").split(",") if part.startswith("doi:")]
    if wanted:
        items = [crossref_item(corpus[d]) for d in wanted if d in corpus and not corpus[d].get("crossref_missing")]
    else:
        items = [crossref_item(p) for p in CORPUS if "crossref" in p["in"]]
        if EMPTY_TRIGGER in (request.param("query") or "").lower():
            items = []
    message = {"total-results": len(items), "items": items, "items-per-page": len(items)}
    return Answer(200, json.dumps({"status": "ok", "message-type": "work-list", "message": message}))


def unpaywall_lookup(request: SeenRequest) -> Answer:
    doi = request.path[len("/unpaywall/v2/"):].lower()
    paper = _by_doi().get(doi)
    if paper is None:
        return Answer(404, json.dumps({"HTTP_status_code": 404, "error": True,
                                       "message": f"'{doi}' is not a valid doi"}))
    location = paper.get("unpaywall")
    body = {"doi": doi, "is_oa": bool(location), "best_oa_location": (
        {**location, "host_type": "repository", "version": "publishedVersion", "license": "cc-by"}
        if location else None)}
    return Answer(200, json.dumps(body))


# --- Tavily (web) ---------------------------------------------------------------------

WEB_RESULTS = [
    {"title": "CRISPR off-target effects explained", "url": "https://www.example.org/crispr-off-target",
     "content": "An explainer on <b>off-target</b> cuts and how guide design reduces them.", "score": 0.91},
    {"title": "Blog: Cas9 specificity in practice", "url": "https://blog.example.net/cas9",
     "content": "Notes from the lab bench.", "score": 0.74},
]


def tavily_search(request: SeenRequest) -> Answer:
    if not request.headers.get("authorization", "").startswith("Bearer "):
        return Answer(401, json.dumps({"detail": {"error": "Unauthorized: missing or invalid API key."}}))
    query = json.loads(request.body or b"{}").get("query", "")
    return Answer(200, json.dumps({"query": query, "results": WEB_RESULTS, "response_time": 0.4}))


# --- wiring ---------------------------------------------------------------------

PREFIXES = {
    "semantic_scholar": "/s2",
    "openalex": "/openalex",
    "pubmed": "/eutils",
    "arxiv": "/arxiv",
}


# What the real APIs send with every answer about their limits (docs.openalex.org's pricing page;
# Crossref's REST API docs): lit-search doctor --check reports them, a search notes a low budget.
OPENALEX_LIMIT_HEADERS = {"X-RateLimit-Limit-USD": "1", "X-RateLimit-Remaining-USD": "0.9412",
                          "X-RateLimit-Cost-USD": "0", "X-RateLimit-Reset": "41000"}
CROSSREF_LIMIT_HEADERS = {"X-Rate-Limit-Limit": "1", "X-Rate-Limit-Interval": "1s", "X-Concurrency-Limit": "1"}


# OpenAlex once the day's allowance is spent: a 429 with the budget headers of its production
# proxy (../shared/reference/apis-more.md section 6: X-RateLimit-*-USD, -Credits-Required,
# -Reset = seconds to midnight UTC, and Retry-After).
def openalex_budget_spent(limit_usd: str = "0.1", reset_seconds: int = 35_000) -> Answer:
    return Answer(429, json.dumps({"error": "Rate limit exceeded",
                                   "message": "Daily budget exceeded. Resets at midnight UTC."}),
                  headers={"X-RateLimit-Limit-USD": limit_usd, "X-RateLimit-Remaining-USD": "0",
                           "X-RateLimit-Prepaid-Remaining-USD": "0", "X-RateLimit-Limit": "1000",
                           "X-RateLimit-Remaining": "0", "X-RateLimit-Credits-Used": "1000",
                           "X-RateLimit-Credits-Required": "10", "X-RateLimit-Cost-Required-USD": "0.001",
                           "X-RateLimit-Reset": str(reset_seconds), "Retry-After": str(reset_seconds)})


# The per-second limit as OpenAlex's production proxy answers it (openalex-api-proxy src/index.ts
# and rateLimiter.ts, read 2026-08): its words and retryAfter in the body, Retry-After: 1, and
# amounts that say 0 whatever is left (the rate check returns remaining 0). The simulator's
# fault_429_no_retry_after is this answer without its Retry-After header.
def openalex_per_second_429(retry_after: bool = True, body: bool = True) -> Answer:
    payload = {"error": "Rate limit exceeded", "message": "Rate limit exceeded: 10 requests per second. Please slow "
               "down.", "retryAfter": 0.04, "costUsd": 0.001, "dailyRemainingUsd": 0, "prepaidRemainingUsd": 0,
               "creditsRequired": 10, "creditsRemaining": 0, "onetimeCreditsRemaining": 0}
    headers = {"X-RateLimit-Limit-USD": "0.1", "X-RateLimit-Remaining-USD": "0", "X-RateLimit-Prepaid-Remaining-USD": "0",
               "X-RateLimit-Cost-Required-USD": "0.001", "X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "0",
               "X-RateLimit-Onetime-Remaining": "0", "X-RateLimit-Credits-Required": "10",
               "X-RateLimit-Reset": "35000", **({"Retry-After": "1"} if retry_after else {})}
    return Answer(429, json.dumps(payload) if body else "", headers=headers)


FAULT_429_NO_RETRY_AFTER = openalex_per_second_429(retry_after=False)


# The per-second limit (not the day's budget): a 429 with a short Retry-After and money left.
OPENALEX_PER_SECOND_429 = Answer(429, json.dumps({"error": "Rate limit exceeded", "message": "Too many requests"}),
                                 headers={"Retry-After": "1", "X-RateLimit-Limit-USD": "1",
                                          "X-RateLimit-Remaining-USD": "0.7", "X-RateLimit-Reset": "35000"})
# 403 as OpenAlex's current errors page has it: forbidden (a plan or resource), not "slow down".
OPENALEX_FORBIDDEN = Answer(403, json.dumps({"error": "Forbidden", "message": "Plan upgrade required"}))


def _with_headers(responder: Callable[[SeenRequest], Answer], headers: dict[str, str]):
    def answer(request: SeenRequest) -> Answer:
        reply = responder(request)
        return dataclasses.replace(reply, headers={**headers, **reply.headers})
    return answer


def own_fakes() -> dict[str, Any]:
    """Each provider's own fake, by provider name: the module ``tests/fake_<name>.py`` of a
    provider the registry lists, when it defines ``PREFIX`` (its base URL's path here) and
    ``ROUTES`` (path -> responder). A new provider brings its fake without touching this file."""
    from litsearch.providers import registry

    found = {}
    for name in registry.providers():
        if importlib.util.find_spec(f"fake_{name}") is not None:
            module = importlib.import_module(f"fake_{name}")
            if hasattr(module, "ROUTES") and hasattr(module, "PREFIX"):
                found[name] = module
    return found


def install(server: FakeServer, overrides: dict[str, Any] | None = None) -> dict[str, str]:
    """Mount every fake API on ``server`` (these, and each provider's own fake: ``own_fakes``);
    returns the LITSEARCH_*_URL variables.

    ``overrides`` maps a route (e.g. "/eutils/esearch.fcgi") to a responder or a list of
    Answers, to inject faults into one provider while the others stay healthy. A list is
    served in turn and its last Answer repeats; a trailing None hands later requests back
    to the normal fake API ("fail once, then recover").
    """
    from litsearch.providers import registry

    fakes = own_fakes()
    routes = {
        "/s2/graph/v1/paper/search": s2_search,
        "/s2/graph/v1/paper/": s2_paper_details,
        "/s2/graph/v1/paper/batch": s2_batch,
        "/openalex/works": _with_headers(openalex_works, OPENALEX_LIMIT_HEADERS),
        "/eutils/esearch.fcgi": pubmed_esearch,
        "/eutils/efetch.fcgi": pubmed_efetch,
        "/arxiv/query": arxiv_query,
        "/crossref/works": _with_headers(crossref_works, CROSSREF_LIMIT_HEADERS),
        "/unpaywall/v2/": unpaywall_lookup,
        "/tavily/search": tavily_search,
    }
    for module in fakes.values():
        routes.update(module.ROUTES)
    fake_openalex_entities.install(server)
    for path, responder in routes.items():
        server.route(path, responder)
    for path, replacement in (overrides or {}).items():
        if isinstance(replacement, list):
            server.route(path, _scripted(replacement, routes.get(path)))
        else:
            server.route(path, replacement)
    return {
        "LITSEARCH_SEMANTIC_SCHOLAR_URL": server.url + "/s2",
        "LITSEARCH_OPENALEX_URL": server.url + "/openalex",
        "LITSEARCH_PUBMED_URL": server.url + "/eutils",
        "LITSEARCH_ARXIV_URL": server.url + "/arxiv",
        "LITSEARCH_CROSSREF_URL": server.url + "/crossref",
        "LITSEARCH_UNPAYWALL_URL": server.url + "/unpaywall",
        "LITSEARCH_TAVILY_URL": server.url + "/tavily",
        **{registry.service(name).url_variable: server.url + module.PREFIX for name, module in fakes.items()},
    }


if __name__ == "__main__":
    serve_until_interrupted(install)
