"""The ``lit-search`` command: ``dispatch`` picks the module of the subcommand; ``common``
holds what they share (options, exit codes, the output writer)."""


def main(argv=None) -> int:
    """The ``lit-search`` console script (see cli/dispatch.py)."""
    from .dispatch import main as run

    return run(argv)
