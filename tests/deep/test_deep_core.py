"""Deep search's pure parts, in-process: the session file read back as untrusted input, the
verdict lists, the candidate pool's identity rules, the stop rule, the scoring features and the
plan of a round within its budgets."""

from __future__ import annotations

import sys
from pathlib import Path

import json

import math

import pytest

from litsearch.core.errors import InputError, UsageError
from litsearch.core.filters import Filters
from litsearch.core.records import Paper
from litsearch.deep import score
from litsearch.deep.expand import Action, _within_budget, cocited_ids, derived_query, topic_sentences
from litsearch.deep.pool import Pool
from litsearch.deep.session import Candidate, Options, Round, Session, as_document, as_text
from litsearch.deep.session_file import load
from litsearch.deep.stop import recent_yield, saturation, yield_curve
from litsearch.deep.textmodel import distinctive_terms, log_binomial_tail, term_counts
from litsearch.deep.verdicts import apply, resolve

sys.path.insert(0, str(Path(__file__).parent))

from built_sessions import session_with, titled as paper  # noqa: E402


PAPERS = [paper("Greedy colouring of sparse graphs revisited", doi="10.1000/a1", openalex_id="W1",
                abstract="We colour sparse graphs greedily and bound the colours used."),
          paper("Tabu search for the graph colouring problem", doi="10.1000/b2", pmid="123",
                abstract="A tabu search heuristic colours benchmark graphs with few colours."),
          paper("Register allocation by graph colouring", openalex_id="W3",
                abstract="Compilers allocate registers by colouring the interference graph."),
          paper("Protein folding kinetics", doi="10.1000/d4", abstract="Folding rates of small proteins.")]


# ---------------------------------------------------------------- verdict lists

def test_rows_ids_and_the_rest():
    session = session_with(PAPERS)
    verdicts = resolve(session, {"relevant": "1, doi:10.1000/b2", "maybe": None, "not": None}, rest="maybe")
    keys = list(session.candidates)
    assert verdicts.given == {keys[0]: "relevant", keys[1]: "relevant", keys[2]: "maybe"}
    apply(session, verdicts)
    assert [c.verdict for c in session.candidates.values()] == ["relevant", "relevant", "maybe", None]
    assert session.batch == [] and session.rounds[-1].relevant == 2 and session.rounds[-1].judged == 3


@pytest.mark.parametrize("lists,message", [
    ({"relevant": "0"}, r"row 0 is not in the batch \(rows 1–3\)"),
    ({"relevant": "4"}, "row 4 is not in the batch"),
    ({"not": "PMID:999"}, "is not a paper of this session"),
    ({"maybe": "10.9999/unknown"}, "is not a paper of this session"),
    ({"relevant": "1", "not": "1"}, "named in both --relevant and --not"),
    ({"relevant": "nonsense id"}, "unrecognised paper id"),
    # rows written as a sentence writes them, in one item: said how to write them (it was the
    # 400-character "unrecognised paper id" line)
    ({"relevant": "1 2"}, "'1 2': separate the rows of a list with commas: --relevant 1,2"),
    ({"maybe": "1, 2 3"}, "'2 3': separate the rows of a list with commas: --maybe 2,3"),
    ({"not": "1-2 c3"}, "separate the rows of a list with commas: --not 1-2,c3"),
    ({"relevant": "Smith-Jones 2020"}, "unrecognised paper id"),  # words, not rows: no such hint
])
def test_a_bad_list_is_one_usage_error_and_changes_nothing(lists, message):
    session = session_with(PAPERS)
    before = as_document(session)
    with pytest.raises(UsageError, match=message):
        resolve(session, {"relevant": None, "maybe": None, "not": None, **lists}, rest="not")
    after = as_document(session)
    assert {k: v for k, v in before.items() if k != "saved_at"} == {k: v for k, v in after.items() if k != "saved_at"}


def test_an_id_outside_the_batch_changes_an_earlier_verdict_and_says_so():
    session = session_with(PAPERS, batch=2)
    apply(session, resolve(session, {"relevant": "1"}, rest="not"))
    session.rounds.append(Round(2))
    session.batch = [list(session.candidates)[2]]
    verdicts = resolve(session, {"relevant": "doi:10.1000/b2"}, rest="not")
    # the batch on screen, named in no list, is judged by --rest: said, or a correction alone
    # silently rejects the papers being read
    assert verdicts.notes == ["no row of the batch was named, only papers read before: 1 row of round 2's batch was "
                              "judged not relevant, as rows not named are",
                              "“Tabu search for the graph colouring problem” (read in round 1): verdict changed "
                              "from not to relevant"]
    with_the_batch = resolve(session, {"relevant": "doi:10.1000/b2", "maybe": "1"}, rest="not")
    assert with_the_batch.notes == verdicts.notes[1:]  # a row of the batch named: the usual step


