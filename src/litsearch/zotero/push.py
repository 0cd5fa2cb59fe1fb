"""``push_papers``: send papers to a Zotero collection, without duplicates, and account for each.

Through the Web API: the collection is found by name (created when missing), the library's
items are read once, and every paper is either a duplicate (same DOI, else PMID, arXiv id, or
title and year: ``matching.py``), created (items checked against Zotero's schema, at most 50 per
write), or failed with Zotero's reason. A duplicate that is not yet in the collection is added to
it. A write Zotero refuses for a field its schema lacks is sent again with PMID and PMCID in
``extra``; a write answered 412 (its token already used) is checked against the library.

Through the desktop connector: the papers go as one RIS import into the collection selected in
Zotero, then into the named collection when Zotero has one (the connector cannot create one);
duplicates are skipped only when Zotero's local API lets the library be read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from ..core.errors import ProviderError
from ..core.identifiers import normalize_doi
from ..core.records import Paper
from ..core.text import fold_title
from ..net.http import HttpClient
from .connector import Connector
from .items import zotero_item
from .matching import LibraryIndex
from .schema import check_item
from .web_api import MAX_ITEMS_PER_WRITE, AlreadyWritten, BatchRefused, WebApi, ZoteroTarget

INPUT_KEY = "input#"  # the index's name for a paper of this push not yet in Zotero


@dataclass
class PaperOutcome:
    title: str
    status: str  # "created", "duplicate" or "failed"
    key: str | None = None
    reason: str = ""  # a duplicate's match ("same DOI as ABCD2345"), a failure's cause
    added_to_collection: bool = False


@dataclass
class PushSummary:
    via: str  # "api" or "connector"
    library: str
    collection: str
    collection_state: str  # "created", "existing", or where the connector saved
    outcomes: list[PaperOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(outcome.status == status for outcome in self.outcomes)

    def line(self) -> str:
        """The summary line: created, skipped as duplicates, failed."""
        added = sum(outcome.added_to_collection for outcome in self.outcomes)
        where = "Web API" if self.via == "api" else "desktop connector"
        skipped = f"{self.count('duplicate')} skipped as duplicates" + (
            f" ({added} of them added to the collection)" if added else "")
        return (f"Zotero ({where}, {self.library}), collection {self.collection!r} ({self.collection_state}): "
                f"{self.count('created')} created, {skipped}, {self.count('failed')} failed.")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "created": self.count("created"), "duplicates": self.count("duplicate"),
                "failed": self.count("failed"), "summary": self.line()}


async def push_papers(papers: list[Paper], collection: str, via: str, http: HttpClient,
                      target: ZoteroTarget | None = None,
                      progress: Callable[[str], None] | None = None) -> PushSummary:
    say = progress or (lambda message: None)
    if via == "api":
        if target is None:
            raise ValueError("the Web API needs a target library")
        return await _push_api(papers, collection, WebApi(http, target), say)
    return await _push_connector(papers, collection, Connector(http), say)


# ---------------------------------------------------------------- the Web API

async def _push_api(papers: list[Paper], collection: str, api: WebApi, say: Callable[[str], None]) -> PushSummary:
    say(f"looking for the collection {collection!r} in the Zotero {api.target.label}")
    key = await api.find_collection(collection)
    say("reading the library's items (to skip papers already there)")
    index = LibraryIndex()
    await api.read_items(index.add)  # before a collection is created: a listing that fails leaves none behind
    state = "existing"
    if key is None:
        key = await api.create_collection(collection)
        state = "created"
    summary = PushSummary("api", api.target.label, collection, state)
    outcomes: list[PaperOutcome | None] = [None] * len(papers)
    to_create: list[int] = []
    to_add: dict[str, Any] = {}  # existing items to add to the collection, by key
    for position, paper in enumerate(papers):
        found = index.match(paper)
        if found is not None:
            existing, how = found
            outcomes[position] = _duplicate(paper, existing.key, how)
            if key not in existing.collections and not existing.key.startswith(INPUT_KEY):
                to_add.setdefault(existing.key, (existing, []))[1].append(position)
            continue
        item = zotero_item(paper, key)
        problems = check_item(item)
        if problems:
            outcomes[position] = PaperOutcome(paper.title, "failed", reason="; ".join(problems))
            continue
        index.add_paper(paper, f"{INPUT_KEY}{position}", key)  # a repeat later in the input is a duplicate
        to_create.append(position)
    for start in range(0, len(to_create), MAX_ITEMS_PER_WRITE):
        batch = to_create[start:start + MAX_ITEMS_PER_WRITE]
        say(f"creating items {start + 1}-{start + len(batch)} of {len(to_create)}")
        for position, outcome in zip(batch, await _create(api, [papers[p] for p in batch], key)):
            outcomes[position] = outcome
    _mark_repeats(papers, outcomes)
    await _add_to_collection(api, key, to_add, outcomes, summary)
    summary.outcomes = [outcome for outcome in outcomes if outcome is not None]
    return summary


async def _create(api: WebApi, papers: list[Paper], collection_key: str,
                  conservative: bool = False) -> list[PaperOutcome]:
    """One write of at most 50 papers; a write refused for a field is sent once more with PMID
    and PMCID in ``extra``; items refused one by one likewise."""
    items = [zotero_item(paper, collection_key, conservative=conservative) for paper in papers]
    version_before = api.library_version
    try:
        reply = await api.write_items(items)
    except BatchRefused as exc:
        if not conservative and exc.status == 400:
            return await _create(api, papers, collection_key, conservative=True)
        return [PaperOutcome(paper.title, "failed", reason=str(exc)) for paper in papers]
    except AlreadyWritten as exc:
        return await _written_before(api, papers, version_before, str(exc))
    except ProviderError as exc:  # rate limit after retries, a server error, a timeout
        return [PaperOutcome(paper.title, "failed", reason=str(exc)) for paper in papers]
    outcomes = []
    retry: list[int] = []
    for index, paper in enumerate(papers):
        if index in reply.created or index in reply.unchanged:
            outcomes.append(PaperOutcome(paper.title, "created", reply.created.get(index) or reply.unchanged[index]))
        else:
            outcomes.append(PaperOutcome(paper.title, "failed", reason=f"Zotero refused it ({reply.failed[index]})"))
            if reply.failed[index].startswith("400") and not conservative:
                retry.append(index)
    if retry:
        again = await _create(api, [papers[i] for i in retry], collection_key, conservative=True)
        for index, outcome in zip(retry, again):
            outcomes[index] = outcome
    return outcomes


async def _written_before(api: WebApi, papers: list[Paper], since: int | None, reason: str) -> list[PaperOutcome]:
    """A 412 on a write: an earlier attempt of it was stored. The items changed since are read to
    tell which papers are there."""
    index = LibraryIndex()
    try:
        await api.read_items(index.add, since=since)
    except ProviderError as exc:
        return [PaperOutcome(p.title, "failed", reason=f"{reason}; the library could not be checked: {exc}")
                for p in papers]
    outcomes = []
    for paper in papers:
        found = index.match(paper)
        outcomes.append(PaperOutcome(paper.title, "created", found[0].key) if found else
                        PaperOutcome(paper.title, "failed", reason=f"Zotero refused the write ({reason})"))
    return outcomes


async def _add_to_collection(api: WebApi, collection_key: str, to_add: dict[str, Any],
                             outcomes: list[PaperOutcome | None], summary: PushSummary) -> None:
    entries = list(to_add.values())
    for start in range(0, len(entries), MAX_ITEMS_PER_WRITE):
        batch = entries[start:start + MAX_ITEMS_PER_WRITE]
        objects = [{"key": e.key, "version": e.version, "collections": e.collections + [collection_key]}
                   for e, _ in batch]
        try:
            reply = await api.write_items(objects)
        except ProviderError as exc:
            summary.notes.append(f"{len(batch)} items already in the library could not be added to the "
                                 f"collection: {exc}")
            continue
        for index, (existing, positions) in enumerate(batch):
            if index in reply.created or index in reply.unchanged:
                for position in positions:
                    outcomes[position].added_to_collection = True
            else:
                summary.notes.append(f"item {existing.key} could not be added to the collection "
                                     f"({reply.failed.get(index, 'no reason')})")


def _duplicate(paper: Paper, key: str, how: str) -> PaperOutcome:
    if key.startswith(INPUT_KEY):  # an earlier paper of this push, not an item of the library
        return PaperOutcome(paper.title, "duplicate", reason=f"repeats paper {int(key[len(INPUT_KEY):]) + 1} of "
                                                             f"this push (same {how})")
    return PaperOutcome(paper.title, "duplicate", key, f"same {how} as item {key}")


def _mark_repeats(papers: list[Paper], outcomes: list[PaperOutcome | None]) -> None:
    """Papers left without an outcome were repeats of an earlier paper in the input."""
    for position, outcome in enumerate(outcomes):
        if outcome is None:
            outcomes[position] = PaperOutcome(papers[position].title, "duplicate", reason="repeated in the input")


# ---------------------------------------------------------------- the desktop connector

async def _push_connector(papers: list[Paper], collection: str, connector: Connector,
                          say: Callable[[str], None]) -> PushSummary:
    from ..biblio.writers import to_ris

    say("checking that Zotero desktop is running")
    await connector.ping()
    target = await connector.target(collection)
    if not target.editable:
        raise ProviderError(f"the library selected in Zotero ({target.library_name}) is read-only; select one you "
                            "can write to", provider="zotero_connector")
    if target.named_tree_id:
        state = "existing"
    else:
        state = f"none in Zotero: saved into {target.selected_name!r}, the collection selected in Zotero"
    summary = PushSummary("connector", target.library_name, collection, state)
    if target.same_name_count > 1:
        summary.notes.append(f"Zotero has {target.same_name_count} collections named {collection!r}; the first "
                             "was used")
    index = LibraryIndex()
    if not await connector.read_library(index.add):
        summary.notes.append("duplicates were not checked: the connector cannot look items up; switch on Zotero's "
                             "local API (Settings → Advanced → \"Allow other applications on this computer to "
                             "communicate with Zotero\") to skip papers already in Zotero")
    outcomes: list[PaperOutcome | None] = [None] * len(papers)
    to_send: list[int] = []
    for position, paper in enumerate(papers):
        found = index.match(paper)
        if found is not None:
            outcomes[position] = _duplicate(paper, found[0].key, found[1])
            continue
        index.add_paper(paper, f"{INPUT_KEY}{position}", None)
        to_send.append(position)
    if to_send:
        move = target.named_tree_id if target.named_tree_id != target.selected_tree_id else None
        say(f"importing {len(to_send)} papers as RIS through Zotero's connector")
        try:
            result = await connector.import_ris(to_ris([papers[p] for p in to_send]), move)
        except ProviderError as exc:
            for position in to_send:
                outcomes[position] = PaperOutcome(papers[position].title, "failed", reason=str(exc))
        else:
            confirmed = confirmed_imports([papers[p] for p in to_send], result.imported)
            for position, imported in zip(to_send, confirmed):
                outcomes[position] = PaperOutcome(papers[position].title, "created") if imported else PaperOutcome(
                    papers[position].title, "failed", reason=f"Zotero's connector did not report it imported (it "
                                                             f"reported {result.created} of {len(to_send)} papers sent)")
    _mark_repeats(papers, outcomes)
    summary.outcomes = [outcome for outcome in outcomes if outcome is not None]
    return summary


def confirmed_imports(papers: list[Paper], imported: list[tuple[str, str]]) -> list[bool]:
    """Which papers sent the connector's answer confirms: all when it reports as many items as
    papers sent (its own count), else those whose DOI (else title) one of its items carries,
    each item confirming one paper."""
    if len(imported) >= len(papers):
        return [True] * len(papers)
    by_key: dict[tuple[str, str], list[int]] = {}
    for number, (title, doi) in enumerate(imported):
        for key in (("doi", normalize_doi(doi) or ""), ("title", fold_title(title))):
            if key[1]:
                by_key.setdefault(key, []).append(number)
    used: set[int] = set()
    confirmed = []
    for paper in papers:
        keys = [("doi", normalize_doi(paper.doi) or "" if paper.doi else ""), ("title", fold_title(paper.title))]
        found = next((number for key in keys if key[1] for number in by_key.get(key, []) if number not in used), None)
        if found is not None:
            used.add(found)
        confirmed.append(found is not None)
    return confirmed
