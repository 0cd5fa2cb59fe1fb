"""How likely each unjudged candidate is to be relevant, from its evidence; and why.

Eight features, each a number per candidate:

- ``text``: how much it reads like the papers judged relevant rather than the rejected ones
  (Rocchio: cosine to the relevant papers' centroid, a maybe counted half, minus half the
  cosine to the rejected papers' centroid), in the session's tf-idf space;
- ``topic``: cosine to the topic and every query searched (the user's words, and the judge's);
- ``links``: how many papers judged relevant cite it or are cited by it (a maybe counts half);
- ``cocited``: how many papers of the pool cite both it and a relevant paper (co-citation);
- ``coupling``: how many references it shares with the relevant papers (bibliographic coupling);
- ``recommended``: Semantic Scholar's "more like these" placed it (the higher, the more);
- ``semantic``: OpenAlex's semantic search placed it, for the text of a relevant paper;
- ``searched``: a search placed it (the best rank any provider gave, for any query).

The score is a logistic model of those features (each on its natural scale, about 0 to 1: a
cosine, a placement, the log of a count), whose weights start at a stated prior (``PRIOR``) and
are fitted to the session's own verdicts at every round (the prior a Gaussian around them, so a
handful of verdicts moves them little and hundreds move them much): a field where citations
carry the topic learns to trust links, one where they do not learns to trust the text.
Candidates are ordered by the model's log-odds (probabilities near 1 would tie). Nothing here names a collection, a field or a query. Judged
papers are scored leave-one-out (a paper's own text is not in the centroid it is compared with),
so the fit sees what an unjudged paper would look like.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..core.text import plural
from .session import Candidate, Session
from .textmodel import Space, query_counts

FEATURES = ("text", "topic", "links", "cocited", "coupling", "recommended", "semantic", "searched")
# Prior weights (log-odds per unit of each feature) and the intercept (a base rate of about 2 %):
# text likeness and citation links to relevant papers are the strongest evidence in screening
# and citation-chasing studies; a provider's placement is weaker. A relevant seed's link is
# worth log-odds 4 x ln 2 = 2.8, a text cosine 0.2 above the rejected papers' 1.6: the records a
# search brings all share the topic's words (a review's screened-out records most of all), so
# likeness of words separates them less than a citation from a paper judged relevant does.
PRIOR = {"text": 8.0, "topic": 4.0, "links": 4.0, "cocited": 1.5, "coupling": 1.0, "recommended": 1.5,
         "semantic": 1.5, "searched": 2.0}
PRIOR_BIAS = -4.0
PENALTY = 2.0  # the prior's precision on each weight (its intercept's a tenth of it)
PRESUMED_NEGATIVES = 100  # unjudged candidates drawn at random and fitted as not relevant (CAL's remedy
# for the bias of fitting only the papers shown, which were shown because they scored high)
TEXT_MODEL = "rocchio"
NEWTON_STEPS = 8
MAX_HALVINGS = 30  # of a Newton step that would lower the log-posterior
VERDICT_LABEL = {"relevant": 1.0, "maybe": 0.5, "not": 0.0}
VERDICT_WEIGHT = {"relevant": 1.0, "maybe": 0.5}


def placement(rank: int | None, depth: float) -> float:
    """1 for the first place, falling with the rank (half at ``depth``)."""
    return 1.0 / (1.0 + (max(1, rank or depth) - 1) / depth)


def feature_table(session: Session) -> dict[str, dict[str, float]]:
    """Every candidate's features (judged ones leave-one-out)."""
    candidates = list(session.candidates.values())
    space = Space(candidate.terms for candidate in candidates)
    weighed = {c.key: space.weights(c.terms) for c in candidates}
    positive: dict[str, float] = {}
    negative: dict[str, float] = {}
    for candidate in candidates:
        weight = VERDICT_WEIGHT.get(candidate.verdict or "", 0.0)
        target = positive if weight else negative if candidate.verdict == "not" else None
        if target is None:
            continue
        terms, weights, norm = weighed[candidate.key]
        for term, value in zip(terms, weights):
            target[term] = target.get(term, 0.0) + (weight or 1.0) * (value / norm)
    topic = space.vector(_query_terms(session))
    verdict_of = {c.key: c.verdict for c in candidates}
    cocited, coupling = citation_features(candidates)
    # The rejected papers' centroid only refines a profile of the relevant ones: alone, "unlike
    # what was rejected" means "unlike the search's first rows", no evidence of relevance.
    liked, disliked = Prototype(positive), Prototype(negative if positive else {})
    table = {}
    profiles = _profiles(liked.total, disliked.total, topic)
    for candidate in candidates:
        terms, weights, norm = weighed[candidate.key]
        own = VERDICT_WEIGHT.get(candidate.verdict or "", 0.0)
        # One pass over the candidate's terms for its three dot products with its unit vector
        # (the round's own time is mostly here: a few thousand candidates of up to MAX_TERMS terms). A
        # term in no profile adds nothing; one in some adds 0.0 to the others: each sum is, bit
        # for bit, the one a look-up of every term in every profile gives.
        to_liked = to_disliked = to_topic = 0.0
        for term, weight in zip(terms, weights):
            found = profiles.get(term)
            if found is not None:
                value = weight / norm
                to_liked += value * found[0]
                to_disliked += value * found[1]
                to_topic += value * found[2]
        text = liked.cosine_from_dot(to_liked, own) - 0.5 * disliked.cosine_from_dot(
            to_disliked, 1.0 if candidate.verdict == "not" else 0.0)
        table[candidate.key] = {"text": text, "topic": to_topic,
                                "cocited": math.log1p(cocited.get(candidate.key, 0.0)),
                                "coupling": math.log1p(coupling.get(candidate.key, 0.0)),
                                **_evidence_features(candidate, verdict_of)}
    return table


