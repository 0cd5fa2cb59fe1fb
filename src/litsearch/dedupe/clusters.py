"""The dedupe engine's entry: which records describe the same paper (clusters), and why.

Used twice: to fold the answers of several providers into one table, and by
`lit-search dedupe` on reviewers' exports. The priorities are those of a
systematic review: a false merge silently loses a paper, so every rule is
conservative, and pairs that look alike but fail a guard are reported as
*uncertain* for a human instead of being merged (`dedupe` returns both).

How it works:
1. Identity: records sharing a DOI, PMID, arXiv id (versionless; arXiv DataCite
   DOIs 10.48550/arXiv.* count as arXiv ids, not DOIs), OpenAlex, Semantic
   Scholar, PMC or DBLP id are united (union-find), so a preprint joins its
   journal version when any record links the two ids. A shared DOI between
   clearly different titles, or between titles that differ and pages that differ
   (one DOI for a whole abstract supplement), is ignored. A record may also name
   its other version (Europe PMC's "Preprint of"/"Preprint in": ``published_pmid``,
   ``published_pmcid``, ``preprint_ppr``): then the preprint joins that article
   although their DOIs differ.
2. Fuzzy: candidate pairs come from blocking keys (title start and end, the
   longest title words, volume+page, first author+page), never from all pairs.
   Each pair is judged on a cleaned title (markup, database notes such as
   "[Review] [24 refs]" or "[Erratum appears in …]", language tags and
   "(author's transl)" removed; bilingual titles split) plus year, authors,
   journal, volume, pages and abstract. Near-identical titles merge when nothing
   contradicts them; similar titles need the citation (volume and pages) to
   agree; generic titles ("Editorial", "Introduction to the minitrack on …")
   need the full citation; one author, year, volume and page range is one
   article whatever its (translated) title.
3. Vetoes hold at cluster level, so no chain of pairs can join what a direct
   comparison forbids: two different (non-arXiv) DOIs, or PMIDs, never share a
   cluster; neither do an erratum/reply/comment and an article, titles whose
   numbers differ ("Part 1"/"Part 2"), years more than one apart, nor different
   issue numbers (unless title, year, volume, page range and first author all agree:
   then one issue number is a typo). A pair kept apart only by a veto is reported.
4. What the input as a whole says (input_traits.py): an issue field holding record
   numbers is not compared; a title recurring in one venue with different
   citations (a journal column) needs the full citation to merge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..core.records import Paper
from .features import Profile, ProfileBuilder
from .input_traits import learn_from_input
from .judge import (
    NEAR_IDENTICAL,
    hard_veto,
    identifier_conflict,
    judge,
    pages_conflict,
    subtitle_twin,
    title_similarity,
    translated_twin,
    truncated_twin,
)
from .merge import merge_cluster

__all__ = [
    "Cluster",
    "DedupeResult",
    "UncertainPair",
    "dedupe",
    "find_clusters",
    "find_uncertain_pairs",
    "merge_records",
]




@dataclass
class Cluster:
    """Indices (ascending) of input records that are one paper, and why they were joined."""

    members: list[int]
    reasons: list[str] = field(default_factory=list)


@dataclass
class UncertainPair:
    """Two records that look alike but were kept apart; for a human to decide. ``veto`` names
    the rule that alone kept them apart (different DOIs, issues, an erratum …) when everything
    else says they are one paper."""

    first: int
    second: int
    title_similarity: float
    reason: str
    veto: str | None = None


@dataclass
class DedupeResult:
    """What `lit-search dedupe --report` shows: the clusters with their reasons, the pairs
    a human should look at (one per two clusters, the most similar, ordered by record), and
    what the engine learned about the input (``notes``)."""

    clusters: list[Cluster]
    uncertain_pairs: list[UncertainPair]
    notes: list[str] = field(default_factory=list)


def dedupe(records: Sequence[Paper]) -> DedupeResult:
    """Clusters (every record in exactly one) plus the near-miss pairs left unmerged."""
    profiles, notes = learn_from_input(ProfileBuilder().profiles(records))
    clusters = _ClusterBuilder(profiles)
    clusters.unite_by_identifiers()
    uncertain = clusters.unite_by_similarity()
    result = clusters.result()
    return DedupeResult(clusters=result, uncertain_pairs=_one_pair_per_cluster_pair(uncertain, result), notes=notes)


def _one_pair_per_cluster_pair(pairs: list[UncertainPair], clusters: list[Cluster]) -> list[UncertainPair]:
    """The most similar uncertain pair for each two clusters; none inside a cluster."""
    cluster_of = {member: number for number, cluster in enumerate(clusters) for member in cluster.members}
    best: dict[tuple[int, int], UncertainPair] = {}
    for pair in pairs:
        key = tuple(sorted((cluster_of[pair.first], cluster_of[pair.second])))
        if key[0] != key[1] and (key not in best or pair.title_similarity > best[key].title_similarity):
            best[key] = pair
    return sorted(best.values(), key=lambda pair: (pair.first, pair.second))


def find_clusters(records: Sequence[Paper]) -> list[Cluster]:
    """Every record in exactly one cluster, singletons included, ordered by first member."""
    return dedupe(records).clusters


def find_uncertain_pairs(records: Sequence[Paper]) -> list[UncertainPair]:
    """Pairs that resemble each other but were not merged (near threshold or failing one guard)."""
    return dedupe(records).uncertain_pairs


def merge_records(records: Sequence[Paper]) -> list[Paper]:
    """One record per cluster, in cluster order (singletons returned unchanged)."""
    merged = []
    for cluster in find_clusters(records):
        members = [records[i] for i in cluster.members]
        merged.append(members[0] if len(members) == 1 else merge_cluster(members))
    return merged


# --------------------------------------------------------------------------- blocking

_BLOCK_ALL_PAIRS = 40  # blocks up to this size compare every pair
_BLOCK_WINDOW = 12  # larger blocks compare neighbours in title order only


def _versions_conflict(a: Profile, b: Profile) -> str | None:
    """``identifier_conflict``, except between a preprint and a journal record."""
    return None if a.preprint != b.preprint else identifier_conflict(a, b)


def _blocking_keys(p: Profile) -> Iterator[str]:
    """Keys under which a record meets its candidate duplicates.

    Title start and end catch edits at the other end; the three longest words catch
    titles edited at both ends; volume+page and author+page catch translated titles.
    """
    for variant in p.variants:
        compact = variant.replace(" ", "")
        if len(compact) >= 12:
            yield "p" + compact[:24]
            yield "s" + compact[-24:]
        words = variant.split()
        if len(words) >= 4:
            yield "w" + " ".join(sorted(sorted(words, key=len)[-3:]))
    if p.first_page and p.volume:
        yield f"v{p.volume}:{p.first_page}:{p.year}"
    if p.first_page and p.surnames:
        yield f"a{p.surnames[0]}:{p.first_page}"


def _candidate_pairs(profiles: Sequence[Profile], indices: Sequence[int]) -> set[tuple[int, int]]:
    """Pairs (i < j) of `indices` (one per profile) that share a blocking key."""
    blocks: dict[str, list[int]] = defaultdict(list)
    title_of: dict[int, str] = {}
    for index, profile in zip(indices, profiles):
        title_of[index] = profile.title
        if profile.title:
            for key in set(_blocking_keys(profile)):
                blocks[key].append(index)
    pairs: set[tuple[int, int]] = set()
    for members in blocks.values():
        if len(members) < 2:
            continue
        if len(members) <= _BLOCK_ALL_PAIRS:
            pairs.update((i, j) for n, i in enumerate(members) for j in members[n + 1 :])
        else:
            ordered = sorted(members, key=lambda i: (title_of[i], i))
            for n, i in enumerate(ordered):
                for j in ordered[n + 1 : n + 1 + _BLOCK_WINDOW]:
                    pairs.add((min(i, j), max(i, j)))
    return pairs


# --------------------------------------------------------------------------- clustering


class _ClusterBuilder:
    """Union-find whose unions respect the vetoes at cluster level."""

    def __init__(self, profiles: Sequence[Profile]):
        self.profiles = profiles
        self.parent = list(range(len(profiles)))
        self.members: dict[int, list[int]] = {i: [i] for i in range(len(profiles))}
        # Distinct profiles per cluster: verbatim copies need checking against other clusters once.
        self.distinct: dict[int, set[Profile]] = {i: {p} for i, p in enumerate(profiles)}
        self.reasons: dict[int, list[str]] = defaultdict(list)

    def root(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def unite(self, i: int, j: int, reason: str, *, by_identifier: bool, versions: bool = False) -> bool:
        """Join the clusters of i and j unless a veto holds between any of their members; True when joined.

        A shared identifier outweighs the soft vetoes (years, notices, title numbers: metadata
        errors), never a conflicting DOI or PMID, not even through a chain of records. Declared
        ``versions`` (a preprint linked to its article) waive that conflict between a preprint
        and a journal record only: two journal records (or two preprints) still never join.
        """
        ri, rj = self.root(i), self.root(j)
        if ri == rj:
            return True
        veto = _versions_conflict if versions else identifier_conflict if by_identifier else hard_veto
        if any(veto(x, y) for x in self.distinct[ri] for y in self.distinct[rj]):
            return False
        if len(self.members[ri]) < len(self.members[rj]):
            ri, rj = rj, ri
        self.parent[rj] = ri
        self.members[ri].extend(self.members.pop(rj))
        self.distinct[ri] |= self.distinct.pop(rj)
        self.reasons[ri].extend(self.reasons.pop(rj, []))
        self.reasons[ri].append(reason)
        return True

    def unite_by_identifiers(self) -> None:
        groups: dict[str, list[int]] = defaultdict(list)
        for index, p in enumerate(self.profiles):
            for doi in p.dois:
                groups[f"DOI {doi}"].append(index)
            for pmid in p.pmids:
                groups[f"PMID {pmid}"].append(index)
            for arxiv_id in p.arxiv_ids:
                groups[f"arXiv id {arxiv_id}"].append(index)
            for other in p.other_ids:
                groups[other].append(index)
        for key in sorted(groups, key=lambda k: (groups[k][0], k)):
            members = groups[key]
            for position, j in enumerate(members[1:], start=1):
                # Supplements give many abstracts one DOI: join only records whose titles agree.
                for i in members[:position]:
                    if self._titles_allow_identifier_match(i, j) and self.unite(i, j, f"same {key}", by_identifier=True):
                        break
        self._unite_declared_versions(groups)

    def _unite_declared_versions(self, groups: dict[str, list[int]]) -> None:
        """A preprint and the article it became, when a record names the other (Europe PMC's
        "Preprint of"/"Preprint in"): the one union where a preprint's DOI (or PMID) may sit
        beside the journal version's. Titles change on the way to a journal, so the first
        author agreeing is enough beside the link."""
        for i, profile in enumerate(self.profiles):
            for key in sorted(profile.version_links):
                for j in groups.get(key, []):
                    other = self.profiles[j]
                    if i != j and (self._titles_allow_identifier_match(i, j)
                                   or profile.first_author & other.first_author):
                        self.unite(i, j, f"preprint and published version ({key})", by_identifier=True,
                                   versions=True)

    def _titles_allow_identifier_match(self, i: int, j: int) -> bool:
        a, b = self.profiles[i], self.profiles[j]
        if not a.title or not b.title:
            return True
        if truncated_twin(a, b) or subtitle_twin(a, b):
            return True
        similarity = title_similarity(a, b)
        if similarity >= NEAR_IDENTICAL:
            return True
        # A congress supplement gives all its abstracts one DOI: two abstracts on one topic
        # have similar titles but are printed on different pages. A DOI shared by records
        # whose titles and pages disagree is no identity (the library's rule, library/record.py).
        if similarity >= 60 and not pages_conflict(a, b):
            return True
        # A translation shares the identifier but not the words; a supplement's abstracts share
        # its DOI, volume and even page, and often an author. Only a title in another language,
        # with the first author, year and whole citation agreeing, passes (judge.translated_twin).
        return translated_twin(a, b)

    def unite_by_similarity(self) -> list[UncertainPair]:
        profiles = self.profiles
        # Exports repeat records verbatim: when identical profiles merge, only the first
        # needs comparing with the others (its twins join whatever it joins).
        first_seen: dict[Profile, int] = {}
        representatives = []
        uncertain = []
        for index, profile in enumerate(profiles):
            first = first_seen.setdefault(profile, index)
            if first != index:
                verdict = judge(profile, profile, 100.0)
                if verdict is not None and verdict.merge and self.unite(first, index, verdict.reason, by_identifier=False):
                    continue
                if verdict is not None:
                    uncertain.append(UncertainPair(first, index, 100.0, verdict.reason, verdict.veto))
            representatives.append(index)
        scored = [
            (title_similarity(profiles[i], profiles[j]), i, j)
            for i, j in _candidate_pairs([profiles[k] for k in representatives], representatives)
        ]
        # Most similar titles first, so a doubtful link never pre-empts a sure one; pairs already
        # joined through others need no judgement at all.
        scored.sort(key=lambda item: (-item[0], item[1], item[2]))
        for similarity, i, j in scored:
            if self.root(i) == self.root(j):
                continue
            verdict = judge(profiles[i], profiles[j], similarity)
            if verdict is None:
                continue
            if verdict.merge:
                if not self.unite(i, j, verdict.reason, by_identifier=False):
                    uncertain.append(UncertainPair(i, j, similarity, f"{verdict.reason}; conflicts with its cluster"))
            else:
                uncertain.append(UncertainPair(i, j, similarity, verdict.reason, verdict.veto))
        uncertain.sort(key=lambda pair: (pair.first, pair.second))
        return uncertain

    def result(self) -> list[Cluster]:
        clusters = []
        for root, members in self.members.items():
            reasons = list(dict.fromkeys(self.reasons.get(root, [])))
            clusters.append(Cluster(members=sorted(members), reasons=reasons))
        clusters.sort(key=lambda c: c.members[0])
        return clusters
