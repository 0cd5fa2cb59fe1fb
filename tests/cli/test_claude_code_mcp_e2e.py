"""The Claude Code door with an MCP tool first (issue 30): the plugin installed with the
README's two commands into a fresh HOME whose `python3` has no packages, then `claude -p`
asked for papers by the scripted model (../shared/tools/scripted_model.py, FAKE_TOOL).

No MCP_TIMEOUT or MCP_CONNECTION_NONBLOCKING: Claude Code's defaults. A first run is killed with
SIGKILL, Claude Code and every process it started (the background build included), while the
private environment builds. In the next run the tool must be offered from the first request,
while the environment does not exist yet (it may answer "installing, call again"); the build
must go on after that run ends, the next run's call must return the ranked table, `claude mcp
list` must say Connected, and `/lit-search` must then run in the same environment: one folder,
nothing rebuilt, nothing left beside it."""

from __future__ import annotations

import json
import sys
import time

import pytest

import fake_apis
from claude_code_support import (ASK, SETUP_LINE, TABLE_HEADER, TOOL, TOPIC, WAITING_LINE, ClaudeHome,
                                 kill_tree, offered_tools, requests, tool_results)
from fake_server import FakeServer

INSTALLING = "lit-search is installing its environment, once, about a minute; call again"


@pytest.mark.slow
def test_an_mcp_tool_first_is_offered_at_once_then_answers_and_the_skill_shares_its_environment(
        tmp_path, tmp_path_factory):
    claude = ClaudeHome(tmp_path, tmp_path_factory)
    claude.install_plugin()
    with FakeServer() as server:
        apis = fake_apis.install(server)

        with claude.scripted_model("killed-run", **ASK) as (model, _):
            run = claude.start("-p", f"Find papers on {TOPIC}", "--allowedTools", TOOL, extra={**apis, **model})
            deadline = time.monotonic() + 600
            while not any(".building-" in name for name in claude.environment_folders()):
                assert run.poll() is None and time.monotonic() < deadline, claude.environment_folders()
                time.sleep(0.2)
            kill_tree(run.pid)
            run.wait(timeout=60)
        assert any(".building-" in name for name in claude.environment_folders())  # what the kill left

        first, log, _ = claude.ask_for_the_tool("first-run", f"Find papers on {TOPIC}", apis)
        assert first.returncode == 0, first.stdout + first.stderr
        assert TOOL in offered_tools(requests(log)[0]), "the tool must be there from the first request"
        [answer] = tool_results(log)
        assert INSTALLING in answer or TABLE_HEADER in answer, answer[:2000]
        assert not claude.needs_auth_cache().exists()  # the server never looked failed to Claude Code

        claude.wait_until_built()  # the build outlived the run that started it; the kill's leftovers are gone
        second, log, _ = claude.ask_for_the_tool("second-run", f"Find papers on {TOPIC}", apis)
        assert second.returncode == 0, second.stdout + second.stderr
        [answer] = tool_results(log)
        assert TABLE_HEADER in answer and "DNA targeting specificity of RNA-guided Cas9 nucleases" in answer
        assert '"search_id"' in answer and '"papers"' in answer  # the slim summaries came too

        listed = claude.run("mcp", "list", extra=apis)
        line = next((row for row in listed.stdout.splitlines() if "lit-search" in row), "")
        assert "plugin:lit-search:lit-search" in line and "Connected" in line, listed.stdout + listed.stderr

        # The skill's own allowed-tools let its launcher run: no --allowedTools here.
        with claude.scripted_model("skill-run") as (model, log):
            skill = claude.run("-p", f"/lit-search {TOPIC}", extra={**apis, **model})
        assert skill.returncode == 0, skill.stdout + skill.stderr
        results = "\n".join(tool_results(log))
        assert TABLE_HEADER in results and "DNA targeting specificity" in results, results[:2000]
        assert SETUP_LINE not in results and WAITING_LINE not in results  # the MCP server's environment
    version = json.loads((claude.environments / claude.environment_folders()[0] / "lit-search-environment.json")
                         .read_text())["version"]
    assert claude.environment_folders() == [f"{version}-python{sys.version_info[0]}.{sys.version_info[1]}"]
    assert not (claude.home / ".claude" / "plugins" / "data" / "lit-search-lit-search").exists() or not any(
        (claude.home / ".claude" / "plugins" / "data" / "lit-search-lit-search").iterdir())
