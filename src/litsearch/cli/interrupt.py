"""Ctrl-C, said once: one line on stderr and exit 130, at any moment of any command."""

from .. import INTERRUPTED


class StepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a step that leaves a file behind: ``hint`` says where it stands."""

    def __init__(self, hint: str):
        super().__init__(hint)
        self.hint = hint


def interrupted(prog: str = "lit-search", hint: str = "") -> int:
    import sys

    try:
        print(f"{prog}: interrupted" + (f"; {hint}" if hint else ""), file=sys.stderr, flush=True)
    except (OSError, ValueError, KeyboardInterrupt):  # stderr gone, or a second Ctrl-C: the code still counts
        pass
    return INTERRUPTED