def _profiles(liked: dict[str, float], disliked: dict[str, float],
              topic: dict[str, float]) -> dict[str, tuple[float, float, float]]:
    """Per term of any of the three profiles: its weight in each (0.0 where absent)."""
    found = {}
    for term in (*liked, *disliked, *topic):
        if term not in found:
            found[term] = (liked.get(term, 0.0), disliked.get(term, 0.0), topic.get(term, 0.0))
    return found


def citation_features(candidates: Sequence[Candidate], weights: Mapping[str, float] = VERDICT_WEIGHT
                       ) -> tuple[dict[str, float], dict[str, float]]:
    """Per candidate key: co-citations with the relevant papers (papers of the pool citing both it
    and a relevant one, a maybe counted half by the default ``weights``) and references shared
    with them (coupling). Only reference lists an answer gave are known (OpenAlex's), so both are
    lower bounds. With ``{"maybe": 1.0}`` they count the links to the papers judged maybe alone."""
    weight_of_work = {c.paper.openalex_id: weights[c.verdict] for c in candidates
                      if c.paper.openalex_id and c.verdict in weights}
    key_of_work = {c.paper.openalex_id: c.key for c in candidates if c.paper.openalex_id}
    cocited: dict[str, float] = {}
    shared: dict[str, float] = {}  # W-id cited by a relevant paper -> weight
    for candidate in candidates:
        if not candidate.refs:
            continue
        own = weight_of_work.get(candidate.paper.openalex_id or "", 0.0)
        if own:
            for work in candidate.refs:
                shared[work] = shared.get(work, 0.0) + own
        relevant_cited = [work for work in candidate.refs if work in weight_of_work]
        if not relevant_cited:
            continue
        for work in candidate.refs:
            key = key_of_work.get(work)
            if key is None:
                continue
            # Co-cited with a relevant paper other than itself.
            weight = max((weight_of_work[other] for other in relevant_cited if other != work), default=0.0)
            if weight:
                cocited[key] = cocited.get(key, 0.0) + weight
    coupling = {}
    for candidate in candidates:
        if candidate.refs and shared:
            own = weight_of_work.get(candidate.paper.openalex_id or "", 0.0)
            total = sum(shared.get(work, 0.0) for work in candidate.refs)
            if own:  # leave its own references out of what it shares
                total -= own * len(candidate.refs)
            if total > 0:
                coupling[candidate.key] = total
    return cocited, coupling


def _query_terms(session: Session) -> dict[str, int]:
    counts: dict[str, int] = {}
    for text in [session.topic, *session.variants, *session.queries]:
        for term, count in query_counts(text).items():
            counts[term] = counts.get(term, 0) + count
    return counts


class Prototype:
    """The (unnormalized) sum of a set's unit vectors, and its squared norm, computed once."""

    def __init__(self, total: dict[str, float]):
        self.total = total
        self.norm_squared = sum(value * value for value in total.values())

    def cosine(self, vector: dict[str, float], own_weight: float = 0.0) -> float:
        """Cosine of ``vector`` with the sum less ``own_weight`` times itself (leave-one-out)."""
        if not self.total:
            return 0.0
        total = self.total
        return self.cosine_from_dot(sum(value * total.get(term, 0.0) for term, value in vector.items()), own_weight)

    def cosine_from_dot(self, dot: float, own_weight: float = 0.0) -> float:
        """``cosine`` when the dot product of the unit vector with the sum is known already."""
        if not self.total:
            return 0.0
        norm_squared = self.norm_squared
        if own_weight:  # |S - w v|^2 = |S|^2 - 2 w (v . S) + w^2, v a unit vector
            norm_squared += own_weight * own_weight - 2 * own_weight * dot
            dot -= own_weight
        return dot / math.sqrt(norm_squared) if norm_squared > 1e-12 else 0.0


