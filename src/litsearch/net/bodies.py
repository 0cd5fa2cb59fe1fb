"""Reading an answer's body within a bound, whatever the server claims.

httpx would decompress a gzip body on its own, chunk by chunk without a limit on what one
chunk expands to: a 64 KB chunk of a decompression bomb becomes 64 MB before any size check
sees it. The layer reads the raw bytes instead and decompresses them here, never asking
zlib for more than the bytes still allowed under the cap. Only the encodings the client
asks for (``ACCEPT_ENCODING``) are accepted; anything else is a broken answer, not data.
"""

from __future__ import annotations

import zlib

ACCEPT_ENCODING = "gzip, deflate"


class BodyError(Exception):
    """The body cannot be read: corrupt or unasked-for compression, or over the cap.
    ``retryable``: a body cut short may arrive whole next time; a corrupt one will not."""

    def __init__(self, message: str, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable


class BoundedBody:
    """Collects a body from raw chunks (``feed``), decompressed, at most ``cap`` bytes."""

    def __init__(self, content_encoding: str, cap: int):
        self.cap = cap
        self.size = 0
        self._chunks: list[bytes] = []
        encodings = [part.strip().lower() for part in content_encoding.split(",") if part.strip()]
        encodings = [name for name in encodings if name != "identity"]
        if len(encodings) > 1:
            raise BodyError(f"the answer is compressed several times over ({', '.join(encodings)}); not read")
        self.encoding = encodings[0] if encodings else ""
        if self.encoding in ("gzip", "x-gzip"):
            self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif self.encoding == "deflate":
            self._inflater = None  # zlib-wrapped or raw: decided by the first bytes
        elif self.encoding:
            raise BodyError(f"the answer is compressed with {self.encoding[:40]!r}, which was not asked for; not read")

    def feed(self, data: bytes) -> None:
        if not data:
            return
        if not self.encoding:
            self._keep(data)
            return
        if self._inflater is None:  # deflate: zlib-wrapped as the standard says, or raw as some servers send
            wrapped = len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        try:
            self._inflate(data)
        except zlib.error:
            raise BodyError(f"the answer's {self.encoding} compression is corrupt; not read") from None

    def _inflate(self, data: bytes) -> None:
        inflater = self._inflater
        pending = data
        while pending:
            if inflater.eof:
                return  # bytes after the end of the compressed stream are ignored, as zlib does
            allowed = self.cap - self.size + 1  # one byte over tells that the cap was passed
            self._keep(inflater.decompress(pending, allowed))
            pending = inflater.unconsumed_tail

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.cap:
            raise BodyError(f"response exceeds the {self.cap:,}-byte cap; stopped reading")
        self._chunks.append(data)

    def finish(self) -> bytes:
        if self.encoding and self._inflater is not None:
            try:
                self._keep(self._inflater.flush())
            except zlib.error:
                raise BodyError(f"the answer's {self.encoding} compression is corrupt; not read") from None
            if not self._inflater.eof:
                raise BodyError(f"the answer ends before its {self.encoding} data does (cut short)", retryable=True)
        return b"".join(self._chunks)