def test_a_changed_verdict_is_counted_once_in_the_round_it_was_read():
    """The class: the yield per round, the report and the stop rule read each round's counts; a
    verdict changed later must move those counts, never add a second paper."""
    from litsearch.deep.stop import recent_yield, yield_curve

    session = session_with(PAPERS, batch=2)
    apply(session, resolve(session, {"relevant": "1,2"}, rest="not"))  # round 1: two relevant
    session.rounds.append(Round(2))
    session.batch = [list(session.candidates)[2]]
    apply(session, resolve(session, {"not": "doi:10.1000/b2", "maybe": "doi:10.1000/a1"}, rest="not"))
    curve = [(entry["round"], entry["judged"], entry["relevant"]) for entry in yield_curve(session)]
    assert curve == [(1, 2, 0), (2, 1, 0)]  # 3 papers read in all, none relevant now
    assert [(e.judged, e.relevant, e.maybe) for e in session.rounds] == [(2, 0, 1), (1, 0, 0)]
    assert recent_yield(session, 3) == (1, 0)  # the stop counts round 2 only: round 1 holds the first find
    assert [c.judged_round for c in session.judged()] == [1, 1, 2]
    assert sum(e.judged for e in session.rounds) == len(session.judged())


def test_rest_must_be_not_or_maybe():
    with pytest.raises(UsageError, match="--rest must be not or maybe"):
        resolve(session_with(PAPERS), {}, rest="relevant")


# ---------------------------------------------------------------- the pool

def test_a_record_joins_the_candidate_it_shares_an_id_or_a_long_title_with():
    session = session_with(PAPERS)
    pool = Pool(session)
    new = pool.add([(Paper(provider="semantic_scholar", title="Tabu search for the graph colouring problem.",
                           pmid="123", abstract=None, citation_count=40), {"round": 2, "via": "citing",
                                                                          "provider": "semantic_scholar", "seed": "c1"}),
                    (Paper(provider="pubmed", title="Greedy colouring of sparse graphs revisited", year=2001),
                     {"round": 2, "via": "query", "provider": "pubmed"}),
                    (Paper(provider="pubmed", title="Editorial"), {"round": 2, "via": "query", "provider": "pubmed"}),
                    (Paper(provider="pubmed", title="Editorial"), {"round": 2, "via": "query", "provider": "pubmed"})])
    assert len(new) == 2  # the two short "Editorial" titles never join anything, not even each other
    tabu = session.candidates["c2"]
    assert tabu.paper.citation_count == 40 and len(tabu.evidence) == 2
    assert len(session.candidates["c1"].evidence) == 2


def test_works_that_share_a_title_stay_apart_where_the_search_dedupe_keeps_them_apart():
    """The class: one title names several works (an algorithm and its remarks, two studies
    titled alike, reprints years apart); joining them by title hides all but one from the judge."""
    session = session_with(PAPERS)
    title = "Hidden-Line Plotting Program (Algorithm R420)"
    arrivals = [
        (Paper(provider="openalex", title=title, doi="10.1145/360000", year=1972), {"via": "search"}),
        (Paper(provider="openalex", title=title, doi="10.1145/360001", year=1973), {"via": "search"}),  # another DOI
        (Paper(provider="pubmed", title=title, pmid="900", year=1973), {"via": "search"}),  # no DOI: joins one
        (Paper(provider="pubmed", title=title, pmid="901", doi="10.1145/360001"), {"via": "search"}),  # its DOI
        (Paper(provider="pubmed", title="Greedy colouring of sparse graphs revisited", pmid="77"), {"via": "citing"}),
        (Paper(provider="pubmed", title="Greedy colouring of sparse graphs revisited", pmid="78"), {"via": "citing"}),
        (Paper(provider="openalex", title="Sparse graph colouring heuristics, part 3", year=2001), {"via": "search"}),
        (Paper(provider="openalex", title="Sparse graph colouring heuristics part 3", year=2004), {"via": "search"}),
    ]
    before = len(session.candidates)
    new = Pool(session).add(arrivals)
    by_title = {}
    for key in new:
        by_title.setdefault(session.candidates[key].paper.title, []).append(session.candidates[key])
    # two DOIs, two papers; the records without a conflicting id join the first they may
    assert [c.paper.doi for c in by_title[title]] == ["10.1145/360000", "10.1145/360001"]
    assert by_title[title][0].paper.pmid == "900" and by_title[title][1].paper.pmid == "901"
    # "Greedy colouring…" (c1, a DOI, no PMID) takes PMID 77; PMID 78 is another paper
    assert session.candidates["c1"].paper.pmid == "77"
    assert [c.paper.pmid for c in by_title["Greedy colouring of sparse graphs revisited"]] == ["78"]
    assert len(by_title["Sparse graph colouring heuristics, part 3"]) == 1
    assert len(by_title["Sparse graph colouring heuristics part 3"]) == 1  # three years later
    assert len(session.candidates) == before + len(new) == before + 5


