"""Who may call ``lit-search mcp --http``: bearer tokens, and each token's request budget.

- **By default** (no ``--token-file``) one token guards the server: random (256 bits), made on
  the first start and kept alone on one line in ``<data folder>/mcp-token``, a file only its
  owner can read, so a client configured once keeps working across restarts (delete the file
  for a new one). The value is never printed: the start line names the file.
- **A team** (``--token-file FILE``): one token per line, optionally named (``alice: <token>``);
  blank lines and ``#`` comments are skipped. A token is at least ``MIN_TOKEN_CHARS`` printable
  characters without spaces; names and tokens are unique. The file must not be readable by
  other users (as ssh keys). Problems name the line, never the value.

A presented token is compared with every token in constant time (``hmac.compare_digest`` on
their SHA-256 digests, so neither the position of a match nor the length of a token shows in
the time taken). The name is what logs and the session table see; the value goes nowhere.
``RequestBudget`` gives each token ``per_hour`` requests, refilled continuously.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 512
MAX_TOKEN_FILE_BYTES = 1_000_000
LOCAL_TOKEN_FILE = "mcp-token"
LOCAL_NAME = "local"
_NAMED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._@+-]{0,63})\s*:\s*(\S+)$")
_TOKEN = re.compile(r"^[\x21-\x7e]+$")


class TokenProblem(ValueError):
    """A token file that cannot be used (the message names the file and line, never a token)."""


@dataclass(frozen=True)
class Token:
    name: str
    value: str = field(repr=False)

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.value.encode()).digest()


class TokenTable:
    """The tokens a server accepts."""

    def __init__(self, tokens: list[Token]):
        if not tokens:
            raise TokenProblem("no token to accept")
        self.tokens = list(tokens)
        self._digests = [(token.digest, token) for token in self.tokens]

    def find(self, presented: str | None) -> Token | None:
        """The token ``presented`` is, or None; the same work whichever token (or none) matches."""
        if not presented:
            return None
        digest = hashlib.sha256(presented.encode("utf-8", "surrogateescape")).digest()
        found = None
        for known, token in self._digests:
            if hmac.compare_digest(digest, known):
                found = token
        return found

    @property
    def values(self) -> tuple[str, ...]:
        """Every token's value: secrets to remove from anything printed."""
        return tuple(token.value for token in self.tokens)


def read_token_file(path: Path) -> list[Token]:
    """The tokens in a team's token file; TokenProblem for anything that cannot be used."""
    try:
        info = path.stat()
    except OSError as error:
        raise TokenProblem(f"--token-file {path}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise TokenProblem(f"--token-file {path}: not a regular file")
    if os.name == "posix" and info.st_mode & 0o077:
        raise TokenProblem(f"--token-file {path}: other users can read it (mode {stat.S_IMODE(info.st_mode):o}); "
                           f"chmod 600 it")
    if info.st_size > MAX_TOKEN_FILE_BYTES:
        raise TokenProblem(f"--token-file {path}: {info.st_size:,} bytes; a token file is at most "
                           f"{MAX_TOKEN_FILE_BYTES:,}")
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TokenProblem(f"--token-file {path}: cannot be read as UTF-8 text ({type(error).__name__})") from None
    tokens: list[Token] = []
    names: set[str] = set()
    digests: set[bytes] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        named = _NAMED.match(line)
        name, value = (named.group(1), named.group(2)) if named else (f"line-{number}", line)
        if not _TOKEN.match(value) or not MIN_TOKEN_CHARS <= len(value) <= MAX_TOKEN_CHARS:
            raise TokenProblem(f"--token-file {path}, line {number}: a token is {MIN_TOKEN_CHARS}-{MAX_TOKEN_CHARS} "
                               f"printable characters without spaces (optionally 'name: token')")
        token = Token(name, value)
        if name in names:
            raise TokenProblem(f"--token-file {path}, line {number}: the name {name!r} is used twice")
        if token.digest in digests:
            raise TokenProblem(f"--token-file {path}, line {number}: the same token as an earlier line")
        names.add(name)
        digests.add(token.digest)
        tokens.append(token)
    if not tokens:
        raise TokenProblem(f"--token-file {path}: holds no token (one per line, optionally 'name: token')")
    return tokens


def local_token(folder: Path) -> tuple[Token, Path]:
    """The single-user server's token: read from ``folder/mcp-token``, or made there (mode 600,
    never replacing a file another start made at the same moment)."""
    path = folder / LOCAL_TOKEN_FILE
    if not path.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another start made it first: use that one
        except OSError as error:
            raise TokenProblem(f"cannot write the server's token file {path} ({error.strerror or error}); "
                               f"give --token-file FILE") from None
        else:
            with os.fdopen(descriptor, "w", encoding="ascii") as handle:
                handle.write(secrets.token_urlsafe(32) + "\n")  # the token alone: $(cat FILE) is the value
    try:
        tokens = read_token_file(path)
    except TokenProblem as problem:
        raise TokenProblem(f"{str(problem).replace('--token-file ', '')}; delete the file for a new token") from None
    if len(tokens) != 1:
        raise TokenProblem(f"{path} should hold one token; delete the file for a new one")
    return Token(LOCAL_NAME, tokens[0].value), path


class RequestBudget:
    """``per_hour`` requests per token name, refilled continuously (a token bucket); 0 means
    no limit."""

    def __init__(self, per_hour: int, clock: Callable[[], float] = time.monotonic):
        self.per_hour = per_hour
        self.clock = clock
        self._left: dict[str, tuple[float, float]] = {}  # name -> (requests left, when counted)
        self._lock = threading.Lock()

    def take(self, name: str) -> float | None:
        """Count one request of ``name``: None when allowed, else the seconds until one is."""
        if self.per_hour <= 0:
            return None
        rate = self.per_hour / 3600.0
        with self._lock:
            now = self.clock()
            left, then = self._left.get(name, (float(self.per_hour), now))
            left = min(float(self.per_hour), left + (now - then) * rate)
            if left < 1.0:
                self._left[name] = (left, now)
                return (1.0 - left) / rate
            self._left[name] = (left - 1.0, now)
            return None
