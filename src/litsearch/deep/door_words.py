"""A deep step's message in the words of the door it came through.

The steps (deep/steps.py) say what is wrong in the command line's words: "--max-judged 200: …",
"see where it stands with `lit-search deep next review.json --show`". Through the MCP tools or the
Python API those names do not exist: a model holding only the tools cannot run a command, and
``--not`` is ``not_`` in Python. Each door passes its messages through ``in_door_words`` with its
table; the command line keeps them as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class DoorWords:
    """How one door names the deep steps' options and steps."""

    options: dict[str, str]  # "--max-judged" -> "max_judged"
    show: str  # each a step as this door asks for it; "{path}" is the session's file
    no_verdicts: str
    results: str
    start: str


_OPTIONS = ("session", "relevant", "maybe", "rest", "variant", "max-judged", "max-requests", "batch",
            "round-requests", "stop-window", "stop-yield", "show", "providers", "rerank")


def _named(**renamed: str) -> dict[str, str]:
    names = {f"--{option}": option.replace("-", "_") for option in _OPTIONS}
    names["--variant"] = "variants"
    names.update({f"--{flag}": name for flag, name in renamed.items()})
    return names


MCP_TOOLS = DoorWords(options=_named(**{"not": "not"}),
                      show="deep_search_next with show=true", no_verdicts="deep_search_next with no verdicts",
                      results="deep_search_results", start="deep_search_start")
PYTHON_API = DoorWords(options=_named(**{"not": "not_"}),
                       show="deep_next({path!r}, show=True)", no_verdicts="deep_next({path!r}) with no verdicts",
                       results="deep_results({path!r})", start="deep_start(…)")

# A command the steps suggest, quoted in backticks: which step, its file, and --show.
_COMMAND = re.compile(r"`lit-search deep (?P<step>next|results|start)(?: (?P<path>[^`]*?))?(?P<show> --show)?`"
                      r"(?P<bare> \(no verdicts\))?")
_FLAG = re.compile(r"(?<![\w-])--(?P<name>[a-z][a-z-]*)(?![\w-])")


def in_door_words(message: str, door: DoorWords) -> str:
    """``message`` with the command line's options and commands named as ``door`` names them."""

    def command(match: re.Match) -> str:
        path = _unquoted(match["path"] or "FILE")
        if match["step"] == "results":
            return door.results.format(path=path)
        if match["step"] == "start":
            return door.start
        if match["show"]:
            return door.show.format(path=path)
        return door.no_verdicts.format(path=path)

    def flag(match: re.Match) -> str:
        return door.options.get(match[0], match[0])

    return _FLAG.sub(flag, _COMMAND.sub(command, message))


def _unquoted(path: str) -> str:
    """A path as the shell quoting in a suggested command gave it ('my review.json' → my review.json)."""
    import shlex

    try:
        parts = shlex.split(path)
    except ValueError:
        return path
    return parts[0] if len(parts) == 1 else path


def retold(error: Exception, door: DoorWords) -> Exception:
    """The same error (its type, its fields) with its message in ``door``'s words."""
    import copy

    told = copy.copy(error)
    message = in_door_words(str(error), door)
    told.args = (message,)
    if hasattr(told, "message"):  # ProviderError keeps its one line here too
        told.message = message
    return told