def test_a_preprint_joins_its_journal_version_by_title_although_their_dois_differ():
    session = session_with([paper("Deep learning of protein folding landscapes at scale", doi="10.1038/s1", year=2021)])
    new = Pool(session).add([(Paper(provider="europepmc", title="Deep learning of protein folding landscapes at scale",
                                    doi="10.1101/2020.01.01.123", journal="bioRxiv", year=2020), {"via": "citing"})])
    assert new == [] and session.candidates["c1"].paper.doi == "10.1038/s1"


def test_a_judged_paper_keeps_its_verdict_whatever_arrives():
    session = session_with(PAPERS)
    apply(session, resolve(session, {"relevant": "1"}, rest="not"))
    Pool(session).add([(paper("Greedy colouring of sparse graphs revisited", doi="10.1000/A1"), {"via": "citing"})])
    assert session.candidates["c1"].verdict == "relevant"
    assert session.unjudged() == [session.candidates["c4"]]


def test_the_pool_cap_sets_aside_the_weakest_unjudged_never_the_judged_or_the_batch():
    session = session_with(PAPERS, batch=1)
    apply(session, resolve(session, {"relevant": "1"}, rest="not"))
    session.batch = ["c2"]
    for key, value in zip(("c2", "c3", "c4"), (0.1, 0.9, 0.5)):
        session.candidates[key].score = value
    assert Pool(session).set_aside(keep=3) == 1
    assert sorted(session.candidates) == ["c1", "c2", "c3"]


# ---------------------------------------------------------------- the session file

