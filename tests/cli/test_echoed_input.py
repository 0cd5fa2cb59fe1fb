"""Every message line that echoes what the user typed × every kind of control character
(issue 31): the hint "To search for this topic instead: lit-search search paper '…'" printed an
id's ESC and BEL raw (``shlex.quote`` leaves them), while the error line above quoted them.

Each command runs in-process with a word carrying the characters (an id, a topic, an option's
value, an unknown option, a file name, a mistyped command). For every cell: no character that
acts on a terminal (C0 and C1 controls, DEL, a carriage return), hides or reorders text
(bidirectional controls, tag characters) reaches stdout or stderr, and no line can be forged
(the text after a line break in the input never starts a line of its own)."""

from __future__ import annotations

import re

import pytest
from fault_support import run_cli

# Everything safe_text removes, and the carriage return a one-line message never carries.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff"
                    "\U000e0000-\U000e007f]")
CONTROLS = {
    "ESC CSI colour": "\x1b[31m",
    "clear screen": "\x1b[2J\x1b[H",
    "OSC title with BEL": "\x1b]0;pwned\x07",
    "C1 CSI": "\x9b31m",
    "DEL and backspace": "\x7f\x08\x08",
    "carriage return": "\r",
    "line break": "\n",
    "bidi override": "\u202e",
    "tag characters": "\U000e0041\U000e0042",
}


def word(control: str) -> str:
    return f"x{control}FORGED line"


# (what is echoed, the arguments with the word in its place)
ECHOES = {
    "paper id": lambda w: ["paper", w],
    "read id": lambda w: ["read", w, "--offline"],
    "library show id": lambda w: ["library", "show", w],
    "library action": lambda w: ["library", w],
    "author get id": lambda w: ["author", "get", w, "--offline"],
    "mistyped command": lambda w: ["libary", "list", w],
    "unknown option": lambda w: ["library", "list", "--z" + w],
    "--format value": lambda w: ["paper", "10.1038/nbt.2647", "--format", w],
    "--limit value": lambda w: ["CRISPR", "--limit", w],
    "--year value": lambda w: ["CRISPR", "--year", w, "--offline"],
    "--providers value": lambda w: ["CRISPR", "--providers", w],
    "dedupe file": lambda w: ["dedupe", w + ".bib"],
    "report file": lambda w: ["report", w + ".json"],
    "rerun file": lambda w: ["rerun", w + ".json", "--offline"],
    "output path": lambda w: ["library", "export", "-o", f"/nonexistent/{w}/out.bib"],
    "offline topic": lambda w: [w + " topic", "--offline"],
}


@pytest.mark.parametrize("control", list(CONTROLS))
@pytest.mark.parametrize("echo", list(ECHOES))
def test_echoed_input_never_reaches_the_terminal_raw(echo, control, tmp_path, monkeypatch, capsys):
    env = {"LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
    run = run_cli(monkeypatch, capsys, env, ECHOES[echo](word(CONTROLS[control])))
    everything = run.stdout + run.stderr
    assert "Traceback" not in everything and "internal error" not in everything, everything
    found = UNSAFE.findall(everything)
    assert not found, (found, everything)
    forged = [line for line in everything.splitlines() if line.startswith("FORGED")]
    assert not forged, everything


def test_the_hint_gives_back_the_exact_words():
    """What the hint says to run is what was typed: its ANSI-C quoting read back by a shell."""
    import shutil
    import subprocess

    from litsearch.cli.first_word import shell_words

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    words = ["paper", "mills\x1b[31mRED\x07", "it's", "a\nb", "\u202eevil", "plain words", "ümlaut"]
    line = shell_words(words)
    assert line.isprintable()
    echoed = subprocess.run([bash, "-c", f"printf '%s\\0' {line}"], capture_output=True, check=True).stdout
    assert echoed.decode("utf-8").split("\0")[:-1] == words


@pytest.mark.parametrize("control", list(CONTROLS))
@pytest.mark.parametrize("one_line", [False, True])
def test_a_log_line_is_made_safe_too(control, one_line):
    """Library warnings reach stderr through the log filter (the command line's and the MCP
    server's one-line mode): they may quote what the user typed or a server sent."""
    import logging

    from litsearch.core.config import Settings
    from litsearch.runtime.logs import RedactingFilter

    record = logging.LogRecord("pypdf", logging.WARNING, __file__, 1, "odd font in %s", (word(CONTROLS[control]),),
                               None)
    RedactingFilter(Settings(base_urls={}), one_line=one_line).filter(record)
    assert not UNSAFE.findall(record.getMessage().replace("\n", "")), repr(record.getMessage())
