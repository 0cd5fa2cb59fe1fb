"""What a user types to the deep-search commands, read one way at every door: LIST items and
whole numbers (no empty item, digits 0-9 without leading zeros), ``-q`` on every deep command,
a mistyped step, the name of a new session, and a file `report` and `deep results` cannot read,
named alike by both. Nothing here sends a request: each check comes before any."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from built_sessions import session_of  # noqa: E402
from command import command_env, command_runner  # noqa: E402

from litsearch.core.errors import UsageError  # noqa: E402
from litsearch.deep.session import as_document  # noqa: E402
from litsearch.deep.session_file import save  # noqa: E402
from litsearch.deep.steps import check_new_session_path  # noqa: E402
from litsearch.deep.verdicts import resolve  # noqa: E402
from litsearch.runtime.files import write_file_atomically  # noqa: E402

BAD_ITEMS = [("1,,2", "an empty item"), (",1", "an empty item"), ("1,", "an empty item"), ("1, ,2", "an empty item"),
             ("01", "'01' is not a row number"), ("00", "is not a row number"), ("١", "is not a row number"),
             ("1,٢", "is not a row number"), ("²", "is not a row number"), ("0", "row 0 is not in the batch"),
             ("3-1", "the range '3-1' runs backwards; write it 1-3"), ("2-4", "row 4 is not in the batch"),
             ("0-2", "row 0 is not in the batch"), ("1-02", "'02' is not a row number"),
             ("١-٣", "'١' is not a row number"), ("1-2-3", "unrecognised paper id"),
             ("c99", "'c99' is not a paper of this session"), ("c0", "unrecognised paper id")]


@pytest.fixture
def run(tmp_path):
    """lit-search in this process, in ``tmp_path``, with no provider to ask (none is asked)."""
    return command_runner(command_env(LITSEARCH_CACHE_DIR=str(tmp_path / "cache")), tmp_path,
                          in_process=True)


@pytest.fixture
def saved(tmp_path) -> Path:
    """A session on disk (round 1, a batch of 3 of 5 candidates, one judged earlier)."""
    session = session_of(5, batch=3)
    path = tmp_path / "review.json"
    save(path, session, write_file_atomically)
    return path


def same(path: Path) -> tuple[bytes, bytes]:
    return path.read_bytes(), path.with_name(path.stem + ".papers.jsonl").read_bytes()


# ---------------------------------------------------------------- LIST items and numbers

@pytest.mark.parametrize("items,words", BAD_ITEMS)
@pytest.mark.parametrize("flag", ["relevant", "maybe", "not"])
def test_a_bad_list_item_is_one_usage_error_and_changes_nothing(items, words, flag):
    session = session_of(5, batch=3)
    before = as_document(session)
    with pytest.raises(UsageError, match=words) as problem:
        resolve(session, {flag: items}, rest="not")
    assert "\n" not in str(problem.value) and f"--{flag}" in str(problem.value)
    assert {k: v for k, v in as_document(session).items() if k != "saved_at"} == \
        {k: v for k, v in before.items() if k != "saved_at"}


@pytest.mark.parametrize("items", ["", "  ", "1, 2", " 3 "])
def test_what_a_list_may_be(items):
    given = resolve(session_of(5, batch=3), {"relevant": items}, rest="not").given
    assert sum(verdict == "relevant" for verdict in given.values()) == len([i for i in items.split(",") if i.strip()])


@pytest.mark.parametrize("items,rows", [("1-3", [1, 2, 3]), ("2–3", [2, 3]), ("2 - 2", [2]), ("1,2-3", [1, 2, 3]),
                                        ("3,1-2", [1, 2, 3]), ("c2", [2]), ("c1,3", [1, 3])])
def test_a_range_of_rows_and_the_jsons_key_name_their_papers(items, rows):
    """A judge writes ranges ("1-3", or with the dash our own messages print) and may quote the
    batch JSON's ``key``: each names those rows' papers, the rest take --rest."""
    session = session_of(5, batch=3)
    given = resolve(session, {"relevant": items}, rest="not").given
    assert sorted(session.batch.index(key) + 1 for key, verdict in given.items() if verdict == "relevant") == rows
    assert sorted(given) == sorted(session.batch)


def test_the_jsons_key_names_a_paper_outside_the_batch_too():
    session = session_of(5, batch=3)
    outside = list(session.candidates)[4]
    assert resolve(session, {"maybe": outside}, rest="not").given[outside] == "maybe"


def test_a_range_overlapping_another_list_is_named_in_both():
    with pytest.raises(UsageError, match="'1-3' is named in both --relevant and --not"):
        resolve(session_of(5, batch=3), {"relevant": "2", "not": "1-3"}, rest="not")


@pytest.mark.parametrize("items,words", BAD_ITEMS[:6])
def test_the_command_line_refuses_a_bad_list_in_one_line_and_keeps_the_session(run, saved, items, words):
    before = same(saved)
    out = run(["deep", "next", "review.json", "--relevant", items], code=2)
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 2 and out.stderr.startswith("lit-search deep")
    assert same(saved) == before


def test_a_repeated_flag_with_a_blank_list_adds_no_empty_item(run, saved):
    out = run(["deep", "next", "review.json", "--relevant", "", "--relevant", "9", "--show"], code=2)
    assert "--show records nothing" in out.stderr  # the lists were read without complaint, then refused as extras


@pytest.mark.parametrize("value", ["١٠", "010", "+10", "1_0", "10.0", " 10", "-0", "-01", "1e1", "ten", ""])
@pytest.mark.parametrize("option", ["--batch", "--max-judged", "--max-requests", "--round-requests", "--stop-window",
                                    "--stop-yield", "--min-citations"])
def test_a_number_is_plain_decimal(run, tmp_path, option, value):
    out = run(["deep", "start", "coral reef bleaching", "--session", "new.json", option, value], code=2)
    assert "not a whole number written in the digits 0-9 without leading zeros" in out.stderr and option in out.stderr
    assert not (tmp_path / "new.json").exists()


@pytest.mark.parametrize("option,words", [("--batch", "batch must be between 1 and 100, not -1"),
                                          ("--stop-yield", "--stop-yield must be between 0 and --stop-window - 1"),
                                          ("--min-citations", "--min-citations cannot be negative")])
def test_a_negative_number_is_refused_by_the_options_own_range(run, tmp_path, option, words):
    assert words in run(["deep", "start", "coral reef bleaching", "--session", "new.json", option, "-1"], code=2).stderr
    assert not (tmp_path / "new.json").exists()


@pytest.mark.parametrize("option", ["--max-judged", "--max-requests"])
def test_a_new_budget_is_plain_decimal_too(run, saved, option):
    before = same(saved)
    assert "not a whole number" in run(["deep", "next", "review.json", option, "٣٠٠"], code=2).stderr
    assert same(saved) == before


def test_the_mcp_tool_and_the_api_read_lists_alike(saved, tmp_path, monkeypatch):
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run as run_async, text_of

    from litsearch.api import deep_next

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path / "cache"))
    before = same(saved)
    for relevant in (["1", ""], "1,,2", ["01"], "٢"):
        with pytest.raises(ValueError, match="an empty item|is not a row number"):
            deep_next("review.json", relevant=relevant)

    async def go():
        async with in_process() as client:
            return [await client.call_tool("deep_search_next", {"session": "review.json", "relevant": relevant})
                    for relevant in (["1", ""], "1,,2", ["01"])]
    for answer in run_async(go()):
        assert answer.is_error and ("an empty item" in text_of(answer) or "not a row number" in text_of(answer))
    assert same(saved) == before


# ---------------------------------------------------------------- -q, a mistyped step

@pytest.mark.parametrize("args", [["deep", "results", "review.json", "-q"], ["deep", "results", "review.json", "--quiet",
                                                                              "--format", "json"],
                                  ["report", "review.json", "-q"], ["deep", "next", "review.json", "--show", "-q"]])
def test_every_deep_command_takes_quiet(run, saved, args):
    assert run(args).stdout


def test_results_with_nothing_judged_say_so_not_that_nothing_was_found(run, saved):
    for view in ("markdown", "table"):
        out = run(["deep", "results", "review.json", "--format", view]).stdout
        assert "No papers judged relevant or maybe yet." in out and "Try broader" not in out


@pytest.mark.parametrize("typed,meant", [
    (["report", "review.json"], "lit-search report review.json"),
    (["result", "review.json"], "lit-search deep results review.json"),
    (["Results", "review.json", "-o", "x.bib"], "lit-search deep results review.json -o x.bib"),
    (["nxt", "review.json", "--relevant", "1"], "lit-search deep next review.json --relevant 1"),
    (["strat", "coral reefs", "--session", "x.json"], "lit-search deep start 'coral reefs' --session x.json"),
    (["rsults"], "lit-search deep results"),
    (["show", "review.json"], "lit-search deep next review.json --show"),
    (["Status", "review.json", "--format", "json"], "lit-search deep next review.json --format json --show"),
    (["show"], "lit-search deep next FILE --show"),
])
def test_a_mistyped_step_is_one_line_naming_the_steps_and_the_command_meant(run, saved, typed, meant):
    out = run(["deep", *typed], code=2)
    first, *rest = out.stderr.strip().splitlines()
    assert f"{typed[0]!r} is not a step of lit-search deep (start, next or results); did you mean `{meant}`?" in first
    assert rest == ["Try 'lit-search deep --help'."]  # no search offered: these words are no topic
    assert out.stdout == ""


@pytest.mark.parametrize("words", [["list", "review.json"], ["stop", "review.json", "--quiet"], ["what", "-h"]])
def test_an_unknown_step_before_a_file_or_an_option_offers_no_search(run, saved, words):
    """Before a file or an option the words are a command's: searching "deep list review.json"
    is never what was meant."""
    out = run(["deep", *words], code=2)
    assert "invalid choice" in out.stderr and "To search for this topic instead" not in out.stderr


def test_words_after_deep_that_read_as_a_topic_still_offer_the_search(run):
    out = run(["deep", "learning", "models"], code=2)
    assert "To search for this topic instead: lit-search search deep learning models" in out.stderr


# ---------------------------------------------------------------- the name of a new session

@pytest.mark.parametrize("name,words", [
    (".json", "name the session before .json"), ("sub/.json", "name the session before .json"),
    ("  .json", "name the session before .json"), ("...json", "name the session before .json"),
    ("a\tb.json", "no control or invisible characters"), ("a\u200bb.json", "no control or invisible characters"),
    ("x" * 230 + ".json", "bytes too long"), ("review.txt", "ends in .json"),
])
def test_an_odd_session_name_is_refused_at_every_door_before_any_request(run, tmp_path, monkeypatch, name, words):
    from litsearch.api import deep_start

    (tmp_path / "sub").mkdir()
    with pytest.raises(UsageError, match=words):
        check_new_session_path(str(tmp_path / name))
    out = run(["deep", "start", "coral reef bleaching", "--session", name], code=2)
    assert words in out.stderr
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=words):
        deep_start("coral reef bleaching", name)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "sub"] or \
        sorted(p.name for p in tmp_path.iterdir()) == ["sub"]
    assert list((tmp_path / "sub").iterdir()) == []


@pytest.mark.parametrize("other", ["review.JSON", "review.Json"])
def test_a_new_session_never_takes_another_sessions_papers_file(run, saved, other):
    """review.JSON and review.json are two documents on Linux but name one papers file: a start of
    the second would have replaced the first one's papers. Refused before any request; a papers
    file with no document (a start killed before its document) is still replaced."""
    papers = saved.with_name("review.papers.jsonl")
    kept = papers.read_bytes()
    out = run(["deep", "start", "coral reef bleaching", "--session", other], code=2)
    assert f"--session {other}: review.json, in the same folder, keeps its papers in the file this session would " \
           f"write (review.papers.jsonl)" in out.stderr
    assert papers.read_bytes() == kept and not saved.with_name(other).exists()
    saved.unlink()  # the document gone, its papers left: nothing to keep
    check_new_session_path(str(saved.with_name(other)))


@pytest.mark.parametrize("name", ["review.json", ".hidden-review.json", "Review 2026 (draft).JSON", "x" * 220 + ".json",
                                  "récif corallien.json"])
def test_an_ordinary_session_name_passes(tmp_path, name):
    check_new_session_path(str(tmp_path / name))


def test_the_mcp_tool_refuses_an_odd_session_name_as_the_command_does(tmp_path, monkeypatch):
    pytest.importorskip("mcp")
    from mcp_inprocess import in_process, run as run_async, text_of

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path / "cache"))

    async def go():
        async with in_process() as client:
            return await client.call_tool("deep_search_start", {"topic": "coral reef bleaching", "session": ".json"})
    answer = run_async(go())
    assert answer.is_error and "name the session before .json" in text_of(answer)
    assert not (tmp_path / ".json").exists()


# ---------------------------------------------------------------- a file that cannot be read

@pytest.mark.parametrize("body,words", [
    (b"", "an empty file (0 bytes)"),
    (b"  \n", "an empty file (3 bytes of blanks)"),
    (None, "a deep-search session, cut short: its JSON stops after 300 bytes"),
    (b"\xff\xfe{", "(not UTF-8 text)"),
    (b"{]", "(not JSON: "),
    (b'{"kind": "x\x01"}', "(not JSON: Invalid control character at line 1 column 12)"),
    (b'{"kind": "deep-search session", "version": ' + b"9" * 5_000 + b"}", "(a number of thousands of digits"),
])
def test_report_and_deep_results_name_an_unreadable_file_alike(run, saved, body, words):
    damaged = saved.with_name("damaged.json")
    damaged.write_bytes(saved.read_bytes()[:300] if body is None else body)
    said = []
    for args in (["report", "damaged.json"], ["deep", "results", "damaged.json"], ["deep", "next", "damaged.json"]):
        out = run(args, code=2)
        assert words in out.stderr, out.stderr
        said.append(out.stderr.splitlines()[0].split("error: ", 1)[1])
    assert said[1] == said[2]  # the deep commands: one reader
    if body is None:  # a session cut short: report names it as the deep commands do
        assert said[0] == said[1]
    assert "not a lit-search search record (not JSON)" not in said[0]


def test_a_session_saved_with_a_byte_order_mark_reads_and_is_never_overwritten(run, saved):
    """Some Windows editors save UTF-8 with a byte order mark: JSON readers may ignore it (RFC
    8259), so the session reads in every command; and it is still told as a session by its first
    bytes, so no output is written over it."""
    marked = saved.with_name("marked.json")
    marked.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())
    saved.with_name("marked.papers.jsonl").write_bytes(saved.with_name("review.papers.jsonl").read_bytes())
    assert "A deep search for “coral reef bleaching”" in run(["report", "marked.json"]).stdout
    assert "Round 1" in run(["deep", "next", "marked.json", "--show"]).stdout
    out = run(["deep", "results", "review.json", "-o", "marked.json", "--all"], code=None)
    assert out.returncode != 0 and marked.read_bytes().startswith(b"\xef\xbb\xbf")
