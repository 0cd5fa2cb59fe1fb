"""The fast ways a round computes its numbers and reads and writes its session give, bit for bit,
what the plain ways give: each is checked here against the plain way written out (the textbook
loop), on seeded random pools with every kind of verdict, zero features and odd counts. A
speed-up that moved one float would change which papers a judge sees next."""

from __future__ import annotations

import copy
import json
import math
import random

import pytest
from hypothesis import example, given, settings, strategies as st

from litsearch.core.filters import Filters
from litsearch.core.records import Paper
from litsearch.deep import score
from litsearch.deep.session import (SESSION_SHAPE, Candidate, Options, Round, Session, as_document, as_text,
                                    from_document, paper_as_dict)
from litsearch.deep.textmodel import Space
from litsearch.search.record_shape import RECORD, _problem, fits, shape_problem

WORDS = [f"w{n}" for n in range(300)]


def plain_vector(space: Space, counts: dict) -> dict[str, float]:
    weights = {term: (1.0 + math.log(count)) * space.idf.get(term, space.default_idf)
               for term, count in counts.items() if count > 0}
    norm = math.sqrt(sum(value * value for value in weights.values()))
    return {term: value / norm for term, value in weights.items()} if norm else {}


def random_session(seed: int, size: int = 400, verdicts: tuple = (None,) * 6 + ("relevant", "maybe", "not", "not")) \
        -> Session:
    chance = random.Random(seed)
    # "zebra" is a topic word only unjudged papers have (in no verdict's profile)
    session = Session(topic="w1 w2 w3 w40 zebra", variants=["w7 w8"], filters=Filters(), options=Options())
    session.queries = ["w1 w2 w3 w40", "w99 w100"]
    session.rounds.append(Round(1))
    for number in range(1, size + 1):
        terms = {chance.choice(WORDS[: chance.choice((40, 300))]): chance.choice((1, 1, 1, 2, 3, 7, 300))
                 for _ in range(chance.randint(0, 48))}
        verdict = chance.choice(verdicts)
        if verdict is None and chance.random() < 0.3:
            terms["zebra"] = 1
        evidence = [{"round": 1, "via": chance.choice(("search", "query", "recommended", "semantic", "citing",
                                                       "references")),
                     "provider": "openalex", "rank": chance.randint(1, 90), "seed": f"c{chance.randint(1, size)}"}
                    for _ in range(chance.randint(1, 3))]
        paper = Paper(provider="merged", title=f"Paper {number}", openalex_id=f"W{number}",
                      abstract="text" if chance.random() < 0.9 else None)
        session.candidates[f"c{number}"] = Candidate(
            key=f"c{number}", paper=paper, terms=terms, evidence=evidence, verdict=verdict,
            judged_round=1 if verdict else None, refs=[f"W{chance.randint(1, size)}" for _ in range(chance.choice((0, 0, 3, 20)))])
    session.next_number = size + 1
    return session


COUNTS = st.integers(1, 6) | st.sampled_from((0, -2, 255, 256, 400)) | st.floats(0.5, 9.0)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(WORDS[:60]), COUNTS, max_size=60), st.integers(0, 4))
@example({"w1": 0, "w2": 3}, 0)  # a count of 0 leaves its term out
def test_tfidf_weights_are_the_plain_formula(counts, seed):
    pool = [dict.fromkeys(random.Random(seed * 100 + n).sample(WORDS[:80], 10), 1) for n in range(30)]
    space = Space(pool)
    assert space.vector(counts) == plain_vector(space, counts)


@pytest.mark.parametrize("seed", range(4))
def test_text_and_topic_features_are_the_plain_cosines(seed):
    session = random_session(seed)
    candidates = list(session.candidates.values())
    space = Space(c.terms for c in candidates)
    vectors = {c.key: plain_vector(space, c.terms) for c in candidates}
    positive: dict[str, float] = {}
    negative: dict[str, float] = {}
    for candidate in candidates:
        weight = score.VERDICT_WEIGHT.get(candidate.verdict or "", 0.0)
        target = positive if weight else negative if candidate.verdict == "not" else None
        for term, value in (vectors[candidate.key].items() if target is not None else ()):
            target[term] = target.get(term, 0.0) + (weight or 1.0) * value
    topic = plain_vector(space, score._query_terms(session))
    liked, disliked = score.Prototype(positive), score.Prototype(negative if positive else {})
    table = score.feature_table(session)
    for candidate in candidates:
        to_liked = to_disliked = to_topic = 0.0
        for term, value in vectors[candidate.key].items():  # every term looked up in every profile
            to_liked += value * liked.total.get(term, 0.0)
            to_disliked += value * disliked.total.get(term, 0.0)
            to_topic += value * topic.get(term, 0.0)
        text = liked.cosine_from_dot(to_liked, score.VERDICT_WEIGHT.get(candidate.verdict or "", 0.0)) \
            - 0.5 * disliked.cosine_from_dot(to_disliked, 1.0 if candidate.verdict == "not" else 0.0)
        assert (table[candidate.key]["text"], table[candidate.key]["topic"]) == (text, to_topic), candidate.key


