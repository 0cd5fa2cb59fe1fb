#!/usr/bin/env python3
"""Install the ``lit-search`` command for this user with nothing but ``python3`` (3.10 or
newer, with its venv module): for a machine without pipx or uv, where ``pip install --user``
is refused (PEP 668, Debian and Ubuntu).

    python3 scripts/install.py                  # from the lit-search checkout
    python3 scripts/install.py --bin-dir DIR    # the link somewhere else than ~/.local/bin

It builds the same private environment the Claude Code skill and its MCP server use, once: a
venv in lit-search's user data folder (``~/.local/share/lit-search/environments/VERSION-python3.X``
on Linux, or under $LITSEARCH_CACHE_DIR) holding this checkout's package and the exact versions
in requirements.lock, built in a temporary folder and renamed into place. Then it writes
``~/.local/bin/lit-search``, a short script that runs lit-search in that environment, and notes
the script in the environment, so that the clean-up of other versions' environments after a
plugin update leaves it alone. Run it again after updating the checkout: a new version gets
its own environment, new pins rebuild it. To remove it, delete that script and the environment
folder. Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_PYTHON = (3, 10)
LINK_NAME = "lit-search"
MARK = "# written by lit-search's scripts/install.py"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="install.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", type=Path, default=Path.home() / ".local" / "bin",
                        help="where to put the lit-search command (default ~/.local/bin)")
    args = parser.parse_args(argv)
    if sys.version_info < MIN_PYTHON:
        return _fail(f"needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; {sys.executable} is "
                     f"{sys.version_info[0]}.{sys.version_info[1]}")
    if os.name == "nt":
        return _fail(f"on Windows, install with pip into a venv: py -m venv lit-search-env, then "
                     f"lit-search-env\\Scripts\\pip install -r {ROOT / 'requirements.lock'} {ROOT}")
    sys.path.insert(0, str(ROOT / ".claude" / "skills" / "lit-search" / "scripts"))
    import environment

    if environment.plugin_root(ROOT / ".claude" / "skills" / "lit-search") is None:
        return _fail(f"{ROOT} is not a lit-search checkout (no pyproject.toml, src/ or requirements.lock)")
    try:
        python = environment.environment_python(ROOT)
    except environment.SetupFailed as failure:
        return _fail(str(failure))
    # A script, not a link to the venv's own bin/lit-search: that one names the folder the
    # environment was built in (then renamed) in its first line.
    link = args.bin_dir / LINK_NAME
    if (link.exists() or link.is_symlink()) and MARK not in _head(link):
        return _fail(f"{link} exists and was not written by this installer (another installation, e.g. pipx?); "
                     f"remove it, or use --bin-dir")
    args.bin_dir.mkdir(parents=True, exist_ok=True)
    temporary = args.bin_dir / f".{LINK_NAME}.{os.getpid()}"
    temporary.write_text(f'#!/bin/sh\n{MARK}\nexec "{python}" -m litsearch "$@"\n', encoding="utf-8")
    temporary.chmod(0o755)
    os.replace(temporary, link)  # the command that is there is whole: never half-written
    _note_command(python.parent.parent / environment.TERMINAL_COMMANDS, link)
    print(f"lit-search is installed: {link} runs it in {python.parent.parent}")
    folders = [Path(entry).expanduser().resolve() for entry in os.environ.get("PATH", "").split(os.pathsep) if entry]
    if args.bin_dir.resolve() not in folders:
        print(f"{args.bin_dir} is not on your PATH: add it (for bash: echo 'export PATH=\"{args.bin_dir}:$PATH\"' "
              f">> ~/.bashrc, then open a new shell), or run {link} by its full path.")
    print("Next: lit-search doctor   (which keys and email are set, and what the missing ones cost)")
    return 0


def _note_command(notes: Path, link: Path) -> None:
    """Add ``link`` to the environment's list of terminal commands that run it."""
    try:
        known = notes.read_text(encoding="utf-8").splitlines()
    except OSError:
        known = []
    if str(link) not in known:
        with open(notes, "a", encoding="utf-8") as handle:
            handle.write(f"{link}\n")


def _head(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(200)
    except OSError:
        return ""


def _fail(message: str) -> int:
    print(f"install.py: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
