#!/usr/bin/env python3
"""Run lit-search from the skill folder, wherever the skill is installed.

Uses the installed ``litsearch`` package when there is one; otherwise the checkout this
skill lives in (``<repo>/.claude/skills/lit-search`` -> ``<repo>/src``). Run with --help.
"""

import sys
from pathlib import Path


def _find_package() -> bool:
    try:
        import litsearch  # noqa: F401
        return True
    except ImportError:
        pass
    skill_dir = Path(__file__).resolve().parent.parent
    checkout_src = skill_dir.parent.parent.parent / "src"
    if (checkout_src / "litsearch" / "__init__.py").is_file():
        sys.path.insert(0, str(checkout_src))
        return True
    return False


if __name__ == "__main__":
    if not _find_package():
        print("lit-search: the litsearch package is not installed. Install it with "
              "`pip install <path-or-url-of-the-lit-search-repository>` and retry.", file=sys.stderr)
        sys.exit(2)
    try:
        from litsearch.cli import main
    except ImportError as exc:  # e.g. a dependency such as httpx is missing
        print(f"lit-search: cannot start ({exc}); reinstall with `pip install lit-search`.", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
