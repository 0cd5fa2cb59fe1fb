"""Papers as Zotero item JSON (Web API v3), valid for their item type.

The item type follows the kind of publication the exports use (``biblio.writers.publication_kind``):

| kind | Zotero type | where the venue goes | ids in fields | ids in ``extra`` |
|---|---|---|---|---|
| journal article | journalArticle | publicationTitle, volume, issue, pages | DOI, PMID, PMCID | arXiv |
| preprint | preprint | repository ("arXiv" for arXiv) | DOI, archiveID ("arXiv:…") | PMID, PMCID, arXiv |
| conference paper | conferencePaper | proceedingsTitle, volume, issue, pages | DOI | PMID, PMCID, arXiv |
| book | book | (none) | DOI | PMID, PMCID, arXiv |
| chapter | bookSection | bookTitle, volume, pages | DOI | PMID, PMCID, arXiv |
| thesis | thesis | university | DOI | PMID, PMCID, arXiv |
| report | report | institution, pages | DOI | PMID, PMCID, arXiv |
| other | document | publisher | DOI | PMID, PMCID, arXiv |

Every item gets its title, creators (people split into lastName/firstName, groups as one
``name``), the abstract, the date, a URL and, for a retracted paper, the tag ``Retracted`` and
the notice in ``extra``. ``conservative=True`` puts PMID and PMCID in ``extra`` even where the
type has fields for them (a Zotero server with an older schema refuses those fields).
"""

from __future__ import annotations

from typing import Any

from ..biblio.names import plain_line, split_name
from ..biblio.writers import publication_kind, update_note
from ..core.identifiers import arxiv_id_from_doi, id_kind, is_arxiv_doi, normalize_pmcid
from ..core.records import Paper
from ..core.urls import citation_uri, http_url
from .schema import ITEM_FIELDS

ITEM_TYPES = {"journal": "journalArticle", "preprint": "preprint", "conference": "conferencePaper", "book": "book",
              "chapter": "bookSection", "thesis": "thesis", "report": "report", "other": "document"}
# The field each type keeps its venue in (journal, proceedings, book, university, institution).
VENUE_FIELD = {"journalArticle": "publicationTitle", "conferencePaper": "proceedingsTitle", "bookSection": "bookTitle",
               "preprint": "repository", "thesis": "university", "report": "institution", "document": "publisher"}
MAX_FIELD_CHARS = 10_000  # Zotero refuses overlong fields; no title or venue comes close
MAX_ABSTRACT_CHARS = 30_000
RETRACTED_TAG = "Retracted"


def zotero_item(paper: Paper, collection_key: str | None = None, conservative: bool = False) -> dict[str, Any]:
    """The item for ``paper`` (see the module docstring), in ``collection_key`` when given."""
    item_type = ITEM_TYPES[publication_kind(paper)]
    fields = ITEM_FIELDS[item_type]
    arxiv_id = paper.arxiv_id or arxiv_id_from_doi(paper.doi)
    pmcid = paper_pmcid(paper)
    item: dict[str, Any] = {"itemType": item_type, "title": _text(paper.title) or "Untitled",
                            "creators": creators(paper.authors)}
    values = {
        "abstractNote": _text(paper.abstract, MAX_ABSTRACT_CHARS),
        "date": _text(paper.publication_date) or (str(paper.year) if paper.year else ""),
        "url": _url(paper, arxiv_id),
        "DOI": paper.doi or "",
        "volume": _text(paper.volume),
        "issue": _text(paper.issue),
        "pages": _text(paper.pages),
        VENUE_FIELD.get(item_type, ""): _venue(paper, item_type, arxiv_id),
        "archiveID": f"arXiv:{arxiv_id}" if item_type == "preprint" and arxiv_id else "",
    }
    if not conservative:
        values.update({"PMID": paper.pmid or "", "PMCID": pmcid or ""})
    for name, value in values.items():
        if name in fields and value:
            item[name] = value
    extra = _extra_lines(paper, item, arxiv_id, pmcid)
    if extra:
        item["extra"] = "\n".join(extra)
    item["tags"] = [{"tag": RETRACTED_TAG}] if paper.retracted else []
    item["collections"] = [collection_key] if collection_key else []
    item["relations"] = {}
    return item


def creators(authors: list[str]) -> list[dict[str, str]]:
    """Zotero creators: "lastName"/"firstName" for people, one "name" for groups."""
    found = []
    for author in authors:
        parts = split_name(author)
        if parts is None:
            continue
        if parts.literal or not parts.family:
            name = _text(parts.literal or parts.given or author)
            if name:
                found.append({"creatorType": "author", "name": name})
            continue
        given = ", ".join(p for p in (parts.given, parts.suffix) if p)
        found.append({"creatorType": "author", "firstName": _text(given), "lastName": _text(parts.family)})
    return found


def paper_pmcid(paper: Paper) -> str | None:
    for name, value in paper.external_ids.items():
        kind = id_kind(name)
        if kind is not None and kind.field == "pmcid" and (pmcid := normalize_pmcid(value)):
            return pmcid
    return None


def _extra_lines(paper: Paper, item: dict[str, Any], arxiv_id: str | None, pmcid: str | None) -> list[str]:
    """Ids the type has no field for, in the "Key: value" lines Zotero reads from ``extra``."""
    lines = []
    if paper.pmid and "PMID" not in item:
        lines.append(f"PMID: {paper.pmid}")
    if pmcid and "PMCID" not in item:
        lines.append(f"PMCID: {pmcid}")
    if arxiv_id and item["itemType"] != "preprint":
        lines.append(f"arXiv: {arxiv_id}")
    if paper.doi and "DOI" not in item:
        lines.append(f"DOI: {paper.doi}")
    note = update_note(paper)  # "RETRACTED (retraction: 10.x/y (2021-03-01))", or the corrections
    if note:
        lines.append(note)
    return lines


def _venue(paper: Paper, item_type: str, arxiv_id: str | None) -> str:
    if item_type == "preprint":  # the server holding the preprint: arXiv for an arXiv paper
        return "arXiv" if arxiv_id else _text(paper.journal)
    return _text(paper.journal)


def _url(paper: Paper, arxiv_id: str | None) -> str:
    """The record's own URL, else its arXiv abstract page, else the DOI's or another landing page."""
    link = http_url(paper.url) or (f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None)
    link = link or (f"https://doi.org/{paper.doi}" if paper.doi and not is_arxiv_doi(paper.doi) else None)
    return link or http_url(paper.oa_url) or citation_uri(paper) or ""


def _text(value: Any, limit: int = MAX_FIELD_CHARS) -> str:
    text = plain_line(value) if isinstance(value, str) else ""
    return text[:limit]
