"""Fetch the pinned model into lit-search's data folder, once, only when asked
(``lit-search doctor --install semantic``, or the first ``--rerank semantic``).

Each file comes out of its archive on the download host (model_source.py) and is kept only
when its size and SHA-256 are the pinned ones: anything else (a damaged or replaced download,
a host answering an error page) is refused with one line and nothing is left behind. A file
already installed with the right checksum is not fetched again. Files are written beside their
final place and renamed into it, so a model folder never holds half a file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Callable, Mapping

from ..core.errors import FetchFailed
from .encoder import sha256_of
from .location import installed_folder
from .model_source import (
    DEFAULT_DOWNLOAD_URL,
    DOWNLOAD_URL_VARIABLE,
    MAX_ARCHIVE_BYTES,
    MODEL_FILES,
    MODEL_NAME,
    ModelFile,
    download_size,
)

CONNECT_TIMEOUT, READ_TIMEOUT = 15.0, 60.0


class ModelInstallError(FetchFailed):
    """The model could not be installed; ``str()`` says why in one line (exit 3)."""


def is_installed(env: Mapping[str, str] = os.environ) -> bool:
    """Every pinned file in place with its size (the checksums are checked when it loads)."""
    folder = installed_folder(env)
    return all((folder / file.name).is_file() and (folder / file.name).stat().st_size == file.size
               for file in MODEL_FILES)


def install_line(env: Mapping[str, str] = os.environ) -> str:
    """The one line said before a download."""
    return (f"fetching the semantic re-ranker's model, {MODEL_NAME} ({download_size() / 1e6:.0f} MB, once) "
            f"into {installed_folder(env)}")


def install_model(env: Mapping[str, str] = os.environ, say: Callable[[str], None] = lambda line: None) -> Path:
    """The installed model's folder, fetching what is missing or damaged; ModelInstallError when
    a file cannot be fetched or its checksum is not the pinned one."""
    folder = installed_folder(env)
    base = (env.get(DOWNLOAD_URL_VARIABLE, "").strip() or DEFAULT_DOWNLOAD_URL).rstrip("/")
    if not base.startswith(("https://", "http://")):
        raise ModelInstallError(f"{DOWNLOAD_URL_VARIABLE} must be an http(s) URL")
    wanted = [file for file in MODEL_FILES if not _intact(folder / file.name, file)]
    if not wanted:
        return folder
    say(install_line(env))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ModelInstallError(f"cannot create {folder} ({error.strerror or error})") from None
    for file in wanted:
        with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as scratch:
            archive = Path(scratch) / "archive.zip"
            _download(base + file.archive_path, archive)
            _extract(archive, file, folder / file.name)
    return folder


def _intact(path: Path, file: ModelFile) -> bool:
    try:
        return path.is_file() and path.stat().st_size == file.size and sha256_of(path) == file.sha256
    except OSError:
        return False


def _download(url: str, target: Path) -> None:
    import httpx

    timeout = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
    received = 0
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True) as client, client.stream("GET", url) as response:
            if response.status_code != 200:
                raise ModelInstallError(f"the download host answered HTTP {response.status_code} for {_name(url)}")
            with open(target, "wb") as handle:
                for block in response.iter_bytes():
                    received += len(block)
                    if received > MAX_ARCHIVE_BYTES:
                        raise ModelInstallError(f"{_name(url)} is larger than {MAX_ARCHIVE_BYTES // 2**20} MB; "
                                                "refused")
                    handle.write(block)
    except httpx.HTTPError as error:
        raise ModelInstallError(f"cannot fetch {_name(url)} ({type(error).__name__}: "
                                f"{' '.join(str(error).split())[:120]})") from None
    except OSError as error:
        raise ModelInstallError(f"cannot write the download ({error.strerror or error})") from None


def _extract(archive: Path, file: ModelFile, target: Path) -> None:
    """The member, checked, renamed into place; nothing written when it is not the pinned file."""
    digest = hashlib.sha256()
    partial = target.with_name(f".{target.name}.partial")
    try:
        with zipfile.ZipFile(archive) as bundle:
            try:
                info = bundle.getinfo(file.member)
            except KeyError:
                raise ModelInstallError(f"{file.name} is not in the downloaded archive") from None
            if info.file_size != file.size:
                raise ModelInstallError(f"the downloaded {file.name} has {info.file_size:,} bytes, not "
                                        f"{file.size:,}; refused")
            with bundle.open(info) as source, open(partial, "wb") as handle:
                written = 0
                for block in iter(lambda: source.read(1 << 20), b""):
                    written += len(block)
                    if written > file.size:
                        raise ModelInstallError(f"the downloaded {file.name} is longer than declared; refused")
                    digest.update(block)
                    handle.write(block)
                handle.flush()
                os.fsync(handle.fileno())
        if digest.hexdigest() != file.sha256:
            raise ModelInstallError(f"the downloaded {file.name} does not have the pinned checksum "
                                    f"(sha256 {digest.hexdigest()[:16]}…, expected {file.sha256[:16]}…); refused")
        os.replace(partial, target)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as error:
        raise ModelInstallError(f"the download is not a readable archive ({error})") from None
    except OSError as error:
        raise ModelInstallError(f"cannot write {target} ({error.strerror or error})") from None
    finally:
        partial.unlink(missing_ok=True)


def _name(url: str) -> str:
    return url.rsplit("/", 1)[-1][:80] or url[:80]
