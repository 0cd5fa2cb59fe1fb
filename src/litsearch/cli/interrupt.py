"""Ctrl-C and SIGTERM, said once: one line on stderr and exit 130 (Ctrl-C) or 143 (SIGTERM: a
``timeout``, a service manager, a job cancelled), at any moment of any command. Both unwind the
same way, so what a command was writing is left as its last complete step."""

import signal
import threading

from .. import INTERRUPTED
from ..core.errors import ExitCode


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command stands, as Ctrl-C's KeyboardInterrupt is: every
    ``finally`` and every handler of an interrupt runs (a save's temporaries are removed, a step
    says where its session stands), which the default action, ending the process at once, skips."""


class StepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a step that leaves a file behind: ``hint`` says where it stands."""

    def __init__(self, hint: str, terminated: bool = False):
        super().__init__(hint)
        self.hint = hint
        self.terminated = terminated


_MAIN_TASKS: list = []  # the task run_async is running, while it runs
_TERMINATING: list[bool] = []  # SIGTERM came while a task ran: run_async raises Terminated when it ends


def _raise_terminated(_signal_number, _frame):
    if not _MAIN_TASKS:
        raise Terminated()
    # In an event loop the exception would land in whichever task's code was running, end that
    # task alone and be reported as the loop closes ("Task exception was never retrieved", "Task
    # was destroyed but it is pending"). As asyncio does for Ctrl-C, the main task is cancelled
    # instead, unwinds (every ``finally`` runs), and run_async raises Terminated after it.
    _TERMINATING.append(True)
    task = _MAIN_TASKS[-1]
    task.cancel()
    task.get_loop().call_soon_threadsafe(lambda: None)  # wakes the loop if it waits in select


def run_async(coroutine):
    """``asyncio.run`` for the command line: SIGTERM while it runs unwinds the coroutine as Ctrl-C
    does (asyncio.run's own handling of SIGINT stays as it is)."""
    import asyncio
    import warnings

    async def main():
        _MAIN_TASKS.append(asyncio.current_task())
        try:
            return await coroutine
        finally:
            _MAIN_TASKS.pop()

    try:
        with warnings.catch_warnings():
            # An interrupt cancels tasks that had not started yet, and the coroutines made for them
            # ("_guarded(check_dois(…))") are collected unawaited while the loop unwinds: Python's
            # "coroutine … was never awaited", said before the interrupt's one line, is the
            # interrupt itself again. (In development such a slip is a test's to find.)
            warnings.filterwarnings("ignore", message=r"coroutine .* was never awaited", category=RuntimeWarning)
            result = asyncio.run(main())
    except asyncio.CancelledError:
        if _TERMINATING:
            _TERMINATING.clear()
            raise Terminated() from None
        raise
    if _TERMINATING:  # the coroutine caught the cancellation and returned: the signal still counts
        _TERMINATING.clear()
        raise Terminated()
    return result


def terminate_like_ctrl_c() -> None:
    """From here on SIGTERM unwinds the command as Ctrl-C does (main thread only: a handler can
    be set nowhere else)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def was_terminated(interrupt: BaseException) -> bool:
    return isinstance(interrupt, Terminated) or bool(getattr(interrupt, "terminated", False))


def interrupted(prog: str = "lit-search", hint: str = "", terminated: bool = False) -> int:
    import sys
    import warnings

    # What the interrupt left half-made is reported when the interpreter collects it on the way
    # out: a coroutine created but never awaited ("RuntimeWarning: coroutine … was never
    # awaited"), an event loop whose construction the signal cut ("Exception ignored in
    # BaseEventLoop.__del__"). Each is the interrupt itself, said again as a traceback; this
    # line has said it.
    sys.unraisablehook = lambda _unraisable: None
    warnings.simplefilter("ignore")
    said = "terminated (SIGTERM)" if terminated else "interrupted"
    try:
        print(f"{prog}: {said}" + (f"; {hint}" if hint else ""), file=sys.stderr, flush=True)
    except (OSError, ValueError, KeyboardInterrupt):  # stderr gone, or a second Ctrl-C: the code still counts
        pass
    return ExitCode.TERMINATED if terminated else INTERRUPTED
