"""What the deep-search commands say, in-process on sessions built here: every count through the
one plural helper, every number in one format, the stop's reason as a sentence, lists cut only
between whole phrases, the counts under a batch adding up, and what a session's results and
report say about its requests (sent, or answered from the response cache)."""

from __future__ import annotations

import ast
import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from built_sessions import session_of  # noqa: E402
from litsearch.core.text import cut_phrases, phrases, plural, sentence
from litsearch.deep.results import as_search_result
from litsearch.deep.session import Round, Session
from litsearch.deep.expand import judge_query_of
from litsearch.render.deep import WHY_CHARS, batch_entries, methods_text, step_markdown, step_payload, step_text
from litsearch.render.table import render_markdown
from litsearch.render.terminal import text_width
from litsearch.render.terminal_results import results_view

SRC = Path(__file__).resolve().parents[2] / "src" / "litsearch"
# Every module whose text a deep-search command, tool or function shows.
DEEP_TEXT = sorted([*SRC.glob("deep/*.py"), SRC / "render/deep.py", SRC / "cli/deep.py", SRC / "cli/report.py",
                    SRC / "api/deep.py", SRC / "mcp_server/tools_deep.py", SRC / "cli/results.py"])
# Nouns a count is written with in those texts.
UNWRAPPED = 100_000  # a terminal width no paragraph reaches: each on one line, to look for phrases
COUNT_NOUNS = ("papers", "rounds", "requests", "records", "references", "queries", "candidates", "works", "rows",
               "answers", "bytes", "items", "seeds", "verdicts", "batches", "providers", "words", "citations", "ids",
               "results", "lines", "files", "steps", "variants", "credits")
AFTER_A_COUNT = re.compile(r"(?:\s+[a-z-]+){0,2}?\s+(%s)\b" % "|".join(COUNT_NOUNS))


def counts_bypassing_the_helper(path: Path) -> set[tuple[str, str]]:
    """(module, what) for each f-string that writes a count's noun itself: ``{n} papers`` (wrong
    for 1) or ``paper{'s' if n != 1 else ''}`` (a second way of doing what ``plural`` does)."""
    found = set()
    module = str(path.relative_to(SRC))
    lines = path.read_text().splitlines()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.JoinedStr) or "# not a count" in lines[node.lineno - 1]:
            continue
        for at, part in enumerate(node.values):
            if not isinstance(part, ast.FormattedValue):
                continue
            if isinstance(part.value, ast.IfExp) and any(isinstance(n, ast.Constant) and n.value in ("s", "es", "ies")
                                                         for n in ast.walk(part.value)):
                found.add((module, "ad-hoc plural"))
            after = node.values[at + 1] if at + 1 < len(node.values) else None
            if isinstance(after, ast.Constant) and isinstance(after.value, str):
                match = AFTER_A_COUNT.match(after.value)
                if match and not re.match(r"\s+(of|in|to|and|or|the|at|with)\b", after.value):
                    found.add((module, after.value[:40]))
    return found


def test_every_count_in_deep_text_goes_through_the_plural_helper():
    found = set().union(*(counts_bypassing_the_helper(path) for path in DEEP_TEXT))
    assert found == set(), "write the count with core.text.plural"


def test_the_scan_finds_both_kinds_of_hand_made_plural(tmp_path):
    made = SRC / "deep" / "zz_probe_for_the_scan.py"
    made.write_text('def f(n, m):\n    return f"{n} papers judged", f"{m} quer{\'ies\' if m != 1 else \'y\'}"\n')
    try:
        assert counts_bypassing_the_helper(made) == {("deep/zz_probe_for_the_scan.py", " papers judged"),
                                                     ("deep/zz_probe_for_the_scan.py", "ad-hoc plural")}
    finally:
        made.unlink()


@pytest.mark.parametrize("count,word,many,said", [
    (1, "paper", None, "1 paper"), (0, "paper", None, "0 papers"), (2, "round", None, "2 rounds"),
    (1, "query", "queries", "1 query"), (3, "query", "queries", "3 queries"), (2_000, "request", None, "2,000 requests"),
    (1, "paper was", "papers were", "1 paper was"), (12_345, "paper was", "papers were", "12,345 papers were"),
])
def test_plural(count, word, many, said):
    assert plural(count, word, many) == said


# ---------------------------------------------------------------- sessions to render

