"""The launcher's private environments as folders (issue 30): one per version and Python in
lit-search's data folder whichever variable Claude Code sets, the lock a build holds, and
what a build killed at any moment leaves, removed by the next run. In this process, with the
venv and pip steps replaced by a stand-in, except one real build killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO
from plugin_support import SKILL, clean_env, plugin_copy

sys.path.insert(0, str(REPO / SKILL / "scripts"))
import environment  # noqa: E402

PYTHON = f"python{sys.version_info[0]}.{sys.version_info[1]}"
DAY = 86400


@pytest.fixture
def data(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(folder))
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    return folder


@pytest.fixture
def stand_in_build(monkeypatch):
    """venv and pip replaced: the venv step makes bin/python; the commands run are recorded."""
    ran = []

    def run(command, failure, keep):
        ran.append(command)
        if "venv" in command:
            python = environment.python_in(Path(command[-1]))
            python.parent.mkdir(parents=True)
            python.write_text("")

    monkeypatch.setattr(environment, "_run", run)
    return ran


def make_environment(folder: Path, wanted: dict, age_days: float = 0) -> Path:
    environment.python_in(folder).parent.mkdir(parents=True, exist_ok=True)
    environment.python_in(folder).write_text("")
    marker = folder / environment.MARKER
    marker.write_text(json.dumps(wanted), encoding="utf-8")
    stamp = time.time() - age_days * DAY
    os.utime(marker, (stamp, stamp))
    return folder


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_the_skill_and_the_mcp_server_find_one_folder_whichever_variable_claude_code_sets(data, monkeypatch,
                                                                                         tmp_path):
    as_the_skill = environment.environment_folder(REPO)
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "plugin-data"))  # set for MCP servers only
    assert environment.environment_folder(REPO) == as_the_skill
    version = environment.identity(REPO)["version"]
    assert as_the_skill == data / "environments" / f"{version}-{PYTHON}"
    monkeypatch.delenv("LITSEARCH_CACHE_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):  # as litsearch.core.config.data_folder
        from litsearch.core.config import data_folder

        assert environment.data_folder() == data_folder() == tmp_path / "xdg" / "lit-search"


def test_a_build_leaves_the_environment_alone_and_no_lock(data, stand_in_build):
    python = environment.environment_python(REPO)
    folder = environment.environment_folder(REPO)
    assert python == environment.python_in(folder) and python.exists()
    assert names(folder.parent) == [folder.name]
    assert json.loads((folder / environment.MARKER).read_text()) == environment.identity(REPO)
    assert environment.environment_python(REPO) == python and len(stand_in_build) == 2  # reused: no new build


# What a build killed at each moment leaves, for the environment E the next run wants:
# (entries before, whether E is current). ".lock" alone is a file; the others are folders.
KILLED = {
    "while creating the venv": ([".building-41", ".lock"], False),
    "while pip installs": ([".building-41", ".lock"], False),
    "after the old environment was moved aside": ([".old-41", ".building-41", ".lock"], False),
    "after the rename, before the old one was removed": (["", ".old-41", ".lock"], True),
    "after removing the old one, before unlocking": (["", ".lock"], True),
    "a rebuild killed, the lock file deleted by hand": (["", ".building-41"], True),
}


@pytest.mark.parametrize("moment", KILLED, ids=list(KILLED))
def test_whatever_a_killed_build_leaves_the_next_run_removes(data, stand_in_build, moment):
    entries, current = KILLED[moment]
    folder = environment.environment_folder(REPO)
    folder.parent.mkdir(parents=True)
    for suffix in entries:
        path = folder.with_name(folder.name + suffix)
        if suffix == ".lock":
            path.write_text("")
        elif suffix == "":
            make_environment(path, environment.identity(REPO))
        else:
            (path / "lib").mkdir(parents=True)
    environment.environment_python(REPO)
    assert names(folder.parent) == [folder.name]
    assert len(stand_in_build) == (0 if current else 2)


def test_what_another_process_is_still_building_is_left_alone(data, stand_in_build):
    folder = environment.environment_folder(REPO)
    other = folder.with_name("0.0.1-" + PYTHON)
    folder.parent.mkdir(parents=True)
    (other.with_name(other.name + ".building-7") / "lib").mkdir(parents=True)
    with environment.Lock(other.with_name(other.name + ".lock")):  # its builder is alive
        environment.environment_python(REPO)
        assert names(folder.parent) == sorted([folder.name, other.name + ".building-7", other.name + ".lock"])
    environment.remove_leftovers(folder.parent)  # its builder died: the next look removes it
    assert names(folder.parent) == [folder.name]


def test_other_versions_unused_for_a_week_go_after_a_build_unless_a_terminal_command_runs_them(data, stand_in_build,
                                                                                                tmp_path):
    environments = data / "environments"
    old = {"version": "0.0.9", "pins": "x"}
    stale = make_environment(environments / f"0.0.9-{PYTHON}", old, age_days=8)
    recent = make_environment(environments / f"0.0.8-{PYTHON}", old, age_days=2)
    pinned = make_environment(environments / f"0.0.7-{PYTHON}", old, age_days=30)
    script = tmp_path / "bin" / "lit-search"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nexec "{environment.python_in(pinned)}" -m litsearch "$@"\n')
    (pinned / environment.TERMINAL_COMMANDS).write_text(f"{script}\n")
    gone_command = make_environment(environments / f"0.0.6-{PYTHON}", old, age_days=30)
    (gone_command / environment.TERMINAL_COMMANDS).write_text(f"{tmp_path / 'removed-script'}\n")
    busy = make_environment(environments / f"0.0.5-{PYTHON}", old, age_days=30)
    with environment.Lock(busy.with_name(busy.name + ".lock")):
        environment.environment_python(REPO)
    current = environment.environment_folder(REPO).name
    assert names(environments) == sorted([current, recent.name, pinned.name, busy.name])
    assert not stale.exists() and not gone_command.exists()


def test_using_an_environment_keeps_it_recent(data, stand_in_build):
    environment.environment_python(REPO)
    marker = environment.environment_folder(REPO) / environment.MARKER
    long_ago = time.time() - 30 * DAY
    os.utime(marker, (long_ago, long_ago))
    environment.environment_python(REPO)
    assert time.time() - marker.stat().st_mtime < DAY


def test_the_environments_of_older_releases_under_claude_plugin_data_are_removed(monkeypatch, tmp_path):
    plugin_data = tmp_path / "plugin-data"
    for name in ("python3.11-env", "python3.12-env.building-1234", "unrelated", "python3.11-env-notes"):
        (plugin_data / name).mkdir(parents=True)
    (plugin_data / "python3.11-env.lock").write_text("")
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(plugin_data))
    environment.remove_plugin_data_environments()
    assert names(plugin_data) == ["python3.11-env-notes", "unrelated"]


def test_a_waiter_never_shares_the_lock_with_the_next_holder(tmp_path, monkeypatch):
    """A holder unlinks the lock file as it leaves. A waiter that opened the file just before
    (and so locks the unlinked one) must not build beside a newcomer who locked the new file."""
    path = tmp_path / "e.lock"
    path.write_text("")
    newcomer_in, newcomer_out, events = threading.Event(), threading.Event(), []

    def newcomer() -> None:
        with environment.Lock(path):
            events.append("newcomer in")
            newcomer_in.set()
            time.sleep(1.0)
            events.append("newcomer out")
        newcomer_out.set()

    opened = []

    def open_then_lose_the_race(file, *args, **kwargs):
        handle = open(file, *args, **kwargs)
        if not opened:  # the first open: the old holder leaves, a newcomer takes the new file
            opened.append(file)
            os.unlink(path)
            threading.Thread(target=newcomer).start()
            newcomer_in.wait(timeout=60)
        return handle

    monkeypatch.setattr(environment, "open", open_then_lose_the_race, raising=False)
    with environment.Lock(path):
        events.append("waiter in")
    newcomer_out.wait(timeout=60)
    assert events == ["newcomer in", "newcomer out", "waiter in"]
    assert not path.exists()


@pytest.mark.slow
def test_a_real_build_killed_with_sigkill_leaves_nothing_the_next_run_does_not_remove(tmp_path, monkeypatch):
    """The background build the MCP front starts (`python3 environment.py ROOT`, its own
    session), killed with its pip while pip waits for the package index."""
    root = plugin_copy(tmp_path / "plugin")
    data = tmp_path / "data"
    silent = socket.socket()  # an index that accepts and never answers: pip waits there
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    env = clean_env(LITSEARCH_CACHE_DIR=str(data), PIP_INDEX_URL=f"http://127.0.0.1:{silent.getsockname()[1]}/simple",
                    PIP_DEFAULT_TIMEOUT="600", PIP_RETRIES="0", PIP_CACHE_DIR=str(tmp_path / "pip-cache"))
    build = subprocess.Popen([sys.executable, str(root / SKILL / "scripts" / "environment.py"), str(root)],
                             env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        silent.settimeout(600)
        asked, _ = silent.accept()  # pip is installing: the venv is made, the lock held
        os.killpg(build.pid, signal.SIGKILL)
        build.wait(timeout=60)
        asked.close()
    finally:
        silent.close()
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
    environments = data / "environments"
    left = names(environments)
    assert any(".building-" in name for name in left) and any(name.endswith(".lock") for name in left), left
    [lock] = [environments / name for name in left if name.endswith(".lock")]
    deadline = time.monotonic() + 120
    while True:  # SIGKILL is delivered, and pip dies, a moment after the builder is reaped
        with environment.Lock.try_hold(lock) as held:
            if held is not None:
                break
        assert time.monotonic() < deadline, "the killed build's lock is still held"
        time.sleep(0.1)
    lock.write_text("")  # as the dead build left it (trying the lock just removed it)

    # The next run: another process finished the environment meanwhile (a stand-in here); the
    # launcher finds it and removes what the killed build left.
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(data))
    folder = environment.environment_folder(root)
    make_environment(folder, environment.identity(root))
    environment.environment_python(root)
    assert names(environments) == [folder.name]
