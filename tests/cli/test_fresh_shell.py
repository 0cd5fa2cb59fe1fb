"""The README's terminal install and every command of every page, in a fresh shell as a
newcomer has it (issue 21): `env -i`, a new HOME, the system python3 with no packages of its
own and no pipx or uv. The installer fallback (`python3 scripts/install.py`, taken from the
README as written) builds lit-search from a clone of this checkout with real pip installs,
then each page's commands run with only ~/.local/bin and the system folders on PATH, against
the fake APIs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from docs_commands import INSTALLER, PAGES, all_commands, install_fakes, page_folder, run_page
from fake_server import FakeServer
from plugin_support import plugin_copy

SYSTEM_PYTHON = Path("/usr/bin/python3")
SYSTEM_PATH = "/usr/bin:/bin"


def system_python_can_build_a_venv() -> bool:
    if not SYSTEM_PYTHON.exists():
        return False
    probe = subprocess.run([str(SYSTEM_PYTHON), "-c", "import venv, ensurepip, sys; assert sys.version_info >= (3, 10)"],
                           capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not system_python_can_build_a_venv(),
                                reason="no system python3 (3.10+ with venv and ensurepip) at /usr/bin/python3")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the clone, the fresh HOME, its environment's python) after the README's installer line."""
    root = tmp_path_factory.mktemp("fresh")
    clone, home = plugin_copy(root / "lit-search"), root / "home"
    home.mkdir()
    [command] = [c for c in all_commands(PAGES[0]) if c.startswith(INSTALLER)]
    run = subprocess.run(["env", "-i", f"HOME={home}", f"PATH={SYSTEM_PATH}", "LANG=C.UTF-8",
                          "bash", "--noprofile", "--norc", "-c", command],
                         cwd=clone, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "lit-search is installed" in run.stdout
    [python] = (home / ".local" / "share" / "lit-search" / "environments").glob("*-python3.*/bin/python")
    return clone, home, python


def test_the_installer_leaves_a_command_on_the_usual_path(installed):
    clone, home, python = installed
    script = home / ".local" / "bin" / "lit-search"
    run = subprocess.run(["env", "-i", f"HOME={home}", f"PATH={home / '.local' / 'bin'}:{SYSTEM_PATH}",
                          "bash", "--noprofile", "--norc", "-c", "lit-search --version"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("lit-search "), run.stderr
    again = subprocess.run(["env", "-i", f"HOME={home}", f"PATH={SYSTEM_PATH}", str(SYSTEM_PYTHON),
                            "scripts/install.py"], cwd=clone, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "first run" not in again.stderr, again.stderr  # reused, not rebuilt
    assert script.read_text().count("\n") == 3
    notes = python.parent.parent / "terminal-commands"  # kept by the clean-up of unused environments
    assert notes.read_text().splitlines() == [str(script)]  # noted once, though installed twice


def test_the_installer_never_replaces_a_command_it_did_not_write(installed, tmp_path):
    clone, home, _ = installed
    (tmp_path / "lit-search").write_text("#!/bin/sh\necho pipx's\n")
    run = subprocess.run(["env", "-i", f"HOME={home}", f"PATH={SYSTEM_PATH}", str(SYSTEM_PYTHON), "scripts/install.py",
                          "--bin-dir", str(tmp_path)], cwd=clone, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "not written by this installer" in run.stderr
    assert (tmp_path / "lit-search").read_text() == "#!/bin/sh\necho pipx's\n"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_on_the_page_runs_in_a_fresh_shell(page, installed, tmp_path):
    clone, home, python = installed
    env = {"PATH": f"{home / '.local' / 'bin'}:{SYSTEM_PATH}", "LANG": "C.UTF-8",
           "LITSEARCH_EMAIL": "researcher@example.org",
           # one data folder, as on a real machine: the environment the installer built, which the
           # provider scripts reuse under a bare python3, and the library the pages fill
           "XDG_DATA_HOME": str(home / ".local" / "share")}
    with FakeServer() as server:
        env.update(install_fakes(server))
        failures = run_page(page, page_folder(tmp_path, page, checkout=clone), env, python=str(python))
    assert not failures, "\n".join(map(str, failures))
