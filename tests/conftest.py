"""Shared test helpers: the ../shared fixtures (skipped when absent) and paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from scratch import scratch_folder  # noqa: E402

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DATA = TESTS / "data"
SHARED = Path(os.environ.get("LITSEARCH_SHARED_DIR", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"

# Tests never touch the user's real cache or library: the default store location (the
# platform data folder) points into a throwaway folder for this test process and its children.
os.environ["XDG_DATA_HOME"] = scratch_folder(prefix="litsearch-tests-")
os.environ.pop("LITSEARCH_CACHE_DIR", None)
# Nor a model the user pointed the semantic re-ranker at, or a download mirror: tests that want
# them set their own.
for _name in ("LITSEARCH_RERANK_MODEL", "LITSEARCH_MODEL_DOWNLOAD_URL", "LITSEARCH_RERANK_BUDGET",
              "LITSEARCH_RERANK_THREADS"):
    os.environ.pop(_name, None)
# A lab's Redis set on the machine running the tests is not theirs: lab tests set their own.
os.environ.pop("LITSEARCH_SHARED_STATE", None)
# The fake APIs are on loopback: a proxy set on the machine running the tests (lit-search
# honours HTTP_PROXY & co.) must not be asked for them. Proxy tests set their own variables.
LOOPBACK = "127.0.0.1,localhost,::1"
for _name in ("NO_PROXY", "no_proxy"):
    os.environ[_name] = ",".join(filter(None, (os.environ.get(_name), LOOPBACK)))

sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def fresh_process_pace():
    """Each test its own process-wide pace: a 429 one test provoked (its wait holds every later
    request of that API in the process, as it should in a real run) must not hold the next test."""
    from litsearch.net.pacing import PROCESS_PACE_BOOK

    PROCESS_PACE_BOOK.clear()
    yield


@pytest.fixture(autouse=True)
def private_data_folder(tmp_path_factory, monkeypatch):
    """Each test its own data folder (cache and library): a fake server's port is reused
    across tests, so a shared cache would answer one test with another test's fake API.
    Tests that point LITSEARCH_CACHE_DIR elsewhere simply override it."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))


# CI (.ci/run) sets this: there, ../shared is always present, so a missing file is a failure
# rather than ~100 quiet skips. A user's fresh clone without ../shared still skips.
REQUIRE_SHARED = os.environ.get("LITSEARCH_REQUIRE_VALIDATORS") == "1"


def skip_without_shared(reason: str) -> None:
    """Skip for want of ../shared material, or fail where CI requires it."""
    if REQUIRE_SHARED:
        pytest.fail(f"{reason} (LITSEARCH_REQUIRE_VALIDATORS=1: ../shared is required)")
    pytest.skip(reason)


def shared_file(relative: str) -> Path:
    """Path of a file under ../shared/fixtures, or skip the test with the reason."""
    path = FIXTURES / relative
    if not path.exists():
        skip_without_shared(f"shared fixture not available: {path}")
    return path


@pytest.fixture
def shared():
    return shared_file
