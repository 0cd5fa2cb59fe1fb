"""Ctrl-C, said once: one line on stderr and exit 130, at any moment of any command."""

from .. import INTERRUPTED


class StepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a step that leaves a file behind: ``hint`` says where it stands."""

    def __init__(self, hint: str):
        super().__init__(hint)
        self.hint = hint


def interrupted(prog: str = "lit-search", hint: str = "") -> int:
    import sys
    import warnings

    # What the interrupt left half-made is reported when the interpreter collects it on the way
    # out: a coroutine created but never awaited ("RuntimeWarning: coroutine … was never
    # awaited"), an event loop whose construction the signal cut ("Exception ignored in
    # BaseEventLoop.__del__"). Each is the interrupt itself, said again as a traceback; this
    # line has said it.
    sys.unraisablehook = lambda _unraisable: None
    warnings.simplefilter("ignore")
    try:
        print(f"{prog}: interrupted" + (f"; {hint}" if hint else ""), file=sys.stderr, flush=True)
    except (OSError, ValueError, KeyboardInterrupt):  # stderr gone, or a second Ctrl-C: the code still counts
        pass
    return INTERRUPTED
