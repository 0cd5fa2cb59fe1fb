"""`deep results --rejected` (the papers judged not relevant, last: a review's excluded records)
and the results JSON's `providers_searched`, on sessions built in memory: every combination of
--all and --rejected lists exactly the verdicts it names, in its order, and the listing without
either is the one it was (issue 29's contract)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from built_sessions import session_of  # noqa: E402

from litsearch.deep.results import VERDICT_TAG, as_search_result, nothing_listed, providers_asked  # noqa: E402
from litsearch.deep.session import Round  # noqa: E402
from litsearch.render.deep import results_json  # noqa: E402
from litsearch.render.table import render_markdown  # noqa: E402
from litsearch.runtime.results import render_result  # noqa: E402

# judged in an order unlike the listing's, each verdict twice, so both the grouping and the order within a group count
VERDICTS = ["not", "maybe", None, "relevant", "not", None, "maybe", "relevant"]
GROUPS = {(False, False): ["relevant", "maybe"], (True, False): ["relevant", "maybe", None],
          (False, True): ["relevant", "maybe", "not"], (True, True): ["relevant", "maybe", None, "not"]}


def judged_session():
    session = session_of(len(VERDICTS), batch=2)
    for n, (candidate, verdict) in enumerate(zip(session.candidates.values(), VERDICTS)):
        candidate.verdict, candidate.judged_round = verdict, 1 if verdict else None
        candidate.log_odds = float(n)  # within a group, the later key scores higher: listed first
    return session


@pytest.mark.parametrize("unjudged,rejected", list(itertools.product((False, True), repeat=2)))
def test_each_combination_lists_its_verdicts_in_order_each_group_by_score(unjudged, rejected):
    session = judged_session()
    result = as_search_result(session, include_unjudged=unjudged, include_rejected=rejected)
    verdicts = [c.verdict for c in result.candidates]
    expected = [v for v in GROUPS[unjudged, rejected] for _ in range(VERDICTS.count(v))]
    assert verdicts == expected
    for verdict in GROUPS[unjudged, rejected]:  # within a group: by score, best first
        scores = [c.log_odds for c in result.candidates if c.verdict == verdict]
        assert scores == sorted(scores, reverse=True)
    rows = results_json(result, session, "s.json")["results"]
    assert [row["verdict"] for row in rows] == expected
    marks = [VERDICT_TAG + label for label in
             ({"relevant": "relevant", "maybe": "maybe", None: "not judged", "not": "not relevant"}[v] for v in expected)]
    assert [line[len("KW  - "):] for line in render_result(result, 99, "ris", True).splitlines()
            if line.startswith("KW  - ")] == marks
    table = render_markdown(result, 99)
    assert ("**not relevant** ·" in table) == rejected and ("then those judged not relevant" in table) == rejected


def test_without_rejected_the_listing_is_what_it_was():
    session = judged_session()
    for unjudged in (False, True):
        assert render_markdown(as_search_result(session, unjudged), 99) == \
            render_markdown(as_search_result(session, unjudged, include_rejected=False), 99)
        text = render_markdown(as_search_result(session, unjudged), 99)
        # no row tagged not relevant; the footer still counts those verdicts
        assert "**not relevant**" not in text and "deep search: relevant, then maybe" in text
        assert "2 maybe, 2 not relevant) over" in text


def test_an_empty_listing_says_what_is_missing():
    assert nothing_listed(False) == "No papers judged relevant or maybe yet."  # as before the option
    assert nothing_listed(True) == "No papers judged relevant or maybe yet, and no candidate is left to judge."
    assert nothing_listed(False, True) == "No papers judged yet."
    assert nothing_listed(True, True) == "No papers judged yet, and no candidate is left to judge."


def test_providers_searched_names_every_provider_the_session_asked_and_no_time():
    session = session_of(3, batch=1)  # its searches ask OpenAlex; round 1 sent OpenAlex 1
    session.search_providers = ["openalex", "pubmed"]
    session.rounds.append(Round(2, requests={"semantic_scholar": 2, "openalex": 1}, cached={"europepmc": 1}))
    assert providers_asked(session) == ["openalex", "pubmed", "semantic_scholar", "europepmc"]
    payload = results_json(as_search_result(session), session, "s.json")
    assert payload["providers_searched"] == ["openalex", "pubmed", "semantic_scholar", "europepmc"]
    assert payload["search_time_ms"] == 0 and payload["providers"] == []  # the listing itself sent nothing


def test_a_session_from_before_search_providers_were_kept_names_those_it_sent_to():
    session = session_of(2, batch=1)
    session.search_providers = []
    assert results_json(as_search_result(session), session, "s.json")["providers_searched"] == ["openalex"]
