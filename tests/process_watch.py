"""A process watched from outside through /proc: its CPU seconds, and the wait for it to end.
A child killed at its budget is told from one that ran on to its own CPU limit by the CPU
seconds it was last seen with, not by wall-clock times."""

from __future__ import annotations

import os
import time
from pathlib import Path

HAS_PROC = Path("/proc/self/stat").exists()
GONE_WITHIN = 30  # seconds: a generous deadline for a loaded machine, far below what a busy PDF takes


def cpu_seconds(pid: int) -> float | None:
    """A running process's CPU seconds; None once it is gone (or only a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] in ("Z", "X"):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def watch_until_gone(pid: int, within: float = GONE_WITHIN) -> float:
    """Waits (``within`` seconds at most) for the process to end; the most CPU seconds it was
    seen with. AssertionError when it still runs."""
    most = 0.0
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        seen = cpu_seconds(pid)
        if seen is None:
            return most
        most = max(most, seen)
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs {within:.0f} s later")
