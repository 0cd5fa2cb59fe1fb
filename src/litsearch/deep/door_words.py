"""A deep step's message in the words of the door it came through.

The steps (deep/steps.py) say what is wrong in the command line's words: "--max-judged 200: …",
"see where it stands with `lit-search deep next review.json --show`". Through the MCP tools or the
Python API those names do not exist: a model holding only the tools cannot run a command, and
``--not`` is ``not_`` in Python. Each door passes its messages through ``in_door_words`` with its
table (the MCP tools their step text's own sentences too: render/deep.py ``step_markdown``'s
``own``); the command line keeps them as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class DoorWords:
    """How one door names the deep steps' options and steps."""

    options: dict[str, str]  # "--max-judged" -> "max_judged"
    steps: dict[str, str]  # "next" -> "deep_search_next", "report" -> …
    call: str  # a step with its arguments: "{step} with {arguments}", "{step}({path!r}, {arguments})"
    bare: str  # a step with none
    joined: str  # between two arguments
    true: str  # a flag given alone ("show=true")
    no_verdicts: str  # `deep next FILE` (no verdicts), the step that runs a round owed
    new_session: str  # `deep start` named alone: how a session is started at this door


_OPTIONS = ("session", "relevant", "maybe", "rest", "variant", "max-judged", "max-requests", "batch",
            "round-requests", "stop-window", "stop-yield", "show", "providers", "rerank", "all", "rejected",
            "format")


def _named(**renamed: str) -> dict[str, str]:
    names = {f"--{option}": option.replace("-", "_") for option in _OPTIONS}
    names["--variant"] = "variants"
    names.update({f"--{flag}": name for flag, name in renamed.items()})
    return names


MCP_TOOLS = DoorWords(options=_named(**{"not": "not"}),
                      steps={"next": "deep_search_next", "results": "deep_search_results",
                             "start": "deep_search_start", "report": "search_report"},
                      call="{step} with {arguments}", bare="{step}", joined=", ", true="true",
                      no_verdicts="deep_search_next with no verdicts", new_session="deep_search_start")
PYTHON_API = DoorWords(options=_named(**{"not": "not_", "all": "include_unjudged", "rejected": "include_rejected"}),
                       steps={"next": "deep_next", "results": "deep_results", "start": "deep_start"},
                       call="{step}({path!r}, {arguments})", bare="{step}({path!r})", joined=", ", true="True",
                       no_verdicts="deep_next({path!r}) with no verdicts",
                       new_session="deep_start(topic, session)")

# A command the steps suggest, quoted in backticks: the step, then its file and arguments.
_COMMAND = re.compile(r"`lit-search (?:deep (?P<step>next|results|start)|(?P<report>report))(?P<rest>[^`]*)`"
                      r"(?P<bare> \(no verdicts\))?")
# An option alone in backticks, with its value: `--rest maybe`, `--variant "…"`.
_OPTION = re.compile(r"`(?P<flag>--[a-z][a-z-]*)(?: (?P<value>[^`]*))?`")
_FLAG = re.compile(r"(?<![\w-])--(?P<name>[a-z][a-z-]*)(?![\w-])")


def in_door_words(message: str, door: DoorWords) -> str:
    """``message`` with the command line's options and commands named as ``door`` names them."""

    def command(match: re.Match) -> str:
        step = "report" if match["report"] else match["step"]
        words = _split(match["rest"])
        path = words.pop(0) if words and not words[0].startswith("--") else "FILE"
        arguments = _arguments(words, door)
        if not arguments and match["bare"] and step == "next":
            return door.no_verdicts.format(path=path)
        if step == "start" and not words and path == "FILE":  # no topic, no file: the step itself
            return door.new_session
        if step not in door.steps:  # no such step at this door (a report in Python): the command as it is
            return match[0]
        if step == "report" and path != "FILE":
            arguments = [f"record={path}", *arguments]
        said = (door.call if arguments else door.bare).format(step=door.steps[step], path=path,
                                                              arguments=door.joined.join(arguments))
        return said + (match["bare"] or "")

    def option(match: re.Match) -> str:
        if match["flag"] not in door.options:
            return match[0]
        return "`" + door.joined.join(_arguments([match["flag"], *_split(match["value"] or "")], door)) + "`"

    def flag(match: re.Match) -> str:
        return door.options.get(match[0], match[0])

    return _FLAG.sub(flag, _OPTION.sub(option, _COMMAND.sub(command, message)))


def _split(text: str) -> list[str]:
    import shlex

    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _arguments(words: list[str], door: DoorWords) -> list[str]:
    """``--relevant ROWS --show`` as the door's arguments: relevant=ROWS, show=true."""
    said: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        name = door.options.get(word, word.lstrip("-").replace("-", "_"))
        value = words[index + 1] if index + 1 < len(words) and not words[index + 1].startswith("--") else None
        index += 2 if value is not None else 1
        if value is None:
            said.append(f"{name}={door.true}")
        elif name == "variants":
            said.append(f'{name}=["{value}"]')
        elif value.isupper() or value.isdigit():  # a placeholder (ROWS, N) or a number
            said.append(f"{name}={value}")
        else:
            said.append(f'{name}="{value}"')
    return said


def retold(error: Exception, door: DoorWords) -> Exception:
    """The same error (its type, its fields) with its message in ``door``'s words."""
    import copy

    told = copy.copy(error)
    message = in_door_words(str(error), door)
    told.args = (message,)
    if hasattr(told, "message"):  # ProviderError keeps its one line here too
        told.message = message
    return told