def every_text(session: Session) -> str:
    """All a person or a model reads of a session: a step (Markdown, terminal, JSON's words), its
    results (Markdown table and terminal view, with every candidate) and its report."""
    result = as_search_result(session, include_unjudged=True)
    payload = step_payload(session, "s.json")
    return "\n".join([step_markdown(session, "s.json"), step_text(session, "s.json", width=UNWRAPPED), methods_text(session),
                      render_markdown(result, 100), results_view(result, 100, 100),
                      str(payload["stop_check"])])


def one_of_everything() -> Session:
    """A session where every count it shows is 1: one paper judged and relevant, one round, one
    request, one answer from the cache, one candidate left (in the batch), one query."""
    session = session_of(2, batch=1)
    first, second = session.candidates.values()
    first.verdict, first.judged_round = "relevant", 1
    session.rounds[0].judged, session.rounds[0].relevant = 1, 1
    session.rounds[0].cached = {"pubmed": 1}
    session.batch = [second.key]
    return session


SINGULAR_AS_PLURAL = re.compile(r"(?<![\d,.])1 (?:[a-z]+ ){0,1}(%s)\b" % "|".join(COUNT_NOUNS))


def test_a_count_of_one_is_singular_in_every_deep_text():
    text = every_text(one_of_everything())
    assert "1 round" in text and "1 request sent" in text and "1 answer" in text and "1 candidate" in text
    assert not SINGULAR_AS_PLURAL.search(text), SINGULAR_AS_PLURAL.search(text)


def test_numbers_of_a_thousand_or_more_are_written_alike_everywhere():
    session = session_of(3, batch=2, max_judged=1_234, max_requests=2_000, stop_window=1_000)
    session.rounds[0].requests = {"openalex": 1_500, "pubmed": 3}
    session.rounds[0].new_candidates = 4_321
    session.rounds.append(Round(2, requests={"openalex": 2}, new_candidates=1_001))
    text = every_text(session)
    for raw in ("1234", "2000", "1500", "1502", "1505", "4321", "1001"):
        assert not re.search(rf"(?<![\d.,/]){raw}(?![\d])", text), raw  # e.g. "2000 requests" beside "2,000" in help
    for shown in ("1,234 papers", "2,000 requests", "OpenAlex 1,502", "1,503", "1,505", "4,321", "1,001"):
        assert shown in text, shown


@pytest.mark.parametrize("reason,said", [
    ("exhausted", "no unjudged candidate is left after chasing every lead"),
    ("exhausted", "the search found nothing to judge"),
    ("budget", "20 papers judged: the limit set by --max-judged (20) is reached"),
    ("saturated", "last 80 judged: 0 relevant (saturated at ≤ 2 of the last 80, every relevant paper chased)"),
])
def test_the_stop_reason_is_followed_by_a_sentence(reason, said):
    session = session_of(3, batch=3)
    session.done, session.stop_reason, session.batch = True, reason, []
    session.rounds[-1].stop_check = said
    markdown, text = step_markdown(session, "s.json"), step_text(session, "s.json", width=UNWRAPPED)
    assert f"**The search is complete: {reason}.** {sentence(said)}." in markdown  # a sentence, full stop
    assert f"The search is complete: {reason}. {sentence(said)}." in text
    for shown in (markdown, text):  # whatever the words: no lower-case letter opens a sentence after the stop
        assert not re.search(r"complete: \w+\.\**\s+[a-z]", shown)


# ---------------------------------------------------------------- cut between phrases

def random_phrases(seed: int) -> list[str]:
    rng = random.Random(seed)
    words = ["cited by", "“Mass coral bleaching; a review”", "semantic search", "(OpenAlex #2)", "the search",
             "(#12)", "more like the relevant ones", "reads like the relevant papers (0.41)", "query “reef; heat”"]
    return [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(rng.randint(1, 9))]


@pytest.mark.parametrize("seed", range(40))
def test_a_list_is_cut_between_whole_phrases_and_says_how_many_are_left(seed):
    parts = random_phrases(seed)
    limit = random.Random(seed).randint(10, 200)
    shown = cut_phrases(parts, limit)
    kept = phrases(shown)
    if kept[-1].startswith("and ") and kept[-1].endswith(" more") and shown != "; ".join(parts):
        left = int(kept.pop()[4:-5].replace(",", ""))
        assert kept == parts[:len(kept)] and left == len(parts) - len(kept) and kept
        assert len(shown) <= limit or len(kept) == 1  # the first phrase is shown whole, whatever its length
    else:
        assert shown == "; ".join(parts) and (len(shown) <= limit or len(parts) == 1)
    assert phrases("; ".join(parts)) == parts  # “quoted” words keep their own "; "


