"""Releases reach users (issue 30): every copy of the version follows pyproject.toml, and the
shipped files are the ones recorded when that version was released (.ci/release.py), so a
change cannot land under a version Claude Code already cached; the MCP front's shipped answers
are the real server's. test_package_layout.py imports these three checks, so the merge
protocol's run of that file runs them too."""

from __future__ import annotations

import json
import runpy
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

RELEASE = REPO / ".ci" / "release.py"
release = runpy.run_path(str(RELEASE))


def test_every_copy_of_the_version_is_pyprojects():
    current = release["version"](REPO)
    wrong = {where: value for where, value in release["copies"](REPO).items() if value != current}
    assert not wrong, f"pyproject.toml says {current}; run `python3 .ci/release.py {current}`: {wrong}"
    import litsearch

    assert litsearch.__version__ == current


def test_the_shipped_files_are_those_of_the_last_release():
    found = release["problems"](REPO)
    assert not found, "\n".join(found)


def test_the_mcp_fronts_answers_are_the_real_servers():
    """The launcher's MCP front answers the handshake and the lists from mcp_server.json
    until the real server is up: a tool added or changed must be written there too."""
    sys.path.insert(0, str(REPO / "tests" / "mcp_server"))
    from front_snapshot import SNAPSHOT, real_answers, render

    assert SNAPSHOT.read_text(encoding="utf-8") == render(real_answers()), (
        "the MCP front's answers differ from the real server's: run "
        "`.venv/bin/python tests/mcp_server/front_snapshot.py`, then `python3 .ci/release.py patch`")


def test_the_shipped_files_are_the_package_the_skill_the_manifests_and_the_scripts():
    files = release["shipped_files"](REPO)
    for needed in ("src/litsearch/__init__.py", "templates/results.md.j2", ".claude/skills/lit-search/SKILL.md",
                   ".claude/skills/lit-search/scripts/mcp_server.json", ".claude-plugin/plugin.json", ".mcp.json",
                   "pyproject.toml", "requirements.lock", "scripts/install.py"):
        assert needed in files
    assert not [name for name in files if name.startswith(("tests/", "docs/", "bench/")) or "__pycache__" in name]
    assert "release.json" not in files and "README.md" not in files


def _release(root, *args):
    return subprocess.run([sys.executable, str(root / ".ci" / "release.py"), *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def checkout(tmp_path):
    """The shipped files, the release record and tool, and a page of docs, with a git history
    of their own: a checkout released at its version."""
    root = tmp_path / "clone"
    for name in [*release["shipped_files"](REPO), "release.json", ".ci/release.py", "docs/search.md"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    assert _release(root, "again").returncode == 0  # released, whether or not this checkout is yet
    for command in (["init", "-q"], ["checkout", "-q", "-b", "work"], ["add", "-A"], COMMIT + ["-qm", "start"]):
        subprocess.run(["git", *command], cwd=root, check=True, capture_output=True)
    return root


COMMIT = ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit"]


def test_a_change_to_a_shipped_file_fails_the_check_naming_it_until_a_release_is_cut(checkout):
    assert _release(checkout, "check").returncode == 0
    (checkout / "docs" / "search.md").write_text("docs are not shipped\n")
    assert _release(checkout, "check").returncode == 0
    module = checkout / "src" / "litsearch" / "render" / "table.py"
    module.write_text(module.read_text() + "\n# a change\n")
    (checkout / "scripts" / "new_helper.py").write_text("print('new')\n")  # new, not yet committed
    check = _release(checkout, "check")
    assert check.returncode == 1
    assert "src/litsearch/render/table.py" in check.stderr and "scripts/new_helper.py" in check.stderr
    assert "python3 .ci/release.py patch" in check.stderr

    before = release["version"](checkout)
    cut = _release(checkout, "patch")
    assert cut.returncode == 0, cut.stderr
    major, minor, patch = map(int, before.split("."))
    after = f"{major}.{minor}.{patch + 1}"
    assert set(release["copies"](checkout).values()) == {after}
    record = json.loads((checkout / "release.json").read_text())
    assert record["version"] == after and record["shipped_files_sha256"] == release["digest"](checkout)
    assert _release(checkout, "check").returncode == 0
    # the manifests stay valid JSON with everything else in them as it was
    plugin = json.loads((checkout / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["skills"] == ["./.claude/skills/lit-search"] and plugin["version"] == after


def test_a_copy_edited_by_hand_is_named(checkout):
    manifest = checkout / ".claude-plugin" / "marketplace.json"
    data = json.loads(manifest.read_text())
    data["plugins"][0]["version"] = "0.0.1"
    manifest.write_text(json.dumps(data))
    check = _release(checkout, "check")
    assert check.returncode == 1 and ".claude-plugin/marketplace.json plugins.0.version says '0.0.1'" in check.stderr


@pytest.mark.parametrize("asked, expected", [("patch", "1.2.4"), ("minor", "1.3.0"), ("major", "2.0.0"),
                                             ("1.2.10", "1.2.10")])
def test_the_next_version(asked, expected):
    assert release["next_version"]("1.2.3", asked) == expected


@pytest.mark.parametrize("asked", ["1.2", "v1.3.0", "1.2.2", "latest", "1.3.0-dev"])
def test_a_version_that_is_not_a_step_forward_is_refused_in_one_line(checkout, asked):
    run = _release(checkout, asked if asked != "1.2.2" else "0.0.1")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.startswith("release.py: ")


def test_the_recorded_version_is_not_recorded_twice_unless_asked_again(checkout):
    run = _release(checkout, release["version"](checkout))
    assert run.returncode == 2 and "already recorded" in run.stderr and "`again`" in run.stderr
    assert _release(checkout, "minor").returncode == 0
    cut = release["version"](checkout)
    module = checkout / "src" / "litsearch" / "render" / "table.py"
    module.write_text(module.read_text() + "\n# a fix found before the release was published\n")
    assert _release(checkout, "check").returncode == 1
    again = _release(checkout, "again")
    assert again.returncode == 0, again.stderr
    assert release["version"](checkout) == cut and _release(checkout, "check").returncode == 0
    subprocess.run(["git", *COMMIT, "-qam", f"release {cut}"], cwd=checkout, check=True, capture_output=True)
    assert _release(checkout, "again").returncode == 0  # committed on a branch: not published yet

    subprocess.run(["git", "branch", "main"], cwd=checkout, check=True)  # merged: published
    module.write_text(module.read_text() + "\n# a change after the release\n")
    refused = _release(checkout, "again")
    assert refused.returncode == 2 and f"{cut} is published (on main)" in refused.stderr
    subprocess.run(["git", "branch", "-D", "main"], cwd=checkout, check=True, capture_output=True)
    subprocess.run(["git", "tag", f"lit-search--v{cut}"], cwd=checkout, check=True)  # or tagged
    assert f"{cut} is published (tag lit-search--v{cut})" in _release(checkout, "again").stderr
    assert _release(checkout, "patch").returncode == 0
