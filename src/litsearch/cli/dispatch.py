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
    argv = [_decoded(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    logging.basicConfig(level=logging.WARNING, format="lit-search: %(message)s", stream=sys.stderr)
    if argv and argv[0] in COMMANDS:
        name, argv = argv[0], argv[1:]
    else:
        name = "search"
    return importlib.import_module(COMMANDS[name]).main(argv)


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