def test_found_by_and_round_asked_show_whole_phrases():
    session = session_of(3, batch=2)
    ways = [f"cited by “A study of reef number {n} and its corals”" for n in range(6)]
    for candidate in session.candidates.values():
        candidate.why = "; ".join(ways)
    asked = [f"OpenAlex: references of {n} papers collected over the reef flats, {n} found" for n in range(2, 30)]
    session.rounds[0].actions = asked
    for entry in batch_entries(session):
        kept = phrases(entry["why"])
        assert kept[-1] == f"and {len(ways) - len(kept) + 1} more" and kept[:-1] == ways[:len(kept) - 1]
        assert len(entry["why"]) <= WHY_CHARS
    markdown, text = step_markdown(session, "s.json"), step_text(session, "s.json", width=UNWRAPPED)
    line = next(line for line in text.splitlines() if line.startswith("Round 1 asked: "))
    kept = phrases(line.removeprefix("Round 1 asked: "))
    assert kept[:-1] == asked[:len(kept) - 1] and kept[-1] == f"and {len(asked) - len(kept) + 1} more"
    assert "…" not in line and "Round 1 asked: " in markdown
    found_by = [line for line in markdown.splitlines() if line.startswith("_Found by_")]
    assert found_by and not any("…" in line for line in found_by)
    report = methods_text(session)
    assert all(action.replace("“", "").split(":")[1] in report for action in asked)  # the report: every one, whole


# ---------------------------------------------------------------- counts that add up

def test_the_candidates_left_and_the_batch_add_up():
    session = session_of(50, batch=20)
    text = step_text(session, "s.json", width=UNWRAPPED)
    assert "50 candidates not yet judged, 20 of them in this batch" in text
    session.batch = []
    session.rounds[0].stop_check, session.done, session.stop_reason = "x", True, "budget"
    assert "50 candidates not yet judged" in step_text(session, "s.json", width=UNWRAPPED) and \
        "of them in this batch" not in step_text(session, "s.json", width=UNWRAPPED)


def test_a_sessions_results_say_what_the_session_sent_not_zero_requests_in_no_time():
    session = one_of_everything()
    session.rounds.append(Round(2, requests={"openalex": 4, "semantic_scholar": 3}, cached={"openalex": 2}))
    result = as_search_result(session)
    markdown = render_markdown(result, 10)
    terminal = results_view(result, 10, 200)
    for text in (markdown, terminal):
        assert "0 requests in 0.0 s" not in text
        assert "8 requests sent (and 3 answers from the response cache)" in text and "over 2 rounds" in text
        assert "listing them sent no request" in text
    assert "\n! " not in terminal  # the session's line is no warning
    report = methods_text(session)
    assert "with 8 requests sent (OpenAlex 5, Semantic Scholar 3) and 3 answers taken from lit-search's response " \
           "cache (OpenAlex 2, PubMed 1), which may be older than the session" in report
    assert "| 7 (+2 from the cache) |" in report
    step = step_text(session, "s.json", width=UNWRAPPED)
    assert "answered from the response cache instead: OpenAlex 2, PubMed 1" in step
    assert step_payload(session, "s.json")["cached"] == {"pubmed": 1, "openalex": 2}


# ---------------------------------------------------------------- the terminal view wrapped

@pytest.mark.parametrize("width", [40, 72, 100])
def test_the_terminal_view_of_a_batch_is_wrapped_to_the_terminal_and_loses_no_word(width):
    session = session_of(6, batch=4)
    for n, candidate in enumerate(session.candidates.values()):
        candidate.paper.abstract = f"Abstract {n}: " + "the reef flats bleached after the marine heatwave. " * 12
        candidate.why = "the search (OpenAlex #3); cited by “A long title of a relevant paper on reef corals”"
    session.rounds[0].actions = [f"OpenAlex: references of {n} relevant papers, {n * 7} found" for n in range(1, 9)]
    wrapped, whole = step_text(session, "s.json", width=width), step_text(session, "s.json", width=UNWRAPPED)
    lines = wrapped.splitlines()
    assert all(text_width(line) <= width for line in lines if not line.startswith("Next: "))
    # the same words in the same order: only the breaks moved (and each abstract line is marked │)
    assert [word for word in wrapped.split() if word != "│"] == [word for word in whole.split() if word != "│"]
    assert sum(line.lstrip().startswith("│") for line in lines) > 4 * 2  # each abstract over several lines
    assert max(len(line) for line in whole.splitlines()) > width


