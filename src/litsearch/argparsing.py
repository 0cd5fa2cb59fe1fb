"""One argument-parser behaviour for every lit-search command: a usage problem raises
UsageError, so each command prints its own one-line message and exits 2, never a traceback."""

from __future__ import annotations

import argparse


class UsageError(Exception):
    """Bad command-line input; the message is shown to the user as is."""


class StrictParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)
