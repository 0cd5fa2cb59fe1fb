"""Retractions, corrections and expressions of concern: one vocabulary for every source.

A paper carries ``retracted`` (True / False when a source could tell, None when none could)
and ``updates``: the notices about it, each ``{type, notice_doi, notice_pmid, date, source}``
with ``type`` one of ``UPDATE_TYPES``. OpenAlex says ``is_retracted``; PubMed has publication
types and CommentsCorrections; Europe PMC the same in words (``commentCorrectionList``);
Crossref has ``updated-by`` on the work and ``update-to`` on the notice. Each parser maps its own words here; merging and rendering use only this module.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

RETRACTION, CORRECTION, CONCERN, ERRATUM = "retraction", "correction", "expression_of_concern", "erratum"
# Retracted, and replaced by a republished version (the notice points at the new version).
RETRACTED_AND_REPUBLISHED = "retracted_and_republished"
# Superseded: a newer version exists (a Cochrane review updated, a new edition).
NEW_VERSION = "new_version"
UPDATE_TYPES = (RETRACTION, RETRACTED_AND_REPUBLISHED, CORRECTION, CONCERN, ERRATUM, NEW_VERSION)
# Notices that mean the paper itself is retracted.
RETRACTING_TYPES = frozenset({RETRACTION, RETRACTED_AND_REPUBLISHED})

# Crossref's update types (the "type" of updated-by / update-to; Crossmark's list).
_CROSSREF_TYPES = {
    "retraction": RETRACTION, "partial_retraction": RETRACTION, "withdrawal": RETRACTION, "removal": RETRACTION,
    "correction": CORRECTION, "corrigendum": CORRECTION, "addendum": CORRECTION, "clarification": CORRECTION,
    "erratum": ERRATUM, "expression_of_concern": CONCERN, "expression-of-concern": CONCERN,
    "new_version": NEW_VERSION, "new_edition": NEW_VERSION,
}
# PubMed's CommentsCorrections RefType values that sit on the ORIGINAL article and point at a
# later notice or version (the "...In" forms). The complete DTD list and its meanings are in
# ../shared/reference/apis-more.md section 2 (PubMed DTD; NLM errata fact sheet,
# nlm.nih.gov/pubs/factsheets/errata.html). Left out on purpose:
# - the reverse forms (RetractionOf, ErratumFor, ExpressionOfConcernFor,
#   RetractedandRepublishedFrom, CorrectedandRepublishedFrom, RepublishedFrom, ReprintOf,
#   UpdateOf): they sit on the notice or the new version itself and point back; they say
#   nothing against the record that carries them;
# - RepublishedIn / ReprintIn: the same article printed again elsewhere, no notice;
# - CommentIn/CommentOn, SummaryForPatientsIn, OriginalReportIn, AssociatedDataset,
#   AssociatedPublication, Cites: links, not notices.
# Partial retractions are indexed as errata since 2016 (ErratumIn); PubMed has no
# "PartialRetractionIn".
_PUBMED_REF_TYPES = {
    "RetractionIn": RETRACTION,
    "RetractedandRepublishedIn": RETRACTED_AND_REPUBLISHED,
    "ErratumIn": ERRATUM,
    "ExpressionOfConcernIn": CONCERN,
    "CorrectedandRepublishedIn": CORRECTION,
    "UpdateIn": NEW_VERSION,
}
# Europe PMC's commentCorrection types: MEDLINE's CommentsCorrections in words, as its records
# spell them ("Retraction in", "Retracted and republished in"; EPMC-RG; the PubMed display names
# of the RefTypes above), plus Europe PMC's own preprint links. Those that sit on the original
# and name a later notice are mapped, with PubMed's meanings; "Partial retraction in" (MEDLINE's
# PRIN, still on records indexed before 2016) means what Crossref's partial_retraction means
# here: a retraction. EUROPEPMC_LINKS are the rest, known and deliberately not notices (the
# reverse forms sit on the notice or new version; comments, reprints, summaries, datasets,
# preprint links), so that every documented type is one or the other.
_EUROPEPMC_TYPES = {
    "retraction in": RETRACTION, "partial retraction in": RETRACTION,
    "retracted and republished in": RETRACTED_AND_REPUBLISHED, "erratum in": ERRATUM,
    "expression of concern in": CONCERN, "corrected and republished in": CORRECTION, "update in": NEW_VERSION,
}
EUROPEPMC_LINKS = frozenset({
    "retraction of", "partial retraction of", "retracted and republished from", "erratum for",
    "expression of concern for", "corrected and republished from", "update of", "republished in", "republished from",
    "reprint in", "reprint of", "comment in", "comment on", "summary for patients in", "original report in",
    "dataset described in", "dataset use reported in", "associated dataset", "associated publication", "cites",
    "preprint in", "preprint of",
})
PUBMED_RETRACTED_TYPE = "Retracted Publication"
# Words for people, as the table and the exports say them.
LABELS = {RETRACTION: "retraction", RETRACTED_AND_REPUBLISHED: "retracted and republished", CORRECTION: "correction",
          CONCERN: "expression of concern", ERRATUM: "erratum", NEW_VERSION: "newer version"}
_DOI_IN_TEXT = re.compile(r"\bdoi:?\s*(10\.\d{4,9}/\S+?)[.;,]?(?:\s|$)", re.I)


def update(kind: str, notice_doi: str | None, date: str | None, source: str,
           notice_pmid: str | None = None) -> dict[str, Any]:
    return {"type": kind, "notice_doi": notice_doi, "notice_pmid": notice_pmid, "date": date, "source": source}


def crossref_type(value: Any) -> str | None:
    return _CROSSREF_TYPES.get(str(value).strip().lower()) if isinstance(value, str) else None


def pubmed_ref_type(value: Any) -> str | None:
    return _PUBMED_REF_TYPES.get(value) if isinstance(value, str) else None


def europepmc_comment_type(value: Any) -> str | None:
    """The notice type of a Europe PMC commentCorrection ``type`` ("Retraction in"), or None for
    a link that is no notice about this record (EUROPEPMC_LINKS) or an unknown word."""
    return _EUROPEPMC_TYPES.get(" ".join(value.split()).lower()) if isinstance(value, str) else None


def doi_in_citation(text: str | None) -> str | None:
    """The DOI written in a citation such as PubMed's RefSource ("… 2021;12:45. doi: 10.x/y.")."""
    match = _DOI_IN_TEXT.search(f"{text or ''} ")
    return match.group(1).lower() if match else None


