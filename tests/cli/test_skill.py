"""The Claude Code skill: both validators, and its helper command in both install modes.

Install modes (README, "Use from Claude Code"):
- in this repository: Claude Code finds .claude/skills/lit-search; the launcher uses the
  checkout's src/ when the package is not installed;
- elsewhere (another project or ~/.claude/skills): the skill folder is copied there and the
  launcher uses the installed ``litsearch`` package.
The command is taken from SKILL.md itself, with ${CLAUDE_SKILL_DIR} substituted the way
Claude Code does, and run in bash against the fake APIs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fake_apis
from fake_server import FakeServer

from conftest import REPO  # noqa: E402
SKILL_DIR = REPO / ".claude" / "skills" / "lit-search"
REQUIRE = os.environ.get("LITSEARCH_REQUIRE_VALIDATORS") == "1"


def _tool(name: str, *candidates: Path) -> str | None:
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    if REQUIRE:
        pytest.fail(f"{name} is required (LITSEARCH_REQUIRE_VALIDATORS=1) but not installed")
    pytest.skip(f"{name} not installed")


def frontmatter() -> dict[str, str]:
    text = SKILL_DIR.joinpath("SKILL.md").read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    assert match, "SKILL.md must start with YAML frontmatter"
    import yaml

    return yaml.safe_load(match.group(1))


def test_frontmatter_fits_both_claude_code_and_agent_skills():
    meta = frontmatter()
    assert meta["name"] == SKILL_DIR.name == "lit-search"
    assert set(meta) <= {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
    assert 0 < len(meta["description"]) <= 1024 and "<" not in meta["description"]
    assert "find papers" in meta["description"][:250]


def test_agentskills_validate_passes():
    tool = _tool("agentskills", Path(sys.executable).parent / "agentskills")
    proc = subprocess.run([tool, "validate", str(SKILL_DIR)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Valid skill" in proc.stdout


@pytest.mark.parametrize("manifest", [".", ".claude-plugin/plugin.json"])
def test_claude_plugin_validate_strict_passes(manifest):
    """The marketplace (repository root) and the plugin manifest."""
    tool = _tool("claude", REPO / ".ci" / "node" / "node_modules" / ".bin" / "claude")
    proc = subprocess.run([tool, "plugin", "validate", "--strict", str(REPO / manifest)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Validation passed" in proc.stdout


def test_the_plugin_ships_the_skill_and_what_its_launcher_needs():
    marketplace = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    [entry] = marketplace["plugins"]
    assert entry["name"] == plugin["name"] == "lit-search" and entry["source"] == "./"
    assert plugin["skills"] == ["./.claude/skills/lit-search"]
    for needed in ("pyproject.toml", "requirements.lock", "src/litsearch/__init__.py", "templates/results.md.j2"):
        assert (REPO / needed).is_file(), needed
    assert plugin["version"] == entry["version"] == re.search(
        r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M).group(1)


def skill_command() -> str:
    """The helper invocation exactly as SKILL.md's first shell block writes it."""
    body = SKILL_DIR.joinpath("SKILL.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```bash\n(.*?)^```", body, re.S | re.M)
    lines = [line for block in blocks for line in block.splitlines()
             if "${CLAUDE_SKILL_DIR}/scripts/lit_search.py" in line]
    assert lines, "SKILL.md must call the helper through ${CLAUDE_SKILL_DIR}"
    return lines[0].strip()


def test_the_skill_pre_approves_its_own_launcher_and_nothing_else():
    """Claude Code puts the skill's folder in place of ${CLAUDE_SKILL_DIR} in allowed-tools and
    lets a Bash command through when it starts with a pattern's text before ` *`."""
    allowed = re.findall(r"(\w+)\(([^)]*)\)", frontmatter()["allowed-tools"])
    assert allowed and all(tool == "Bash" for tool, _ in allowed)
    prefixes = [pattern.removesuffix(" *") for _, pattern in allowed]
    assert all(pattern.endswith(" *") for _, pattern in allowed)
    launcher = "${CLAUDE_SKILL_DIR}/scripts/lit_search.py"
    assert sorted(prefixes) == sorted([f'python3 "{launcher}"', f"python3 {launcher}"])
    command = skill_command()
    assert any(command.startswith(prefix + " ") for prefix in prefixes), command
    assert not any("python3 -c print(1)".startswith(prefix) for prefix in prefixes)


def run_skill_command(skill_dir: Path, scratch: Path, env_extra: dict[str, str],
                      hide_package: bool) -> subprocess.CompletedProcess:
    command = skill_command().replace("${CLAUDE_SKILL_DIR}", str(skill_dir))
    command = command.replace('"<topic>"', '"CRISPR off-target effects"')
    command = re.sub(r'--variant "<variant [0-9]>"', '--variant "Cas9 specificity"', command)
    command += " --providers semantic_scholar,openalex,pubmed,arxiv --format json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITSEARCH_")}
    env.pop("PYTHONPATH", None)
    # "python3" in the skill's command must be this interpreter (it has the dependencies).
    (scratch / "bin").mkdir()
    shim = scratch / "bin" / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # a symlink would lose the venv
    shim.chmod(0o755)
    env["PATH"] = f"{scratch / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    if hide_package:
        # Simulate "litsearch is not installed": a stub module that fails to import.
        (scratch / "stub").mkdir()
        (scratch / "stub" / "litsearch.py").write_text("raise ImportError('not installed (test stub)')\n")
        env["PYTHONPATH"] = str(scratch / "stub")
    env.update(env_extra)
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def apis():
    with FakeServer() as server:
        yield fake_apis.install(server)


def _assert_search_ran(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["variants"] == ["Cas9 specificity"]
    assert any("DNA targeting specificity" in r["title"] for r in payload["results"])


def test_skill_command_runs_in_this_repository_without_installing(apis, tmp_path):
    # The repository's own skill folder, with the package hidden: the launcher uses src/.
    proc = run_skill_command(SKILL_DIR, tmp_path, apis, hide_package=True)
    _assert_search_ran(proc)


def test_skill_command_runs_when_installed_user_wide(apis, tmp_path):
    # A copy of the skill in ~/.claude/skills, away from any checkout: uses the installed package.
    pytest.importorskip("litsearch")
    installed = tmp_path / "home" / ".claude" / "skills" / "lit-search"
    shutil.copytree(SKILL_DIR, installed)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = run_skill_command(installed, scratch, apis, hide_package=False)
    if "not installed" in proc.stderr:
        pytest.skip("litsearch is not installed in this interpreter (pip install -e . first)")
    _assert_search_ran(proc)


def test_installed_skill_without_the_package_says_how_to_install(apis, tmp_path):
    installed = tmp_path / "home" / ".claude" / "skills" / "lit-search"
    shutil.copytree(SKILL_DIR, installed)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = run_skill_command(installed, scratch, apis, hide_package=True)
    assert proc.returncode == 2
    assert "pip install" in proc.stderr and "Traceback" not in proc.stderr
