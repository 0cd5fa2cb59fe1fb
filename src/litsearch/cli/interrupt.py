"""Ctrl-C, said once: one line on stderr and exit 130, at any moment of any command."""

from .. import INTERRUPTED


def interrupted(prog: str = "lit-search") -> int:
    import sys

    try:
        print(f"{prog}: interrupted", file=sys.stderr, flush=True)
    except (OSError, ValueError, KeyboardInterrupt):  # stderr gone, or a second Ctrl-C: the code still counts
        pass
    return INTERRUPTED
