"""A lit-search plugin as a user gets it, for the launcher and Claude Code tests.

``plugin_copy`` copies the files git tracks (and new, not ignored ones), as a clone of the
repository holds them: no .venv, no node_modules, no caches. ``python_without_packages``
writes a ``python3`` that runs this machine's base interpreter with no site-packages: the
system Python of a researcher who never installed httpx.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

SKILL = Path(".claude") / "skills" / "lit-search"


def plugin_copy(destination: Path) -> Path:
    """The repository's tracked files under ``destination``; returns it."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def python_without_packages(folder: Path) -> Path:
    """A ``python3`` in ``folder`` that cannot import anything but the standard library."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{getattr(sys, "_base_executable", sys.executable)}" -S "$@"\n')
    shim.chmod(0o755)
    return shim


def pip_cache(tmp_path_factory) -> str:
    """One pip download cache for the session, shared by pytest-xdist's workers (each has a
    folder of its own under one root): installs stay real but fetch and build each wheel once."""
    base = tmp_path_factory.getbasetemp()
    return str((base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "pip-cache")


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without lit-search's and the venv's settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LITSEARCH_", "VIRTUAL_ENV", "PYTHON", "CLAUDE_PLUGIN"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(Path(sys.executable).parent)))
    env.update(extra)
    return env
