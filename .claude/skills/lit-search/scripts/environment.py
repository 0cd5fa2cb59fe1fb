"""The launcher's private Python environment: found, or built once, with the standard library only.

The skill runs under whatever ``python3`` Claude Code finds, usually the system's, which has
none of lit-search's dependencies. When the package cannot be imported, and the plugin carries
its own source (``pyproject.toml``, ``src/`` and the pinned ``requirements.lock`` at the plugin
root), a venv is built once and the command is run again inside it.

One environment per lit-search version and Python, in lit-search's data folder
(``$LITSEARCH_CACHE_DIR``, else the user data folder): ``environments/0.2.0-python3.11``. The
skill's command, the MCP server, the provider scripts and ``scripts/install.py`` all find the
same one: Claude Code's ``$CLAUDE_PLUGIN_DATA`` is not used, because it reaches the MCP server
but not the skill's shell commands. New pins for the same version rebuild it in place.

A build holds ``<name>.lock`` (an flock, passed on to pip so that an orphaned pip still holds
it), builds into ``<name>.building-PID`` and renames it into place. Whatever a killed build
leaves (that folder, a half-removed ``<name>.old-PID``, the lock file) is removed by the next
build or the next run that finds its environment, once its lock is free. After a build, other
versions' environments unused for ``UNUSED_DAYS`` are removed, unless a command written by
``scripts/install.py`` still runs one.

``python3 environment.py ROOT`` builds (or waits for) the environment of the plugin at ROOT and
exits 0, or 2 with one line: the MCP launcher runs it in the background, in its own session,
so that the build outlives a client that gives up on the server.

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
UNUSED_DAYS = 7  # another version's environment unused this long goes after the next build
TOUCHED_EVERY = 3600  # seconds: how fresh "last used" (the marker's mtime) is kept
MARKER = "lit-search-environment.json"
TERMINAL_COMMANDS = "terminal-commands"  # scripts/install.py's commands that run this environment
LEFTOVERS = (".building-", ".old-")


class SetupFailed(Exception):
    """One line for the user: what failed and the command that fixes it."""


def plugin_root(skill_dir: Path) -> Path | None:
    """The folder holding the package source: <root>/.claude/skills/lit-search -> <root>."""
    root = skill_dir.parent.parent.parent
    needed = (root / "pyproject.toml", root / "src" / "litsearch" / "__init__.py", root / "requirements.lock")
    return root if all(path.is_file() for path in needed) else None


def data_folder() -> Path:
    """$LITSEARCH_CACHE_DIR, else lit-search's user data folder (as litsearch.core.config)."""
    if os.environ.get("LITSEARCH_CACHE_DIR", "").strip():
        return Path(os.environ["LITSEARCH_CACHE_DIR"].strip()).expanduser()
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local") / "lit-search"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "lit-search"
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share") / "lit-search"


def environments_folder() -> Path:
    return data_folder() / "environments"


def identity(root: Path) -> dict:
    """What an environment is built from: the package version and the pins."""
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.M)
    pins = hashlib.sha256((root / "requirements.lock").read_bytes() + pyproject.encode()).hexdigest()
    return {"version": version.group(1) if version else "unknown", "pins": pins}


def environment_folder(root: Path) -> Path:
    version = re.sub(r"[^A-Za-z0-9.+-]", "_", identity(root)["version"])
    return environments_folder() / f"{version}-python{sys.version_info[0]}.{sys.version_info[1]}"


