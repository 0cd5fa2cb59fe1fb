"""The stop rule's edges (deep/stop.py) and the verdict lists' edges (deep/verdicts.py), in-process:
when a session says saturated or budget, what the check says in words, which rows a LIST names,
the error a bad LIST gets, and the notes and per-round counts a step leaves behind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from litsearch.core.errors import InputError, UsageError
from litsearch.core.filters import Filters
from litsearch.deep.session import Candidate, Options, Round, Session, as_document, from_document
from litsearch.deep.stop import budget_spent, recent_yield, rule_now, saturation
from litsearch.deep.verdicts import apply, resolve
from litsearch.render.deep import going_on

sys.path.insert(0, str(Path(__file__).parent))

from built_sessions import session_with, titled as paper  # noqa: E402


PAPERS = [paper("Greedy colouring of sparse graphs revisited", doi="10.1000/a1"),
          paper("Tabu search for the graph colouring problem", doi="10.1000/b2"),
          paper("Register allocation by graph colouring", doi="10.1000/c3"),
          paper("Protein folding kinetics", doi="10.1000/d4")]
NO_LISTS = {"relevant": None, "maybe": None, "not": None}


def rounds_with(yields: list[tuple[int, int]], **options) -> Session:
    session = Session(topic="t", variants=[], filters=Filters(),
                      options=Options(**{"stop_window": 40, "stop_yield": 1, **options}))
    for number, (judged, relevant) in enumerate(yields, start=1):
        session.rounds.append(Round(number, judged=judged, relevant=relevant, new_candidates=5,
                                    requests={"openalex": 2}))
    return session


def with_judged(count: int, **options) -> Session:
    """A session of one round whose ``count`` papers were all judged not relevant."""
    session = rounds_with([(count, 0)], **options)
    for number in range(1, count + 1):
        session.candidates[f"c{number}"] = Candidate(f"c{number}", paper(f"Paper {number}"), {}, verdict="not",
                                                     judged_round=1)
    return session


# ---------------------------------------------------------------- saturation

def test_an_early_burst_of_finds_outside_the_window_does_not_hold_off_the_stop():
    # after the first find: 5 relevant, then 40 with none; the window is the newest 40 only
    session = rounds_with([(20, 1), (20, 5), (20, 0), (20, 0)])
    assert recent_yield(session, 40) == (40, 0)
    assert saturation(session)[0] is True


def test_a_round_with_nothing_judged_does_not_end_the_count():
    # a round that found nothing new to judge (its leads still waiting) leaves an empty round:
    # the rounds before it still count towards the window
    session = rounds_with([(20, 1), (20, 0), (20, 0), (0, 0)])
    assert recent_yield(session, 40) == (40, 0)
    assert saturation(session) == (True, "last 40 judged after the first find: 0 relevant (saturated at ≤ 1 of "
                                         "the last 40 judged after the first find, every relevant paper chased)")


def test_the_check_states_the_rule_in_words():
    assert saturation(rounds_with([(20, 9), (20, 1), (20, 1)])) == (
        False, "last 40 judged after the first find: 2 relevant (saturated at ≤ 1 of the last 40 judged after "
               "the first find, every relevant paper chased)")
    assert saturation(rounds_with([(20, 0)]))[1] == (
        "nothing judged relevant or maybe yet, so nothing has been chased (saturated at ≤ 1 of the last 40 judged "
        "after the first find, every relevant paper chased)")


def test_before_a_full_window_the_check_says_how_many_are_judged_and_how_many_the_rule_needs():
    session = rounds_with([(20, 9), (20, 1)])
    assert saturation(session) == (False, "20 papers judged after the first find (1 relevant), fewer than the 40 "
                                          "the rule needs (saturated at ≤ 1 of the last 40 judged after the first "
                                          "find, every relevant paper chased)")
    just_found = rounds_with([(20, 1)])
    assert saturation(just_found)[1].startswith("0 papers judged after the first find (0 relevant), fewer than the 40")


def test_a_new_batch_shown_after_the_rule_was_met_says_its_verdicts_decide():
    met = rounds_with([(20, 9), (20, 1), (20, 0)])
    assert rule_now(met) == saturation(met)[1] + "; met before this batch, so its verdicts decide whether the " \
                                                 "search goes on"
    not_met = rounds_with([(20, 9), (20, 1), (20, 1)])
    assert rule_now(not_met) == saturation(not_met)[1]


# ---------------------------------------------------------------- the budgets

def test_the_judged_budget_stops_at_its_limit_and_says_so():
    assert budget_spent(with_judged(9, max_judged=10)) is None
    assert budget_spent(with_judged(10, max_judged=10)) == \
        "10 papers judged: the limit set by --max-judged (10) is reached"


def test_the_request_budget_stops_at_its_limit_and_says_so():
    session = rounds_with([(20, 1), (20, 0), (20, 0)], max_requests=7)  # 2 requests a round: 6 sent
    assert budget_spent(session) is None
    session.options.max_requests = 6
    assert budget_spent(session) == "6 requests sent: the limit set by --max-requests (6) is reached"


def test_a_session_stopped_at_its_budget_names_the_limit_to_raise():
    judged = with_judged(10, max_judged=10)
    judged.stop_reason, judged.done = "budget", True
    assert going_on(judged, "review.json") == "To go on: `lit-search deep next review.json --max-judged N` with N " \
                                              "above 10."
    requests = with_judged(3, max_judged=10, max_requests=2)
    requests.stop_reason, requests.done = "budget", True
    assert going_on(requests, "review.json") == "To go on: `lit-search deep next review.json --max-requests N` " \
                                                "with N above 2."


# ---------------------------------------------------------------- bad lists

def bad(lists: dict[str, str], batch: int = 3) -> str:
    session = session_with(PAPERS, batch=batch)
    with pytest.raises(UsageError) as raised:
        resolve(session, {**NO_LISTS, **lists}, rest="not")
    return str(raised.value)


def test_a_list_of_a_thousand_is_read_and_one_more_is_refused():
    assert resolve(session_with(PAPERS), {**NO_LISTS, "relevant": ",".join(["1"] * 1000)}, rest="not").given["c1"] \
        == "relevant"
    assert bad({"relevant": ",".join(["1"] * 1001)}) == "--relevant names 1,001 papers; at most 1,000 at once"


def test_an_empty_item_is_refused_with_an_example_of_a_list():
    assert bad({"maybe": "1,,2"}) == "--maybe '1,,2': an empty item; separate the items by single commas (1,4,9)"


@pytest.mark.parametrize("item", ["3-abc", "abc-3"])
def test_a_number_and_a_word_joined_by_a_dash_is_not_a_range_of_rows(item):
    assert bad({"relevant": item}).startswith(f"--relevant: unrecognised paper id {item!r}")
    assert bad({"relevant": f"1 {item}"}).startswith(f"--relevant: unrecognised paper id '1 {item}'")


@pytest.mark.parametrize("batch,item,message", [
    (1, "2", "--relevant: row 2 is not in the batch (row 1 alone); a PMID is written PMID:2"),
    (1, "0", "--relevant: row 0 is not in the batch (row 1 alone)"),
    (2, "3", "--relevant: row 3 is not in the batch (rows 1–2); a PMID is written PMID:3"),
    (0, "1", "--relevant: row 1 is not in the batch (no rows: the session has no batch); a PMID is written PMID:1"),
    (0, "0", "--relevant: row 0 is not in the batch (no rows: the session has no batch)"),
])
def test_a_row_outside_the_batch_says_which_rows_there_are(batch, item, message):
    assert bad({"relevant": item}, batch=batch) == message


def test_a_long_item_is_shown_cut_to_sixty_characters():
    sixty = "10.1000/" + "x" * 52
    assert bad({"not": sixty}).startswith(f"--not: {sixty!r} is not a paper of this session")
    assert bad({"not": sixty + "y"}).startswith(f"--not: {sixty[:59] + '…'!r} is not a paper of this session")


# ---------------------------------------------------------------- notes and counts

def test_a_step_naming_no_row_says_how_the_batch_was_judged():
    session = session_with(PAPERS, batch=3)
    assert resolve(session, NO_LISTS, rest="not").notes == [
        "no row was named: 3 rows of round 1's batch were judged not relevant, as rows not named are"]
    assert resolve(session, NO_LISTS, rest="maybe").notes == [
        "no row was named: 3 rows of round 1's batch were judged maybe, as rows not named are"]


def test_a_paper_judged_by_its_id_before_it_was_shown_is_noted():
    session = session_with(PAPERS, batch=3)
    verdicts = resolve(session, {**NO_LISTS, "relevant": "1, doi:10.1000/d4"}, rest="not")
    assert verdicts.notes == ["“Protein folding kinetics” was judged by its id without being shown in a batch"]


@pytest.mark.parametrize("title,shown", [
    ("T" * 50, "T" * 50),
    ("T" * 51, "T" * 49 + "…"),
])
def test_a_title_in_a_note_is_cut_to_fifty_characters(title, shown):
    session = session_with([paper(title, doi="10.1000/t1"), *PAPERS], batch=2)
    notes = resolve(session, {**NO_LISTS, "relevant": "1, doi:10.1000/d4"}, rest="not").notes
    assert notes == ["“Protein folding kinetics” was judged by its id without being shown in a batch"]
    apply(session, resolve(session, {**NO_LISTS, "relevant": "1"}, rest="not"))
    session.rounds.append(Round(2))
    session.batch = ["c3"]
    notes = resolve(session, {**NO_LISTS, "not": "doi:10.1000/t1", "maybe": "1"}, rest="not").notes
    assert notes == [f"“{shown}” (read in round 1): verdict changed from relevant to not"]


def test_a_paper_without_a_title_is_named_by_nothing_made_up():
    # the pool takes no record without a title, but a session file may hold one (the loader takes it)
    session = session_with(PAPERS, batch=2)
    apply(session, resolve(session, {**NO_LISTS, "relevant": "1"}, rest="not"))
    session.rounds.append(Round(2))
    session.batch = ["c3"]
    document = as_document(session)
    document["candidates"][0]["paper"]["title"] = ""
    session = from_document(document, "review.json")
    notes = resolve(session, {**NO_LISTS, "not": "doi:10.1000/a1", "maybe": "1"}, rest="not").notes
    assert notes == ["“” (read in round 1): verdict changed from relevant to not"]


def test_a_changed_verdict_is_noted_in_the_round_of_the_step_that_changed_it():
    session = session_with(PAPERS, batch=2)
    apply(session, resolve(session, {**NO_LISTS, "relevant": "1"}, rest="not"))
    session.rounds.append(Round(2))
    session.batch = ["c3"]
    apply(session, resolve(session, {**NO_LISTS, "not": "doi:10.1000/a1", "maybe": "1"}, rest="not"))
    assert session.rounds[0].notes == []
    assert session.rounds[1].notes == ["“Greedy colouring of sparse graphs revisited” (read in round 1): verdict "
                                       "changed from relevant to not"]


def test_a_round_whose_step_judged_no_new_paper_counts_nothing():
    session = session_with(PAPERS, batch=2)
    apply(session, resolve(session, {**NO_LISTS, "relevant": "1", "maybe": "2"}, rest="not"))
    session.rounds.append(Round(2))  # a round with nothing to judge; the step only corrects a verdict
    apply(session, resolve(session, {**NO_LISTS, "not": "doi:10.1000/b2"}, rest="not"))
    assert [(r.judged, r.relevant, r.maybe) for r in session.rounds] == [(2, 1, 0), (0, 0, 0)]


def test_a_session_file_with_a_verdict_but_no_round_is_refused_whole():
    """A verdict without the round it was read in would be counted by the budget and by no
    round's yield: such a file is damaged (one line), and nothing is recorded in it."""
    session = session_with(PAPERS, batch=3)
    apply(session, resolve(session, {**NO_LISTS, "relevant": "1"}, rest="not"))
    session.rounds.append(Round(2))
    session.batch = ["c4"]
    document = as_document(session)
    for entry in document["candidates"]:
        if entry["key"] == "c2":
            entry["judged_round"] = None
    with pytest.raises(InputError, match="candidate 'c2' has verdict 'not' and no judged_round"):
        from_document(document, "review.json")