def test_the_reports_notes_name_their_round_and_the_stop_reads_as_sentences():
    session = session_of(3, batch=3)
    session.rounds.append(Round(2, notes=["“A reef study” (read in round 1): verdict changed from not to relevant"]))
    session.rounds[0].notes.append("12 records left out by the filters")
    session.done, session.stop_reason, session.batch = True, "saturated", []
    session.rounds[-1].stop_check = "last 80 judged: 1 relevant (saturated at ≤ 2 of the last 80, every relevant paper chased)"
    report = methods_text(session)
    assert "- Round 1: 12 records left out by the filters" in report
    assert "- Round 2: “A reef study” (read in round 1): verdict changed from not to relevant" in report
    assert "The session stopped: saturated. Last 80 judged: 1 relevant (saturated at ≤ 2 of the last 80, every " \
           "relevant paper chased)." in report


def test_the_methods_say_what_was_chased_the_rule_as_applied_and_what_the_stop_left_unread():
    """A methods section copied from the report must not misstate the search: the papers judged
    maybe were chased too, the saturation window starts after the first find, and a stop leaves
    candidates unread (a reviewer had to work that out from the table)."""
    session = session_of(5, batch=3)
    session.done, session.stop_reason, session.batch = True, "saturated", []
    text = " ".join(methods_text(session).split())
    assert "then, weaker, the references and citing papers of those judged maybe" in text
    assert "a maybe counting half" in text
    assert "judged after the first paper judged relevant or maybe held at most 2 relevant" in text
    unjudged = len(session.unjudged())
    assert unjudged and f"{unjudged} candidates were left unjudged." in text
    for candidate in session.candidates.values():
        candidate.verdict = candidate.verdict or "not"
    assert "left unjudged" not in methods_text(session)


def test_deep_results_count_their_rows_against_the_sessions_candidates():
    """"(merged from 457 provider records)" counted every way each candidate was reached, a figure
    no report, JSON or yield states: a reviewer could not reconcile it. The session's pool is what
    its yield curve and report count."""
    session = session_of(6, batch=3)
    for key in list(session.candidates)[:2]:
        session.candidates[key].verdict, session.candidates[key].judged_round = "relevant", 1
    result = as_search_result(session)
    said = f"Showing 2 of 2 papers (of the session's {len(session.candidates)} candidates)."
    assert said in render_markdown(result, 20)
    assert said in " ".join(results_view(result, 20, width=200).split())


def test_the_methods_tell_the_users_queries_from_those_lit_search_made():
    """A review's methods must say which search terms were the user's and which the tool derived."""
    session = session_of(3, batch=3)
    session.variants = ["reef heat stress"]
    session.queries = ["coral reef bleaching", "reef heat stress", "Bleaching kills corals", "symbiont loss",
                       "zooxanthellae density"]
    session.rounds.append(Round(2, queries=["symbiont loss", "zooxanthellae density"],
                                actions=["the judge query “symbiont loss”: 12 papers",
                                         "new query “zooxanthellae density”: 8 papers"]))
    assert judge_query_of("the judge query “a “quoted”: title”: 3 papers (arxiv failed)") == "a “quoted”: title"
    assert judge_query_of("new query “x”: 3 papers") is None
    text = " ".join(methods_text(session).split())
    assert ("the queries searched were: the topic “coral reef bleaching”; the variant given at the start “reef heat stress”; "
            "the topic's sentence, alone “Bleaching kills corals”; the judge's query “symbiont loss”; "
            "derived by lit-search from the words the relevant papers share “zooxanthellae density”.") in text
    session.variants.append("bleached reefs")  # several of a kind: said in the plural
    session.queries.insert(2, "bleached reefs")
    text = " ".join(methods_text(session).split())
    assert "the variants given at the start “reef heat stress”, “bleached reefs”;" in text


@pytest.mark.parametrize("width", [30, 44, 61, 80])
def test_a_rounds_yield_never_breaks_across_lines_in_the_terminal_view(width):
    """The yield curve wraps between rounds, never inside one ("2: 10 → 2; 122;" / "50")."""
    session = session_of(3, batch=1)
    for number in range(2, 13):
        session.rounds.append(Round(number, judged=20, relevant=number % 4, new_candidates=100 + number,
                                    requests={"semantic_scholar": 40 + number}))
    text = step_text(session, "s.json", width=width)
    parts = [f"{number}: 20 → {number % 4}; {100 + number}; {40 + number}" for number in range(2, 13)]
    lines = [line.strip() for line in text.splitlines()]
    for part in parts:
        assert any(part in line for line in lines), (part, text)
    # every line within the width, but the command to copy, which is kept whole
    assert max(text_width(line) for line in text.splitlines() if not line.startswith("Next: ")) <= width


