"""Semantic Scholar's ``POST /paper/batch`` for reference lists, in batches sized by what they
ask for.

One call takes at most 500 ids, answers at most 10 MB and at most 9,999 nested citations or
references in all (../shared/reference/apis.md A1, from the API's documentation and
allenai/s2-folks #47). Asking for ``references.*`` of 100 papers in one call passed that cap as
soon as they averaged 100 references (``--save`` links a whole library). So the batches are
sized by what they ask for: one call for every paper's ``referenceCount`` (no nested field,
500 ids a call), then batches whose reference counts add up to at most the cap. A batch S2
still refuses as too large (HTTP 400) is halved and asked again; a paper too large alone is
left out and named in ``notes``.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import ProviderError
from ..net.http import ProviderSession
from ._common import api_error, as_count

BATCH_PATH = "/graph/v1/paper/batch"
MAX_IDS = 500
NESTED_CAP = 9_999
COUNT_FIELDS = "referenceCount"
REFERENCE_FIELDS = "paperId,references.paperId,references.externalIds"


class ReferenceLists(list):
    """For each id asked (same order), its references as ``{paperId, externalIds}`` dicts;
    ``notes`` says which papers could not be had."""

    def __init__(self, size: int):
        super().__init__([] for _ in range(size))
        self.notes: list[str] = []


async def fetch_reference_ids(session: ProviderSession, paper_api_ids: list[str]) -> ReferenceLists:
    """Each paper's references (an empty list for a paper S2 does not know or that cites none)."""
    answers = ReferenceLists(len(paper_api_ids))
    counts: list[int | None] = []
    for start in range(0, len(paper_api_ids), MAX_IDS):
        chunk = paper_api_ids[start:start + MAX_IDS]
        papers = await _batch(session, chunk, COUNT_FIELDS)
        counts += [as_count(paper.get("referenceCount")) if isinstance(paper, dict) else None for paper in papers]
    for positions in sized_batches(counts):
        await _fetch_references(session, paper_api_ids, positions, answers)
    return answers


def sized_batches(counts: list[int | None], cap: int = NESTED_CAP, max_ids: int = MAX_IDS) -> list[list[int]]:
    """Positions of the papers worth asking (known to S2, citing something), grouped in order so
    that each group's reference counts add up to at most ``cap`` and it holds at most
    ``max_ids`` ids. A paper over the cap alone gets a group of its own."""
    batches: list[list[int]] = []
    current: list[int] = []
    total = 0
    for position, count in enumerate(counts):
        if not count:
            continue
        if current and (total + count > cap or len(current) == max_ids):
            batches.append(current)
            current, total = [], 0
        current.append(position)
        total += count
    if current:
        batches.append(current)
    return batches


async def _fetch_references(session: ProviderSession, ids: list[str], positions: list[int],
                            answers: ReferenceLists) -> None:
    try:
        papers = await _batch(session, [ids[position] for position in positions], REFERENCE_FIELDS)
    except ProviderError as error:
        if error.status != 400:
            raise
        if len(positions) > 1:  # too large after all (the 10 MB cap): ask in halves
            half = len(positions) // 2
            await _fetch_references(session, ids, positions[:half], answers)
            await _fetch_references(session, ids, positions[half:], answers)
            return
        answers.notes.append(f"the references of {ids[positions[0]]} could not be had ({error})")
        return
    for position, paper in zip(positions, papers):
        references = paper.get("references") if isinstance(paper, dict) else None
        answers[position] = [ref for ref in references or [] if isinstance(ref, dict)]


def _headers(session: ProviderSession) -> dict[str, str]:
    return session.key_headers()  # the key as the declaration says it is sent


async def _batch(session: ProviderSession, ids: list[str], fields: str) -> list[Any]:
    """One /paper/batch call: ``fields`` in the query string, the ids in the JSON body; the
    answer is one entry per id, in order, null for unknown ids (S2 release notes, Apr 2023)."""
    response = await session.post(session.url(BATCH_PATH), params={"fields": fields}, json={"ids": ids},
                                  headers=_headers(session))
    papers = _json_list(response.content)
    if len(papers) != len(ids):
        raise ProviderError(f"unexpected response ({len(papers)} entries for {len(ids)} ids)")
    return papers


def _json_list(body: bytes) -> list[Any]:
    """/paper/batch answers a JSON list (one entry per id, null for unknown ids)."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise ProviderError("unexpected response (not JSON)") from None
    if isinstance(payload, dict):
        reason = payload.get("error") or payload.get("message")
        if reason:
            raise api_error(str(reason))  # an error payload says why
        raise ProviderError("unexpected response (an object where a list of papers was expected)")
    if not isinstance(payload, list):
        raise ProviderError("unexpected response (not a list of papers)")
    return payload
