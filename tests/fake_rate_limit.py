"""An API's rate limit per key, as Semantic Scholar enforces it on a lab's one key: at most one
request per ``spacing`` seconds for each key (the ``x-api-key`` header), counted from the last
request served on that key; a faster one is refused with 429 (no Retry-After, as Semantic
Scholar sends none) and counted as a violation. Every arrival is kept, so a test or a benchmark
can judge a run from the server's side alone.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from fake_server import Answer, SeenRequest

REFUSAL = '{"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits.", ' \
          '"code": "429"}'


@dataclass(frozen=True)
class Arrival:
    time: float  # the fake server's clock (time.monotonic)
    key: str
    served: bool
    query: str  # what was searched (tells the machines of a lab run apart)


@dataclass
class KeyRateLimit:
    """Wraps a fake route; ``violations`` counts the requests that came faster than the limit."""

    serve: Callable[[SeenRequest], Answer]
    spacing: float = 1.0
    header: str = "x-api-key"
    arrivals: list[Arrival] = field(default_factory=list)
    _last_served: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: SeenRequest) -> Answer:
        key = request.headers.get(self.header, "(no key)")
        with self._lock:
            last = self._last_served.get(key)
            served = last is None or request.time - last >= self.spacing
            if served:
                self._last_served[key] = request.time
            self.arrivals.append(Arrival(request.time, key, served, request.param("query") or ""))
        return self.serve(request) if served else Answer(429, REFUSAL)

    @property
    def violations(self) -> int:
        return sum(1 for arrival in self.arrivals if not arrival.served)

    @property
    def served(self) -> int:
        return sum(1 for arrival in self.arrivals if arrival.served)

    def busy_seconds(self) -> float:
        """From the first arrival to the last, plus the one spacing the last one takes."""
        times = sorted(arrival.time for arrival in self.arrivals)
        return times[-1] - times[0] + self.spacing if times else 0.0