def dense_fit(rows, labels):
    """The damped Newton steps over every feature of every row."""
    names = (*score.FEATURES, "bias")
    prior = [score.PRIOR[f] for f in score.FEATURES] + [score.PRIOR_BIAS]
    precision = [score.PENALTY] * len(score.FEATURES) + [score.PENALTY * 0.1]
    beta = list(prior)
    data = [[row[f] for f in score.FEATURES] + [1.0] for row in rows]
    size = len(names)
    value = score._log_posterior(beta, data, labels, prior, precision)
    for _ in range(score.NEWTON_STEPS):
        gradient = [precision[i] * (beta[i] - prior[i]) for i in range(size)]
        hessian = [[precision[i] if i == j else 0.0 for j in range(size)] for i in range(size)]
        for x, label in zip(data, labels):
            p = score._sigmoid(sum(b * v for b, v in zip(beta, x)))
            error, curvature = p - label, p * (1.0 - p)
            for i in range(size):
                if x[i]:
                    gradient[i] += error * x[i]
                    for j in range(i + 1):
                        hessian[i][j] += curvature * x[i] * x[j]
        for i in range(size):
            for j in range(i):
                hessian[j][i] = hessian[i][j]
        step = score._solve(hessian, gradient)
        for _halving in range(score.MAX_HALVINGS):
            trial = [b - s for b, s in zip(beta, step)]
            trial_value = score._log_posterior(trial, data, labels, prior, precision)
            if trial_value >= value:
                break
            step = [s / 2 for s in step]
        else:
            break
        beta, value = trial, trial_value
        if max(abs(s) for s in step) < 1e-4:
            break
    return dict(zip(score.FEATURES, beta[:-1])), beta[-1]


@pytest.mark.parametrize("seed", range(6))
def test_the_fit_over_nonzero_features_is_the_dense_newton(seed):
    chance = random.Random(seed)
    rows = [{f: (chance.choice((0.0, 0.0, -0.0, chance.uniform(-1, 2))) if f != "text" else chance.uniform(-0.3, 0.9))
             for f in score.FEATURES} for _ in range(chance.randint(1, 300))]
    labels = [chance.choice((0.0, 0.0, 0.5, 1.0)) for _ in rows]
    assert score.fit(rows, labels) == dense_fit(rows, labels)


@pytest.mark.parametrize("seed,verdicts", [(0, (None, "relevant", "not")), (1, (None, "maybe", "not")),
                                          (2, (None, None, "maybe", "relevant", "not"))])
def test_scores_and_why_are_those_of_the_plain_look_ups(seed, verdicts):
    session = random_session(seed, size=200, verdicts=verdicts)
    score.score_candidates(session)
    assert all(c.why == "" for c in session.candidates.values())  # scoring explains nothing: explain() does
    score.explain(session, list(session.candidates))  # with the scoring's own table
    fast = {key: (c.log_odds, c.score, c.why) for key, c in session.candidates.items()}
    # why() asked without the round's look-ups reads the registry and the verdicts itself
    table = score.feature_table(session)
    plain = {key: score.why(c, table[key], session) for key, c in session.candidates.items()}
    assert {key: value[2] for key, value in fast.items()} == plain
    assert any("reads like the relevant papers" in line for line in plain.values()) == ("relevant" in verdicts)
    assert len({value[0] for value in fast.values()}) > 20  # not all alike: the check can see a change


# ---------------------------------------------------------------- the session file

