"""The Claude Code door with `/lit-search` first (issues 13 and 30): the plugin installed with the
README's two commands into a fresh HOME whose `python3` has no packages (a researcher's system
Python), then `claude -p "/lit-search <topic>"` against the scripted model
(../shared/tools/scripted_model.py), every provider pointed at the fake APIs.

A first run is killed with SIGKILL, Claude Code and every process it started, while the
private environment builds. The next run must remove what that left, build (or wait for the
MCP server's build of the same run), and return the ranked table to the model; an MCP tool
call must then answer at once from the same environment: one folder, nothing beside it. The
skill's own allowed-tools must let its launcher run (no --allowedTools)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fake_apis
from claude_code_support import (SETUP_LINE, TABLE_HEADER, TOPIC, WAITING_LINE, ClaudeHome, kill_tree,
                                 tool_results)
from fake_server import FakeServer



@pytest.mark.slow
def test_slash_command_first_after_a_killed_build_then_an_mcp_tool_share_one_environment(tmp_path, tmp_path_factory):
    claude = ClaudeHome(tmp_path, tmp_path_factory)
    claude.install_plugin()
    listed = claude.run("plugin", "list", timeout=300)
    assert "lit-search@lit-search" in listed.stdout, listed.stdout + listed.stderr

    with FakeServer() as server:
        apis = fake_apis.install(server)

        with claude.scripted_model("killed-run") as (model, _):
            run = claude.start("-p", f"/lit-search {TOPIC}", extra={**apis, **model})
            deadline = time.monotonic() + 600
            while not any(".building-" in name for name in claude.environment_folders()):
                assert run.poll() is None and time.monotonic() < deadline, claude.environment_folders()
                time.sleep(0.2)
            kill_tree(run.pid)
            run.wait(timeout=60)
        assert any(".building-" in name for name in claude.environment_folders())  # what the kill left

        with claude.scripted_model("skill-run") as (model, log):
            skill = claude.run("-p", f"/lit-search {TOPIC}", extra={**apis, **model})
        assert skill.returncode == 0, skill.stdout + skill.stderr
        command = Path(f"{log}.command").read_text(encoding="utf-8")
        assert "/.claude/skills/lit-search/scripts/lit_search.py" in command and TOPIC in command, command
        results = "\n".join(tool_results(log))
        assert SETUP_LINE in results or WAITING_LINE in results, results[:2000]  # built in this run
        assert TABLE_HEADER in results and "DNA targeting specificity" in results, results[:2000]
        claude.wait_until_built()
        [folder] = claude.environment_folders()  # what the killed run left is gone

        tool, log, _ = claude.ask_for_the_tool("tool-run", f"Find papers on {TOPIC}", apis)
        assert tool.returncode == 0, tool.stdout + tool.stderr
        [answer] = tool_results(log)
        assert TABLE_HEADER in answer and "DNA targeting specificity of RNA-guided Cas9 nucleases" in answer
    marker = json.loads((claude.environments / folder / "lit-search-environment.json").read_text())
    assert folder == f"{marker['version']}-python{sys.version_info[0]}.{sys.version_info[1]}" and marker["pins"]
    assert claude.environment_folders() == [folder]
    size = subprocess.run(["du", "-sm", str(claude.environments / folder)], capture_output=True, text=True).stdout
    print(f"the environment: {size.split()[0] if size else '?'} MB")
