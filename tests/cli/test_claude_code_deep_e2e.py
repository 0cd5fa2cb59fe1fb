"""Deep search through the real Claude Code CLI: the plugin installed into a fresh HOME with the
README's two commands, then two rounds of the skill, each a `claude -p "/lit-search …"` in which
the scripted model (../shared/tools/scripted_model.py) runs the deep-search command the skill
describes: `deep start` (the first batch comes back to the model), then `deep next` with a verdict
(the second batch comes back, the session file keeps the verdict).

The launcher runs under a `python3` that has the package (building its private environment is
test_claude_code_e2e.py's subject). Skipped without the shared scripted model, and without the
`claude` CLI unless LITSEARCH_REQUIRE_VALIDATORS=1 (CI)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "deep"))

from claude_code_support import ClaudeHome, tool_results  # noqa: E402
from deep_world import World  # noqa: E402
from small_world import small_world  # noqa: E402


def test_two_rounds_of_the_skills_deep_search(tmp_path, tmp_path_factory):
    claude = ClaudeHome(tmp_path, tmp_path_factory, LITSEARCH_CACHE_DIR=str(tmp_path / "data"))
    shim = tmp_path / "bin" / "python3"  # a python3 that has the package: no environment to build here
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    claude.install_plugin()
    launchers = sorted(claude.home.glob(".claude/plugins/**/skills/lit-search/scripts/lit_search.py"))
    assert launchers, "the installed plugin's launcher"
    session = claude.home / "deep-reefs.json"
    rounds = [f'python3 "{launchers[0]}" deep start "coral reef bleaching" --session "{session}" --batch 3',
              f'python3 "{launchers[0]}" deep next "{session}" --relevant 1 --maybe 2']
    outputs = []
    with World(small_world(), share=1.0) as world:
        for number, command in enumerate(rounds, start=1):
            with claude.scripted_model(f"model-{number}", FAKE_BASH=command) as (variables, log):
                run = claude.run("-p", "/lit-search a thorough, systematic search on coral reef bleaching",
                                 "--allowedTools", "Bash", extra={**world.env, **variables}, timeout=600)
            assert run.returncode == 0, run.stdout + run.stderr
            skill_text = log.read_text(encoding="utf-8")
            assert "deep start" in skill_text and "Thorough, systematic or review searches" in skill_text
            outputs.append("\n".join(tool_results(log)))
    assert "## Deep search: coral reef bleaching" in outputs[0] and "Round 1: 3 papers to judge" in outputs[0]
    assert "Round 2:" in outputs[1] and "Judged so far: 3 (relevant 1, maybe 1, not 1)" in outputs[1], outputs[1][:3000]
    document = json.loads(session.read_text(encoding="utf-8"))
    assert sorted(c["verdict"] for c in document["candidates"] if c["verdict"]) == ["maybe", "not", "relevant"]