def python_in(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def ready_python(root: Path) -> Path | None:
    """The environment's interpreter when it is built and current, else None (never builds)."""
    folder = environment_folder(root)
    return python_in(folder) if _current(folder, identity(root)) else None


def environment_python(root: Path) -> Path:
    """The environment's interpreter, built first when missing or out of date."""
    folder, wanted = environment_folder(root), identity(root)
    if _current(folder, wanted):
        remove_leftovers(folder.parent)  # a build killed after its rename leaves an .old- folder
        return python_in(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with Lock(_lock_path(folder), waiting=f"waiting for another lit-search to finish setting up {folder}…") as lock:
        if not _current(folder, wanted):  # another process may have built it meanwhile
            remove_leftovers(folder.parent, holding=folder.name)
            _build(folder, root, wanted, lock)
            remove_unused(folder.parent, keep=folder)
    return python_in(folder)


def _lock_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".lock")


def _current(folder: Path, wanted: dict) -> bool:
    marker = folder / MARKER
    try:
        if json.loads(marker.read_text(encoding="utf-8")) != wanted or not python_in(folder).exists():
            return False
    except (OSError, ValueError):
        return False
    try:  # last used: what remove_unused reads
        if time.time() - marker.stat().st_mtime > TOUCHED_EVERY:
            os.utime(marker)
    except OSError:
        pass
    return True


def _say(line: str) -> None:
    try:
        print(f"lit-search: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # the MCP launcher that started this build is gone: build on
        pass


def _build(folder: Path, root: Path, wanted: dict, lock: "Lock") -> None:
    import shutil  # building is rare: a run that finds its environment does not load these

    _say(f"first run: installing lit-search {wanted['version']} and its pinned dependencies "
         f"into {folder} (once, about a minute)…")
    building = folder.with_name(f"{folder.name}.building-{os.getpid()}")
    keep = lock.fds()
    try:
        _run([sys.executable, "-m", "venv", str(building)],
             f"cannot create a Python environment with {sys.executable} (its venv module is missing or "
             "broken); install your system's venv package (e.g. `sudo apt install python3-venv`) and retry, "
             f"or install lit-search yourself: `pipx install {root}`", keep)
        _run([str(python_in(building)), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
              "--quiet", "-r", str(root / "requirements.lock"), str(root)],
             "cannot install lit-search's dependencies (no network or no package index?); once it is reachable "
             f"retry, or run: `{sys.executable} -m pip install -r {root / 'requirements.lock'} {root}`", keep)
        (building / MARKER).write_text(json.dumps(wanted), encoding="utf-8")
        old = folder.with_name(f"{folder.name}.old-{os.getpid()}")
        if folder.exists():
            os.replace(folder, old)
        os.replace(building, folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _run(command: list[str], failure: str, keep: tuple[int, ...]) -> None:
    import subprocess

    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=900, pass_fds=keep,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SetupFailed(f"{failure} ({exc})") from None
    if proc.returncode != 0:
        detail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise SetupFailed(f"{failure}" + (f" (last message: {detail[-1][:200]})" if detail else ""))


# ---------------------------------------------------------------- what builds leave behind


def remove_leftovers(environments: Path, holding: str | None = None) -> None:
    """Remove what killed builds left: <name>.building-PID and <name>.old-PID folders and
    <name>.lock files whose lock nobody holds (``holding``: the name whose lock we hold)."""
    import shutil

    try:
        entries = sorted(environments.iterdir())
    except OSError:
        return
    for entry in entries:
        base = _leftover_of(entry.name)
        if base is None:
            if entry.name.endswith(".lock") and entry.name[:-5] != holding:
                with Lock.try_hold(entry):  # free: its build is over; leaving unlinks it
                    pass
            continue
        if base == holding:
            shutil.rmtree(entry, ignore_errors=True)
            continue
        with Lock.try_hold(environments / f"{base}.lock") as lock:
            if lock is not None:
                shutil.rmtree(entry, ignore_errors=True)


def _leftover_of(name: str) -> str | None:
    for infix in LEFTOVERS:
        base, found, pid = name.rpartition(infix)
        if found and base and pid.isdigit():
            return base
    return None


def remove_unused(environments: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove other environments (other versions or Pythons) unused for UNUSED_DAYS, unless a
    command written by scripts/install.py still runs them. Returns what was removed."""
    import shutil

    now = time.time() if now is None else now
    removed = []
    for entry in sorted(environments.iterdir()) if environments.is_dir() else []:
        marker = entry / MARKER
        if entry == keep or not marker.is_file() or _leftover_of(entry.name) is not None:
            continue
        try:
            if now - marker.stat().st_mtime < UNUSED_DAYS * 86400 or _run_by_a_terminal_command(entry):
                continue
        except OSError:
            continue
        with Lock.try_hold(_lock_path(entry)) as lock:
            if lock is None:
                continue
            old = entry.with_name(f"{entry.name}.old-{os.getpid()}")
            try:
                os.replace(entry, old)
            except OSError:
                continue
            shutil.rmtree(old, ignore_errors=True)
            removed.append(entry)
    return removed


def _run_by_a_terminal_command(folder: Path) -> bool:
    try:
        scripts = (folder / TERMINAL_COMMANDS).read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    python = str(python_in(folder))
    for script in filter(None, scripts):
        try:
            if python in Path(script).read_text(encoding="utf-8", errors="replace")[:2000]:
                return True
        except OSError:
            continue
    return False


def remove_plugin_data_environments() -> None:
    """Remove the environments lit-search before 0.2.0 built under $CLAUDE_PLUGIN_DATA (a
    second copy, ~96 MB, that only its MCP server used)."""
    import shutil

    folder = os.environ.get("CLAUDE_PLUGIN_DATA", "").strip()
    try:
        entries = sorted(Path(folder).iterdir()) if folder else []
    except OSError:
        return
    for entry in entries:
        base = _leftover_of(entry.name) or entry.name
        if not re.fullmatch(r"python\d+\.\d+-env", base) or not entry.is_dir():
            continue
        with Lock.try_hold(entry.with_name(base + ".lock")) as lock:
            if lock is not None:
                shutil.rmtree(entry, ignore_errors=True)


class Lock:
    """An exclusive flock on ``path`` (bounded wait). The holder unlinks the file when it is
    done, so a lock file exists only while a build runs or after one was killed; a waiter
    that locked a file since unlinked tries again on the new one."""

    def __init__(self, path: Path, waiting: str = "", blocking: bool = True):
        self.path, self.waiting, self.blocking = path, waiting, blocking
        self.handle = None

    @classmethod
    def try_hold(cls, path: Path) -> "Lock":
        """Use as ``with Lock.try_hold(p) as lock``: lock is None when another process holds it."""
        return cls(path, blocking=False)

    def fds(self) -> tuple[int, ...]:
        return (self.handle.fileno(),) if self.handle is not None else ()

    def __enter__(self) -> "Lock | None":
        try:
            import fcntl
        except ImportError:  # Windows: building twice at once is the worst case; leftovers stay
            return self if self.blocking else None
        deadline, said = time.monotonic() + LOCK_WAIT_SECONDS, False
        while True:
            try:
                handle = open(self.path, "a+")
            except OSError:
                if not self.blocking:
                    return None
                raise
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                if not self.blocking:
                    return None
                if self.waiting and not said:
                    _say(self.waiting)
                    said = True
                if time.monotonic() > deadline:
                    raise SetupFailed(f"another lit-search is still setting up {self.path.parent}; "
                                      "wait for it to finish and retry") from None
                time.sleep(0.5)
                continue
            if _same_file(handle, self.path):
                self.handle = handle
                return self
            handle.close()  # its holder unlinked it meanwhile: lock the new one

    def __exit__(self, *exc: object) -> None:
        if self.handle is None:
            return
        try:
            os.unlink(self.path)  # before unlocking: a waiter then sees the file gone and retries
        except OSError:
            pass
        self.handle.close()
        self.handle = None


def _same_file(handle, path: Path) -> bool:
    try:
        held, named = os.fstat(handle.fileno()), os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def main(argv: list[str]) -> int:
    """``python3 environment.py ROOT``: the background build the MCP launcher starts."""
    try:
        environment_python(Path(argv[0]))
    except SetupFailed as failure:
        _say(str(failure))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
