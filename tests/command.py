"""How tests run the real command: the installed `lit-search` script next to this Python,
else `python -m litsearch` (a checkout without `pip install -e .`), in an environment of
the test's own (no LITSEARCH_* variable of the machine leaks in)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence


def lit_search_command() -> list[str]:
    script = Path(sys.executable).parent / "lit-search"
    return [str(script)] if script.exists() else [sys.executable, "-m", "litsearch"]


def command_env(*settings: dict[str, str], **variables: str) -> dict[str, str]:
    """This process's environment without any LITSEARCH_* variable, plus ``settings`` (e.g.
    the fake APIs' URLs from ``fake_apis.install``) and ``variables``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("LITSEARCH_")}
    for group in settings:
        env.update(group)
    env.update(variables)
    return env


def command_runner(env: dict[str, str], cwd: Path, *, prefix: Sequence[str] = (), timeout: float = 120,
                   preexec: Callable[[], None] | None = None) -> Callable[..., subprocess.CompletedProcess]:
    """``run(args, code=0)``: lit-search ``prefix + args`` in ``env``, from ``cwd``. Its output
    must be strict UTF-8 and carry no traceback; its exit code must be ``code`` (None: any)."""
    def run(args: Sequence[str], code: int | None = 0) -> subprocess.CompletedProcess:
        proc = subprocess.run([*lit_search_command(), *prefix, *args], capture_output=True, env=env,
                              timeout=timeout, cwd=cwd, preexec_fn=preexec)
        proc.stdout, proc.stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
        assert "Traceback" not in proc.stderr, proc.stderr
        if code is not None:
            assert proc.returncode == code, proc.stderr
        return proc
    return run
