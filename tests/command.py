"""How tests run the real command: the installed `lit-search` script next to this Python,
else `python -m litsearch` (a checkout without `pip install -e .`), in an environment of
the test's own (no LITSEARCH_* variable of the machine leaks in).

``command_runner(..., in_process=True)`` runs the same entry point (``litsearch.cli.main``)
inside the test's process instead, as a process of its own would see it: only the given
environment, the given working folder, a fresh process pace book, stdout and stderr of its own
(pipes, not terminals). It saves the second or more a process start costs on a loaded machine,
for tests where the door itself (argv bytes, signals, exit at interpreter shutdown, resource
limits) is not what is tested."""

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
                   preexec: Callable[[], None] | None = None,
                   in_process: bool = False) -> Callable[..., subprocess.CompletedProcess]:
    """``run(args, code=0)``: lit-search ``prefix + args`` in ``env``, from ``cwd``. Its output
    must be strict UTF-8 and carry no traceback; its exit code must be ``code`` (None: any).
    ``in_process``: in this process (see the module docstring); not with ``preexec``."""
    if in_process and preexec is not None:
        raise ValueError("a resource limit needs a process of its own")

    def run(args: Sequence[str], code: int | None = 0) -> subprocess.CompletedProcess:
        if in_process:
            proc = run_in_process([*prefix, *args], env, cwd)
        else:
            proc = subprocess.run([*lit_search_command(), *prefix, *args], capture_output=True, env=env,
                                  timeout=timeout, cwd=cwd, preexec_fn=preexec)
        proc.stdout, proc.stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
        assert "Traceback" not in proc.stderr, proc.stderr
        if code is not None:
            assert proc.returncode == code, proc.stderr
        return proc
    return run


def run_in_process(args: Sequence[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """``litsearch.cli.main(args)`` here, as a process of its own would run it: ``env`` as the
    whole environment, ``cwd`` as the working folder, no pace carried over from an earlier run
    in this process (the machine-wide pace beside the cache is kept, as between processes),
    stdout and stderr as bytes, and logging set up by the command itself. Everything is put
    back afterwards."""
    import io
    import logging

    from litsearch import cli
    from litsearch.net.pacing import PROCESS_PACE_BOOK

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdout, sys.stderr
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        PROCESS_PACE_BOOK.clear()
        root.handlers = []  # the command's basicConfig writes its log lines to this stderr
        sys.stdout, sys.stderr = stdout, stderr
        code = cli.main(list(args))
        for stream in (stdout, stderr):
            stream.flush()
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())
    finally:
        sys.stdout, sys.stderr = saved_streams
        root.handlers, root.level = saved_handlers, saved_level
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
