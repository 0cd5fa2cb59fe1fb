"""One step at a time on a session (deep/step_lock.py): a second step while one runs is refused
in one line and changes nothing; the lock file goes with the step; a killed step's lock file is
taken over; a lock file replaced while being taken is taken again."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from litsearch.core.errors import UsageError
from litsearch.deep import step_lock
from litsearch.deep.step_lock import held, lock_path

pytestmark = pytest.mark.skipif(step_lock.fcntl is None, reason="no flock here (Windows)")


def test_a_second_step_is_refused_while_the_first_holds_the_session(tmp_path):
    session = tmp_path / "review.json"
    with held(session):
        assert lock_path(session).exists() and lock_path(session).name == ".review.json.lock"
        with pytest.raises(UsageError, match=r"another step on this session is running"):
            with held(session):
                pass
        with held(tmp_path / "other.json"):  # another session in the same folder is free
            pass
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the lock file went with the step
    with held(session):  # and the session is free again
        pass


def test_another_process_holding_the_lock_refuses_this_one(tmp_path):
    session = tmp_path / "review.json"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from litsearch.deep.step_lock import held\n"
        f"with held({str(session)!r}):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.readline()\n")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(UsageError):
            with held(session):
                pass
    finally:
        holder.kill()  # killed while holding: its lock file stays, its lock does not
        holder.wait()
    assert lock_path(session).exists()
    with held(session):
        pass
    assert not lock_path(session).exists()


def test_a_lock_file_replaced_while_it_is_taken_is_taken_again(tmp_path, monkeypatch):
    """A step ending between our open and our flock removes the file we opened: a lock on it would
    hold nothing, so the file at the path is opened and locked again."""
    session = tmp_path / "review.json"
    real_flock, calls = step_lock.fcntl.flock, []

    def racing_flock(descriptor, operation):
        calls.append(os.fstat(descriptor).st_ino)
        if len(calls) == 1:  # the other step ends now: its file goes, a third step makes a new one
            os.unlink(lock_path(session))
            lock_path(session).write_bytes(b"")
        return real_flock(descriptor, operation)

    monkeypatch.setattr(step_lock.fcntl, "flock", racing_flock)
    with held(session):
        assert len(calls) == 2 and calls[1] == lock_path(session).stat().st_ino


def test_where_no_lock_file_can_be_made_the_step_goes_on_unlocked(tmp_path):
    with held(tmp_path / "missing" / "review.json"):  # the step will name the missing file itself
        pass


def test_a_session_through_a_link_is_locked_beside_the_document(tmp_path):
    (tmp_path / "synced").mkdir()
    (tmp_path / "mine.json").symlink_to("synced/review.json")
    with held(tmp_path / "mine.json"):
        assert (tmp_path / "synced" / ".review.json.lock").exists()
        with pytest.raises(UsageError):
            with held(tmp_path / "synced" / "review.json"):
                pass
