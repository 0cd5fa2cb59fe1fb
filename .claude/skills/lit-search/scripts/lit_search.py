#!/usr/bin/env python3
"""Run lit-search from the skill folder, wherever the skill is installed. Run with --help.

1. The ``litsearch`` package importable by this Python (pip/pipx install, a dev venv): run it.
2. Else the package source this skill ships with (a plugin install, or this repository:
   ``<root>/.claude/skills/lit-search`` -> ``<root>/src``) when this Python has the
   dependencies: run it from there.
3. Else build a private environment once from that source and its pinned dependencies
   (environment.py) and run the command inside it. ``mcp`` over stdio goes through
   mcp_front.py instead, which answers the client at once while the environment builds.
A skill folder copied alone, without its source, says how to install the package.
"""

import os
import sys
from pathlib import Path

SKILL_DIR = Path(__file__).resolve().parent.parent
MIN_PYTHON = (3, 10)


# What every command may need, by distribution name -> the module it installs; found (not
# imported: a command imports what it uses).
DEPENDENCIES = {"httpx": "httpx", "feedparser": "feedparser", "rapidfuzz": "rapidfuzz", "jinja2": "jinja2",
                "defusedxml": "defusedxml", "pystemmer": "Stemmer",
                "mcp": "mcp", "pypdf": "pypdf", "redis": "redis"}


def _importable() -> bool:
    from importlib.util import find_spec

    if not all(find_spec(module) is not None for module in DEPENDENCIES.values()):
        return False
    try:
        import litsearch.cli  # noqa: F401
        return True
    except ImportError:
        for name in [m for m in sys.modules if m == "litsearch" or m.startswith("litsearch.")]:
            del sys.modules[name]  # a failed import leaves half a package behind
        return False


def _fail(message: str) -> "None":
    print(f"lit-search: {message}", file=sys.stderr)
    sys.exit(2)


def _mcp_over_stdio(args: list[str]) -> bool:
    """``mcp`` with no --http and no --help: a client is waiting on stdin for its handshake."""
    return bool(args) and args[0] == "mcp" and not any(
        arg in ("-h", "--help") or arg.startswith("--http") for arg in args[1:])


def main() -> None:
    if sys.version_info < MIN_PYTHON:
        _fail(f"needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer, but {sys.executable} is "
              f"{sys.version_info[0]}.{sys.version_info[1]}; install a newer Python and run the skill with it")
    if not _importable():
        # Only a Python without the package reads the set-up code (the private environment's
        # run, the common case, goes straight to the command).
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import environment

        root = environment.plugin_root(SKILL_DIR)
        if root is not None:
            sys.path.insert(0, str(root / "src"))
        if root is None or not _importable():
            if os.environ.get(environment.BOOTSTRAPPED) == "1":
                _fail("its private environment cannot import the package; delete its folder under "
                      f"{environment.environments_folder()} and retry")
            if root is None:
                _fail("the litsearch package is not installed and this skill folder has no source to set it "
                      "up from; install it with `pipx install <path-or-url-of-the-lit-search-repository>` "
                      "(or `pip install …`), or install the plugin: `claude plugin install lit-search@lit-search`")
            if _mcp_over_stdio(sys.argv[1:]):
                import mcp_front

                sys.exit(mcp_front.main(root, Path(__file__).resolve(), sys.argv[2:]))
            try:
                python = environment.environment_python(root)
            except environment.SetupFailed as failure:
                _fail(str(failure))
            os.environ[environment.BOOTSTRAPPED] = "1"
            args = [str(python), str(Path(__file__).resolve()), *sys.argv[1:]]
            if sys.platform == "win32":  # no exec on Windows: run and pass the exit code on
                import subprocess

                sys.exit(subprocess.call(args))
            os.execv(str(python), args)
    from litsearch.cli import main as lit_search

    sys.exit(lit_search())


if __name__ == "__main__":
    main()
