"""Shared start-up for the helper scripts: find the package, fail in one clear line."""

import sys
from pathlib import Path


def run_provider_script(provider: str) -> int:
    # Run from a checkout without installing: put the repository's src/ on the path.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    try:
        from litsearch.cli.provider import main
    except ImportError as exc:
        print(f"{provider}: cannot start ({exc}); install the dependencies with "
              "`pip install -e .` in the lit-search repository.", file=sys.stderr)
        return 2
    return main(provider)