papers = st.builds(
    Paper, provider=st.sampled_from(["merged", "openalex"]), title=st.text(max_size=20),
    authors=st.lists(st.text(max_size=8), max_size=3), year=st.none() | st.integers(1900, 2030),
    doi=st.none() | st.just("") | st.text(max_size=10), abstract=st.none() | st.text(max_size=30),
    citation_count=st.none() | st.integers(0, 9), score=st.none() | st.floats(allow_nan=False),
    retracted=st.none() | st.booleans(), publication_types=st.lists(st.sampled_from(["JournalArticle", ""]), max_size=2),
    external_ids=st.dictionaries(st.sampled_from(["DOI", "PMID"]), st.text(max_size=5), max_size=2),
    updates=st.lists(st.fixed_dictionaries({"type": st.text(max_size=5), "dois": st.lists(st.text(max_size=4))}),
                     max_size=2))


@settings(max_examples=300, deadline=None)
@given(papers)
def test_a_paper_is_written_as_its_record_without_empty_fields(paper):
    expected = {name: value for name, value in paper.to_dict().items() if value not in (None, [], {}, "")}
    written = paper_as_dict(paper)
    assert written == expected and json.dumps(written) == json.dumps(expected)
    # the document shares no list or map with the session: editing one never edits the other
    for value in written.values():
        if isinstance(value, list):
            value.append("x")
            value[0:0] = [{}]
        elif isinstance(value, dict):
            value["x"] = "x"
    for update in written.get("updates", []):
        if isinstance(update, dict):
            update["x"] = "x"
    assert paper_as_dict(paper) == expected


HOSTILE = [None, True, 0, -1, 1.5, "", "x", "x" * 100_001, [], ["x"], [1], {}, {"a": 1}, {"a": "b"}, [None]]


def paths(value, path=()):
    """Every place in a JSON value: (path, value)."""
    yield path, value
    if isinstance(value, dict):
        for name, item in value.items():
            yield from paths(item, (*path, name))
    elif isinstance(value, list):
        for position, item in enumerate(value[:3]):
            yield from paths(item, (*path, position))


def replaced(document, path, value):
    edited = copy.deepcopy(document)
    place = edited
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = value
    return edited


def test_the_fast_shape_check_agrees_with_the_one_that_names_the_problem():
    session = random_session(7, size=12)
    session.candidates["c1"].paper = Paper(provider="merged", title="T", authors=["A B"], year=2001,
                                           external_ids={"DOI": "10.1/x"}, score=2.5, retracted=False,
                                           updates=[{"type": "retraction", "doi": "10.1/y"}])
    session.candidates["c2"].chased, session.candidates["c2"].verdict = ["links:openalex:citing"], "relevant"
    session.rounds[0].requests = {"openalex": 3}
    session.batch = ["c3"]
    document = json.loads(as_text(session))
    checked = 0
    for path, _ in list(paths(document))[1:]:
        for value in HOSTILE:
            edited = replaced(document, path, value)
            named = _problem(edited, SESSION_SHAPE, "")
            assert fits(edited, SESSION_SHAPE) == (named is None), (path, value)
            assert shape_problem(edited, SESSION_SHAPE) == named
            checked += named is not None
    too_many = [(("candidates", 1, "chased"), ["x"] * 101), (("rounds",), [{"number": 1}] * 1_001),
                (("candidates", 1, "terms"), {f"t{n}": 1 for n in range(10_001)}),
                (("candidates", 1, "paper", "authors"), ["A"] * 10_001), (("batch",), ["c3"] * 1_000)]
    for path, value in too_many:
        edited = replaced(document, path, value)
        named = _problem(edited, SESSION_SHAPE, "")
        assert fits(edited, SESSION_SHAPE) == (named is None), path
        checked += named is not None
    assert checked > 500  # most replacements are wrong somewhere: both ways were really asked
    record = {"record_version": 1, "kind": "search", "counts": {"identified": 1, "per_source": {"x": 1},
              "duplicates_removed": 0, "after_duplicates_removed": 1, "shown": 1},
              "providers": [{"name": "x", "requests": [{"method": "GET", "url": "u", "params": {"q": ["a"]}}]}],
              "options": {"providers": ["x"], "limit": 5}, "results": [{"title": "t", "rank": 1, "year": None}]}
    for path, _ in list(paths(record))[1:]:
        for value in HOSTILE:
            edited = replaced(record, path, value)
            assert fits(edited, RECORD) == (_problem(edited, RECORD, "") is None), (path, value)


def test_a_session_read_back_is_the_session_written():
    session = random_session(3, size=60)
    score.score_candidates(session)
    again = from_document(json.loads(as_text(session)), "s")
    assert as_text(again).split('"saved_at"')[1][25:] == as_text(session).split('"saved_at"')[1][25:]
    assert as_document(again)["candidates"] == as_document(session)["candidates"]
