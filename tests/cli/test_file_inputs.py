"""The file-input matrix (issue 19): every command that reads a file (dedupe with each of its
formats, report, rerun) x every kind of file that is not what it should be: a FIFO (no
writer: must not block), /dev/zero (must not be read for ever), a directory, a symlink loop,
a file over the documented limit, binary, Latin-1, deeply nested JSON and wrong types.

Each cell runs the real command in a subprocess with a timeout: the documented exit code,
one line on stderr naming the file, no traceback, and a bounded time.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from command import command_env, command_runner

RECORD_OK = {"record_version": 1, "kind": "search", "topic": "x", "options": {}, "providers": [], "results": [],
             "counts": {"identified": 0, "per_source": {}, "duplicates_removed": 0, "after_duplicates_removed": 0,
                        "shown": 0}}


def _make(kind: str, folder, extension: str) -> str:
    path = folder / f"input{extension}"
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink loop":
        path.symlink_to(folder / f"other{extension}")
        (folder / f"other{extension}").symlink_to(path)
    elif kind == "huge file":
        with open(path, "wb") as handle:  # sparse: 150 MB that take no disk
            handle.truncate(150_000_000)
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 64)
    elif kind == "Latin-1":
        text = json.dumps(RECORD_OK | {"topic": "Müller"}, ensure_ascii=False) if extension == ".json" else \
            "ID,title,author,year\nr1,Über Café-Kultur,Müller,2020\n"
        if extension == ".ris":
            text = "TY  - JOUR\nID  - r1\nTI  - Über Café-Kultur\nAU  - Müller\nPY  - 2020\nER  - \n"
        if extension == ".bib":
            text = "@article{r1,\n  title = {Über Café-Kultur},\n  author = {Müller},\n  year = {2020}\n}\n"
        path.write_bytes(text.encode("latin-1"))
    elif kind == "deeply nested JSON":
        path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    elif kind == "wrong types":
        if extension == ".json":
            path.write_text(json.dumps(RECORD_OK | {"results": [{"title": {"nested": True}, "year": "2020"}]}))
        else:
            path.write_text("ID,title,author,year\n1,{\"a\": 1},[],not-a-year\n", encoding="utf-8")
    return path.name


KINDS = ("FIFO", "/dev/zero", "directory", "symlink loop", "huge file", "binary", "Latin-1", "deeply nested JSON",
         "wrong types")
# command -> (arguments for the input file, extension)
COMMANDS = {
    "dedupe .csv": (lambda name: ["dedupe", name, "-o", "out.csv"], ".csv"),
    "dedupe .ris": (lambda name: ["dedupe", name, "-o", "out.csv"], ".ris"),
    "dedupe .bib": (lambda name: ["dedupe", name, "-o", "out.csv"], ".bib"),
    "report": (lambda name: ["report", name], ".json"),
    "rerun": (lambda name: ["rerun", name], ".json"),
}
# What is valid input after all: Latin-1 exports are read (dedupe decodes them); a CSV whose
# cells are odd is still a CSV. Everything else is refused with exit 2.
VALID = {("dedupe .csv", "Latin-1"), ("dedupe .ris", "Latin-1"), ("dedupe .bib", "Latin-1"),
         ("dedupe .csv", "wrong types")}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_file_inputs(command, kind, tmp_path):
    arguments, extension = COMMANDS[command]
    name = _make(kind, tmp_path, extension)
    run = command_runner(command_env(LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                                     LITSEARCH_SEMANTIC_SCHOLAR_URL="http://127.0.0.1:9",
                                     LITSEARCH_OPENALEX_URL="http://127.0.0.1:9"), tmp_path, timeout=60)
    started = time.monotonic()
    proc = run(arguments(name), code=None)
    assert time.monotonic() - started < 30
    if (command, kind) in VALID:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and len(proc.stderr) < 700, proc.stderr
    assert name in proc.stderr
