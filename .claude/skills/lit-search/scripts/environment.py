"""The launcher's private Python environment: found, or built once, with the standard library only.

The skill runs under whatever ``python3`` Claude Code finds, usually the system's, which has
none of lit-search's dependencies. When the package cannot be imported, and the plugin carries
its own source (``pyproject.toml``, ``src/`` and the pinned ``requirements.lock`` at the plugin
root), a venv is built once under ``$CLAUDE_PLUGIN_DATA`` (set by Claude Code for a plugin),
else under the user data folder, and the command is run again inside it. Later runs reuse it; a
new package version or new pins rebuild it. Several first runs at once wait on one lock and
build it once. Any failure ends in one line naming the command that fixes it.

This file cannot use the package (it runs before the package is importable), so the data
folder rule is written again here, in its shortest form (see litsearch/core/config.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

BOOTSTRAPPED = "LITSEARCH_BOOTSTRAPPED"  # set in the environment's own run: never build twice
LOCK_WAIT_SECONDS = 600  # another process building the environment: wait this long at most


class SetupFailed(Exception):
    """One line for the user: what failed and the command that fixes it."""


def plugin_root(skill_dir: Path) -> Path | None:
    """The folder holding the package source: <root>/.claude/skills/lit-search -> <root>."""
    root = skill_dir.parent.parent.parent
    needed = (root / "pyproject.toml", root / "src" / "litsearch" / "__init__.py", root / "requirements.lock")
    return root if all(path.is_file() for path in needed) else None


def data_folder() -> Path:
    """$CLAUDE_PLUGIN_DATA, else lit-search's user data folder (as litsearch.core.config)."""
    if os.environ.get("CLAUDE_PLUGIN_DATA"):
        return Path(os.environ["CLAUDE_PLUGIN_DATA"])
    if os.environ.get("LITSEARCH_CACHE_DIR"):
        return Path(os.environ["LITSEARCH_CACHE_DIR"])
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "lit-search"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "lit-search"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "lit-search"


def environment_python(root: Path) -> Path:
    """The environment's interpreter, built first when missing or out of date."""
    folder = data_folder() / f"python{sys.version_info[0]}.{sys.version_info[1]}-env"
    wanted = _identity(root)
    python = _python_in(folder)
    if _current(folder, wanted):
        return python
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _Lock(folder.with_name(folder.name + ".lock")):
        if not _current(folder, wanted):  # another process may have built it meanwhile
            _build(folder, root, wanted)
    return python


def _identity(root: Path) -> dict:
    """What the environment was built from: the package version and the pins."""
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.M)
    pins = hashlib.sha256((root / "requirements.lock").read_bytes() + pyproject.encode()).hexdigest()
    return {"version": version.group(1) if version else "?", "pins": pins}


def _marker(folder: Path) -> Path:
    return folder / "lit-search-environment.json"


def _current(folder: Path, wanted: dict) -> bool:
    try:
        return json.loads(_marker(folder).read_text(encoding="utf-8")) == wanted and _python_in(folder).exists()
    except (OSError, ValueError):
        return False


def _python_in(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _build(folder: Path, root: Path, wanted: dict) -> None:
    import shutil  # building is rare: a run that finds its environment does not load these

    print(f"lit-search: first run: installing lit-search {wanted['version']} and its pinned dependencies "
          f"into {folder} (once, about a minute)…", file=sys.stderr, flush=True)
    building = folder.with_name(f"{folder.name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    try:
        _run([sys.executable, "-m", "venv", str(building)],
             f"cannot create a Python environment with {sys.executable} (its venv module is missing or "
             "broken); install your system's venv package (e.g. `sudo apt install python3-venv`) and retry, "
             f"or install lit-search yourself: `pipx install {root}`")
        _run([str(_python_in(building)), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
              "--quiet", "-r", str(root / "requirements.lock"), str(root)],
             "cannot install lit-search's dependencies (no network or no package index?); once it is reachable "
             f"retry, or run: `{sys.executable} -m pip install -r {root / 'requirements.lock'} {root}`")
        _marker(building).write_text(json.dumps(wanted), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(building, folder)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _run(command: list[str], failure: str) -> None:
    import subprocess

    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SetupFailed(f"{failure} ({exc})") from None
    if proc.returncode != 0:
        detail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise SetupFailed(f"{failure}" + (f" (last message: {detail[-1][:200]})" if detail else ""))


class _Lock:
    """An exclusive lock file held while the environment is built (bounded wait)."""

    def __init__(self, path: Path):
        self.path = path
        self.handle = None

    def __enter__(self) -> "_Lock":
        self.handle = open(self.path, "a+")
        try:
            import fcntl
        except ImportError:  # Windows: building twice at once is the worst case
            return self
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except OSError:
                if time.monotonic() > deadline:
                    raise SetupFailed(f"another lit-search is still setting up {self.path.parent}; "
                                      "wait for it to finish and retry") from None
                time.sleep(0.5)

    def __exit__(self, *exc: object) -> None:
        self.handle.close()  # closing releases the lock
