"""The session's candidates: every paper any round brought, once, with every way it was reached.

A record that arrives is the same paper as a candidate when they share an identifier (DOI,
PMID, PMCID, arXiv id, OpenAlex id, Semantic Scholar id) or, for records without a shared id,
the same folded title of a length that names one paper (short titles such as "Editorial" never
join two records) where the search's own dedupe rule allows it (dedupe/judge.py ``hard_veto``:
never two different DOIs or PMIDs, years more than one apart, a notice and another item),
except that a preprint server's record may join its journal version although their DOIs differ.
Two works that share a title (an algorithm and its remarks, "Hidden-Line Plotting Program
(Algorithm R420)"; two studies titled alike) stay two candidates: joining them would hide all
but one from the judge. The candidate then keeps the richer value of each field
(dedupe/merge.py) and gains the evidence; a judged paper keeps its verdict whatever arrives
later, so it is never shown again.

Index keys are built in one pass over the pool when a round starts and updated as records
join, so adding a round's few thousand records costs a dictionary look-up each, not a merge
engine pass over the whole pool.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Sequence

from ..core.records import Paper, field_value
from ..core.text import fold_title
from ..dedupe.features import Profile, ProfileBuilder
from ..dedupe.judge import hard_veto
from ..dedupe.merge import merge_cluster
from .limits import MAX_POOL
from .session import MAX_REFS, Candidate, Session
from .textmodel import term_counts

MIN_TITLE_KEY = 25  # folded characters: shorter titles ("Editorial", "Reply") never join records
ID_FIELDS = ("doi", "pmid", "arxiv_id", "openalex_id", "paper_id")


def identity_keys(paper: Paper) -> list[str]:
    keys = [f"{name}:{str(value).lower()}" for name in ID_FIELDS if (value := field_value(paper, name))]
    pmcid = (paper.external_ids or {}).get("PMCID") or (paper.external_ids or {}).get("pmcid")
    if pmcid:
        keys.append(f"pmcid:{pmcid.lower()}")
    return keys


def title_key(paper: Paper) -> str | None:
    folded = fold_title(paper.title or "")
    return f"title:{folded}" if len(folded) >= MIN_TITLE_KEY else None


def title_join_veto(a: Profile, b: Profile) -> str | None:
    """Why two records of one title are two papers (the search's dedupe rule), or None. A preprint
    server's record and a journal record are two versions of one paper whatever their DOIs."""
    if a.preprint != b.preprint:
        a = replace(a, dois=frozenset(), pmids=frozenset())
    return hard_veto(a, b)


class Pool:
    """The candidates of ``session``, indexed by identity."""

    def __init__(self, session: Session):
        self.session = session
        self.by_key: dict[str, str] = {}
        self.by_title: dict[str, list[str]] = {}  # every candidate of a title: one title, many works
        self.profiles = ProfileBuilder()
        for candidate in session.candidates.values():
            self._index(candidate)

    def _index(self, candidate: Candidate) -> None:
        for key in identity_keys(candidate.paper):
            self.by_key.setdefault(key, candidate.key)
        title = title_key(candidate.paper)
        if title:
            keys = self.by_title.setdefault(title, [])
            if candidate.key not in keys:
                keys.append(candidate.key)

    def find(self, paper: Paper) -> Candidate | None:
        for key in identity_keys(paper):
            found = self.by_key.get(key)
            if found:
                return self.session.candidates[found]
        title = title_key(paper)
        if title and title in self.by_title:
            arriving = self.profiles.profile(paper)
            for key in self.by_title[title]:
                candidate = self.session.candidates[key]
                if not title_join_veto(arriving, self.profiles.profile(candidate.paper)):
                    return candidate
        return None

    def add(self, arrivals: Iterable[tuple[Paper, dict[str, Any]]]) -> list[str]:
        """Add each (record, evidence) pair; returns the keys of the candidates that are new.
        The text terms of new candidates, and of old ones whose record gained an abstract, are
        computed once, together."""
        new: list[str] = []
        retext: dict[str, Candidate] = {}
        for paper, evidence in arrivals:
            if not (paper.title or "").strip():
                continue
            candidate = self.find(paper)
            if candidate is None:
                candidate = Candidate(key=self.session.new_key(), paper=paper, terms={}, evidence=[evidence])
                self.session.candidates[candidate.key] = candidate
                new.append(candidate.key)
                retext[candidate.key] = candidate
            else:
                had_text = bool(candidate.paper.abstract or candidate.paper.tldr)
                candidate.paper = merge_cluster([candidate.paper, paper])
                if evidence not in candidate.evidence:
                    candidate.evidence.append(evidence)
                if not had_text and (candidate.paper.abstract or candidate.paper.tldr):
                    retext[candidate.key] = candidate
            self._index(candidate)
        if retext:
            for candidate, terms in zip(retext.values(), term_counts([c.paper for c in retext.values()])):
                candidate.terms = terms
        return new

    def add_references(self, cited: dict[str, list[str]]) -> None:
        """Each candidate's reference list (W-ids), where an answer carried it."""
        for work, references in cited.items():
            key = self.by_key.get(f"openalex_id:{work.lower()}")
            if key and references:
                self.session.candidates[key].refs = list(dict.fromkeys(references))[:MAX_REFS]

    def set_aside(self, keep: int = MAX_POOL) -> int:
        """Drop the least supported unjudged candidates beyond ``keep`` (by score); judged ones,
        and the current batch, always stay. Returns how many were set aside."""
        candidates = self.session.candidates
        if len(candidates) <= keep:
            return 0
        protected = set(self.session.batch)
        unjudged = sorted((c for c in candidates.values() if c.verdict is None and c.key not in protected),
                          key=lambda c: (c.log_odds, -int(c.key[1:])))
        excess = len(candidates) - keep
        dropped = unjudged[:excess]
        for candidate in dropped:
            del candidates[candidate.key]
        self.by_key, self.by_title = {}, {}
        for candidate in candidates.values():
            self._index(candidate)
        return len(dropped)


def records_of(candidates: Sequence[Candidate]) -> list[Paper]:
    return [candidate.paper for candidate in candidates]
