#!/usr/bin/env python3
"""Search one provider and print normalized records as JSON. Run with --help."""

import sys
from pathlib import Path

# Run from a checkout without installing: put the repository's src/ on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from litsearch.provider_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("semantic_scholar"))
