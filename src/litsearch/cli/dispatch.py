"""``lit-search``: dispatch to the subcommand named first, else search.

``lit-search TOPIC…`` and ``lit-search search TOPIC…`` both search; the explicit form is
for a topic whose first word is a subcommand's name (``lit-search search network analysis``).
Each subcommand's module is imported only when it runs, so a search never loads the others.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Sequence

from ..core.errors import ExitCode
from . import first_word
from .common import message_line
from .commands import COMMANDS as TABLE
from .commands import ENTITY_NAMES

# A topic may start with a subcommand's name ("network analysis of brain connectivity",
# "paper mills", "library services"): when its words fail as that subcommand's arguments,
# the error suggests the explicit search (cli/first_word.py).
COMMANDS = {name: command.module for name, command in TABLE.items()}
ENTITY_COMMANDS = ENTITY_NAMES  # OpenAlex's entities: `lit-search author list QUERY`, `lit-search author get ID`, …


def main(argv: Sequence[str] | None = None) -> int:
    argv = [_decoded(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    logging.basicConfig(level=logging.WARNING, format="lit-search: %(message)s", stream=sys.stderr)
    if (mistyped := first_word.mistyped_command(argv)) is not None:  # before any work: nothing is sent
        message_line(f"lit-search: {first_word.mistyped_hint(mistyped, argv)}")
        return ExitCode.USAGE
    if not argv or argv[0] not in COMMANDS or first_word.entity_topic(argv):
        code = _environment_problem() or importlib.import_module(COMMANDS["search"]).main(argv)
        if code == ExitCode.USAGE and argv and argv[0] in ENTITY_COMMANDS:  # "author lst --search x"
            _say_action_meant(argv[0], argv[1:])
        return code
    name, rest = argv[0], argv[1:]
    if name != "doctor" and (problem := _environment_problem()):  # doctor reports it instead
        return problem
    command = importlib.import_module(COMMANDS[name])
    code = command.main([name, *rest] if name in ENTITY_COMMANDS else rest)
    if code == ExitCode.USAGE and name != "deep":  # deep names the step meant in its own error
        _say_action_meant(name, rest)
    if code == ExitCode.USAGE and (hint := first_word.topic_hint(name, rest)):
        message_line(hint)
    return code


def _say_action_meant(name: str, rest: list[str]) -> None:
    """After a usage error: the command line meant when the first word after an action command
    is a mistyped action (``library shw 10.1/x``, ``zotero psh x.bib``)."""
    meant = first_word.mistyped_action(TABLE[name], rest)
    if meant:
        message_line(f"did you mean `{meant}`?")


def _environment_problem() -> int:
    """Every environment variable checked once, before any work: 0 when all can be used, else
    exit 2 after one line naming the variable (core/environment.py)."""
    from ..core.errors import ConfigError
    from ..runtime.settings import settings_from_env
    from .common import run_command

    def check() -> int:
        try:
            settings_from_env()
        except ValueError as problem:
            raise ConfigError(str(problem)) from None
        return ExitCode.OK

    return run_command("lit-search", check)


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