def _evidence_features(candidate: Candidate, verdict_of: dict[str, str | None]) -> dict[str, float]:
    seeds: dict[str, float] = {}
    recommended = semantic = searched = 0.0
    for entry in candidate.evidence:
        via = entry.get("via")
        if via in ("references", "citing"):
            seed = entry.get("seed")
            weight = VERDICT_WEIGHT.get(verdict_of.get(seed) or "", 0.0)
            if weight and seed != candidate.key:
                seeds[seed] = max(seeds.get(seed, 0.0), weight)
        elif via == "recommended":
            recommended = max(recommended, placement(entry.get("rank"), 20.0))
        elif via == "semantic":
            semantic = max(semantic, placement(entry.get("rank"), 10.0))
        elif via in ("search", "query"):
            searched = max(searched, placement(entry.get("rank"), 20.0))
        # "cocited" evidence: the feature counts co-citations itself, from the reference lists
    return {"links": math.log1p(sum(seeds.values())), "recommended": recommended, "semantic": semantic,
            "searched": searched}


def standardized(table: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each feature minus its pool mean, over its pool standard deviation (0 when constant)."""
    count = max(1, len(table))
    means = {f: sum(row[f] for row in table.values()) / count for f in FEATURES}
    spreads = {}
    for f in FEATURES:
        variance = sum((row[f] - means[f]) ** 2 for row in table.values()) / count
        spreads[f] = math.sqrt(variance) if variance > 1e-12 else 0.0
    return {key: {f: (row[f] - means[f]) / spreads[f] if spreads[f] else 0.0 for f in FEATURES}
            for key, row in table.items()}


def fit(rows: Sequence[dict[str, float]], labels: Sequence[float]) -> tuple[dict[str, float], float]:
    """Weights and intercept of a logistic model whose log-posterior has a Gaussian prior centred on
    PRIOR (precision PENALTY; the intercept's a tenth of it): Newton's method, a few steps, each
    halved until the log-posterior rises. A full Newton step from the prior overshoots when the
    verdicts are far from it (a few features separate them, the curvature of saturated rows
    vanishes): undamped, it walked to an intercept of +70 and weights that ordered the pool worse
    than the prior did, with a log-posterior 75 times lower."""
    names = (*FEATURES, "bias")
    prior = [PRIOR[f] for f in FEATURES] + [PRIOR_BIAS]
    precision = [PENALTY] * len(FEATURES) + [PENALTY * 0.1]
    beta = list(prior)
    data = [[row[f] for f in FEATURES] + [1.0] for row in rows]
    # Most features of a row are 0 (no link, no recommendation…): adding their zero products
    # changes no sum, so only the non-zero ones are walked, in the same order.
    present = [[(i, xi) for i, xi in enumerate(x) if xi] for x in data]
    size = len(names)
    value = _log_posterior(beta, data, labels, prior, precision)
    for _ in range(NEWTON_STEPS):
        gradient = [precision[i] * (beta[i] - prior[i]) for i in range(size)]
        hessian = [[precision[i] if i == j else 0.0 for j in range(size)] for i in range(size)]
        for x, nonzero, label in zip(data, present, labels):
            p = _sigmoid(sum(b * v for b, v in zip(beta, x)))
            error, curvature = p - label, p * (1.0 - p)
            for i, xi in nonzero:
                gradient[i] += error * xi
                row = hessian[i]
                scaled = curvature * xi
                for j, xj in nonzero:
                    if j > i:
                        break
                    row[j] += scaled * xj
        for i in range(size):
            for j in range(i):
                hessian[j][i] = hessian[i][j]
        step = _solve(hessian, gradient)
        for _halving in range(MAX_HALVINGS):
            trial = [b - s for b, s in zip(beta, step)]
            trial_value = _log_posterior(trial, data, labels, prior, precision)
            if trial_value >= value:
                break
            step = [s / 2 for s in step]
        else:
            break  # no step up: beta is as good as this method finds
        beta, value = trial, trial_value
        if max(abs(s) for s in step) < 1e-4:
            break
    return dict(zip(FEATURES, beta[:-1])), beta[-1]


def _log_posterior(beta: list[float], data: list[list[float]], labels: Sequence[float], prior: list[float],
                   precision: list[float]) -> float:
    """The fit's objective: the verdicts' log-likelihood plus the Gaussian prior's log-density."""
    total = -0.5 * sum(q * (b - m) ** 2 for q, b, m in zip(precision, beta, prior))
    for x, label in zip(data, labels):
        z = sum(b * v for b, v in zip(beta, x))
        # log(1 + e^z), stable both ways
        softplus = z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))
        total += label * z - softplus
    return total


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix`` x = ``vector`` by Gaussian elimination with partial pivoting (a small, positive
    definite system: the prior's precision is on its diagonal)."""
    size = len(vector)
    a = [row[:] + [value] for row, value in zip(matrix, vector)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(a[r][column]))
        a[column], a[pivot] = a[pivot], a[column]
        lead = a[column][column]
        for r in range(column + 1, size):
            factor = a[r][column] / lead
            if factor:
                a[r] = [x - factor * y for x, y in zip(a[r], a[column])]
    solution = [0.0] * size
    for r in range(size - 1, -1, -1):
        solution[r] = (a[r][size] - sum(a[r][c] * solution[c] for c in range(r + 1, size))) / a[r][r]
    return solution


def _sigmoid(value: float) -> float:
    if value < -35:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value))


