"""The README's "Example output" is what the command it names prints today against the fake
APIs (with a contact email, so Unpaywall is asked), timings aside. Regenerate it with
``python tests/cli/test_readme_example.py`` after a change to the output."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

import fake_apis  # noqa: E402
from command import lit_search_command  # noqa: E402
from fake_server import FakeServer  # noqa: E402

README = REPO / "README.md"
COMMAND_LINE = re.compile(r"This is real output: `(lit-search [^`]+)`")
BLOCK = re.compile(r"(## Example output.*?```markdown\n)(.*?)(```)", re.S)
TIMING = re.compile(r"\b\d+\.\d s\b")


def readme_parts() -> tuple[list[str], str]:
    text = README.read_text(encoding="utf-8")
    command = COMMAND_LINE.search(text)
    block = BLOCK.search(text)
    assert command and block, "README lost its example command or block"
    return shlex.split(command.group(1))[1:], block.group(2)


def run_example(tmp: Path) -> str:
    args, _ = readme_parts()
    with FakeServer() as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "SEMANTIC_", "OPENALEX_",
                                                                           "NCBI_", "TAVILY_"))}
        env.update(fake_apis.install(server))
        env.update({"LITSEARCH_CACHE_DIR": str(tmp), "LITSEARCH_EMAIL": "you@example.org"})
        proc = subprocess.run(lit_search_command() + args, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_readme_example_is_what_the_command_prints(tmp_path):
    _, shown = readme_parts()
    printed = run_example(tmp_path)
    assert TIMING.sub("T s", shown) == TIMING.sub("T s", printed), "regenerate: python tests/cli/test_readme_example.py"
    assert f"The output is {len(shown):,} characters long" in README.read_text(encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    printed = run_example(Path(tempfile.mkdtemp(prefix="readme-example-")))
    text = README.read_text(encoding="utf-8")
    text = BLOCK.sub(lambda m: m.group(1) + printed + m.group(3), text, count=1)
    text = re.sub(r"The output is [\d,]+ characters long", f"The output is {len(printed):,} characters long", text)
    README.write_text(text, encoding="utf-8")
    print(f"README example regenerated ({len(printed):,} characters)")