def test_the_session_round_trips(tmp_path):
    session = session_with(PAPERS)
    apply(session, resolve(session, {"relevant": "1", "maybe": "2"}, rest="not"))
    path = tmp_path / "s.json"
    path.write_text(as_text(session))
    again = load(path)
    assert as_document(again)["candidates"] == as_document(session)["candidates"]
    assert again.options == session.options and again.topic == session.topic


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(kind="search"), "not a lit-search deep-search session"),
    (lambda d: d.update(version=99), "a session of version 99"),
    (lambda d: d["candidates"][0].update(verdict="yes"), "has verdict 'yes'"),
    (lambda d: d["candidates"][0].update(score="high"), r"'candidates\[0\]\.score' should be"),
    (lambda d: d["candidates"][0].update(score=None), r"'candidates\[0\]\.score' should be a number, not null$"),
    (lambda d: d["candidates"][0].update(why=True), r"'candidates\[0\]\.why' should be text, not true$"),
    (lambda d: d["options"].update(batch=0), "batch must be between 1 and 100"),
    (lambda d: d["options"].update(max_judged=10**9), "max_judged must be between"),
    (lambda d: d.update(batch=["c99"]), "the batch names unknown candidate 'c99'"),
    (lambda d: d.update(candidates=d["candidates"] * 2), "appears twice"),
    (lambda d: d.update(search_providers=["nosuch"]), "unknown provider 'nosuch'"),
    (lambda d: d.update(stop_reason="bored"), "unknown stop_reason"),
    # states no step leaves (a hand edit): each would show or count a paper again, or stop without a reason
    (lambda d: d.update(batch=[d["batch"][0], d["batch"][1], d["batch"][0]]), "names candidate 'c1' twice"),
    (lambda d: d["candidates"][1].update(verdict="not", judged_round=1), "candidate 'c2', judged already \\(not\\)"),
    (lambda d: d["options"].update(batch=2), "a batch of 3 papers, more than its --batch \\(2\\)"),
    (lambda d: d.update(done=True, stop_reason="saturated"), "a complete session with a batch to judge"),
    (lambda d: d.update(done=True, batch=[]), "a complete session without its stop_reason"),
    (lambda d: d.update(stop_reason="budget"), "stop_reason 'budget' on a session that is not complete"),
    (lambda d: d.update(next_number=2), "candidate 'c2' is not below next_number \\(2\\): a new paper would be given"),
    (lambda d: d["candidates"][3].update(key="x4"), "candidate 'x4' is not a candidate key"),
    (lambda d: d["candidates"][3].update(key="c04"), "candidate 'c04' is not a candidate key"),
    (lambda d: d["candidates"][0].update(judged_round=99, verdict="not"), "has judged_round 99, not a round"),
    (lambda d: d["candidates"][3].update(shown_round=0), "has shown_round 0, not a round"),
    # a verdict taken back to none: it would still count in its round's judged papers, and the
    # paper never be shown again
    (lambda d: d["candidates"][3].update(judged_round=1), "candidate 'c4' has judged_round 1 and no verdict"),
    # ... and a verdict without its round: the budget would count it, no round's yield would
    (lambda d: d["candidates"][3].update(verdict="relevant"), "candidate 'c4' has verdict 'relevant' and no judged_round"),
    (lambda d: d["candidates"][3].update(score=float("nan")), "has a score that is no number"),
    (lambda d: d.update(topic="  "), "an empty topic"),
    (lambda d: (d.update(rounds=[]), d["candidates"][3].update(verdict="not", judged_round=1)),
     "has judged_round 1, not a round of the session \\(it has none\\)"),
    (lambda d: d.update(rounds=d["rounds"] * 2), "rounds numbered 1, 1, not 1, 2, … in order"),
    (lambda d: d["rounds"][0].update(requests={"evilprov": 3}), "requests counted for unknown provider 'evilprov'"),
    (lambda d: d["candidates"][0]["paper"].update(title="x" * 200_000), "at most 100,000 are read"),
    (lambda d: d.update(rounds=[{"number": 1}] * 2_000), "at most 1,000 are read"),
])
def test_a_damaged_session_is_one_line_naming_the_problem(tmp_path, edit, message):
    document = as_document(session_with(PAPERS))
    edit(document)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match=message) as caught:
        load(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("body", [b"", b"{", b"\xff\xfe", b"[1, 2]", b"null", b"[" * 100_000])
def test_garbage_is_not_a_session(tmp_path, body):
    path = tmp_path / "s.json"
    path.write_bytes(body)
    with pytest.raises(InputError):
        load(path)


def test_a_folder_or_fifo_is_not_a_session(tmp_path):
    import os

    with pytest.raises(InputError, match="directory"):
        load(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        load(fifo)


# ---------------------------------------------------------------- the stop rule

def rounds_with(yields: list[tuple[int, int]]) -> Session:
    session = Session(topic="t", variants=[], filters=Filters(), options=Options(stop_window=40, stop_yield=1))
    for number, (judged, relevant) in enumerate(yields, start=1):
        session.rounds.append(Round(number, judged=judged, relevant=relevant, new_candidates=5,
                                    requests={"openalex": 2}))
    return session


def test_the_recent_yield_counts_whole_rounds_newest_first():
    assert recent_yield(rounds_with([(20, 9), (20, 1), (20, 0)]), 40) == (40, 1)
    assert recent_yield(rounds_with([(20, 9), (20, 1), (20, 1), (15, 0)]), 40) == (55, 2)
    # Only the rounds after the first find count: before it the batches were the searches' order.
    assert recent_yield(rounds_with([(20, 0), (20, 3), (20, 1), (15, 0)]), 40) == (35, 1)
    assert recent_yield(rounds_with([(20, 0), (20, 0)]), 40) == (0, 0)
    assert yield_curve(rounds_with([(20, 3)])) == [{"round": 1, "judged": 20, "relevant": 3, "new_candidates": 5,
                                                    "requests": 2, "maybe": 0}]


@pytest.mark.parametrize("yields,saturated", [
    ([(20, 9), (20, 1), (20, 0)], True),   # 1 of the last 40: at the allowed yield
    ([(20, 9), (20, 1), (20, 1)], False),  # 2 of the last 40
    ([(20, 0)], False),                    # not yet 40 judged
    ([(20, 0), (20, 0), (20, 0)], False),  # nothing relevant yet: nothing was chased
    ([(20, 1), (20, 0), (20, 0)], True),   # a find in the first batch, then 40 with none
    ([(20, 0), (20, 0), (20, 1), (20, 0)], False),  # 80 judged, but only 20 after the first find
    ([(20, 0), (20, 0), (20, 1), (20, 0), (20, 1)], True),  # 40 after it, 1 relevant
])
def test_saturation_at_the_stated_yield(yields, saturated):
    assert saturation(rounds_with(yields))[0] is saturated


def test_with_no_find_the_check_says_nothing_was_chased():
    done, said = saturation(rounds_with([(20, 0), (20, 0), (20, 0)]))
    assert not done and said.startswith("nothing judged relevant or maybe yet, so nothing has been chased"), said


def test_saturation_waits_for_every_relevant_paper_to_be_chased():
    session = rounds_with([(20, 9), (20, 0), (20, 0)])
    session.candidates["c1"] = Candidate("c1", paper("A relevant paper", openalex_id="W9"), {}, verdict="relevant")
    done, said = saturation(session)
    assert not done and "1 relevant paper still to chase" in said
    session.candidates["c1"].chased = ["links:openalex:references", "links:openalex:citing",
                                       "links:semantic_scholar:references", "links:semantic_scholar:citing"]
    assert saturation(session)[0]


# ---------------------------------------------------------------- scoring

def judged_world() -> Session:
    papers = PAPERS + [paper("Exact graph colouring by branch and bound", openalex_id="W5",
                             abstract="Branch and bound colours graphs exactly with few colours."),
                       paper("Protein structure prediction", openalex_id="W6", abstract="Predicting protein folds.")]
    session = session_with(papers, batch=2)
    apply(session, resolve(session, {"relevant": "1", "not": "2"}, rest="not"))
    return session


def test_text_reads_like_the_relevant_papers_leave_one_out():
    session = judged_world()
    table = score.feature_table(session)
    assert table["c5"]["text"] > table["c6"]["text"]  # colouring vs protein
    # A relevant paper is not compared with itself: alone in the centroid, its text is 0 minus its
    # likeness to the rejected one.
    assert table["c1"]["text"] <= 0.0


def test_links_count_relevant_seeds_and_maybe_counts_half():
    session = judged_world()
    session.candidates["c5"].evidence.append({"round": 2, "via": "citing", "provider": "openalex", "seed": "c1"})
    session.candidates["c6"].evidence.append({"round": 2, "via": "citing", "provider": "openalex", "seed": "c2"})
    table = score.feature_table(session)
    assert table["c5"]["links"] > 0 and table["c6"]["links"] == 0  # c2 was rejected


def test_cocitation_and_coupling_from_reference_lists():
    session = judged_world()
    session.candidates["c1"].paper.openalex_id = "W1"
    session.candidates["c1"].refs = ["W70", "W71"]
    session.candidates["c3"].refs = ["W1", "W5", "W70"]  # cites the relevant W1 and W5: W5 is co-cited
    cocited, coupling = score.citation_features(list(session.candidates.values()))
    assert cocited.get("c5") == 1.0 and "c6" not in cocited
    assert coupling.get("c3") == 1.0  # shares W70 with the relevant paper


def test_scores_are_probabilities_and_why_names_the_evidence():
    session = judged_world()
    session.candidates["c5"].evidence.append({"round": 2, "via": "references", "provider": "openalex", "seed": "c1"})
    weights = score.score_candidates(session)
    assert set(weights) == set(score.FEATURES) | {"bias"}
    assert all(0.0 <= c.score <= 1.0 for c in session.candidates.values())
    assert session.candidates["c5"].score > session.candidates["c6"].score
    score.explain(session, ["c5"])
    assert session.candidates["c5"].why.startswith("cited by “Greedy colouring")


def test_explain_uses_the_last_scoring_only_until_a_verdict_comes():
    session = judged_world()
    score.score_candidates(session)
    judged, table = session.scored
    assert judged == len(session.judged()) and set(table) == set(session.candidates)
    table["c5"] = {**table["c5"], "text": 0.5}  # the scoring's own table is what explains the batch
    score.explain(session, ["c5"])
    assert "reads like the relevant papers (0.50)" in session.candidates["c5"].why
    session.candidates["c6"].verdict = "not"  # a verdict since: the features are computed again
    score.explain(session, ["c5"])
    assert "(0.50)" not in session.candidates["c5"].why
    session.candidates["c5"].meaning = 0.61  # the re-ranker's similarity, said when shown
    score.explain(session, ["c5"])
    assert session.candidates["c5"].why.endswith("; close in meaning to the topic (0.61)")


def test_the_fit_moves_towards_what_the_verdicts_say():
    rows = [{f: (1.0 if f == "topic" else 0.0) for f in score.FEATURES} for _ in range(40)] + \
           [{f: 0.0 for f in score.FEATURES} for _ in range(40)]
    weights, _ = score.fit(rows, [0.0] * 40 + [0.0] * 40)
    assert weights["topic"] < score.PRIOR["topic"]
    weights, _ = score.fit(rows, [1.0] * 40 + [0.0] * 40)
    assert weights["topic"] > score.PRIOR["topic"]


def _log_posterior(weights, bias, rows, labels):
    """The fit's objective written out here: log-likelihood plus the Gaussian prior's log-density."""
    import math

    total = -0.5 * score.PENALTY * sum((weights[f] - score.PRIOR[f]) ** 2 for f in score.FEATURES)
    total -= 0.5 * score.PENALTY * 0.1 * (bias - score.PRIOR_BIAS) ** 2
    for row, label in zip(rows, labels):
        z = bias + sum(weights[f] * row[f] for f in score.FEATURES)
        total += label * z - (z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z)))
    return total