def score_candidates(session: Session) -> dict[str, float]:
    """Set every candidate's ``score`` (its estimated chance of being relevant) and ``why``;
    returns the fitted weights (for the round's record)."""
    raw = feature_table(session)
    table = raw
    judged = [c for c in session.candidates.values() if c.verdict]
    rows = [table[c.key] for c in judged]
    labels = [VERDICT_LABEL[c.verdict] for c in judged]
    if not any(labels):
        # Nothing judged relevant yet: the verdicts say only what relevance is not, and a fit to
        # rejections alone learns "unlike what the search put first", which walks away from the
        # best evidence there is. Until the first relevant (or maybe) paper, the prior orders.
        rows, labels = [], []
    elif PRESUMED_NEGATIVES:
        import random
        unjudged = sorted(c.key for c in session.candidates.values() if not c.verdict)
        sample = random.Random(f"{session.topic}|{len(judged)}").sample(unjudged, min(PRESUMED_NEGATIVES, len(unjudged)))
        rows += [table[key] for key in sample]
        labels += [0.0] * len(sample)
    weights, bias = fit(rows, labels)
    weighted = [(weights[f], f) for f in FEATURES]
    for candidate in session.candidates.values():
        row = table[candidate.key]
        candidate.log_odds = bias + sum(weight * row[f] for weight, f in weighted)
        candidate.score = _sigmoid(candidate.log_odds)
    session.scored = (len(judged), raw)  # for explain(), right after: the batch chosen from this scoring
    return {**{f: round(w, 3) for f, w in weights.items()}, "bias": round(bias, 3)}


def explain(session: Session, keys: Sequence[str]) -> None:
    """Set ``why`` of the candidates ``keys``: only the papers shown (a batch, the results' rows)
    need it, and a few thousand of them, written out at every round, were a tenth of a round's
    time and a fifth of the session document. Uses the features of the session's last scoring
    when no verdict came since (the batch is chosen right after it), else computes them."""
    kept = session.scored
    fresh = kept is not None and kept[0] == len(session.judged()) and all(key in kept[1] for key in keys)
    table = kept[1] if fresh else feature_table(session)
    context = WhyContext.of(session)
    for key in keys:
        candidate = session.candidates[key]
        candidate.why = why(candidate, table[key], session, context)
        if candidate.meaning is not None:
            candidate.why = f"{candidate.why}; close in meaning to the topic ({candidate.meaning:.2f})"


def cold(session: Session) -> bool:
    """No paper judged relevant or maybe yet: nothing says what relevance looks like."""
    return not any(c.verdict in VERDICT_WEIGHT for c in session.candidates.values())


def best_search_rank(candidate: Candidate) -> float:
    """The best place a search gave the candidate (the topic's, or a query's); inf if none did."""
    return min((entry.get("rank") or math.inf for entry in candidate.evidence if entry.get("via") in ("search", "query")),
               default=math.inf)


def next_order(session: Session) -> list[Candidate]:
    """The unjudged candidates, best first: by the model's log-odds; in a cold session by the
    searches' own ranking first (as the first batch is), the log-odds breaking ties: a ranking
    built for the words typed is the best evidence before any verdict, and a profile learnt
    from rejections alone is not."""
    unjudged = session.unjudged()
    if cold(session):
        return sorted(unjudged, key=lambda c: (best_search_rank(c), -c.log_odds, int(c.key[1:])))
    return sorted(unjudged, key=lambda c: (-c.log_odds, int(c.key[1:])))


