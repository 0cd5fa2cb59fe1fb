"""Every command docs/fulltext.md shows runs as written against the fakes (tests/fake_fulltext.py),
as tests/cli/test_readme_commands.py does for the README: a fresh bash, the venv's bin on PATH,
a contact email, the base URLs pointed at the fakes; and its Python block runs too."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fake_fulltext
from conftest import REPO
from fake_server import FakeServer

DOC = REPO / "docs" / "fulltext.md"


def blocks(path: Path) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w*)\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def commands(path: Path) -> list[str]:
    return [line.strip() for lang, body in blocks(path) if lang == "bash" for line in body.splitlines()
            if line.strip().startswith("lit-search ")]


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    env = {"HOME": str(folder), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "LANG": "C.UTF-8", "LITSEARCH_EMAIL": "researcher@example.org",
           "LITSEARCH_CACHE_DIR": str(folder / "cache"), "NO_PROXY": os.environ.get("NO_PROXY", "")}
    with FakeServer() as server:
        env.update(fake_fulltext.install(server))
        yield folder, env


def test_the_doc_shows_commands(shared):
    shared("fulltext/pdf/")
    assert len(commands(DOC)) >= 3 and [lang for lang, _ in blocks(DOC)].count("python") == 1


def test_every_command_in_the_doc_runs_as_written(shell, shared):
    shared("fulltext/pdf/")
    folder, env = shell
    for command in commands(DOC):
        run = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=folder, env=env,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "Traceback" not in run.stderr, f"{command}: {run.stderr[-500:]}"
        assert run.stdout.strip()


def test_the_python_example_runs_as_written(shell, shared):
    shared("fulltext/pmc/")
    folder, env = shell
    [code] = [body for lang, body in blocks(DOC) if lang == "python"]
    run = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Shown: 1 section of 27" in run.stdout
