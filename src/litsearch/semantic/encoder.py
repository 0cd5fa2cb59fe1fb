"""The sentence-embedding model, run with onnxruntime: texts -> unit vectors.

Loaded once per process (``load_encoder`` keeps it, and keeps a failure too, so a server does
not retry a broken model on every search; a changed file is loaded again). Every way a model
can be unusable becomes ``ModelUnusable`` with a one-line reason: libraries missing, too little
memory, a file that is not a model, a model whose checksum differs from the pinned one, inputs
or outputs of the wrong shape. ``embed`` stops with ``OutOfTime`` between two batches once the
caller's deadline has passed.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from .location import ModelLocation
from .model_source import MODEL_FILES

# Tokens per text: the model was trained on 128-token inputs (sentence-transformers'
# all-MiniLM-L6-v2), and a title with the start of its abstract says what a paper is about.
MAX_TOKENS = 128
BATCH_SIZE = 8  # texts per run: bounds the attention buffers (memory grows with batch × tokens²)
# Memory the loaded model and one batch need, with a margin (measured: about 330 MB at peak).
NEEDED_MEMORY_BYTES = 400 * 1024 * 1024
REQUIRED_INPUTS = ("input_ids", "attention_mask")
LIBRARIES = ("onnxruntime", "tokenizers", "numpy")
EXTRA_HINT = "pip install 'lit-search[semantic]'"


class ModelUnusable(Exception):
    """The re-ranker cannot run; ``str()`` is one line saying why. ``lasting``: the same files
    will fail the same way (a short-lived cause, such as memory, is tried again next time)."""

    def __init__(self, reason: str, lasting: bool = True):
        super().__init__(reason)
        self.lasting = lasting


class OutOfTime(Exception):
    """The search's time budget for re-ranking ran out."""


def missing_libraries() -> list[str]:
    """The libraries of the ``semantic`` extra that cannot be imported here."""
    import importlib.util

    missing = []
    for name in LIBRARIES:
        try:
            if importlib.util.find_spec(name) is None:
                missing.append(name)
        except (ImportError, ValueError):
            missing.append(name)
    return missing


def available_memory() -> int | None:
    """Bytes the system can still give (Linux's MemAvailable); None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class Encoder:
    session: object  # onnxruntime.InferenceSession
    tokenizer: object  # tokenizers.Tokenizer
    input_names: tuple[str, ...]
    dimensions: int
    location: ModelLocation

    def embed(self, texts: Sequence[str], out_of_time: Callable[[], bool] = lambda: False):
        """One unit vector per text (a NumPy array, texts × dimensions), in the texts' order."""
        import numpy as np

        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        # Texts of about the same length share a batch: less padding to compute.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH_SIZE):
            if out_of_time():
                raise OutOfTime
            chunk = order[start:start + BATCH_SIZE]
            vectors[chunk] = self._run([texts[i] for i in chunk])
        return vectors

    def _run(self, texts: list[str]):
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        output = self.session.run(None, feed)[0]
        if output.ndim == 3:  # token vectors: their mean over the real (unpadded) tokens
            weights = mask[:, :, None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if output.ndim != 2 or output.shape != (len(texts), self.dimensions) or not np.isfinite(output).all():
            raise ModelUnusable(f"the model answered an array of shape {tuple(output.shape)}, "
                                f"not one vector of {self.dimensions} numbers per text")
        norms = np.linalg.norm(output, axis=1, keepdims=True)
        return output / np.maximum(norms, 1e-9)


def load(location: ModelLocation, threads: int, memory: Callable[[], int | None] = available_memory) -> Encoder:
    """The model at ``location`` ready to embed, or ModelUnusable saying why not."""
    if not location.usable:
        raise ModelUnusable(location.problem)
    missing = missing_libraries()
    if missing:
        raise ModelUnusable(f"{', '.join(missing)} not installed ({EXTRA_HINT})")
    free = memory()
    if free is not None and free < NEEDED_MEMORY_BYTES:
        raise ModelUnusable(f"too little free memory ({free // 2**20} MB; it needs about "
                            f"{NEEDED_MEMORY_BYTES // 2**20} MB)", lasting=False)
    if location.pinned:
        for file in MODEL_FILES:
            path = location.folder / file.name
            if path.stat().st_size != file.size or sha256_of(path) != file.sha256:
                raise ModelUnusable(f"the installed {file.name} is damaged (its checksum differs); run "
                                    "`lit-search doctor --install semantic` again")
    try:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: its warnings are not the user's business
        session = onnxruntime.InferenceSession(str(location.onnx), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(location.tokenizer))
    except MemoryError:
        raise ModelUnusable("too little memory to load the model", lasting=False) from None
    except Exception as error:  # onnxruntime and tokenizers raise their own types for a bad file
        raise ModelUnusable(f"cannot load the model ({_short(error)})") from None
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding()
    inputs = tuple(node.name for node in session.get_inputs())
    if any(name not in inputs for name in REQUIRED_INPUTS) or not set(inputs) <= {*REQUIRED_INPUTS, "token_type_ids"}:
        raise ModelUnusable(f"the model's inputs are {', '.join(inputs)}, not a sentence encoder's "
                            "(input_ids, attention_mask, token_type_ids)")
    shape = session.get_outputs()[0].shape
    dimensions = shape[-1] if shape and isinstance(shape[-1], int) else None
    if dimensions is None or len(shape) not in (2, 3) or dimensions < 2:
        raise ModelUnusable(f"the model's output has shape {shape}, not token or sentence vectors")
    encoder = Encoder(session, tokenizer, inputs, dimensions, location)
    try:
        encoder.embed(["a probe sentence"])  # a model that loads but cannot run fails here, once
    except ModelUnusable:
        raise
    except MemoryError:
        raise ModelUnusable("too little memory to run the model", lasting=False) from None
    except Exception as error:
        raise ModelUnusable(f"the model does not run ({_short(error)})") from None
    return encoder


def _short(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:160]}" if text else type(error).__name__


# ---------------------------------------------------------------- once per process

_lock = threading.Lock()
_loaded: dict[tuple, Encoder | ModelUnusable] = {}
_load_count = 0  # models loaded by this process (the MCP server's tests count them)


def _identity(location: ModelLocation) -> tuple:
    """What makes a model the same one: its files, their sizes and times."""
    stamps = []
    for path in (location.onnx, location.tokenizer):
        try:
            stat = path.stat() if path else None
            stamps.append((str(path), stat.st_size, stat.st_mtime_ns) if stat else None)
        except OSError:
            stamps.append((str(path), None, None))
    return (str(location.folder), location.origin, location.problem, *stamps)


def load_encoder(location: ModelLocation, threads: int,
                 memory: Callable[[], int | None] = available_memory) -> Encoder:
    """``load``, once per process for the same files; a failure is remembered the same way."""
    global _load_count
    key = _identity(location)
    with _lock:
        known = _loaded.get(key)
        if known is None:
            try:
                known = load(location, threads, memory)
                _load_count += 1
            except ModelUnusable as failure:
                known = failure
            _loaded.clear()  # one model at a time: a changed file replaces the old one
            if not isinstance(known, ModelUnusable) or known.lasting:
                _loaded[key] = known
    if isinstance(known, ModelUnusable):
        raise known
    return known


def loads_so_far() -> int:
    """How many times this process has loaded a model (the MCP server loads one once)."""
    return _load_count


def forget_loaded() -> None:
    with _lock:
        _loaded.clear()