def test_a_note_the_step_said_is_not_said_again_as_the_rounds():
    """A step's own notes ("no row was named: …") are filed in the round too: said once."""
    session = session_of(3, batch=1)
    said = "no row was named: 1 row of round 1's batch was judged not relevant, as rows not named are"
    session.rounds[0].notes = [said, "failed: OpenAlex (HTTP 503)"]
    session.said = [said]
    for text in (step_markdown(session, "s.json"), step_text(session, "s.json", width=UNWRAPPED)):
        assert text.count("no row was named") == 1 and "failed: OpenAlex (HTTP 503)" in text


def test_the_reports_json_states_what_its_methods_text_does():
    """A machine-read record of the search must not lack what the text says: the answers from
    the cache, every query by where it came from (the judge's were only in the text)."""
    from litsearch.render.deep import methods_payload

    session = session_of(4, batch=2)
    session.queries = ["coral reef bleaching", "symbiont loss"]
    session.rounds[0].cached = {"openalex": 3}
    session.rounds.append(Round(2, queries=["symbiont loss"], actions=["the judge query “symbiont loss”: 4 papers"]))
    payload = methods_payload(session)
    assert payload["cached"] == {"openalex": 3}
    assert payload["queries"]["judge"] == ["symbiont loss"] and payload["queries"]["topic"] == ["coral reef bleaching"]
    assert payload["judged"] == len(session.judged()) and payload["candidates"] == len(session.candidates)


def test_the_results_json_names_every_query_searched_as_the_report_does():
    """`variants` holds only the queries given at the start: a methods section written from
    `deep results --format json` must also find the judge's and the derived ones."""
    from litsearch.deep.results import as_search_result
    from litsearch.render.deep import methods_payload, results_json

    session = session_of(4, batch=2)
    session.variants = ["reef heat stress"]
    session.queries = ["coral reef bleaching", "reef heat stress", "symbiont loss", "zooxanthellae density"]
    session.rounds.append(Round(2, queries=["symbiont loss", "zooxanthellae density"],
                                actions=["the judge query “symbiont loss”: 4 papers",
                                         "new query “zooxanthellae density”: 2 papers"]))
    payload = results_json(as_search_result(session), session, "s.json")
    assert payload["variants"] == ["reef heat stress"]
    assert payload["queries"] == methods_payload(session)["queries"]
    assert payload["queries"]["judge"] == ["symbiont loss"] and payload["queries"]["derived"] == ["zooxanthellae density"]


def test_a_steps_notes_past_the_first_few_are_counted_in_plain_words():
    """The line was "(\\`lit-search report\\` lists every one)" in Markdown: lit-search's own
    command escaped as if it were a title, and no file named."""
    from litsearch.render.deep import SAID_NOTES

    session = session_of(4, batch=2)
    session.said = [f"note {n}" for n in range(SAID_NOTES + 3)]
    text = step_markdown(session, "s.json")
    assert "This step: and 3 notes more (the session's report lists every one)" in text
    assert "\\`" not in text


@pytest.mark.parametrize("batch", [1, 5, 20])
def test_a_batch_with_long_abstracts_stays_within_about_twelve_thousand_characters(batch):
    """The contract's size: a batch of 20 with abstracts within about 12,000 characters (what a
    model reads each step), here with abstracts of 4,000 characters and titles of 200."""
    from litsearch.core.records import Paper

    words = "Randomised patients with schizophrenia received olanzapine or haloperidol for six weeks and"
    papers = [Paper(provider="openalex", doi=f"10.5555/t{n}", year=2001, title=f"{'A long title of a trial report ' * 6}{n}",
                    abstract=" ".join([words] * 45) + f" Olanzapine was better tolerated {n}.",
                    journal="Journal of Clinical Psychopharmacology", authors=["A. Author", "B. Author"])
              for n in range(1, 41)]
    session = session_of(papers, batch)
    text = step_markdown(session, "deep-review.json")
    assert len(text) <= 12_000
    quoted = [line for line in text.splitlines() if line.startswith("> ")]
    assert len(quoted) >= batch and all(len(line) >= 200 for line in quoted[:batch])
