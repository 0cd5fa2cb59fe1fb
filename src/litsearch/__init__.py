"""lit-search: one ranked, deduplicated table from several scholarly APIs."""

INTERRUPTED = 130  # ExitCode.INTERRUPTED: 128 + SIGINT, as shells report a command ended by Ctrl-C


def _quiet_until_main() -> None:
    """The console script imports this package (this file first, so as early as can be), then
    its modules, then runs a line of its own before calling main: a Ctrl-C there would print a
    traceback. Only in that script, and only until main starts, Ctrl-C ends the process at once
    with one line and exit 130.

    Installed before anything else is imported: ``_signal`` is built into the interpreter and
    ``os`` and ``sys`` are loaded by Python's start, so no import stands between the first line
    of this package and the handler (importing ``signal`` or ``threading`` here took 10-20 ms
    on a loaded machine: a window where Ctrl-C printed a traceback)."""
    import _signal
    import os
    import sys

    if os.path.basename(sys.argv[0] if sys.argv else "") not in ("lit-search", "lit-search.exe"):
        return

    def stop(_signal_number, _frame):
        try:
            os.write(2, b"lit-search: interrupted\n")
        finally:
            os._exit(INTERRUPTED)

    try:
        _signal.signal(_signal.SIGINT, stop)
    except ValueError:  # imported by a thread other than the main one: not the console script
        pass


_quiet_until_main()

__version__ = "0.4.71"
