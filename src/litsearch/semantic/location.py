"""Where the re-ranker's model is: the folder ``LITSEARCH_RERANK_MODEL`` names (an ONNX file and
its ``tokenizer.json``, the usual sentence-transformers export), else the pinned model installed
in lit-search's data folder (``models/all-MiniLM-L6-v2-int8``), else nowhere."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..core.config import data_folder
from .model_source import MODEL_FILES, MODEL_FOLDER

RERANK_MODEL_VARIABLE = "LITSEARCH_RERANK_MODEL"
TOKENIZER_FILE = "tokenizer.json"
# The names a sentence-transformers export gives its full-precision ONNX file, first found first.
ONNX_NAMES = ("model.onnx", "onnx/model.onnx")


@dataclass(frozen=True)
class ModelLocation:
    folder: Path
    origin: str  # "LITSEARCH_RERANK_MODEL" or "installed"
    onnx: Path | None = None
    tokenizer: Path | None = None
    problem: str | None = None  # why the folder cannot serve as a model, in a few words

    @property
    def pinned(self) -> bool:
        """The model lit-search installed: its files' checksums are known."""
        return self.origin == "installed"

    @property
    def usable(self) -> bool:
        return self.problem is None


def installed_folder(env: Mapping[str, str] = os.environ) -> Path:
    return data_folder(env) / "models" / MODEL_FOLDER


def locate_model(env: Mapping[str, str] = os.environ) -> ModelLocation | None:
    """The model to use, or None when there is none (none named, none installed)."""
    named = env.get(RERANK_MODEL_VARIABLE, "").strip()
    if named:
        return _named_folder(Path(named).expanduser())
    folder = installed_folder(env)
    if not folder.exists():
        return None
    files = {file.name: folder / file.name for file in MODEL_FILES}
    missing = [name for name, path in files.items() if not path.is_file()]
    if missing:
        return ModelLocation(folder, "installed", problem=f"the installed model lacks {', '.join(missing)} "
                                                          "(run `lit-search doctor --install semantic`)")
    return ModelLocation(folder, "installed", onnx=files["model.onnx"], tokenizer=files[TOKENIZER_FILE])


def _named_folder(folder: Path) -> ModelLocation:
    origin = RERANK_MODEL_VARIABLE
    if not folder.is_dir():
        return ModelLocation(folder, origin, problem=f"{RERANK_MODEL_VARIABLE} is not a folder")
    tokenizer = folder / TOKENIZER_FILE
    onnx = next((folder / name for name in ONNX_NAMES if (folder / name).is_file()), None)
    if onnx is None:  # another name: accept it when it is the only ONNX file there
        found = sorted({*folder.glob("*.onnx"), *folder.glob("onnx/*.onnx")})
        if len(found) > 1:
            names = ", ".join(str(path.relative_to(folder)) for path in found[:4])
            return ModelLocation(folder, origin, problem=f"{RERANK_MODEL_VARIABLE} holds several ONNX files ({names}) "
                                                         "and none is named model.onnx")
        onnx = found[0] if found else None
    if onnx is None:
        return ModelLocation(folder, origin, problem=f"no ONNX file in {RERANK_MODEL_VARIABLE}")
    if not tokenizer.is_file():
        return ModelLocation(folder, origin, onnx=onnx, problem=f"no {TOKENIZER_FILE} in {RERANK_MODEL_VARIABLE}")
    return ModelLocation(folder, origin, onnx=onnx, tokenizer=tokenizer)