@dataclass(frozen=True)
class WhyContext:
    """What ``why`` reads of the session and the registry, looked up once per round, not once
    per candidate."""

    labels: dict[str, str]  # provider name -> its label
    any_relevant: bool  # some paper is judged relevant
    # Per verdict ("relevant", "maybe"): per candidate key, the papers co-citing it with one so
    # judged, and the references it shares with them: whole counts, said apart (the score counts
    # a maybe half, and "cited together with relevant papers" must not stand for a maybe's link).
    cocited: dict[str, dict[str, float]]
    coupling: dict[str, dict[str, float]]

    @classmethod
    def of(cls, session: Session) -> "WhyContext":
        from ..providers import registry

        candidates = list(session.candidates.values())
        cocited, coupling = {}, {}
        for verdict in VERDICT_WEIGHT:
            cocited[verdict], coupling[verdict] = citation_features(candidates, {verdict: 1.0})
        return cls({name: registry.service(name).label for name in registry.providers()},
                   bool(session.judged("relevant")), cocited, coupling)


def why(candidate: Candidate, features: dict[str, float], session: Session,
        context: WhyContext | None = None) -> str:
    """Where the candidate came from, in a few words."""
    context = context or WhyContext.of(session)
    label = lambda name: context.labels.get(name, name)  # noqa: E731
    parts: list[str] = []
    cites = sorted({e["seed"] for e in candidate.evidence if e.get("via") == "references" and e.get("seed")})
    cited = sorted({e["seed"] for e in candidate.evidence if e.get("via") == "citing" and e.get("seed")})
    judged = lambda keys: [k for k in keys if session.candidates.get(k) and session.candidates[k].verdict  # noqa: E731
                           in ("relevant", "maybe")]
    if judged(cites):
        parts.append(f"cited by {_rows(judged(cites), session)}")
    if judged(cited):
        parts.append(f"cites {_rows(judged(cited), session)}")
    best: dict[str, dict] = {}
    for entry in candidate.evidence:
        via = entry.get("via")
        if via in ("recommended", "semantic", "search", "query"):
            if via not in best or (entry.get("rank") or 10**6) < (best[via].get("rank") or 10**6):
                best[via] = entry
    for via, words in (("recommended", "more like the relevant ones"), ("semantic", "semantic search"),
                       ("query", "query"), ("search", "the search")):
        if via in best:
            entry = best[via]
            where = label(entry["provider"]) if entry.get("provider") else ""
            if via == "query" and entry.get("query"):
                words = f"query “{str(entry['query'])[:40]}”"
            elif via == "search" and entry.get("query") and entry["query"] != session.topic:
                # One of the topic's sentences (or a variant) searched alone: which, or several
                # rows would each say "the search (#1)"
                words = f"the search for “{str(entry['query'])[:40]}”"
            rank = f"#{entry['rank']}" if entry.get("rank") else ""
            detail = " ".join(part for part in (where, rank) if part)
            parts.append(f"{words} ({detail})" if detail else words)
    cocited = [round(context.cocited[verdict].get(candidate.key, 0.0)) for verdict in ("relevant", "maybe")]
    if any(cocited):
        parts.append("cited together with " + _by_verdict(cocited, lambda n, whom: f"{whom} ({n}×)"))
    shared = [round(context.coupling[verdict].get(candidate.key, 0.0)) for verdict in ("relevant", "maybe")]
    if any(shared):
        parts.append("shares " + _by_verdict(shared, lambda n, whom: f"{plural(n, 'reference')} with {whom}"))
    if features.get("text", 0.0) > 0.15 and context.any_relevant:
        parts.append(f"reads like the relevant papers ({features['text']:.2f})")
    return "; ".join(parts) or "found while chasing"


def _by_verdict(counts: list[int], say) -> str:
    """``say(count, whom)`` for the relevant papers' count and the maybe ones', those not zero."""
    said = [say(count, whom) for count, whom in zip(counts, ("relevant papers", "papers judged maybe")) if count]
    return " and ".join(said)


def _rows(keys: list[str], session: Session) -> str:
    """Up to three judged papers named by a short title."""
    named = []
    for key in keys[:3]:
        title = session.candidates[key].paper.title or key
        named.append(f"“{title[:40]}{'…' if len(title) > 40 else ''}”")
    more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
    return ", ".join(named) + more
