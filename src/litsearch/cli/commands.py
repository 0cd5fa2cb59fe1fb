"""Every ``lit-search`` command: its name, the module that runs it, what it takes and one line
saying what it does. The dispatcher picks from this table, ``lit-search --help`` lists it, and
``cli/first_word.py`` reads it to tell a mistyped command from a topic; a command added here is
all three at once (tests/cli/test_first_word.py checks that --help names each)."""

from __future__ import annotations

from dataclasses import dataclass

from ..providers.openalex_entity_kinds import KINDS


@dataclass(frozen=True)
class Command:
    name: str
    module: str
    usage: str  # what follows the name in --help
    summary: str
    # What the first word after the name is when the words are this command's arguments
    # (cli/first_word.py): "paper id", "action", "file", "record" or "" (nothing required).
    takes: str = ""
    actions: tuple[str, ...] = ()  # for takes == "action"
    # Words users type for what an action with an option does (``deep show`` is ``deep next
    # FILE --show``): (word, "action --option"), offered by the "did you mean" of cli/first_word.py.
    other_words: tuple[tuple[str, str], ...] = ()


# OpenAlex's entities, each a command with its actions (list, get; find for works; autocomplete
# where the explorer design has it): providers/openalex_entity_kinds.py.
ENTITY_NAMES = tuple(KINDS)
LIBRARY_ACTIONS = ("list", "show", "export", "remove", "link")

_TABLE = (
    Command("search", "litsearch.cli.search", "[search] TOPIC…",
            "search, merge and rank (this one; write `search` when a topic starts with a command's name)",
            takes="topic"),
    Command("paper", "litsearch.cli.paper", "paper ID", "one paper: its record, references and citing papers",
            takes="paper id"),
    Command("network", "litsearch.cli.network", "network ID…", "the citation network around seed papers",
            takes="paper id"),
    Command("snowball", "litsearch.cli.snowball", "snowball SEED…",
            "citation chasing: the seeds' references and citing papers, ranked", takes="paper id"),
    Command("deep", "litsearch.cli.deep", "deep start|next|results",
            "a deep search: you judge batches, it chases citations until the search is saturated",
            takes="action", actions=("start", "next", "results"),
            other_words=(("show", "next --show"), ("status", "next --show"))),
    Command("read", "litsearch.cli.read", "read ID", "the full text of an open copy of one paper, in sections",
            takes="paper id"),
    Command("library", "litsearch.cli.library", "library ACTION",
            f"the saved papers: {', '.join(LIBRARY_ACTIONS)}", takes="action", actions=LIBRARY_ACTIONS),
    Command("dedupe", "litsearch.cli.dedupe", "dedupe FILE", "the duplicate records of a bibliographic export",
            takes="file"),
    Command("report", "litsearch.cli.report", "report RECORD",
            "a recorded search's methods paragraph and PRISMA table", takes="record"),
    Command("rerun", "litsearch.cli.rerun", "rerun RECORD", "a recorded search again: only the new papers",
            takes="record"),
    Command("zotero", "litsearch.cli.zotero", "zotero push", "papers into a Zotero collection, without duplicates",
            takes="action", actions=("push",)),
    Command("doctor", "litsearch.cli.doctor", "doctor [--check]",
            "the keys set, what missing ones cost; --check asks each API once"),
    Command("mcp", "litsearch.cli.mcp", "mcp [--http PORT]", "the MCP server (stdio, or HTTP on 127.0.0.1)"),
    *(Command(name, "litsearch.cli.entity", f"{name} {'|'.join(kind.actions)}",
              f"OpenAlex's {kind.plural}: {', '.join(kind.actions)}", takes="action", actions=kind.actions)
      for name, kind in KINDS.items()),
)
COMMANDS: dict[str, Command] = {command.name: command for command in _TABLE}


def commands_help(width: int = 92) -> str:
    """The ``commands:`` paragraph of ``lit-search --help``: every command, one line each
    (the ten OpenAlex entity commands share one)."""
    rows = [(command.usage, command.summary) for command in _TABLE if command.name not in ENTITY_NAMES]
    rows.append(("|".join(ENTITY_NAMES) + " list|get|…",
                 "OpenAlex alone: list (search, filters), get; work find (by meaning); autocomplete"))
    column = max(len(usage) for usage, _ in rows if len(usage) < 24) + 2
    lines = ["commands (each has --help):"]
    for usage, summary in rows:
        if len(usage) + 2 > column:  # too long for the column: the summary on the next line
            lines += [f"  {usage}", f"  {'':{column}}{summary}"]
        else:
            lines.append(f"  {usage:{column}}{summary}")
    return "\n".join(_fit(line, column + 2, width) for line in lines)


def _fit(line: str, indent: int, width: int) -> str:
    import textwrap

    return textwrap.fill(line, width=width, subsequent_indent=" " * indent, break_on_hyphens=False,
                         break_long_words=False)
