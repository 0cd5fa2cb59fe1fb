"""The lab's shared state: one Redis that every lit-search machine of a lab talks to when
``LITSEARCH_SHARED_STATE`` is set (docs/lab.md). What lives there: each API's pace per key
(net/lab_pace.py), a 429's wait, OpenAlex's daily budget (net/daily_budget.py) and the response
cache (net/lab_cache.py). Unset, none of this module runs.

The rules every user of it keeps:

- **Speed, never correctness.** Every call is bounded (``CONNECT_TIMEOUT`` to connect,
  ``CALL_TIMEOUT`` per call after that). When Redis is unreachable, slow past the bound or
  answers an error, the link counts as lost: one line on stderr, once, and every caller goes
  on with what this machine keeps (the pace files, the local cache) at the key's own rate.
  A lost link is tried again after ``RETRY_LOST_AFTER`` seconds (a long-lived MCP server gets
  its lab back); a link that comes back says so in one line.
- **Nothing secret is written or printed.** A key is never a Redis name: a service's state is
  named by an HMAC of the key under the lab's salt (``SALT_KEY``, made once by whichever
  machine comes first), so names cannot be turned back into keys nor matched across labs.
  The URL's password is a secret (core/environment.py); only ``scheme://host:port/db`` is shown.
- **One clock.** Times kept in Redis are Redis's own (``TIME`` inside the scripts), so machines
  whose clocks disagree still agree on when the next request may start.

One ``SharedState`` belongs to one event loop (the asyncio client is bound to it): each
``HttpClient`` opens its own, lazily, and closes it. Whether the link is lost is known to the
whole process.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import sys
import time
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from ..core.environment import shown_shared_state
from ..core.sanitize import safe_text

T = TypeVar("T")

PREFIX = "lit-search:"  # every name lit-search writes starts so (a lab's Redis may serve others)
SALT_KEY = PREFIX + "salt"
CONNECT_TIMEOUT = 2.0  # seconds to reach Redis (a TLS handshake across a campus included)
CALL_TIMEOUT = 0.5  # seconds for one call once connected; a slower Redis counts as lost
RETRY_LOST_AFTER = 60.0  # seconds before a lost link is tried again
NO_KEY = "no-key"  # the name part of a service used without a key
LOST_WORDS = "the shared pace is kept by this machine alone now, at each key's own rate, with its own cache"

# The whole process's view of each link (by URL): when it was lost (monotonic), and whether the
# loss was told. One line per loss, however many clients, loops or calls saw it.
_LOST_AT: dict[str, float] = {}
_TOLD: set[str] = set()
_SALTS: dict[str, bytes] = {}


class SharedStateLost(Exception):
    """The lab's Redis could not be used for this call; the caller goes on locally."""


def _say_on_stderr(message: str) -> None:
    print(f"lit-search: {message}", file=sys.stderr, flush=True)


