"""Every command the README and the docs/ pages show runs as written (issues 13 and 21), in a
shell where the checkout's venv is active: the set-up a developer has. tests/cli/
test_fresh_shell.py runs the same commands in a fresh shell after the installer.

Each page runs in a fresh non-interactive bash with only what activation gives (the venv's
bin first on PATH), its own HOME and scratch folder, the contact email the README asks for,
and the base URLs pointed at the fake APIs (tests/docs_commands.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from docs_commands import install_fakes, INSTALLER, PAGES, all_commands, blocks, page_folder, python_blocks, run_page, shell_commands
from fake_server import FakeServer

README = PAGES[0]
FIRST_LINES = 80  # what a newcomer reads before giving up


def test_the_pages_show_the_commands_this_test_runs():
    commands = [command for page in PAGES for command in shell_commands(page)]
    assert len(commands) >= 30
    assert any(c.startswith("lit-search doctor") for c in commands)
    assert any(c.startswith("python3 scripts/") for c in commands)
    assert sum(len(python_blocks(page)) for page in PAGES) >= 1
    for page in PAGES:
        for lang, body in blocks(page):
            # json, toml: client configurations, checked by tests/mcp_server/test_client_configs.py
            assert lang in ("bash", "text", "python", "markdown", "json", "toml", ""), f"{page.name}: a ```{lang} block"
            if lang == "bash":
                assert not any(line.startswith("python ") for line in body.splitlines()), "python3 throughout"
                assert "| dot" not in body, f"{page.name}: a pipe into dot leaves an empty file without Graphviz"


def test_the_readme_says_install_keys_and_doctor_in_its_first_80_lines():
    head = "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_LINES])
    for needed in ("## Install", "claude plugin install", "pipx install", INSTALLER, "LITSEARCH_EMAIL",
                   "OPENALEX_API_KEY", "SEMANTIC_SCHOLAR_API_KEY", "NCBI_API_KEY", "lit-search doctor"):
        assert needed in head, f"{needed!r} is not in the README's first {FIRST_LINES} lines"
    assert INSTALLER in all_commands(README)


def test_the_readme_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    for page in PAGES[1:]:
        assert f"(docs/{page.name})" in text, f"README does not link docs/{page.name}"


@pytest.fixture(scope="module")
def activated_env():
    """What `. .venv/bin/activate` gives a fresh shell."""
    venv_bin = Path(sys.executable).parent
    base_path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {"PATH": f"{venv_bin}{os.pathsep}{base_path}", "VIRTUAL_ENV": str(venv_bin.parent),
           "LANG": "C.UTF-8", "LITSEARCH_EMAIL": "researcher@example.org"}
    with FakeServer() as server:
        env.update(install_fakes(server))
        yield env


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_on_the_page_runs_as_written(page, activated_env, tmp_path):
    folder = page_folder(tmp_path, page)
    failures = run_page(page, folder, activated_env, python=sys.executable)
    assert not failures, "\n".join(map(str, failures))
