"""How tests run the real command: the installed `lit-search` script next to this Python,
else `python -m litsearch` (a checkout without `pip install -e .`)."""

from __future__ import annotations

import sys
from pathlib import Path


def lit_search_command() -> list[str]:
    script = Path(sys.executable).parent / "lit-search"
    return [str(script)] if script.exists() else [sys.executable, "-m", "litsearch"]
