"""``lit-search``: dispatch to the subcommand named first, else search.

``lit-search TOPIC…`` and ``lit-search search TOPIC…`` both search; the explicit form is
for a topic whose first word is a subcommand's name (``lit-search search network analysis``).
Each subcommand's module is imported only when it runs, so a search never loads the others.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from typing import Sequence

from ..core.errors import ExitCode

# A topic may start with a subcommand's name ("network analysis of brain connectivity",
# "paper mills", "library services"): when its words fail as that subcommand's arguments,
# the error suggests the explicit search.
COMMANDS = {
    "search": "litsearch.cli.search",
    "paper": "litsearch.cli.paper",
    "network": "litsearch.cli.network",
    "library": "litsearch.cli.library",
    "dedupe": "litsearch.cli.dedupe",
    "doctor": "litsearch.cli.doctor",
    "snowball": "litsearch.cli.snowball",
    "report": "litsearch.cli.report",
    "rerun": "litsearch.cli.rerun",
    "mcp": "litsearch.cli.mcp",
    "read": "litsearch.cli.read",
    "zotero": "litsearch.cli.zotero",
}
# OpenAlex's entities: `lit-search author list QUERY`, `lit-search author get ID`, …
ENTITY_COMMANDS = ("author", "source", "institution", "topic", "publisher", "funder")
COMMANDS.update({name: "litsearch.cli.entity" for name in ENTITY_COMMANDS})


def main(argv: Sequence[str] | None = None) -> int:
    argv = [_decoded(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    logging.basicConfig(level=logging.WARNING, format="lit-search: %(message)s", stream=sys.stderr)
    if not argv or argv[0] not in COMMANDS or _entity_topic(argv):
        return _environment_problem() or importlib.import_module(COMMANDS["search"]).main(argv)
    name, rest = argv[0], argv[1:]
    if name != "doctor" and (problem := _environment_problem()):  # doctor reports it instead
        return problem
    command = importlib.import_module(COMMANDS[name])
    code = command.main([name, *rest] if name in ENTITY_COMMANDS else rest)
    if code == ExitCode.USAGE and _reads_like_a_topic(name, rest):
        import shlex

        print(f"To search for this topic instead: lit-search search {shlex.join(argv)}", file=sys.stderr)
    return code


def _environment_problem() -> int:
    """Every environment variable checked once, before any work: 0 when all can be used, else
    exit 2 after one line naming the variable (core/environment.py)."""
    from ..core.config import Settings
    from ..core.errors import ConfigError
    from .common import run_command

    def check() -> int:
        try:
            Settings.from_env()
        except ValueError as problem:
            raise ConfigError(str(problem)) from None
        return ExitCode.OK

    return run_command("lit-search", check)


def _entity_topic(argv: list[str]) -> bool:
    """An entity's name not followed by list, get or --help starts a topic ("topic modelling",
    "source separation", "author disambiguation"): searched, as before these commands existed."""
    return argv[0] in ENTITY_COMMANDS and (len(argv) == 1 or argv[1] not in ("list", "get", "-h", "--help"))


def _reads_like_a_topic(name: str, words: list[str]) -> bool:
    """Whether ``name words…`` failed because it was a topic, not the subcommand's arguments:
    the first word is no paper id (paper, network), no library action, no file (dedupe)."""
    if not words or words[0].startswith("-"):
        return False
    if name in ("paper", "network", "snowball", "read"):
        from ..core.errors import UnknownIdError
        from ..core.identifiers import parse_paper_ref, parse_pmcid_ref

        if name == "read" and parse_pmcid_ref(words[0]):
            return False
        try:
            parse_paper_ref(words[0])
        except UnknownIdError:
            return True
        return False
    if name == "library":  # the command's own list of actions
        return words[0] not in importlib.import_module(COMMANDS["library"]).ACTIONS
    if name in ("report", "rerun"):  # a missing record file is not a topic
        return not words[0].lower().endswith(".json") and not os.path.lexists(words[0])
    if name == "zotero":
        return words[0] != "push"
    # lexists: a symbolic link (even a broken one or a loop) names a file, not a topic.
    return name in ("dedupe", "doctor") and not os.path.lexists(words[0])


def _decoded(arg: str) -> str:
    """An argument as text. Bytes that are not UTF-8 reach Python as lone surrogates
    (surrogateescape); they are decoded with replacement (U+FFFD) so that nothing downstream
    (an API request, a file name, an export) meets a character it cannot encode."""
    try:
        return arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return arg.encode("utf-8", "replace").decode("utf-8")


if __name__ == "__main__":
    sys.exit(main())
