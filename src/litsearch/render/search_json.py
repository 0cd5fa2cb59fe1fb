"""The search result as JSON (the schema in the README, "JSON output")."""

from __future__ import annotations

from typing import Any

from ..core.identifiers import IDENTITY_FIELDS, field_label, id_label, is_arxiv_doi
from ..core.preprints import only_preprints
from ..core.records import field_value
from ..core.sanitize import json_text
from ..core.text import plain_text
from ..core.urls import citation_uri, http_url
from ..search.rank import RankedPaper, why

def canonical_external_ids(paper) -> dict[str, str]:
    ids: dict[str, str] = {}
    for name, value in paper.external_ids.items():
        key = id_label(name)  # providers spell id names differently (S2 "PubMed", OpenAlex "pmid")
        if value not in (None, "") and key not in ids:
            ids[key] = str(value)
    # The normalized top-level ids win over the raw spellings.
    for field in IDENTITY_FIELDS:
        if field_value(paper, field):
            ids[field_label(field)] = field_value(paper, field)
    return dict(sorted(ids.items()))


def result_dict(item: RankedPaper, include_abstract: bool = True,
                providers_answered: int | None = None) -> dict[str, Any]:
    """One result in the JSON schema (see README, "JSON output")."""
    paper = item.paper
    external_ids = canonical_external_ids(paper)
    return {
        "doi": paper.doi,
        "pmid": paper.pmid,
        "paper_id": paper.semantic_scholar_id,
        "arxiv_id": paper.arxiv_id,
        "openalex_id": paper.openalex_id,
        "title": plain_text(paper.title),
        "authors": list(paper.authors),  # every one: a citation needs them (the Markdown view shortens)
        "year": paper.year,
        "publication_date": paper.publication_date,
        "journal": paper.journal,
        "volume": paper.volume,
        "issue": paper.issue,
        "pages": paper.pages,
        "publication_types": list(paper.publication_types),
        "preprint": only_preprints([paper, *item.hits]),  # every record of it a preprint (core/preprints.py)
        "abstract": plain_text(paper.abstract) if include_abstract else None,
        "tldr": plain_text(paper.tldr) if include_abstract else None,
        "citation_count": paper.citation_count,
        "influential_citation_count": paper.influential_citation_count,
        "citation_uri": citation_uri(paper),
        "oa_url": http_url(paper.oa_url),  # a URL field holds only http(s), whatever was stored
        "provider_scores": {k: round(v, 4) for k, v in sorted(item.provider_scores.items())},
        "external_ids": external_ids,
        "best_provider": item.best_provider,
        "best_score": round(item.best_score, 4) if item.best_score is not None else None,
        "score": round(item.score, 4),
        "relevance": round(item.relevance, 4),
        "score_terms": dict(item.score_terms),
        "why": why(item, providers_answered),
        "found_by": [
            {"provider": hit.provider, "rank": hit.rank, "score": hit.score} for hit in item.hits
        ],
        "merge_reasons": item.merge_reasons,
        "doi_verified": item.doi_verified,
        "doi_mismatch": _mismatch(item),
        "oa_is_pdf": item.oa_is_pdf,
        "oa_source": item.oa_source if item.oa_source in ("provider", "unpaywall") else None,
        "doi_is_arxiv_datacite": bool(paper.doi and is_arxiv_doi(paper.doi)),
        "retracted": paper.retracted,
        "updates": [dict(item) for item in paper.updates],
        **({"via": [dict(entry) for entry in item.via]} if item.via is not None else {}),
    }


def _answered(result) -> int:
    """How many paper providers answered (the denominator of each paper's agreement)."""
    return sum(1 for outcome in getattr(result, "paper_outcomes", result.outcomes) if not outcome.error)


def _mismatch(item: RankedPaper) -> dict[str, Any] | None:
    """What Crossref said when the DOI did not check out (None when it did, or was not checked)."""
    check = item.doi_check or {}
    if item.doi_verified is not False:
        return None
    return {"reason": check.get("reason"), "crossref_title": check.get("crossref_title"),
            "crossref_year": check.get("crossref_year"), "title_similarity": check.get("title_similarity")}


def render_json(result, limit: int, include_abstracts: bool = True) -> str:
    return json_text(result_payload(result, limit, include_abstracts))


def result_payload(result, limit: int, include_abstracts: bool = True) -> dict[str, Any]:
    """The JSON document (see README, "JSON output") as a dict."""
    return {
        "query": result.query,
        "variants": result.variants,
        "total_count": result.total_count,
        "results": [result_dict(item, include_abstracts, _answered(result)) for item in result.results[:limit]],
        "providers_searched": [o.provider for o in result.outcomes],
        "errors": [{"provider": o.provider, "message": o.error} for o in result.outcomes if o.error],
        "filters": result.filter_report,
        "filtered_out": result.filtered_out,
        "notes": result.enrichment.notes,
        "web_sources": [hit.to_dict() for hit in result.web_hits],
        "warnings": [{"provider": o.provider, "message": n} for o in result.outcomes for n in o.notes],
        "search_time_ms": result.search_time_ms,
        "requests": result.request_count,
        "provider_choice": result.provider_reason,
        "providers": [
            {"provider": o.provider, "query": o.query, "mode": o.mode, "results": len(o.records),
             "requests": o.requests, "from_cache": o.cached, "seconds": round(o.seconds, 2), "error": o.error}
            for o in result.outcomes
        ],
        # Only when it ran: without the re-ranker the document is the same as before it existed.
        **({"rerank": "semantic"} if getattr(result, "reranked", False) else {}),
    }


