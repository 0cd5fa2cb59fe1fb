"""The first word of `lit-search WORDS…`: a command, a mistyped command (exit 2 with both commands
to choose from, before any request), or a topic (searched), in both directions, with real topics
that sit one edit from a command's name (cli/first_word.py says the rule)."""

from __future__ import annotations

import json
import shlex

import pytest

import fake_apis
from fake_server import FakeServer
from litsearch import cli
from litsearch.cli import first_word
from litsearch.cli.commands import COMMANDS, commands_help
from litsearch.core.errors import ExitCode

MISTYPED = [
    ("libary list", "library"),
    ("librray list", "library"),
    ("libray show 12", "library"),
    ("Library list", "library"),
    ("LIBRARY export -o refs.bib", "library"),
    ("libary --help", "library"),
    ("snowbal 10.1098/rsif.2019.0621", "snowball"),
    ("snowbll --from-library", "snowball"),
    ("doctr", "doctor"),
    ("docotr --check", "doctor"),
    ("Doctor", "doctor"),
    ("paer 10.1038/nbt.2647", "paper"),
    ("papers 10.1038/nbt.2647", "paper"),
    ("paper_ PMID:23287722", "paper"),
    ("netwrok 10.1038/nbt.2647 10.1126/science.1225829", "network"),
    ("raed PMC3299399", "read"),
    ("reda arXiv:1706.03762", "read"),
    ("dedup records.csv", "dedupe"),
    ("dedpue nosuchfile.bib", "dedupe"),
    ("reprot search.json", "report"),
    ("rerum search.json", "rerun"),
    ("zotreo push --from results.json --collection x", "zotero"),
    ("mpc", "mcp"),
    ("MCP --http 8000", "mcp"),
    ("autor list Hinton", "author"),
    ("topics list", "topic"),
    ("insitution get I136199984", "institution"),
]

# Real topics one edit from a command's name: each must go on to the search.
TOPICS = [
    "papers",  # a plural standing alone
    "papers on CRISPR off-target effects",
    "networks of gene regulation",
    "doctors",
    "doctors burnout in intensive care",
    "docker containers for reproducible research",  # two edits from doctor
    "red blood cell deformability",  # read
    "real world evidence in oncology",
    "lead poisoning in children",
    "reads alignment to reference genomes",
    "snowfall trends in the Alps",  # snowball
    "course design in higher education",  # source
    "sources of bias in meta-analysis",
    "founder effects in island populations",  # funder
    "reports of adverse drug events",  # report
    "topics in algebraic geometry",
    "authors self-citation rates",
    "starch gelatinization",  # search is left out of the near names
    "research methods in ecology",
    "map matching of GPS traces",  # mcp: three letters, only swaps count
    "MCA stroke outcomes",
    "PCP",
    "MMP-9 in tumour invasion",
    "mcp-1 in atherosclerosis",
    "zoster vaccine efficacy",
    "papers 2020 review",  # a year is no paper id here, though it could be a PMID
    "morphogenesis",
    "zebrafish pigmentation patterns",
]


@pytest.mark.parametrize("words,command", MISTYPED, ids=[w for w, _ in MISTYPED])
def test_a_mistyped_command_stops_with_both_commands_and_exit_2(words, command, capsys):
    argv = shlex.split(words)
    assert cli.main(argv) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err == (f"lit-search: did you mean `lit-search {command}`? "
                   f"To search for these words: `lit-search search {shlex.join(argv)}`\n")


def test_the_issue_example_word_for_word(capsys):
    assert cli.main(["libary", "list"]) == 2
    assert capsys.readouterr().err.strip() == ("lit-search: did you mean `lit-search library`? To search for these "
                                               "words: `lit-search search libary list`")


@pytest.mark.parametrize("topic", TOPICS)
def test_a_real_topic_near_a_command_name_is_searched(topic):
    argv = shlex.split(topic)
    assert first_word.mistyped_command(argv) is None
    assert argv[0] not in COMMANDS  # else it is the command's own case, tested below


def test_a_near_topic_really_searches_and_a_typo_sends_nothing(monkeypatch, capsys, tmp_path):
    with FakeServer() as server:
        for name, value in {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path)}.items():
            monkeypatch.setenv(name, value)
        assert cli.main(["libary", "list"]) == 2
        assert cli.main(["snowbal", "10.1098/rsif.2019.0621"]) == 2
        assert server.requests == []
        capsys.readouterr()
        assert cli.main(["papers", "--providers", "openalex", "--format", "json", "--no-verify", "-q"]) == 0
        assert json.loads(capsys.readouterr().out)["query"] == "papers"
        assert server.requests_to("/openalex/works")


@pytest.mark.parametrize("typed,name", [
    ("libary", "library"), ("librar", "library"), ("libraryy", "library"), ("lbirary", "library"),
    ("netwrok", "network"), ("MCP", "mcp"), ("cmp", "mcp"),
])
def test_one_edit(typed, name):
    assert first_word._one_edit_apart(typed.lower(), name)


@pytest.mark.parametrize("typed,name", [
    ("libaryy", "library"), ("docker", "doctor"), ("map", "mcp"), ("mc", "mcp"), ("mcpp", "mcp"),
    ("ilbrray", "library"), ("snowballing", "snowball"), ("research", "search"),
])
def test_more_than_one_edit_or_a_short_name(typed, name):
    assert not first_word._one_edit_apart(typed.lower(), name)


@pytest.mark.parametrize("args", [
    "dedupe nosuchfile.bib", "dedupe ./exports/records", "report nosuch.json", "rerun old/search.json",
    "paper 10.1038/nbt.2647 --limit 0", "library list --format nosuch", "zotero push",
])
def test_a_failed_command_on_a_file_or_its_own_arguments_suggests_no_search(args, capsys, tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path))
    assert cli.main(shlex.split(args)) == 2
    assert "lit-search search" not in capsys.readouterr().err


@pytest.mark.parametrize("args", [
    "dedupe algorithms for bibliographic records", "doctor visits in rural areas", "mcp inhibitors",
    "zotero usage among students", "report cards", "read aloud interventions",
])
def test_a_failed_command_whose_words_are_a_topic_suggests_the_search(args, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.main(shlex.split(args)) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"To search for this topic instead: lit-search search {args}"


@pytest.mark.parametrize("args,meant", [
    ("library shw", "lit-search library show"), ("library lst --format json", "lit-search library list --format json"),
    ("library exprot -o x.bib", "lit-search library export -o x.bib"), ("zotero psh x.bib", "lit-search zotero push x.bib"),
    ("author lst --search smith", "lit-search author list --search smith"),
])
def test_a_mistyped_action_of_any_command_names_the_command_meant(args, meant, capsys, tmp_path, monkeypatch):
    """Every command with actions, not only deep: exit 2, the parser's error, and the line meant;
    no search is offered for words that are a command's."""
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.main(shlex.split(args)) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"did you mean `{meant}`?" and "lit-search search" not in err


def test_help_lists_every_command_and_every_exit_code(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert commands_help() in text
    listed = text[text.index("commands (each has --help):"):text.index("exit codes:")]
    for name in COMMANDS:
        assert f" {name} " in listed or f"|{name}" in listed or f"{name}|" in listed, name
    exits = text[text.index("exit codes:"):]
    for code in ExitCode:
        assert f"{int(code)} " in exits, code


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"search"}))
def test_every_command_help_names_every_exit_code(name, capsys):
    assert cli.main([name, "--help"]) == 0
    exits = capsys.readouterr().out.split("exit codes:")[1]
    for code in ExitCode:
        assert f"{int(code)} " in exits, (name, code)
