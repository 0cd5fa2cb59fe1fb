"""lit-search: one ranked, deduplicated table from several scholarly APIs."""

INTERRUPTED = 130  # ExitCode.INTERRUPTED: 128 + SIGINT, as shells report a command ended by Ctrl-C


def _quiet_until_main() -> None:
    """The console script imports this package (this file first, so as early as can be), then
    its modules, then runs a line of its own before calling main: a Ctrl-C there would print a
    traceback. Only in that script, and only until main starts, Ctrl-C ends the process at once
    with one line and exit 130."""
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

__version__ = "0.1.0"
