"""Folders a test makes outside pytest's ``tmp_path`` (a helper shared by many tests, a cache
made at import): all of them inside one folder per test process, removed when the process
ends, so hundreds of scenarios leave nothing in the system's temp folder. Under xdist each
worker has its own. ``tests/test_package_layout.py`` refuses a bare ``tempfile.mkdtemp``."""

from __future__ import annotations

import tempfile

_ROOT = tempfile.TemporaryDirectory(prefix="litsearch-tests-")


def scratch_folder(prefix: str = "") -> str:
    """A new empty folder, removed with this test process's scratch folder."""
    return tempfile.mkdtemp(prefix=prefix, dir=_ROOT.name)