class SharedState:
    """The link to the lab's Redis at ``url``, for the running event loop."""

    def __init__(self, url: str, *, redact: Callable[[str], str] = lambda text: text,
                 warn: Callable[[str], None] | None = None, clock: Callable[[], float] = time.monotonic,
                 call_timeout: float = CALL_TIMEOUT, connect_timeout: float = CONNECT_TIMEOUT):
        self.url = url
        self.shown = shown_shared_state(url)
        self.redact = redact
        self.warn = warn or _say_on_stderr
        self.clock = clock
        self.call_timeout = call_timeout
        self.connect_timeout = connect_timeout
        self._client: Any = None
        self._scripts: dict[str, Any] = {}
        self.last_failure: str | None = None  # why the link was last lost (doctor)

    # ---------------------------------------------------------------- the link's health

    @property
    def usable(self) -> bool:
        """False while the link is lost (until RETRY_LOST_AFTER has passed since)."""
        lost_at = _LOST_AT.get(self.url)
        return lost_at is None or self.clock() - lost_at >= RETRY_LOST_AFTER

    def _lose(self, reason: str) -> None:
        self.last_failure = self.redact(safe_text(reason))
        _LOST_AT[self.url] = self.clock()
        if self.url not in _TOLD:
            _TOLD.add(self.url)
            self.warn(self.redact(safe_text(f"shared state lost ({self.shown}: {reason}); {LOST_WORDS}")))
        client, self._client, self._scripts = self._client, None, {}
        if client is not None:
            _close_soon(client)

    def _reached(self) -> None:
        if _LOST_AT.pop(self.url, None) is not None and self.url in _TOLD:
            _TOLD.discard(self.url)
            self.warn(f"shared state reached again ({self.shown}); pacing with the lab")

    # ---------------------------------------------------------------- calls

    async def run(self, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(client)`` within the time bound; SharedStateLost (after telling, once) when
        the link is lost or fails now."""
        if not self.usable:
            raise SharedStateLost(self.shown)
        connecting = self._client is None
        try:
            if connecting:
                self._client = _new_client(self.url, self.call_timeout, self.connect_timeout)
            bound = self.call_timeout + (self.connect_timeout if connecting else 0.0)
            result = await asyncio.wait_for(work(self._client), timeout=bound)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any failure of the link: the caller goes on locally
            self._lose(_reason(error))
            raise SharedStateLost(self.shown) from None
        self._reached()
        return result

    async def script(self, source: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run a Lua script (EVALSHA, loading it on first use) atomically in Redis."""
        async def call(client: Any) -> Any:
            script = self._scripts.get(source)
            if script is None:
                script = self._scripts[source] = client.register_script(source)
            return await script(keys=list(keys), args=list(args))

        return await self.run(call)

    async def name(self, service: str, key: str | None) -> str:
        """What the lab's state for ``service`` used with ``key`` is called: the service and an
        HMAC of the key under the lab's salt (``no-key`` without one); never the key."""
        if not key:
            return f"{service}:{NO_KEY}"
        salt = _SALTS.get(self.url)
        if salt is None:
            salt = _SALTS[self.url] = await self.run(_lab_salt)
        return f"{service}:{hmac.new(salt, f'{service}:{key}'.encode(), hashlib.sha256).hexdigest()[:32]}"

    async def latency(self) -> float:
        """Seconds for one PING once connected (doctor)."""
        await self.run(lambda client: client.ping())  # connects (and authenticates) first
        started = time.perf_counter()
        await self.run(lambda client: client.ping())
        return time.perf_counter() - started

    async def aclose(self) -> None:
        client, self._client, self._scripts = self._client, None, {}
        if client is not None:
            try:
                await asyncio.wait_for(client.aclose(), timeout=self.call_timeout)
            except Exception:  # closing a broken link has nothing left to save
                pass


async def _lab_salt(client: Any) -> bytes:
    """The lab's salt: made by the first machine (SET NX), read by every later one."""
    await client.set(SALT_KEY, secrets.token_hex(32), nx=True)
    salt = await client.get(SALT_KEY)
    if not salt:
        raise RuntimeError("the lab's salt could not be read back")
    return bytes(salt)


def _new_client(url: str, call_timeout: float, connect_timeout: float) -> Any:
    import redis.asyncio
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # No retries inside the client: a failed call is a lost link at once, never a longer wait.
    return redis.asyncio.from_url(url, socket_timeout=call_timeout, socket_connect_timeout=connect_timeout,
                                  retry=Retry(NoBackoff(), 0), retry_on_timeout=False, health_check_interval=0,
                                  decode_responses=False)


def _close_soon(client: Any) -> None:
    """Close a client whose link was lost, without waiting on it (its socket may hang)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(_quietly_close(client))
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)


_CLOSING: set[asyncio.Task] = set()


async def _quietly_close(client: Any) -> None:
    try:
        await asyncio.wait_for(client.aclose(), timeout=CALL_TIMEOUT)
    except Exception:  # closing a broken link has nothing left to save
        pass


def _reason(error: BaseException) -> str:
    """A failure in a few words: the exception's kind and first line, never a URL's password."""
    if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
        return "no answer in time"
    text = " ".join(str(error).split())[:160]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def forget_link(url: str) -> None:
    """Forget that the link to ``url`` was lost (a doctor check is not a search's loss)."""
    _LOST_AT.pop(url, None)
    _TOLD.discard(url)


def forget_links() -> None:
    """Forget every link's health and salt (tests judging runs one by one)."""
    _LOST_AT.clear()
    _TOLD.clear()
    _SALTS.clear()
