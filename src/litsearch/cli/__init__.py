"""The ``lit-search`` command: ``dispatch`` picks the module of the subcommand; ``common``
holds what they share (options, exit codes, the output writer); ``interrupt`` says Ctrl-C and
SIGTERM."""

from .interrupt import interrupted, terminate_like_ctrl_c, was_terminated


def main(argv=None) -> int:
    """The ``lit-search`` console script (see cli/dispatch.py). Ctrl-C at any moment, even
    while the modules are still loading, ends with one line and exit 130, never a traceback; SIGTERM
    with one line and exit 143, once main runs (before, nothing was read or written)."""
    import signal
    import threading

    try:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)  # from here on, KeyboardInterrupt
            terminate_like_ctrl_c()
        from .dispatch import main as run

        return run(argv)
    except KeyboardInterrupt as interrupt:
        return interrupted(terminated=was_terminated(interrupt))
