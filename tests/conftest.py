"""Shared test helpers: the ../shared fixtures (skipped when absent) and paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("LITSEARCH_SHARED_DIR", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"

sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def shared_file(relative: str) -> Path:
    """Path of a file under ../shared/fixtures, or skip the test with the reason."""
    path = FIXTURES / relative
    if not path.exists():
        pytest.skip(f"shared fixture not available: {path}")
    return path


@pytest.fixture
def shared():
    return shared_file
