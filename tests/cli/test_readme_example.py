"""The README's example (the terminal view) and the Markdown example in docs/output.md are what
their commands print today against the fake APIs (with a contact email, so Unpaywall is
asked), timings aside. Regenerate both with ``python3 tests/cli/test_readme_example.py`` after
a change to the output."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

import fake_apis  # noqa: E402
from command import lit_search_command  # noqa: E402
from fake_server import FakeServer  # noqa: E402
from scratch import scratch_folder  # noqa: E402

TIMING = re.compile(r"\b\d+\.\d s\b")


@dataclass(frozen=True)
class Example:
    page: Path
    command: re.Pattern  # group "command", and "columns" for the terminal view
    block: re.Pattern  # groups 1 (before), 2 (the output), 3 (the closing fence)
    size_sentence: bool  # the page says how many characters the output has

    def parts(self) -> tuple[list[str], dict[str, str], str]:
        text = self.page.read_text(encoding="utf-8")
        command, block = self.command.search(text), self.block.search(text)
        assert command and block, f"{self.page.name} lost its example command or block"
        args, env = shlex.split(command.group("command"))[1:], {}
        if "columns" in command.groupdict():  # what a terminal that wide shows
            args, env = args + ["--format", "table"], {"COLUMNS": command.group("columns")}
        return args, env, block.group(2)


EXAMPLES = [
    Example(REPO / "README.md",
            re.compile(r"This is real output, in a terminal (?P<columns>\d+) columns wide: `(?P<command>lit-search [^`]+)`"),
            re.compile(r"(This is real output, in a terminal.*?```text\n)(.*?)(```)", re.S), False),
    Example(REPO / "docs" / "output.md", re.compile(r"This is real output: `(?P<command>lit-search [^`]+)`"),
            re.compile(r"(This is real output: .*?```markdown\n)(.*?)(```)", re.S), True),
]


def run_example(example: Example, tmp: Path) -> str:
    args, extra, _ = example.parts()
    with FakeServer() as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "SEMANTIC_", "OPENALEX_",
                                                                           "NCBI_", "TAVILY_", "COLUMNS"))}
        env.update(fake_apis.install(server))
        env.update({"LITSEARCH_CACHE_DIR": str(tmp), "LITSEARCH_EMAIL": "you@example.org", **extra})
        proc = subprocess.run(lit_search_command() + args, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.page.name)
def test_the_example_is_what_the_command_prints(example, tmp_path):
    _, _, shown = example.parts()
    printed = run_example(example, tmp_path)
    assert TIMING.sub("T s", shown) == TIMING.sub("T s", printed), "regenerate: python3 tests/cli/test_readme_example.py"
    if example.size_sentence:
        assert f"The output is {len(shown):,} characters long" in example.page.read_text(encoding="utf-8")


def test_the_readme_example_is_within_its_stated_width():
    args, env, shown = EXAMPLES[0].parts()
    assert shown.strip() and max(len(line) for line in shown.splitlines()) <= int(env["COLUMNS"])


if __name__ == "__main__":
    import tempfile

    for example in EXAMPLES:
        printed = run_example(example, Path(scratch_folder(prefix="readme-example-")))
        text = example.page.read_text(encoding="utf-8")
        text = example.block.sub(lambda m: m.group(1) + printed + m.group(3), text, count=1)
        if example.size_sentence:
            text = re.sub(r"The output is [\d,]+ characters long", f"The output is {len(printed):,} characters long",
                          text)
        example.page.write_text(text, encoding="utf-8")
        print(f"{example.page.relative_to(REPO)}: example regenerated ({len(printed):,} characters)")