def _verdict_rows(seed, relevant, shown):
    """A session's fit data: ``relevant`` papers with links to relevant seeds and a text lean,
    the rest (``shown``) rejected, some of them linked too; the kind the prior rates low."""
    import math
    import random

    rng = random.Random(seed)
    rows, labels = [], []
    for i in range(shown):
        hit = i < relevant
        row = {f: 0.0 for f in score.FEATURES}
        row["links"] = math.log1p(rng.choice([1, 2, 3])) if hit or rng.random() < 0.4 else 0.0
        row["cocited"] = math.log1p(rng.randint(0, 6)) if rng.random() < 0.4 else 0.0
        row["coupling"] = math.log1p(rng.randint(0, 7)) if rng.random() < 0.3 else 0.0
        row["text"] = rng.uniform(0.05, 0.2) if hit else rng.uniform(-0.02, 0.12)
        row["topic"] = rng.uniform(0.0, 0.1)
        row["recommended"] = rng.random() if rng.random() < 0.2 else 0.0
        row["searched"] = rng.random() if rng.random() < 0.3 else 0.0
        rows.append(row)
        labels.append(1.0 if hit else 0.0)
    return rows, labels


@pytest.mark.parametrize("seed,relevant,shown", [(0, 15, 140), (1, 15, 140), (2, 3, 60), (3, 40, 200), (4, 1, 120)])
def test_the_fit_is_the_most_probable_weights_not_an_overshoot(seed, relevant, shown):
    """Newton's method from the prior overshoots when the verdicts are far from it (positives
    the prior rates at a few per cent, the curvature of those rows vanishing): an undamped step
    sent the intercept to +71 and ordered the pool worse than the prior. The fit must be at
    least as probable as the prior and a maximum: no small move of any weight does better."""
    rows, labels = _verdict_rows(seed, relevant, shown)
    weights, bias = score.fit(rows, labels)
    best = _log_posterior(weights, bias, rows, labels)
    assert best >= _log_posterior(score.PRIOR, score.PRIOR_BIAS, rows, labels)
    for name in (*score.FEATURES, "bias"):
        for delta in (-0.05, 0.05):
            moved = {**weights, name: weights[name] + delta} if name != "bias" else weights
            assert _log_posterior(moved, bias + (delta if name == "bias" else 0.0), rows, labels) <= best + 1e-3