def merged_updates(*groups: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every notice once (by type and notice id), the first source's details kept."""
    seen: dict[tuple, dict[str, Any]] = {}
    for group in groups:
        for item in group or []:
            if not isinstance(item, Mapping):  # a stored record may hold anything
                continue
            key = tuple(str(value) for value in (
                item.get("type"), item.get("notice_doi") or item.get("notice_pmid") or item.get("source")))
            if key not in seen:
                seen[key] = dict(item)
            else:  # the same notice from another source fills what the first lacked
                kept = seen[key]
                for name, value in item.items():
                    if kept.get(name) is None:
                        kept[name] = value
                sources = [str(s) for s in (kept.get("source"), item.get("source")) if s]
                kept["source"] = ", ".join(dict.fromkeys(", ".join(sources).split(", "))) or None
    return sorted(seen.values(), key=lambda item: (UPDATE_TYPES.index(item["type"])
                                                    if item.get("type") in UPDATE_TYPES else 9,
                                                    str(item.get("date") or "")))


def combined_retracted(values: Iterable[bool | None], updates: Iterable[dict[str, Any]] = ()) -> bool | None:
    """True when any source says so (or a retraction notice exists), False when some source
    could tell and none says so, None when no source could tell."""
    values = list(values)
    if any(value is True for value in values) or any(item.get("type") in RETRACTING_TYPES for item in updates):
        return True
    return False if any(value is False for value in values) else None


def with_notices(paper: Any, retracted: bool | None, updates: Iterable[dict[str, Any]]) -> Any:
    """``paper`` (a Paper) with what another source said about it added: its notices merged
    with the paper's own, ``retracted`` combined with the paper's."""
    from dataclasses import replace

    merged = merged_updates(paper.updates, updates)
    return replace(paper, updates=merged, retracted=combined_retracted([paper.retracted, retracted], merged))


def notice_words(updates: Iterable[dict[str, Any]]) -> str:
    """"retraction 10.x/y (2021-03-01); correction 10.x/z" for notes in exports and the table."""
    parts = []
    for item in updates:
        ident = item.get("notice_doi") or (f"PMID {item['notice_pmid']}" if item.get("notice_pmid") else None)
        when = f" ({item['date']})" if item.get("date") else ""
        parts.append(f"{LABELS.get(item.get('type'), item.get('type'))}{': ' + ident if ident else ''}{when}")
    return "; ".join(parts)
