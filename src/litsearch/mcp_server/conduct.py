"""What each tool declares to clients beside its arguments: its conduct (MCP's tool annotations,
which clients read for their approval prompts) and the shape of its structured result (the
output schema, mcp_server/outputs.py). Every tool declares both with ``@declare``; the server
refuses to start with a tool that does not, and a test lists every tool through the SDK's
client, so a new tool cannot slip in without them.

The hints, as the MCP specification defines them:
- ``readOnlyHint``: the tool does not modify its environment (the library, files, Zotero);
- ``destructiveHint``: it may delete or overwrite (false: it only adds);
- ``idempotentHint``: calling it again with the same arguments changes nothing more;
- ``openWorldHint``: it talks to the world outside this machine (the scholarly APIs, the
  publishers' open copies).
The response cache, the pacing files and the daily-budget file are the server's own
bookkeeping, not the user's environment: a search that fills the cache is still read-only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Conduct:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def annotations(self) -> Any:
        from mcp.types import ToolAnnotations

        return ToolAnnotations(read_only_hint=self.read_only, destructive_hint=self.destructive,
                               idempotent_hint=self.idempotent, open_world_hint=self.open_world)


# Searches, lookups, citation chasing, OpenAlex's entities, full texts: asks the APIs, changes nothing here.
ASKS_THE_APIS = Conduct(read_only=True, destructive=False, idempotent=True, open_world=True)
# The library listing and a search's report: reads this machine (the library, a record file, the session).
READS_THIS_MACHINE = Conduct(read_only=True, destructive=False, idempotent=True, open_world=False)
# library_save: writes the library, adding papers and links and merging a saved paper's record
# with what was found (nothing is removed); saving the same papers again changes nothing more.
# By id it looks the papers up at the APIs first.
ADDS_TO_THE_LIBRARY = Conduct(read_only=False, destructive=False, idempotent=True, open_world=True)


def declare(conduct: Conduct, output: type) -> Callable[[F], F]:
    """Mark a tool function with its conduct and its structured result's model."""
    def mark(function: F) -> F:
        function.conduct = conduct  # type: ignore[attr-defined]
        function.output = output  # type: ignore[attr-defined]
        return function
    return mark


def declared(function: Callable[..., Any]) -> tuple[Conduct, type]:
    """(conduct, output model) of a tool; RuntimeError for a tool that declares none, so the
    server does not start with it."""
    conduct, output = getattr(function, "conduct", None), getattr(function, "output", None)
    if not isinstance(conduct, Conduct) or not isinstance(output, type):
        raise RuntimeError(f"the MCP tool {function.__name__} declares no conduct and output (use @declare)")
    return conduct, output