def test_before_the_first_relevant_paper_the_search_order_stands():
    """Cold start: rejections alone say only what relevance is not. A fit to them (or a text
    feature of "unlike the rejected papers") would walk away from the search's own ranking, the
    best evidence there is; until a paper is judged relevant or maybe, the prior orders."""
    papers = [paper(f"Graph colouring heuristic number {i}", doi=f"10.1000/g{i}",
                    abstract=f"A heuristic colours graphs, variant {i}.") for i in range(8)] + \
             [paper("Protein folding kinetics", doi="10.1000/p1", abstract="Folding rates of small proteins."),
              paper("Coral reef bleaching", doi="10.1000/p2", abstract="Corals bleach in warm water.")]
    session = session_with(papers, batch=4)
    apply(session, resolve(session, {"relevant": None, "maybe": None, "not": None}, rest="not"))
    weights = score.score_candidates(session)
    assert weights == {**score.PRIOR, "bias": score.PRIOR_BIAS}
    table = score.feature_table(session)
    assert {row["text"] for row in table.values()} == {0.0}
    unjudged = score.next_order(session)
    assert [c.paper.doi for c in unjudged] == [p.doi for p in papers[4:]]  # the search's own order
    # A candidate only a search far down placed comes after every one the search placed higher,
    # whatever its words: before a relevant verdict the words typed have had their ranking.
    session.candidates[unjudged[-1].key].evidence = [{"round": 1, "via": "search", "rank": 1_000}]
    session.candidates[unjudged[0].key].evidence.append({"round": 2, "via": "recommended", "rank": 1})
    assert score.next_order(session)[0] is unjudged[0] and score.next_order(session)[-1] is unjudged[-1]
    # One relevant verdict and the fit, and the text profile, come in.
    session.candidates[unjudged[0].key].verdict = "relevant"
    assert score.score_candidates(session) != {**score.PRIOR, "bias": score.PRIOR_BIAS}
    assert any(row["text"] for row in score.feature_table(session).values())


# ---------------------------------------------------------------- a round's plan

def test_the_round_keeps_its_budgets_and_the_judges_queries_never_wait():
    actions = [Action("search", queries=["q"], cost=3, origin="judge")] + \
              [Action("links", "semantic_scholar", "citing", seeds=[f"c{i}"], cost=1) for i in range(10)] + \
              [Action("links", "openalex", "citing", seeds=[f"c{i}"], cost=1) for i in range(10)]
    chosen, notes = _within_budget(actions, total=10, caps={"semantic_scholar": 4, "openalex": 50},
                                   search_providers=["semantic_scholar", "openalex", "pubmed"])
    kinds = [(a.kind, a.provider) for a in chosen]
    assert kinds[0] == ("search", None)
    assert kinds.count(("links", "semantic_scholar")) == 3  # 1 of its 4 went to the judge's query
    assert sum(a.cost for a in chosen) == 10
    assert notes and "left for the next round" in notes[0]


def test_a_group_whose_extra_request_does_not_fit_waits_whole():
    """OpenAlex's references first ask the seeds' own lists: the group's first action counts that
    request; when it waits, the rest of its group waits too (alone they would send it uncounted)."""
    actions = [Action("links", "openalex", "references", seeds=["c1"], cost=2),
               Action("links", "openalex", "references", seeds=["c2"], cost=1),
               Action("links", "semantic_scholar", "citing", seeds=["c1"], cost=1)]
    chosen, notes = _within_budget(actions, total=1, caps={}, search_providers=[])
    assert [(a.provider, a.seeds) for a in chosen] == [("semantic_scholar", ["c1"])]
    chosen, _ = _within_budget(actions, total=3, caps={}, search_providers=[])
    assert [(a.provider, a.seeds) for a in chosen] == [("openalex", ["c1"]), ("openalex", ["c2"])]


def test_cocited_ids_need_two_citing_papers_that_cite_a_relevant_one():
    session = judged_world()
    session.candidates["c1"].paper.openalex_id = "W1"
    session.candidates["c3"].refs = ["W1", "W90", "W91"]
    session.candidates["c5"].refs = ["W1", "W90"]
    session.candidates["c6"].refs = ["W91", "W92"]  # cites no relevant paper
    assert cocited_ids(session) == ["W90"]
    session.asked_ids.append("W90")
    assert cocited_ids(session) == []


