"""The skill's launcher under a Python without lit-search's dependencies (issue 13, item 2):
it builds a private environment once from the plugin's own files (package source and pinned
requirements), prints one line while doing so, reuses it, rebuilds it when the pins change,
builds it once when two first runs start together, keeps it in lit-search's data folder
whether or not Claude Code sets CLAUDE_PLUGIN_DATA (issue 30), and fails in one line naming
the fixing command when the package index cannot be reached, leaving nothing behind. Real
`pip install`s; test_environment_folders.py tests the folders and locks without pip."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import fake_apis
from fake_server import FakeServer
from plugin_support import SKILL, clean_env, pip_cache, plugin_copy, python_without_packages

SETUP_LINE = "lit-search: first run: installing lit-search"


@pytest.fixture
def plugin(tmp_path):
    root = plugin_copy(tmp_path / "plugin")
    python = python_without_packages(tmp_path / "bin")
    return root, python


def launch(root: Path, python: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    command = [str(python), str(root / SKILL / "scripts" / "lit_search.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.slow
def test_a_first_run_builds_the_environment_once_then_reuses_it(plugin, tmp_path, tmp_path_factory):
    root, python = plugin
    plugin_data, cache = tmp_path / "plugin-data", tmp_path / "cache"
    with FakeServer() as server:
        env = clean_env(**fake_apis.install(server), LITSEARCH_CACHE_DIR=str(cache),
                        PIP_CACHE_DIR=pip_cache(tmp_path_factory))
        # One run as the MCP server is started (Claude Code sets CLAUDE_PLUGIN_DATA), one as the
        # skill's shell command is (it does not): one environment for both.
        variants = [{**env, "CLAUDE_PLUGIN_DATA": str(plugin_data)}, env]
        args = ("CRISPR off-target effects", "--providers", "openalex", "--no-verify", "--format", "json")
        with ThreadPoolExecutor(2) as pool:  # two first runs at once
            runs = list(pool.map(lambda run_env: launch(root, python, run_env, *args), variants))
        for run in runs:
            assert run.returncode == 0, run.stderr
            assert "Traceback" not in run.stderr
            assert any("DNA targeting specificity" in r["title"] for r in json.loads(run.stdout)["results"])
        assert sum(run.stderr.count(SETUP_LINE) for run in runs) == 1  # built once, under the lock
        [folder] = (cache / "environments").iterdir()  # the folder alone: no lock, nothing half-built
        version = re.search(r'^version = "([^"]+)"', (root / "pyproject.toml").read_text(), re.M).group(1)
        assert folder.name == f"{version}-python{sys.version_info[0]}.{sys.version_info[1]}"
        assert json.loads((folder / "lit-search-environment.json").read_text())["version"] == version
        assert not plugin_data.exists()

        again = launch(root, python, env, *args)
        assert again.returncode == 0 and SETUP_LINE not in again.stderr  # reused

        # New pins (or a new version) rebuild it.
        lock = root / "requirements.lock"
        lock.write_text(lock.read_text() + "# refreshed\n")
        rebuilt = launch(root, python, env, *args)
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert rebuilt.stderr.count(SETUP_LINE) == 1
        assert list((cache / "environments").iterdir()) == [folder]  # rebuilt in place


@pytest.mark.slow
def test_without_a_package_index_one_line_names_the_fix(plugin, tmp_path):
    root, python = plugin
    env = clean_env(LITSEARCH_CACHE_DIR=str(tmp_path / "data"), PIP_NO_INDEX="1", PIP_FIND_LINKS="",
                    PIP_CACHE_DIR=str(tmp_path / "empty-pip-cache"))
    run = launch(root, python, env, "anything")
    assert run.returncode == 2
    lines = [line for line in run.stderr.splitlines() if not line.startswith(SETUP_LINE)]
    assert len(lines) == 1 and "Traceback" not in run.stderr
    assert lines[0].startswith("lit-search: cannot install lit-search's dependencies")
    assert f"-m pip install -r {root / 'requirements.lock'} {root}" in lines[0]
    assert list((tmp_path / "data" / "environments").iterdir()) == []  # nothing half-built, no lock file


def test_a_skill_folder_copied_alone_says_how_to_install(tmp_path):
    import shutil

    from conftest import REPO

    alone = tmp_path / "home" / ".claude" / "skills" / "lit-search"
    shutil.copytree(REPO / SKILL, alone)
    python = python_without_packages(tmp_path / "bin")
    run = subprocess.run([str(python), str(alone / "scripts" / "lit_search.py"), "topic"], capture_output=True,
                         text=True, env=clean_env(), timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "pipx install" in run.stderr and "claude plugin install lit-search@lit-search" in run.stderr


def test_the_launcher_checks_for_every_dependency_the_package_declares():
    # The launcher looks for the dependencies without importing them (an import of httpx
    # alone costs ~40 ms on every run); a dependency added to pyproject must be looked for too.
    import re
    import runpy

    from conftest import REPO

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower() for requirement in declared}
    launcher = runpy.run_path(str(REPO / SKILL / "scripts" / "lit_search.py"))
    assert set(launcher["DEPENDENCIES"]) == names
    provider_scripts = runpy.run_path(str(REPO / "scripts" / "_bootstrap.py"))  # the same check, issue 21
    assert set(provider_scripts["DEPENDENCIES"]) == names
