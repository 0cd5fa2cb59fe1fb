"""The response cache shared by a lab's machines, in its Redis (net/shared_state.py).

The same answers, keys and lifetimes as the machine's own cache (net/response_store.py): the
key is the request's hash without any identity parameter (net/cache_keys.py), each service
declares how long its answers keep, expired answers stay ``STALE_KEEP_SECONDS`` longer (then
Redis drops them by itself), and secrets are scrubbed before anything is written. The size cap
is ``LITSEARCH_CACHE_MAX_MB`` as each writer has it (set it alike on every machine): when a new
answer passes it, the oldest answers go, down to 90 % of it, inside the same script, so
machines writing at once never count the total twice.

Under ``lit-search:cache:``: ``<provider>:<key>`` (a hash: status, headers, body, URL and its
times), ``order`` (every answer by when it was stored: the eviction order), ``sizes`` and
``bytes`` (each answer's size and the total), ``gone`` (when Redis drops each answer, so the
bookkeeping forgets it too). Redis Cluster is not supported (the scripts touch keys they
compute); a single Redis, or a replicated one, is what a lab runs.
"""

from __future__ import annotations

import json
from typing import Callable

from .responses import FetchedResponse
from .response_store import EVICT_TO, ROW_OVERHEAD, STALE_KEEP_SECONDS, CachedResponse
from .shared_state import PREFIX, SharedState

CACHE = PREFIX + "cache:"
BOOKKEEPING = [CACHE + "order", CACHE + "sizes", CACHE + "bytes", CACHE + "gone"]
PRUNE_BATCH = 100  # forgotten answers dropped from the bookkeeping per write

_NOW = """
if redis.replicate_commands then pcall(redis.replicate_commands) end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function forget(member)
  local size = tonumber(redis.call('HGET', KEYS[3], member) or '0') or 0
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZREM', KEYS[5], member)
  redis.call('HDEL', KEYS[3], member)
  return size
end
"""

# KEYS: entry, order, sizes, bytes, gone. ARGV: member, status, headers, body, url, ttl ms, keep ms,
# size, cap, evict-to, prefix of entries.
PUT = _NOW + """
local total = tonumber(redis.call('GET', KEYS[4]) or '0') or 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, %d)) do
  total = total - forget(member)
end
total = total - forget(ARGV[1])
local ttl, keep, size = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'headers', ARGV[3], 'content', ARGV[4], 'url', ARGV[5],
           'stored_at', string.format('%%d', now), 'expires_at', string.format('%%d', now + ttl))
redis.call('PEXPIRE', KEYS[1], ttl + keep)
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[5], now + ttl + keep, ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], size)
total = total + size
local evicted = 0
if total > tonumber(ARGV[9]) then
  while total > tonumber(ARGV[10]) do
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
    if #oldest == 0 then total = 0 break end
    redis.call('DEL', ARGV[11] .. oldest[1])
    total = total - forget(oldest[1])
    evicted = evicted + 1
  end
end
if total < 0 then total = 0 end
redis.call('SET', KEYS[4], string.format('%%d', total))
return evicted
""" % PRUNE_BATCH

# KEYS: entry. -> {now ms, status, headers, body, url, stored_at, expires_at}
GET = """
if redis.replicate_commands then pcall(redis.replicate_commands) end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local fields = redis.call('HMGET', KEYS[1], 'status', 'headers', 'content', 'url', 'stored_at', 'expires_at')
if not fields[1] then return {} end
return {string.format('%d', now), fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]}
"""

# KEYS: entry, order, sizes, bytes, gone. ARGV: member.
DELETE = _NOW + """
local existed = redis.call('DEL', KEYS[1])
local size = forget(ARGV[1])
local total = (tonumber(redis.call('GET', KEYS[4]) or '0') or 0) - size
if total < 0 then total = 0 end
redis.call('SET', KEYS[4], string.format('%d', total))
return existed
"""


class LabCache:
    """The lab's cached answers; every method may raise SharedStateLost."""

    def __init__(self, state: SharedState, max_bytes: int, scrub: Callable[[str], str] = lambda text: text):
        self.state = state
        self.max_bytes = max_bytes
        self.scrub = scrub

    @staticmethod
    def _member(provider: str, key: str) -> str:
        return f"{provider}:{key}"

    async def get(self, provider: str, key: str, allow_stale: bool = False) -> CachedResponse | None:
        found = await self.state.script(GET, [CACHE + self._member(provider, key)], [])
        if not found:
            return None
        now, status, headers, content, url, stored_at, expires_at = found
        try:
            now_s, stored, expires = int(now) / 1000, int(stored_at) / 1000, int(expires_at) / 1000
            answer = CachedResponse(status=int(status), headers=json.loads(headers), content=bytes(content),
                                    url=bytes(url).decode("utf-8", "replace"), stored_at=stored,
                                    expires_at=expires, stale=expires <= now_s)
        except (TypeError, ValueError):
            return None  # not an answer lit-search wrote: as good as none
        return None if answer.stale and not allow_stale else answer

    async def put(self, provider: str, key: str, response: FetchedResponse, ttl_seconds: float) -> int:
        """Store a good answer (scrubbed) for ``ttl_seconds``; returns how many old answers the cap evicted."""
        from .cache_keys import strip_identity_params

        headers = json.dumps({str(name).lower(): self.scrub(str(value)) for name, value in response.headers.items()})
        url = self.scrub(strip_identity_params(response.url))
        content = self.scrub(bytes(response.content).decode("utf-8", "surrogateescape")).encode(
            "utf-8", "surrogateescape")
        size = len(content) + len(headers) + len(url) + ROW_OVERHEAD
        member = self._member(provider, key)
        return int(await self.state.script(
            PUT, [CACHE + member, *BOOKKEEPING],
            [member, int(response.status), headers, content, url, max(1, round(ttl_seconds * 1000)),
             round(STALE_KEEP_SECONDS * 1000), size, self.max_bytes, int(self.max_bytes * EVICT_TO), CACHE]))

    async def delete(self, provider: str, keys: list[str]) -> int:
        removed = 0
        for key in keys:
            member = self._member(provider, key)
            removed += int(await self.state.script(DELETE, [CACHE + member, *BOOKKEEPING], [member]))
        return removed

    async def size(self) -> int:
        """Bytes the lab's cached answers take (what the cap counts)."""
        value = await self.state.run(lambda client: client.get(CACHE + "bytes"))
        return int(value or 0)
