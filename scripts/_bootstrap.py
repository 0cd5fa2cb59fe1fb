"""Shared start-up for the helper scripts: find the package, fail in one clear line.

From a checkout whose ``python3`` has the dependencies (an activated venv), the scripts run
the checkout's ``src/``. Under a bare ``python3`` (a system Python without httpx) they run
again inside the private environment that ``scripts/install.py`` and the Claude Code skill
use, building it once when it is missing (.claude/skills/lit-search/scripts/environment.py).
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The runtime dependencies, found (not imported): the package imports each where it is used.
# By distribution name -> the module it installs (kept equal to pyproject's list by a test).
DEPENDENCIES = {"httpx": "httpx", "feedparser": "feedparser", "rapidfuzz": "rapidfuzz", "jinja2": "jinja2",
                "defusedxml": "defusedxml", "pystemmer": "Stemmer", "mcp": "mcp", "pypdf": "pypdf",
                "redis": "redis"}


def run_provider_script(provider: str) -> int:
    from importlib.util import find_spec

    sys.path.insert(0, str(ROOT / "src"))
    missing = [name for name, module in DEPENDENCIES.items() if find_spec(module) is None]
    if missing:
        return _in_private_environment(provider, f"{', '.join(missing)} not installed for {sys.executable}")
    from litsearch.cli.provider import main

    return main(provider)


def _in_private_environment(provider: str, reason: str) -> int:
    sys.path.insert(0, str(ROOT / ".claude" / "skills" / "lit-search" / "scripts"))
    import environment

    if os.environ.get(environment.BOOTSTRAPPED) == "1" or environment.plugin_root(ROOT / ".claude" / "skills"
                                                                                  / "lit-search") is None:
        print(f"{provider}: cannot start ({reason}); install lit-search with `python3 scripts/install.py` "
              "or `pip install -e .` in the lit-search repository.", file=sys.stderr)
        return 2
    try:
        python = environment.environment_python(ROOT)
    except environment.SetupFailed as failure:
        print(f"{provider}: {failure}", file=sys.stderr)
        return 2
    import subprocess

    return subprocess.call([str(python), str(Path(sys.argv[0]).resolve()), *sys.argv[1:]],
                           env={**os.environ, environment.BOOTSTRAPPED: "1"})
