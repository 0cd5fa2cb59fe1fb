"""A researcher's data is never silently changed or dropped (issue 11, defects 1, 3-6, 20, 21):
save -> library export equals the direct export; library links are links; a kill during -o
leaves the old file or the new one; a full disk costs neither the answers nor the old file; a
damaged database is never written; no key, in any spelling, reaches any file."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote, quote_plus

import bibtexparser
import pytest

import fake_apis
from command import command_env, command_runner, lit_search_command
from fake_server import Answer, FakeServer, SeenRequest

TOPIC = "CRISPR off-target effects"
DNA = "DNA targeting specificity of RNA-guided Cas9 nucleases"


@pytest.fixture
def world(tmp_path):
    with FakeServer() as server:
        env = command_env(fake_apis.install(server), LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                          LITSEARCH_EMAIL="lib@example.org")
        yield env, command_runner(env, tmp_path, timeout=90), tmp_path


# ---------------------------------------------------------------- 1: save -> export round trip

def test_1_library_export_equals_the_direct_export_with_every_author(world):
    _, run, folder = world
    for extension in ("bib", "ris", "csl.json"):
        run([TOPIC, "-o", f"direct.{extension}"])
    run([TOPIC, "--save"])
    for extension in ("bib", "ris", "csl.json"):
        run(["library", "export", "-o", f"library.{extension}"])
        assert (folder / f"library.{extension}").read_text(encoding="utf-8") == \
            (folder / f"direct.{extension}").read_text(encoding="utf-8"), extension
    entries = bibtexparser.parse_string((folder / "library.bib").read_text(encoding="utf-8")).entries
    assert max(len(entry["author"].split(" and ")) for entry in entries) >= 6  # not cut to 5
    csl = json.loads((folder / "library.csl.json").read_text(encoding="utf-8"))
    assert max(len(item.get("author", [])) for item in csl) >= 6


def test_3_library_show_prints_the_papers_own_links_whole(world):
    _, run, _ = world
    run([TOPIC, "--save"])
    shown = run(["library", "show", "10.1038/nbt.2647"]).stdout
    assert "https://doi.org/10.1038/nbt.2647" in shown
    assert "[:]" not in shown.split("Abstract")[0]  # links are not defanged; only prose would be


# ---------------------------------------------------------------- 4: a kill during -o

def test_4_a_kill_while_writing_leaves_the_old_file_whole(tmp_path):
    target = tmp_path / "refs.json"
    target.write_text('{"old": true}\n', encoding="utf-8")
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sys; from pathlib import Path; from litsearch.runtime.files import write_file_atomically;"
        "print('writing', flush=True);"
        "write_file_atomically(Path(sys.argv[1]), 'x' * 400_000_000)"), str(target)],
        stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "writing"
    deadline = time.monotonic() + 20
    while not list(tmp_path.glob(".refs.json.*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.05)  # mid-write
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert target.read_text(encoding="utf-8") == '{"old": true}\n'


def test_4_killed_searches_leave_the_old_export_or_the_new_one(world):
    env, run, folder = world
    run([TOPIC, "--format", "json", "-o", "out.json"])
    complete = (folder / "out.json").read_text(encoding="utf-8")
    (folder / "out.json").write_text("[]\n", encoding="utf-8")
    for delay in (0.05, 0.2, 0.4, 0.6, 0.9, 1.3):
        search = subprocess.Popen(lit_search_command() + [TOPIC, "--format", "json", "-o", "out.json"],
                                  env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        search.send_signal(signal.SIGKILL)
        search.wait()
        text = (folder / "out.json").read_text(encoding="utf-8")
        assert text == "[]\n" or json.loads(text)["query"] == json.loads(complete)["query"], text[:200]


# ---------------------------------------------------------------- 5: a full disk

def _file_size_limit(limit: int):
    def apply() -> None:  # in the child: writes past ``limit`` bytes fail with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.fixture(params=["tmpfs", "file-size-limit"])
def full_disk(request, tmp_path):
    """(folder, preexec): a folder where writing fails for lack of space, and what the child runs."""
    if request.param == "file-size-limit":
        yield tmp_path / "disk", _file_size_limit(2048)  # less than an export or an empty database
        return
    mount_point = tmp_path / "tmpfs"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mount_point)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs (the file-size-limit case still runs)")
    try:
        yield mount_point / "disk", None
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def test_5_a_full_disk_costs_neither_the_answers_nor_the_old_file(full_disk, tmp_path):
    disk, preexec = full_disk
    disk.mkdir()
    old = disk / "refs.bib"
    old.write_text("@misc{old}\n", encoding="utf-8")
    if preexec is None:  # tmpfs: fill what is left
        try:
            with open(disk / "filler", "wb") as filler:
                while True:
                    filler.write(b"\0" * 4096)
                    filler.flush()
        except OSError:  # No space left on device: the disk is full
            pass
    with FakeServer() as server:
        env = command_env(fake_apis.install(server), LITSEARCH_CACHE_DIR=str(disk / "data"))
        run = command_runner(env, tmp_path, timeout=90, preexec=preexec)
        search = run([TOPIC, "--providers", "openalex,semantic_scholar", "--no-verify"])
        assert DNA in search.stdout  # the cache could not write: the answers are still shown
        assert search.stderr.count("cache") <= 2
        export = run([TOPIC, "--providers", "openalex", "--no-verify", "-o", str(old)], code=None)
        errors = [line for line in export.stderr.splitlines() if "error: " in line]
        assert export.returncode == 2 and len(errors) == 1, export.stderr
        assert f"cannot write {old}:" in errors[0]
        assert old.read_text(encoding="utf-8") == "@misc{old}\n"
        assert not list(disk.glob(".refs.bib.*"))  # no temporary file left behind
        # --save needs the library: when it cannot be written the search says so (exit 4, one
        # line naming the file), either before asking anyone or after showing the answers.
        saved = run([TOPIC, "--providers", "openalex", "--no-verify", "--save"], code=None)
        assert saved.returncode == 4 and "lit-search.sqlite3" in saved.stderr, saved.stderr
        assert saved.stdout == "" or DNA in saved.stdout
        assert saved.stderr.count("\n") <= 2


# ---------------------------------------------------------------- 6: a damaged database

def test_6_a_damaged_page_in_the_middle_is_found_and_never_written(world):
    _, run, folder = world
    run([TOPIC, "--save"])
    path = folder / "data" / "lit-search.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'papers'").fetchone()[0]
    data = bytearray(path.read_bytes())
    assert len(data) > root * page_size  # a page in the middle of the file, not its header
    data[(root - 1) * page_size + 8:(root - 1) * page_size + 400] = os.urandom(392)
    path.write_bytes(bytes(data))
    before = path.read_bytes()

    search = run([f"{TOPIC} again", "--providers", "openalex", "--no-verify"])
    assert DNA in search.stdout and "damaged" in search.stderr
    saved = run([TOPIC, "--providers", "openalex", "--no-verify", "--save"], code=None)
    assert saved.returncode == 4 and "damaged" in saved.stderr
    assert "not modified" not in saved.stderr or path.read_bytes() == before
    listing = run(["library", "list"], code=None)
    assert listing.returncode == 4
    assert path.read_bytes() == before  # nothing wrote into the damaged file
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0


# ---------------------------------------------------------------- 20, 21: keys in files

KEYS = {"SEMANTIC_SCHOLAR_API_KEY": "S2+CAN/ARY= k1", "OPENALEX_API_KEY": "OA+CAN/ARY=x9 z",
        "NCBI_API_KEY": "NC+BI/CAN=ARY 3"}


def spellings(key: str) -> list[bytes]:
    forms = {key, quote(key, safe=""), quote_plus(key), quote(key), json.dumps(key)[1:-1],
             key.replace(" ", "+"), quote(key, safe="").lower()}
    return [form.encode("utf-8") for form in forms]


def echo_everything(normal):
    """The normal answer with every key the request carried echoed into its text, raw and encoded."""
    def responder(request: SeenRequest) -> Answer:
        answer = normal(request)
        echoed = " ".join(filter(None, [request.headers.get("x-api-key"), request.param("api_key"),
                                        request.raw_query]))
        text = answer.body if isinstance(answer.body, str) else answer.body.decode()
        if text.lstrip().startswith("{"):
            payload = json.loads(text)
            for record in payload.get("data") or payload.get("results") or []:
                record["title"] = f"{record.get('title') or record.get('display_name')} {echoed}"
                record["display_name"] = record["title"]
            text = json.dumps(payload)
        else:
            text = text.replace("<ArticleTitle>", f"<ArticleTitle>{echoed} ", 1)
        return Answer(answer.status, text, headers=answer.headers, content_type=answer.content_type)
    return responder


def test_20_21_no_key_in_any_spelling_reaches_any_file(tmp_path):
    routes = {"/s2/graph/v1/paper/search": echo_everything(fake_apis.s2_search),
              "/openalex/works": echo_everything(fake_apis.openalex_works),
              "/eutils/efetch.fcgi": echo_everything(fake_apis.pubmed_efetch)}
    with FakeServer() as server:
        env = command_env(fake_apis.install(server, routes), KEYS, LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                          LITSEARCH_EMAIL="keys@example.org")
        run = command_runner(env, tmp_path, timeout=90)
        outputs = [run([TOPIC, "--providers", "semantic_scholar,openalex,pubmed", "--save"])]
        for name in ("out.bib", "out.ris", "out.csl.json", "out.json", "out.md"):
            outputs.append(run([TOPIC, "--providers", "semantic_scholar,openalex,pubmed", "-o", name]))
        for name in ("library.bib", "library.json", "library.ris"):
            outputs.append(run(["library", "export", "-o", name]))
        outputs.append(run(["library", "show", "10.1038/nbt.2647"]))
        echoed = [r for r in server.requests if r.param("api_key") or r.headers.get("x-api-key")]
        assert echoed, "the keys were sent, so the servers had them to echo"
    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.name.startswith("lit-search.sqlite3") for path in files)
    for key in KEYS.values():
        for form in spellings(key):
            for path in files:
                assert form not in path.read_bytes(), (path, form)
            for proc in outputs:
                assert form.decode() not in proc.stdout + proc.stderr
