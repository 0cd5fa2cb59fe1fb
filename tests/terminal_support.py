"""Running the command with stderr on a pseudo-terminal, and what that terminal shows at the end
(for the live status lines, which are drawn only there)."""

from __future__ import annotations

import os
import pty
import re
import subprocess

from command import lit_search_command


def run_with_terminal_stderr(args: list[str], env: dict[str, str], cwd=None, timeout: float = 60,
                             ) -> tuple[str, str, int]:
    """(stdout, everything written to the terminal on stderr, the exit code)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(lit_search_command() + args, stdout=subprocess.PIPE, stderr=follower, env=env, cwd=cwd)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    out, _ = proc.communicate(timeout=timeout)
    os.close(leader)
    return out.decode(), b"".join(chunks).decode(), proc.returncode


def screen(raw: str) -> list[str]:
    """What the terminal shows at the end: the lines after cursor moves and line clears."""
    lines, row = [""], 0
    for token in re.findall(r"\x1b\[(\d+)([AB])|\x1b\[K|(\r\n|\n)|(\r)|([^\x1b\r\n]+)", raw):
        count, move, newline, carriage, text = token
        if move == "A":
            row -= int(count)
        elif move == "B":
            row += int(count)
        elif newline:
            row += 1
        elif text:
            while len(lines) <= row:
                lines.append("")
            lines[row] = lines[row] + text if not carriage else text
        if carriage or move:
            while len(lines) <= row:
                lines.append("")
            lines[row] = "" if carriage else lines[row]
    return [line for line in lines if line]
