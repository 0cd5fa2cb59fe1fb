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
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "deep"))

from cli.test_claude_code_e2e import _claude, _free_port, _tool_results, _wait_for  # noqa: E402
from conftest import REPO, SHARED, skip_without_shared  # noqa: E402
from deep_world import World  # noqa: E402
from plugin_support import clean_env  # noqa: E402
from small_world import small_world  # noqa: E402


def test_two_rounds_of_the_skills_deep_search(tmp_path):
    claude = _claude()
    model = SHARED / "tools" / "scripted_model.py"
    if not model.exists():
        skip_without_shared(f"the scripted model is not available: {model}")
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    env = clean_env(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{clean_env()['PATH']}",
                    XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"),
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                    LITSEARCH_CACHE_DIR=str(tmp_path / "data"))
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR"):
        env.pop(variable, None)

    def claude_run(*args: str, extra: dict[str, str] | None = None, timeout: float = 180):
        return subprocess.run([str(claude), *args], cwd=home, env={**env, **(extra or {})},
                              capture_output=True, text=True, timeout=timeout)

    assert claude_run("plugin", "marketplace", "add", str(REPO)).returncode == 0
    installed = claude_run("plugin", "install", "lit-search@lit-search")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    launchers = sorted(home.glob(".claude/plugins/**/skills/lit-search/scripts/lit_search.py"))
    assert launchers, "the installed plugin's launcher"
    launcher = launchers[0]
    session = home / "deep-reefs.json"
    rounds = [f'python3 "{launcher}" deep start "coral reef bleaching" --session "{session}" --batch 3',
              f'python3 "{launcher}" deep next "{session}" --relevant 1 --maybe 2']
    outputs = []
    with World(small_world(), share=1.0) as world:
        for number, command in enumerate(rounds, start=1):
            port = _free_port()
            log = tmp_path / f"model-{number}.jsonl"
            process = subprocess.Popen([sys.executable, str(model), str(port), str(log)],
                                       env={**os.environ, "FAKE_BASH": command},
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                _wait_for(port, process)
                run = claude_run("-p", "/lit-search a thorough, systematic search on coral reef bleaching",
                                 "--allowedTools", "Bash",
                                 extra={**world.env, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
                                        "ANTHROPIC_API_KEY": "sk-test"}, timeout=600)
            finally:
                process.terminate()
                process.wait(timeout=10)
            assert run.returncode == 0, run.stdout + run.stderr
            skill_text = log.read_text(encoding="utf-8")
            assert "deep start" in skill_text and "Thorough, systematic or review searches" in skill_text
            outputs.append("\n".join(_tool_results(log)))
    assert "## Deep search: coral reef bleaching" in outputs[0] and "Round 1: 3 papers to judge" in outputs[0]
    assert "Round 2:" in outputs[1] and "Judged so far: 3 (relevant 1, maybe 1)" in outputs[1], outputs[1][:3000]
    document = json.loads(session.read_text(encoding="utf-8"))
    assert sorted(c["verdict"] for c in document["candidates"] if c["verdict"]) == ["maybe", "not", "relevant"]