@pytest.mark.parametrize("topic, sentences", [
    ("coral reef bleaching", []),  # one sentence: the topic is its only query
    ("Coral reef bleaching.", []),
    ("Shape descriptions. Measures of circularity. Shape matching.",
     ["Shape descriptions", "Measures of circularity", "Shape matching"]),
    ("reef heat stress; symbiont loss in corals", ["reef heat stress", "symbiont loss in corals"]),
    ("What drives coral bleaching? Which reefs recover?", ["What drives coral bleaching", "Which reefs recover"]),
    # a full stop that ends no sentence: an abbreviation, an initial
    ("Optimization methods (e.g. linear programming) in data structures", []),
    ("Work of J. Smith on sorting", []),
    ("Sorting networks, i.e. comparator circuits. Their depth and size.",
     ["Sorting networks, i.e. comparator circuits", "Their depth and size"]),
    # a sentence of fewer than two content words is no query of its own
    ("Shape matching. Why?", []),
    ("Shape matching. Why? Circularity measures of outlines.", ["Shape matching", "Circularity measures of outlines"]),
    # a dotted acronym ends no sentence
    ("U.S. health policy. Medicaid expansion and uninsured adults",
     ["U.S. health policy", "Medicaid expansion and uninsured adults"]),
    # words that name a kind of study are no subject of their own
    ("Is exercise beneficial for depression? A systematic review and meta-analysis", []),
    # what the user rules out is never searched alone; "without" may be the subject itself
    ("Robot motion planning. We are not interested in arm dynamics. Grasp planning for robot hands",
     ["Robot motion planning", "Grasp planning for robot hands"]),
    ("Parallel sorting networks. I don't want hardware sorters", []),
    ("Surgery without anaesthesia. Pain after minor operations",
     ["Surgery without anaesthesia", "Pain after minor operations"]),
])
def test_a_topic_of_several_sentences_gives_one_query_per_sentence(topic, sentences):
    assert topic_sentences(topic) == sentences


def test_a_derived_query_is_the_words_the_relevant_papers_share():
    relevant = [paper(f"Enalapril in hypertension trial {i}", abstract="enalapril lowered blood pressure")
                for i in range(4)]
    others = [paper(f"Diet study {i}", abstract="a diet lowered weight") for i in range(5)]
    session = session_with(relevant + others, batch=4)
    for key in list(session.candidates)[:4]:
        session.candidates[key].verdict = "relevant"
    for candidate, terms in zip(session.candidates.values(), term_counts([c.paper for c in session.candidates.values()])):
        candidate.terms = terms
    query = derived_query(session)
    assert query and "enalapril" in query.split()
    assert distinctive_terms([{"a": 1}], [], set()) == []  # one relevant paper says nothing shared


def test_a_derived_query_leaves_out_words_the_relevant_papers_share_by_chance():
    """The class: with a handful of relevant papers, some everyday word always looks "shared"
    ("defined", "called", "application"); a query of such words brings noise, not papers."""
    others = [{"defin": 1, "system": 1, f"other{i}": 1} if i % 4 == 0 else {"system": 1, f"other{i}": 1}
              for i in range(400)]  # "defined" in a quarter of the pool
    relevant = [{"defin": 1, "eventcount": 1}, {"defin": 1, "eventcount": 1}, {"defin": 1, "eventcount": 1},
                {"eventcount": 1, "sequenc": 1}, {"eventcount": 1, "sequenc": 1}, {"sequenc": 1},
                {"monitor": 1}, {"monitor": 1}]
    assert distinctive_terms(relevant, others, set()) == ["eventcount", "sequenc"]
    # the same counts in a pool where "defined" is rare: then it is shared beyond chance too
    rare = [{"system": 1, f"other{i}": 1} for i in range(400)]
    assert distinctive_terms(relevant, rare, set()) == ["eventcount", "defin", "sequenc"]
    assert distinctive_terms(relevant, rare, {"eventcount"}) == ["defin", "sequenc"]  # the topic's own
    # a structured abstract's labels: shared by the records of one provider, never a topic
    labelled = [{**terms, "background": 1, "conclus": 1} for terms in relevant]
    assert distinctive_terms(labelled, rare, set()) == ["eventcount", "defin", "sequenc"]


@pytest.mark.parametrize("n", [1, 5, 30])
def test_the_binomial_tail_in_logs_is_the_exact_sum(n):
    for p in (0.001, 0.2, 0.9):
        for k in range(n + 1):
            exact = sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))
            assert math.isclose(math.exp(log_binomial_tail(k, n, p)), exact, rel_tol=1e-9)
    assert log_binomial_tail(900, 2000, 0.01) < -1000  # hundreds of papers: no underflow to -inf, no error


def test_the_session_checks_every_field_of_a_paper():
    """A field added to (or renamed in) the record must get its type check in the session file."""
    from litsearch.deep.session import PAPER_SHAPE

    assert set(PAPER_SHAPE.fields) == set(Paper(provider="", title="").to_dict())


