"""The ``lit-search`` command: ``dispatch`` picks the module of the subcommand; ``common``
holds what they share (options, exit codes, the output writer)."""

INTERRUPTED = 130  # ExitCode.INTERRUPTED: 128 + SIGINT, as shells report a command ended by Ctrl-C


def _quiet_until_main() -> None:
    """The console script imports this package, then runs a line of its own (``re.sub`` on
    argv[0]) before calling main: a Ctrl-C there would print a traceback. Only in that
    script, and only until main starts, Ctrl-C ends the process at once with exit 130."""
    import os
    import signal
    import sys
    import threading

    if os.path.basename(sys.argv[0] if sys.argv else "") not in ("lit-search", "lit-search.exe") or \
            threading.current_thread() is not threading.main_thread():
        return

    def stop(_signal, _frame):
        try:
            os.write(2, b"lit-search: interrupted\n")
        finally:
            os._exit(INTERRUPTED)

    signal.signal(signal.SIGINT, stop)


_quiet_until_main()


def main(argv=None) -> int:
    """The ``lit-search`` console script (see cli/dispatch.py). Ctrl-C at any moment, even
    while the modules are still loading, ends with one line and exit 130, never a traceback."""
    import signal
    import threading

    try:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)  # from here on, KeyboardInterrupt
        from .dispatch import main as run

        return run(argv)
    except KeyboardInterrupt:
        return interrupted()


def interrupted(prog: str = "lit-search") -> int:
    import sys

    try:
        print(f"{prog}: interrupted", file=sys.stderr, flush=True)
    except (OSError, ValueError, KeyboardInterrupt):  # stderr gone, or a second Ctrl-C: the code still counts
        pass
    return INTERRUPTED
