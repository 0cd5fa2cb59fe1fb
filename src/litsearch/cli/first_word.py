"""What the first word of ``lit-search WORDS…`` is: a command, a mistyped command, or the start
of a topic (the search is the default command, so any other word starts one).

One question decides both hints the dispatcher gives: are the words after a command's name
what that command takes (``arguments_fit``)? A library action after ``library``, a paper id
after ``paper``, a file name after ``dedupe``.

- A mistyped command (``libary list``, ``snowbal 10.1098/rsif.2019.0621``, ``doctr``) would
  search for its words, spend requests and exit 0. A first word one edit away from a command's
  name (a letter added, dropped, changed, or two neighbours swapped; letter case ignored) whose
  following words fit that command stops with exit 2 and both commands to choose from.
- A real topic near a command's name is searched: "papers on CRISPR", "red blood cells"
  (``read``), "snowfall trends" (``snowball``), "course design" (``source``) go on to the
  search, because their next word is no paper id, action or file. Left out of the near
  names: ``search`` (its neighbours are topic words, "research", "starch", and a misspelt
  ``search`` searches anyway), ``work`` ("word list recall", "worm get …") and, but for
  swapped letters, names of three letters (``mcp``:
  one edit from MCA, MMP, PCP, map). A plural standing alone ("doctors", "papers") is a
  topic too, and so is a near name followed by a year ("papers 2020 review"), though a PMID
  can have four digits.
- A command whose words do not fit (``paper mills``, ``library services``) fails with its own
  error, and the dispatcher adds the explicit search to run instead; a word that names a file
  (``dedupe nosuchfile.bib``) is no topic, so no such line is added.
"""

from __future__ import annotations

import os
import re
import shlex

from .commands import COMMANDS, ENTITY_NAMES, Command

# Names whose one-edit neighbours are everyday topic words (research, word, worm): never "near".
NOT_NEAR = ("search", "work")
# Commands that run with no positional argument, so options (or nothing) after the name fit.
NOTHING_REQUIRED = ("doctor", "mcp")
# `snowball --from-library` takes its seeds from the library.
OPTIONS_FIRST = NOTHING_REQUIRED + ("snowball",)
HELP = ("-h", "--help")
# "papers 2020 review": a year after a near name is a topic's, though PMIDs of four digits exist.
YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
# A file name: a path separator, or an extension after a dot (records.csv, search.json, x.bib.gz).
FILE_NAME = re.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,7}$")


def arguments_fit(command: Command, words: list[str]) -> bool:
    """Whether ``words`` (what follows the command's name) are that command's arguments rather
    than the rest of a topic, judged on the first of them."""
    if not words:
        return command.name in NOTHING_REQUIRED
    first = words[0]
    if first in HELP:
        return True
    if first.startswith("-"):
        return command.name in OPTIONS_FIRST
    if command.takes == "paper id":
        return _is_paper_id(first, pmcid=command.name == "read")
    if command.takes == "action":
        return first in command.actions
    if command.takes == "file":
        return os.path.lexists(first) or bool(FILE_NAME.search(first))  # lexists: a broken link names a file too
    if command.takes == "record":
        return os.path.lexists(first) or first.lower().endswith(".json")
    return command.takes == "topic"


def mistyped_command(argv: list[str]) -> Command | None:
    """The command ``argv[0]`` is a misspelling of, when the words after it fit that command;
    None when ``argv[0]`` is a command's name or the words read as a topic."""
    if not argv or argv[0] in COMMANDS:
        return None
    typed, rest = argv[0], argv[1:]
    if (not rest and _plural(typed)) or (rest and YEAR.fullmatch(rest[0])):
        return None
    for command in COMMANDS.values():
        if command.name not in NOT_NEAR and _one_edit_apart(typed.lower(), command.name) \
                and arguments_fit(command, rest):
            return command
    return None


