"""The commands the README and the docs/ pages show, and how to run them as a reader would.

A command is a line of a ```bash block that starts with ``lit-search `` or ``python3 `` (a
trailing ``  # comment`` dropped). Blocks marked ``text`` are synopses and plain blocks are
output: neither is run. Each page runs in its own scratch folder with its own HOME, in the
page's order (a later command may read what an earlier one wrote), with the checkout's
``scripts/`` beside it and the sample files the pages name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from conftest import DATA, REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# Run by CI, the Claude Code tests or the fresh-shell test itself, or needing a path only a
# reader knows (/path/to/lit-search).
RUN_ELSEWHERE = ("python3 -m venv", "pip ", "pipx ", "uv ", "claude ", ". .venv", ".venv/bin/python -m pytest",
                 "python3 scripts/install.py", "python3 tests/cli/test_readme_example.py")
INSTALLER = "python3 scripts/install.py"
# Files the pages run commands on, as a reader's own would be.
SAMPLE_FILES = {"records.csv": DATA / "dedupe" / "small.csv", "export.ris": DATA / "dedupe" / "records.ris"}
# A drawing by Graphviz: without its dot program the command must refuse in one line (exit 2)
# and write nothing.
GRAPHVIZ_DRAWING = re.compile(r"^lit-search network .*-o (\S+\.(?:svg|png|pdf))\b")


def install_fakes(server) -> dict[str, str]:
    """Every fake the pages' commands talk to on ``server`` (the scholarly APIs, the full-text
    sources, Zotero's Web API): the LITSEARCH_*_URL and Zotero variables that point at them."""
    import fake_fulltext
    from fake_zotero import FakeZotero

    return {**fake_fulltext.install(server), **FakeZotero().install(server)}


def blocks(page: Path) -> list[tuple[str, str]]:
    """(language, text) of every fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(lang, body) for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)]


def all_commands(page: Path) -> list[str]:
    """Every command line the page shows in a bash block, run elsewhere or not."""
    commands = []
    for lang, body in blocks(page):
        if lang != "bash":
            continue
        for line in body.splitlines():
            command = re.sub(r"\s{2,}#.*$", "", line).strip()
            if command.startswith(("lit-search ", "python3 ")):
                commands.append(command)
    return commands


def shell_commands(page: Path) -> list[str]:
    return [c for c in all_commands(page) if not c.startswith(RUN_ELSEWHERE) and "/path/to" not in c]


def python_blocks(page: Path) -> list[str]:
    return [body for lang, body in blocks(page) if lang == "python"]


@dataclass
class Failure:
    page: str
    command: str
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: {self.command}\n  {self.detail}"


def page_folder(root: Path, page: Path, checkout: Path = REPO) -> Path:
    """A scratch folder for ``page``: its own HOME, the checkout's scripts/, the sample files."""
    folder = root / page.stem
    (folder / "home").mkdir(parents=True)
    (folder / "scripts").symlink_to(checkout / "scripts")
    for name, source in SAMPLE_FILES.items():
        shutil.copy(source, folder / name)
    return folder


def run_in_shell(command: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "--noprofile", "--norc", "-c", command], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def run_page(page: Path, folder: Path, env: dict[str, str], python: str) -> list[Failure]:
    """Every command and Python block of ``page``, in order; what went wrong."""
    env = {**env, "HOME": str(folder / "home")}
    failures = []
    for command in shell_commands(page):
        run = run_in_shell(command, folder, env)
        drawing = GRAPHVIZ_DRAWING.match(command)
        if drawing and shutil.which("dot", path=env["PATH"]) is None:
            # documented: without Graphviz, one line naming it, exit 2, no file
            if run.returncode != 2 or "Graphviz" not in run.stderr or (folder / drawing.group(1)).exists():
                failures.append(Failure(page.name, command, f"without dot: exit {run.returncode}: {run.stderr!r}"))
            continue
        if run.returncode != 0 or "Traceback" in run.stderr:
            failures.append(Failure(page.name, command, f"exit {run.returncode}: {run.stderr.strip()[-300:]}"))
    for code in python_blocks(page):
        run = subprocess.run([python, "-c", code], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            failures.append(Failure(page.name, "python block", run.stderr.strip()[-600:]))
    return failures
