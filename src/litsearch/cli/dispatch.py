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

COMMANDS = {
    "search": "litsearch.cli.search",
    "paper": "litsearch.cli.paper",
    "network": "litsearch.cli.network",
    "library": "litsearch.cli.library",
    "dedupe": "litsearch.cli.dedupe",
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    logging.basicConfig(level=logging.WARNING, format="lit-search: %(message)s", stream=sys.stderr)
    if argv and argv[0] in COMMANDS:
        name, argv = argv[0], argv[1:]
    else:
        name = "search"
    return importlib.import_module(COMMANDS[name]).main(argv)


if __name__ == "__main__":
    sys.exit(main())