def mistyped_action(command: Command, words: list[str]) -> str | None:
    """After an action command's name (``deep``, ``library``…): the command line meant when the
    first word is no action but a misspelling of one (``deep result r.json``) or the name of
    another command whose arguments follow (``deep report r.json``: ``lit-search report``), and
    the words after it are a command's, not a topic's (an option, a file, or nothing); else None
    ("deep learning models" is a topic)."""
    if command.takes != "action" or not words or words[0] in command.actions or words[0].startswith("-"):
        return None
    typed, rest = words[0], words[1:]
    if rest and not _command_words(rest):
        return None
    for word, meant in command.other_words:
        if typed.lower() == word:
            action, *options = meant.split()
            return f"lit-search {command.name} {shell_words([action, *(rest or ['FILE']), *options])}"
    for action in command.actions:
        if _one_edit_apart(typed.lower(), action):
            return f"lit-search {command.name} {shell_words([action, *rest])}"
    other = COMMANDS.get(typed.lower())
    if other is not None and other is not command and arguments_fit(other, rest):
        return f"lit-search {shell_words([other.name, *rest])}"
    return None


def _command_words(rest: list[str]) -> bool:
    """What follows an action's place is a command's words, not a topic's: an option, or a file
    first (``deep show review.json``)."""
    return any(word.startswith("-") for word in rest) or os.path.lexists(rest[0]) or bool(FILE_NAME.search(rest[0]))


def mistyped_hint(command: Command, argv: list[str]) -> str:
    return (f"did you mean `lit-search {command.name}`? "
            f"To search for these words: `lit-search search {shell_words(argv)}`")


def topic_hint(name: str, words: list[str]) -> str | None:
    """After ``lit-search NAME WORDS…`` failed as that command: the explicit search to run
    instead when the words read as a topic, else None."""
    command = COMMANDS.get(name)
    if command is None or not words or words[0].startswith("-") or arguments_fit(command, words) \
            or mistyped_action(command, words):
        return None
    if command.takes == "action" and words[1:] and _command_words(words[1:]):
        return None  # "deep show review.json": an unknown action before a file is no topic
    return f"To search for this topic instead: lit-search search {shell_words([name, *words])}"


def shell_words(words: list[str]) -> str:
    """The words as a shell command line that gives them back exactly, and shows nothing but
    printable text: a word with a control, format or other unprintable character (an escape
    sequence, a bell, a bidirectional override) is written in ANSI-C quoting (``$'a\\x1b[31m'``,
    which bash, zsh and ksh read), since ``shlex.quote`` leaves such characters as they are."""
    return " ".join(shlex.quote(word) if word.isprintable() else _ansi_c(word) for word in words)


def _ansi_c(word: str) -> str:
    out = []
    for char in word:
        if char in "\\'":
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return "$'" + "".join(out) + "'"


def entity_topic(argv: list[str]) -> bool:
    """An entity's name not followed by one of its actions or --help starts a topic ("topic
    modelling", "field theory", "work engagement"): searched, as before these commands existed."""
    return argv[0] in ENTITY_NAMES and (len(argv) == 1 or not arguments_fit(COMMANDS[argv[0]], argv[1:]))


def _plural(word: str) -> bool:
    lowered = word.lower()
    return any(lowered in (name + "s", name + "es") for name in COMMANDS)


def _is_paper_id(word: str, pmcid: bool) -> bool:
    from ..core.errors import UnknownIdError
    from ..core.identifiers import parse_paper_ref, parse_pmcid_ref

    if pmcid and parse_pmcid_ref(word):
        return True
    try:
        parse_paper_ref(word)
    except UnknownIdError:
        return False
    return True


def _one_edit_apart(typed: str, name: str) -> bool:
    """One letter added, dropped or changed, or two neighbours swapped (case already folded);
    for a name of three letters, only a swap or the name itself in other case."""
    if typed == name:
        return True  # the same letters in another case: "Library list"
    if len(typed) == len(name):
        differ = [i for i, (a, b) in enumerate(zip(typed, name)) if a != b]
        if len(differ) == 2 and differ[1] == differ[0] + 1 \
                and typed[differ[0]] == name[differ[1]] and typed[differ[1]] == name[differ[0]]:
            return True  # swapped neighbours: "netwrok"
        return len(differ) == 1 and len(name) > 3
    if abs(len(typed) - len(name)) != 1 or len(name) <= 3:
        return False
    shorter, longer = sorted((typed, name), key=len)
    return any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))
