"""Every command that only reads the store × every odd kind of file in place of the database
(issue 31): a folder (``internal error: OperationalError`` before), a named pipe (``library list``
never returned), a socket, a device, a symbolic link loop, a data folder that is a file, and
the same beside it (SQLite's -wal and -shm), an empty file, a file that is no database.

For every cell: one line naming the file and what stands there, the store's exit code (4), no
traceback and no "internal error", and the command ends (a watchdog unblocks and fails a run
that waits). A link to nothing is no file yet: an empty library. The real entry point runs
in-process (fault_support.run_cli)."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest
from fault_support import run_cli

DB = "lit-search.sqlite3"
WATCHDOG_SECONDS = 60


def _make(kind: str, folder) -> None:
    path = folder / DB
    if kind == "folder":
        path.mkdir()
    elif kind == "named pipe":
        os.mkfifo(path)
    elif kind == "socket":
        holder = socket.socket(socket.AF_UNIX)
        holder.bind(str(path))
        holder.close()
    elif kind == "/dev/null":
        path.symlink_to("/dev/null")
    elif kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "symlink loop":
        path.symlink_to(folder / "other")
        (folder / "other").symlink_to(path)
    elif kind == "wal is a named pipe":
        _saved(folder)
        os.mkfifo(folder / f"{DB}-wal")
    elif kind == "shm is a folder":
        _saved(folder)
        (folder / f"{DB}-shm").mkdir()
    elif kind == "empty file":
        path.write_bytes(b"")
    elif kind == "no database":
        path.write_bytes(b"this is not SQLite\n" * 100)


def _saved(folder) -> None:
    from litsearch.core.records import Paper
    from litsearch.library.store import Store

    with Store.open(folder / DB) as store:
        store.save_papers([Paper(provider="openalex", title="A saved paper", doi="10.5555/saved.1", year=2020).to_dict()])
    for suffix in ("-wal", "-shm"):
        if os.path.lexists(folder / f"{DB}{suffix}"):
            os.remove(folder / f"{DB}{suffix}")


# (kind, words the one line carries)
KINDS = {
    "folder": "is a folder, not a file",
    "named pipe": "is a named pipe (FIFO), not a file",
    "socket": "is a socket, not a file",
    "/dev/null": "is a device, not a file",
    "/dev/zero": "is a device, not a file",
    "symlink loop": "symbolic link loop",
    "data folder is a file": "is not a folder",
    "wal is a named pipe": "-wal is a named pipe (FIFO), not a file",
    "shm is a folder": "-shm is a folder, not a file",
    "empty file": "is empty",
    "no database": "damaged",
}
READ_ONLY_COMMANDS = {
    "library list": ["library", "list"],
    "library list json": ["library", "list", "--format", "json"],
    "library show": ["library", "show", "1"],
    "library export": ["library", "export", "--format", "json"],
    "search --offline": ["CRISPR off-target effects", "--offline"],
    "paper --offline": ["paper", "10.1038/nbt.2647", "--offline"],
    "network --offline": ["network", "10.1038/nbt.2647", "--offline"],
    "snowball --offline": ["snowball", "10.1038/nbt.2647", "--offline"],
    "read --offline": ["read", "PMC3299399", "--offline"],
    "author list --offline": ["author", "list", "Doudna", "--offline"],
}


def _run_watched(monkeypatch, capsys, env, args, folder):
    """The command in-process; a run still waiting after WATCHDOG_SECONDS is unblocked (its named
    pipes opened for writing and closed) and fails the test."""
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("run", run_cli(monkeypatch, capsys, env, args)),
                              daemon=True)
    worker.start()
    worker.join(WATCHDOG_SECONDS)
    if worker.is_alive():
        for name in os.listdir(folder):
            try:
                os.close(os.open(folder / name, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        worker.join(10)
        pytest.fail(f"{args} was still waiting after {WATCHDOG_SECONDS} s")
    return outcome["run"]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("command", list(READ_ONLY_COMMANDS))
def test_a_read_only_command_on_an_odd_file_is_one_line_and_exit_4(command, kind, tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    if kind == "data folder is a file":
        data.write_text("a file where the data folder should be")
    else:
        data.mkdir()
        _make(kind, data)
    env = {"LITSEARCH_CACHE_DIR": str(data), "LITSEARCH_PROVIDER_BUDGET": "4"}
    run = _run_watched(monkeypatch, capsys, env, READ_ONLY_COMMANDS[command], data)
    everything = run.stdout + run.stderr
    assert "Traceback" not in everything and "internal error" not in everything, everything
    assert run.exit_code == 4, everything
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and KINDS[kind] in lines[0], run.stderr
    assert run.stdout == ""


@pytest.mark.parametrize("command", ["library list", "library export"])
def test_a_link_to_nothing_is_an_empty_library(command, tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / DB).symlink_to(data / "nowhere.sqlite3")
    run = _run_watched(monkeypatch, capsys, {"LITSEARCH_CACHE_DIR": str(data)}, READ_ONLY_COMMANDS[command], data)
    assert run.exit_code == 0 and "Traceback" not in run.stderr, run.stderr
    assert not os.path.exists(data / "nowhere.sqlite3")  # a command that only reads creates nothing


@pytest.mark.parametrize("kind", ["folder", "named pipe", "/dev/zero"])
def test_a_search_with_an_odd_file_in_place_of_its_cache_runs_without_it(kind, tmp_path, monkeypatch, capsys):
    """The cache is a convenience: the search runs, one warning says the cache is off."""
    import fake_apis
    from fake_server import FakeServer

    data = tmp_path / "data"
    data.mkdir()
    _make(kind, data)
    with FakeServer() as server:
        env = {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(data)}
        run = _run_watched(monkeypatch, capsys, env, ["CRISPR off-target effects", "--providers", "openalex"], data)
    assert run.exit_code == 0 and "DNA targeting specificity" in run.stdout
    assert "cache disabled:" in run.stderr and KINDS[kind] in run.stderr


@pytest.mark.parametrize("kind", ["folder", "named pipe", "/dev/zero", "wal is a named pipe", "no database"])
def test_doctor_names_what_stands_in_place_of_the_database(kind, tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    data.mkdir()
    _make(kind, data)
    env = {"LITSEARCH_CACHE_DIR": str(data)}
    run = _run_watched(monkeypatch, capsys, env, ["doctor"], data)
    assert run.exit_code == 0 and "Traceback" not in run.stderr
    [line] = [line for line in run.stdout.splitlines() if line.startswith("- **database cannot be used:**")]
    assert KINDS[kind] in line
    as_json = _run_watched(monkeypatch, capsys, env, ["doctor", "--format", "json"], data)
    assert KINDS[kind] in json.loads(as_json.stdout)["data_folder"]["database_problem"]