def test_the_providers_asked_are_named_once_each_in_order():
    """A provider the searches do not ask, sent requests and answered from the cache in one round
    (or in several), is named once; the searches' own come first."""
    from litsearch.deep.results import providers_asked

    session = session_with(PAPERS)
    session.search_providers = ["semantic_scholar", "openalex"]
    session.rounds[0].requests = {"openalex": 2, "europepmc": 3}
    session.rounds[0].cached = {"europepmc": 1, "semantic_scholar": 1}
    session.rounds.append(Round(2, requests={"europepmc": 1, "pubmed": 2}, cached={"pubmed": 1}))
    assert providers_asked(session) == ["semantic_scholar", "openalex", "europepmc", "pubmed"]


def test_why_names_the_sentence_or_variant_a_search_placed_it_for():
    """The topic's sentences are searched one by one: each places a paper #1, and "the search (#1)"
    on several rows of a batch would not say which; the topic's own search is "the search"."""
    session = session_with(PAPERS)
    first, second = list(session.candidates)[:2]
    session.candidates[first].evidence = [{"round": 1, "via": "search", "query": session.topic, "rank": 1}]
    session.candidates[second].evidence = [{"round": 1, "via": "search", "query": "Tabu search for colouring",
                                            "rank": 1, "provider": "semantic_scholar"}]
    score.score_candidates(session)
    score.explain(session, [first, second])
    assert session.candidates[first].why.startswith("the search (#1)")
    assert session.candidates[second].why.startswith("the search for “Tabu search for colouring” (Semantic Scholar #1)")


def test_a_records_kept_terms_are_its_whole_abstract_and_a_tie_keeps_the_texts_order():
    """The class: a candidate's text likeness is measured on the terms kept with it. A review's
    record has 60–90 distinct terms; kept to 48 with ties broken alphabetically, four records in
    five lost their later words by initial letter ("zidovudine" went before "acetate")."""
    from litsearch.deep.textmodel import MAX_TERMS, analyzer

    words = [f"{letter}{suffix}" for suffix in ("quartz", "walrus", "jovial", "fjord") for letter in "zyxwvutsrqponm"]
    words += ["zidovudine", "acetate"]
    abstract = " ".join(words)
    kept = term_counts([paper("Antiretroviral dosing", abstract=abstract)])[0]
    stems = [analyzer().terms(word)[0] for word in words]
    assert len(set(stems)) == len(words) <= MAX_TERMS
    assert set(stems) <= set(kept)  # every term of an abstract of 58 distinct words
    # beyond the bound, the most frequent first, then the order the text has them (not the alphabet)
    backwards = [f"q{a}{b}x" for a in "zyxwvutsrqponmlkjihgfedcba" for b in "zyxwvutsrqponmlkjihgfedcba"]
    long = " ".join(backwards[:MAX_TERMS + 20]) + " alpha alpha"
    kept = list(term_counts([paper("x", abstract=long)])[0])
    assert len(kept) == MAX_TERMS
    assert kept[0] == analyzer().terms("alpha")[0]
    assert kept[1:] == [analyzer().terms(word)[0] for word in backwards[:MAX_TERMS - 1]]


def test_why_says_which_judged_papers_a_candidate_is_cited_together_with_or_shares_references_with():
    """The class: the score counts a maybe's link half, and `why` said "cited together with
    relevant papers (0×)" for a link to a paper judged maybe alone; a reviewer reads `why` as
    the reason a record was screened in. Whole counts, each verdict named."""
    papers = [paper(f"Paper {i}", openalex_id=f"W{i}") for i in range(1, 7)]
    session = session_with(papers, batch=6)
    by_work = {c.paper.openalex_id: c for c in session.candidates.values()}
    by_work["W1"].verdict, by_work["W2"].verdict = "maybe", "relevant"
    by_work["W4"].refs = ["W1", "W3", "W9"]  # W3 cited together with a maybe paper
    by_work["W5"].refs = ["W2", "W3", "W6"]  # ... and with a relevant one; W6 with the relevant one alone
    by_work["W1"].refs = ["W8"]  # the maybe paper cites W8 ...
    by_work["W6"].refs = ["W8", "W7"]  # ... as W6 does: one reference shared with it
    score.explain(session, [by_work["W3"].key, by_work["W6"].key])
    assert "cited together with relevant papers (1×) and papers judged maybe (1×)" in by_work["W3"].why
    assert "cited together with relevant papers (1×)" in by_work["W6"].why
    assert "shares 1 reference with papers judged maybe" in by_work["W6"].why
    assert "0×" not in by_work["W3"].why + by_work["W6"].why
    by_work["W2"].verdict = None  # no relevant paper left: nothing may say "relevant papers"
    score.explain(session, [by_work["W3"].key, by_work["W6"].key])
    assert "cited together with papers judged maybe (1×)" in by_work["W3"].why
    assert "relevant papers" not in by_work["W3"].why + by_work["W6"].why
