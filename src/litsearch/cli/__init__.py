"""The ``lit-search`` command: ``dispatch`` picks the module of the subcommand; ``common``
holds what they share (options, exit codes, the output writer); ``interrupt`` says Ctrl-C."""

from .interrupt import interrupted


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
