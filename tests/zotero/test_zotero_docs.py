"""Every command docs/zotero.md shows runs as written, in a fresh bash, against the fake APIs and
the fake Zotero (a search writes results.json, pushes send it and ids); its Python block too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fulltext.test_fulltext_docs import blocks, commands

import fake_apis
import fake_zotero
from conftest import REPO
from fake_server import FakeServer

DOC = REPO / "docs" / "zotero.md"


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zotero-docs")
    env = {"HOME": str(folder), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "LANG": "C.UTF-8", "LITSEARCH_EMAIL": "researcher@example.org",
           "LITSEARCH_CACHE_DIR": str(folder / "cache"), "NO_PROXY": os.environ.get("NO_PROXY", "")}
    with FakeServer() as server:
        zotero = fake_zotero.FakeZotero()
        env.update(fake_apis.install(server))
        env.update(zotero.install(server))
        yield folder, env, zotero


def test_every_command_in_the_doc_runs_as_written(shell):
    folder, env, zotero = shell
    shown = commands(DOC)
    assert any(c.startswith("lit-search zotero push --from") for c in shown)
    for command in shown:
        run = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=folder, env=env,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "Traceback" not in run.stderr, f"{command}: {run.stderr[-500:]}"
    names = {c["name"] for c in zotero.collections.values()}
    assert {"CRISPR review", "To read"} <= names


def test_the_python_example_runs_as_written(shell):
    folder, env, _zotero = shell
    [code] = [body for lang, body in blocks(DOC) if lang == "python"]
    run = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "collection 'To read'" in run.stdout
