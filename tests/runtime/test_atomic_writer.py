"""The atomic writer (runtime/files.write_file_atomically) that every output file goes through:
the old file stays whole until the new one is complete on disk, the file keeps its mode (or
gets the umask's), nothing is left behind on failure, and the error names the user's file.
Written to kill the mutants of the writer (bench/mutation.py)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from litsearch.runtime.files import write_file_atomically

ENTRY = "@article{jinek2012programmable,\n  title = {A Programmable Dual-RNA–Guided DNA Endonuclease},\n}\n"


def test_text_is_written_as_utf8_with_its_line_ends_untouched(tmp_path):
    target = tmp_path / "refs.ris"
    write_file_atomically(target, "TY  - JOUR\r\nTI  - Müller’s\r\nER  - \r\n")
    assert target.read_bytes() == "TY  - JOUR\r\nTI  - Müller’s\r\nER  - \r\n".encode("utf-8")


def test_bytes_are_written_as_they_are(tmp_path):
    target = tmp_path / "paper.pdf"
    data = b"%PDF-1.4\n\x00\xff\xfe binary\r\n"
    write_file_atomically(target, data)
    assert target.read_bytes() == data


def test_an_existing_file_is_replaced_whole(tmp_path):
    target = tmp_path / "refs.bib"
    target.write_text("x" * 10_000, encoding="utf-8")
    write_file_atomically(target, ENTRY)
    assert target.read_text(encoding="utf-8") == ENTRY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["refs.bib"]


@pytest.mark.parametrize("umask,mode", [(0o027, 0o640), (0o022, 0o644), (0o000, 0o666), (0o077, 0o600)])
def test_a_new_file_gets_the_umask_mode(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_file_atomically(tmp_path / "new.bib", ENTRY)
        assert os.umask(umask) == umask  # the writer put the process umask back as it was
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.bib").stat().st_mode) == mode


def test_a_replaced_file_keeps_its_own_mode(tmp_path):
    target = tmp_path / "shared.bib"
    target.write_text("old", encoding="utf-8")
    for mode in (0o604, 0o755):  # a script keeps its execute bits
        target.chmod(mode)
        write_file_atomically(target, ENTRY)
        assert stat.S_IMODE(target.stat().st_mode) == mode
    target.chmod(0o2640)  # setgid on a file: the mode's upper bits are kept too
    write_file_atomically(target, "again")
    assert stat.S_IMODE(target.stat().st_mode) == 0o2640


def test_the_text_reaches_the_disk_before_the_rename(tmp_path, monkeypatch):
    target = tmp_path / "refs.bib"
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.fstat(fd).st_size)), real_fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", Path(b).name)), real_replace(a, b)))
    write_file_atomically(target, ENTRY)
    assert events == [("fsync", len(ENTRY.encode("utf-8"))), ("replace", "refs.bib")]


def test_the_temporary_file_is_hidden_beside_the_target(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (seen.append(Path(a)), real_replace(a, b)))
    write_file_atomically(tmp_path / "refs.bib", ENTRY)
    temporary = seen[0]
    assert temporary.parent == tmp_path
    assert temporary.name.startswith(".refs.bib.") and temporary.name.endswith(".tmp")


def test_a_relative_path_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_file_atomically(Path("refs.bib"), ENTRY)
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == ENTRY
    assert [p.name for p in tmp_path.iterdir()] == ["refs.bib"]


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failure_at_any_step_keeps_the_old_file_and_leaves_nothing(tmp_path, monkeypatch, failing):
    target = tmp_path / "refs.bib"
    target.write_text("the old file, whole\n", encoding="utf-8")

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/.refs.bib.tmp")

    if failing == "write":
        text = "\udcff"  # fails inside the write: a lone surrogate UTF-8 cannot encode
    else:
        text = ENTRY
        monkeypatch.setattr(os, failing, full_disk)
    with pytest.raises((OSError, UnicodeError)) as caught:
        write_file_atomically(target, text)
    if failing != "write":
        assert caught.value.errno == errno.ENOSPC
        assert caught.value.strerror == "No space left on device"
        assert caught.value.filename == str(target)  # the user's file, not the temporary
    assert target.read_text(encoding="utf-8") == "the old file, whole\n"
    assert [p.name for p in tmp_path.iterdir()] == ["refs.bib"]


def test_a_missing_folder_is_an_oserror_naming_the_file(tmp_path):
    target = tmp_path / "no such folder" / "refs.bib"
    with pytest.raises(OSError) as caught:
        write_file_atomically(target, ENTRY)
    assert caught.value.errno == errno.ENOENT and caught.value.filename == str(target)


def test_a_close_that_fails_after_a_failed_write_reports_the_first_error(tmp_path, monkeypatch):
    target = tmp_path / "refs.bib"
    real_fdopen = os.fdopen

    class FailingFile:
        def __init__(self, handle):
            self.handle = handle

        def write(self, text):
            raise OSError(errno.EIO, "Input/output error")

        def close(self):
            self.handle.close()
            raise OSError(errno.EIO, "close failed too")

    monkeypatch.setattr(os, "fdopen", lambda *a, **k: FailingFile(real_fdopen(*a, **k)))
    with pytest.raises(OSError) as caught:
        write_file_atomically(target, ENTRY)
    assert caught.value.strerror == "Input/output error" and caught.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []


def closes_everything(action) -> list[str]:
    """The ResourceWarnings ``action`` leaves: a file object dropped without close()."""
    import gc
    import warnings

    gc.collect()  # what earlier tests left for the collector is theirs, not this action's
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        try:
            action()
        except (OSError, UnicodeError):
            pass
        gc.collect()
    return [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def test_no_file_is_left_open(tmp_path):
    assert closes_everything(lambda: write_file_atomically(tmp_path / "refs.bib", ENTRY)) == []
    assert closes_everything(lambda: write_file_atomically(tmp_path / "refs.bib", "\udcff")) == []  # failed write


# ------------------------------------------------ a path that is a link, or not a regular file
# The class: renaming over a symbolic link replaces the link, not the file it leads to (a record
# or session kept in a synced folder through a link silently stops being updated there); renaming
# over a device replaces the device (as root, /dev/null itself).


def test_a_link_is_kept_and_the_file_it_leads_to_replaced(tmp_path):
    (tmp_path / "synced").mkdir()
    real = tmp_path / "synced" / "refs.bib"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "refs.bib"
    link.symlink_to(real)
    write_file_atomically(link, ENTRY)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8") == ENTRY
    assert sorted(p.name for p in (tmp_path / "synced").iterdir()) == ["refs.bib"]  # no temporary left


def test_a_chain_of_links_and_a_relative_link_lead_to_the_last_file(tmp_path):
    (tmp_path / "a").mkdir()
    real = tmp_path / "a" / "record.json"
    (tmp_path / "a" / "hop.json").symlink_to("record.json")  # relative, in its own folder
    link = tmp_path / "record.json"
    link.symlink_to(tmp_path / "a" / "hop.json")
    write_file_atomically(link, "{}")
    assert real.read_text(encoding="utf-8") == "{}" and link.is_symlink() and (tmp_path / "a" / "hop.json").is_symlink()


def test_a_dangling_link_gets_its_file_created_where_it_points(tmp_path):
    (tmp_path / "later").mkdir()
    link = tmp_path / "refs.ris"
    link.symlink_to(tmp_path / "later" / "refs.ris")
    write_file_atomically(link, "TY  - JOUR\r\nER  - \r\n")
    assert link.is_symlink() and (tmp_path / "later" / "refs.ris").read_text(encoding="utf-8").startswith("TY")


@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_is_never_replaced_and_the_error_names_the_users_path(tmp_path, through_link):
    fifo = tmp_path / "pipe.bib"
    os.mkfifo(fifo)
    named = fifo
    if through_link:
        named = tmp_path / "link.bib"
        named.symlink_to(fifo)
    with pytest.raises(OSError) as raised:
        write_file_atomically(named, ENTRY)
    assert raised.value.errno == errno.EINVAL and raised.value.filename == str(named)
    assert "not a regular file" in raised.value.strerror
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"pipe.bib", named.name})  # no temporary


def test_a_link_loop_is_an_os_error_naming_the_users_path(tmp_path):
    first, second = tmp_path / "a.bib", tmp_path / "b.bib"
    first.symlink_to(second)
    second.symlink_to(first)
    with pytest.raises(OSError) as raised:
        write_file_atomically(first, ENTRY)
    assert raised.value.filename == str(first) and raised.value.errno == errno.ELOOP
    assert first.is_symlink() and second.is_symlink()
