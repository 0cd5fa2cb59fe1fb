"""The one HTTP layer: pacing per provider, retries, timeouts, budgets, size caps.

Providers never touch httpx directly. They open a ``ProviderSession`` and call
``get``/``post``; the session enforces the provider's declared ``PacePolicy``
across every concurrent request in the process and every lit-search process on the machine
(``shared_pace``), or every machine of a lab (``LITSEARCH_SHARED_STATE``: ``pace_keeper``),
retries what is worth retrying,
and turns every failure into a ``ProviderError`` with a one-line reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping

import httpx

from ..core.config import Settings, data_folder
from ..core.errors import NotCached, ProviderError
from .addresses import local_address_of
from .agent import ANONYMOUS_AGENT, DEFAULT_CONTACT, connections, trusted_origin, user_agent  # noqa: F401
from .bodies import BodyError, BoundedBody
from .pace_keeper import BUSY, PaceKeeper
from .pacing import PROCESS_PACE_BOOK, PaceBook, PacePolicy, interval_in_force, slowed_after_429
from .reasons import exchange_failure, status_reason, timeout_reason
from .redirects import REDIRECT_STATUSES, RedirectRefused, next_request, same_origin_as_any, shown_origin
from .request_log import logged_request
from .responses import FetchedResponse
from .shared_pace import SharedPace
from .shared_state import SharedState
from .start_turn import Turn, TurnTimeout, start_turn
from .waits import parse_retry_after, shown_wait  # noqa: F401  (re-exported too)

# 429 and 500-503 per the contract, plus 504 (a gateway timeout is as transient as a 503).
RETRYABLE_STATUS = frozenset({429, 500, 501, 502, 503, 504})
MACHINE_SLOT_POLL_SECONDS = 0.02  # how often a request waiting for another process's place looks again
MAX_HOLD_SECONDS = 600.0  # a 429's wait held for everyone at most this long (a day's Retry-After is the budget's)
MAX_HOPS = 16  # a bound on the redirect loop itself; redirects.MAX_REDIRECTS ends it first


class HttpClient:
    """Owns the httpx client and the pacing state for one run.

    ``clock`` and ``sleep`` are injectable so tests can check pacing and budgets
    without waiting in real time.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        policies: Mapping[str, PacePolicy] | None = None,
        pace_book: PaceBook | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        cache: Any = None,
        shared_pace: SharedPace | None = None,
        shared_state: SharedState | None = None,
        connections: httpx.AsyncClient | None = None,
    ):
        self.settings = settings
        # An httpx client a long-lived process keeps (the MCP server: ``connections(settings)``
        # once, not a new one with its TLS set-up per call); this client then leaves it open.
        self._shared = connections
        self.cache = cache  # a litsearch.net.cache.ResponseCache, or None
        # Each service declares its pace (core/services.py, read through the settings); tests may
        # override some.
        self.policies = dict(policies or {})
        self.pace_book = pace_book or (PROCESS_PACE_BOOK if clock is time.monotonic else PaceBook(clock))
        # Real time and the process's own book: keep the pace with other lit-search processes
        # too, through lock files beside the cache, and with the lab's machines when a shared
        # state is set (net/shared_state.py). A test's clock paces alone.
        self.shared_pace: SharedPace | None = shared_pace or (
            SharedPace(data_folder() / "pace") if self.pace_book is PROCESS_PACE_BOOK else None)
        self._owns_shared_state = shared_state is None and bool(settings.shared_state) and not (
            cache is not None and getattr(cache, "offline", False))
        self.shared_state: SharedState | None = shared_state or (
            SharedState(settings.shared_state, redact=settings.redact) if self._owns_shared_state else None)
        lab = self.shared_state if (self.shared_pace is not None or shared_state is not None) else None
        self.pace_keeper: PaceKeeper | None = (
            PaceKeeper(self.shared_pace, lab, key_of=settings.key, lab_paced=self._lab_paced,
                       turn_grace=settings.connect_timeout + 3.0)
            if self.shared_pace is not None or lab else None)
        self.lab_cache: Any = None
        if self.shared_state is not None and cache is not None:
            from .lab_cache import LabCache

            self.lab_cache = LabCache(self.shared_state, settings.cache_max_bytes, scrub=settings.redact)
        self.clock = clock
        self.sleep = sleep
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._slots: dict[str, asyncio.Semaphore] = {}
        self.request_counts: dict[str, int] = {}
        self.cache_counts: dict[str, int] = {}  # answers taken from the response cache, not sent
        self.sent: list[dict[str, Any]] = []  # every request asked for, in order (log_request)

    def log_request(self, provider: str, method: str, url: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Note a request as sent (for a search record): URL without query, parameters and any
        JSON body, with keys and contact emails replaced. Returns the entry, to add the status."""
        entry = logged_request(self.settings, provider, method, url, kwargs)
        self.sent.append(entry)
        return entry

    @property
    def user_agent(self) -> str:
        return user_agent(self.settings)

    async def __aenter__(self) -> "HttpClient":
        self._client = self._shared or connections(self.settings, self._transport)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None and self._client is not self._shared:
            await self._client.aclose()
        self._client = None
        if self._owns_shared_state and self.shared_state is not None:
            await self.shared_state.aclose()

    def policy(self, provider: str) -> PacePolicy:
        """The pace of a provider (or a lane, ``openalex.semantic``): an override, else its declaration."""
        if provider not in self.policies:
            name, _, lane = provider.partition(".")
            self.policies[provider] = self.settings.pace(name, lane or None)
        return self.policies[provider]

    def session(self, provider: str, budget: float | None = None,
                deadline: float | None = None) -> "ProviderSession":
        """A session for one provider's share of a command, with its own time budget (or a
        deadline shared with other work)."""
        budget = self.settings.provider_budget if budget is None else budget
        end = self.clock() + budget
        return ProviderSession(self, provider, deadline=end if deadline is None else min(end, deadline))

    def lane(self, provider: str, url: str, params: Any) -> str | None:
        """The pace key of the lane this request goes through (``openalex.semantic``), chosen by
        the query parameters its service declares for a lane (Service.lanes); None for most."""
        declared = self.settings.services.get(provider)
        if declared is None or not declared.lanes:
            return None
        name = declared.lane_of(set(httpx.URL(url).copy_merge_params(params or {}).params.keys()))  # as httpx sends it
        return f"{provider}.{name}" if name else None

    def _lab_paced(self, provider: str) -> bool:
        """An API at a fixed address is paced with the lab; publishers' open copies are not."""
        declared = self.settings.services.get(provider.partition(".")[0])  # a lane is its service's
        return declared is None or declared.base_url is not None

    def lab_lost(self) -> bool:
        """A lab's shared state is set and its link is lost now (net/shared_state.py)."""
        return self.shared_state is not None and not self.shared_state.usable

    def interval(self, provider: str) -> float:
        """The spacing kept between the provider's starts now (pacing.interval_in_force)."""
        return interval_in_force(self.policy(provider), provider, self.pace_book, self.pace_keeper)

    async def note_rate_limited(self, provider: str, retry_after: float | None, sent_at: float | None) -> None:
        """A 429: every start of the provider waits, in this process and on every machine that
        shares the pace, as the server asked (its Retry-After, else the first backoff); an API
        with no published rate is slowed down too (pacing.slowed_after_429)."""
        wait = min(retry_after if retry_after is not None else self.settings.backoff_seconds, MAX_HOLD_SECONDS)
        self.pace_book.hold(provider, wait)
        if self.pace_keeper is not None:
            await self.pace_keeper.hold_off(provider, wait)
        slower = slowed_after_429(self.policy(provider), provider, retry_after, self.pace_book, self.pace_keeper,
                                  sent_at=sent_at)
        if slower is not None and self.pace_keeper is not None:
            from .pacing import SLOWDOWN_MEMORY_SECONDS

            await self.pace_keeper.slow_down(provider, slower, SLOWDOWN_MEMORY_SECONDS)

    def _slot(self, provider: str) -> asyncio.Semaphore:
        if provider not in self._slots:
            self._slots[provider] = asyncio.Semaphore(self.policy(provider).max_in_flight)
        return self._slots[provider]

    @contextlib.asynccontextmanager
    async def _machine_slot(self, provider: str, give_up_at: float) -> AsyncIterator[None]:
        """One of the provider's in-flight places shared with other processes, polled until
        free; ``TimeoutError`` at ``give_up_at`` (this clock)."""
        shared = self.pace_keeper
        held = shared.try_flight(provider, self.policy(provider).max_in_flight) if shared else None
        while held == BUSY:
            if self.clock() >= give_up_at:
                raise TimeoutError(provider)
            await self.sleep(MACHINE_SLOT_POLL_SECONDS)
            held = shared.try_flight(provider, self.policy(provider).max_in_flight)
        try:
            yield
        finally:
            SharedPace.release(held)


class ProviderSession:
    """Requests for one provider, paced, retried and bounded by one deadline."""

    def __init__(self, http: HttpClient, provider: str, deadline: float):
        self.http = http
        self.provider = provider
        self.policy = http.policy(provider)
        self.deadline = deadline
        self.requests_sent = 0
        self.cache_hits = 0
        self.cached_keys: list[str] = []  # answers this session stored in the cache

    @property
    def settings(self) -> Settings:
        return self.http.settings

    def url(self, path: str) -> str:
        """The provider's base URL (from the settings) followed by ``path``."""
        return self.http.settings.url(self.provider, path)

    def identity_params(self) -> dict[str, str]:
        """The query parameters that carry this service's key and the contact email, as its
        declaration says (none for a key sent in a header)."""
        return self.http.settings.identity(self.provider)[0]

    def key_headers(self) -> dict[str, str]:
        """The headers that carry this service's key, as its declaration says."""
        return self.http.settings.identity(self.provider)[1]

    def error(self, message: str, *, status: int | None = None, retryable: bool = False) -> ProviderError:
        """A ProviderError of this provider, its message on one line and redacted."""
        return ProviderError(self._redact(" ".join(str(message).split())), provider=self.provider,
                             status=status, retryable=retryable)

    def remaining(self) -> float:
        return self.deadline - self.http.clock()

    async def get(self, url: str, *, params: Any = None, headers: Mapping[str, str] | None = None,
                  accept_status: frozenset[int] = frozenset(), retries: int | None = None,
                  other_origins: bool = False, named_by: str | None = None) -> FetchedResponse:
        """``other_origins``: the URL is no configured API (an open copy a publisher hosts) and
        carries no credential, so its redirects to other hosts are followed, anonymously, and
        each hop must be a public address. ``named_by``: the service whose answer named the URL
        (default: this session's own, whose base URL built it); its origin is spared the address
        check only when the user set that service's URL (``trusted_origin``)."""
        extra = {"other_origins": named_by or self.provider} if other_origins else {}
        return await self.request("GET", url, params=params, headers=headers, accept_status=accept_status,
                                  retries=retries, **extra)

    async def post(self, url: str, *, params: Any = None, data: Any = None, json: Any = None,
                   headers: Mapping[str, str] | None = None,
                   accept_status: frozenset[int] = frozenset()) -> FetchedResponse:
        return await self.request("POST", url, params=params, data=data, json=json, headers=headers,
                                  accept_status=accept_status)

    async def request(self, method: str, url: str, *, accept_status: frozenset[int] = frozenset(),
                      retries: int | None = None, **kwargs: Any) -> FetchedResponse:
        """Send with retries (the policy's, unless ``retries`` says otherwise). 2xx (and
        ``accept_status``) return; anything else raises ProviderError. With a response cache,
        a stored answer is returned without touching the network."""
        cache = self.http.cache
        entry = self.http.log_request(self.provider, method, url, kwargs)
        if cache is not None:
            cached = await cache.find(self.provider, method, url, kwargs, self.http.lab_cache)
            if cached is not None:
                self.cache_hits += 1
                self.http.cache_counts[self.provider] = self.http.cache_counts.get(self.provider, 0) + 1
                entry.update(status=cached.status, from_cache=True)
                return cached
            if cache.offline:
                raise NotCached(f"offline: no cached answer for this request to {self.provider}",
                                provider=self.provider)
        try:
            response = await self._request_with_retries(method, url, accept_status=accept_status, retries=retries,
                                                        **kwargs)
        except ProviderError as error:
            entry.update(status=error.status, error=str(error))
            raise
        entry["status"] = response.status
        if cache is not None:
            key = await cache.keep(self.provider, method, url, kwargs, response,
                                   ttl=self.http.settings.service(self.provider).cache_ttl, lab=self.http.lab_cache)
            if key:
                self.cached_keys.append(key)
        return response

    async def forget_cached_answers(self) -> None:
        """The provider could not use what it got: do not serve those answers again."""
        if self.http.cache is not None:
            await self.http.cache.drop(self.provider, self.cached_keys, self.http.lab_cache)
        self.cached_keys = []

    async def _request_with_retries(self, method: str, url: str, *, accept_status: frozenset[int],
                                    retries: int | None = None, **kwargs: Any) -> FetchedResponse:
        attempts = (self.policy.retries if retries is None else retries) + 1
        last_reason = "no attempt made"
        last_status: int | None = None
        attempt = 0
        while True:
            retry_after: float | None = None
            contended = False
            try:
                response = await self._send_once(method, url, **kwargs)
            except ProviderError as exc:
                # Budget or size limits end the provider; keep the earlier failure in the reason.
                raise exc.with_message(self._redact(f"{last_reason}; then {exc}" if attempt else str(exc))) from None
            except httpx.TimeoutException as exc:
                last_reason, last_status = timeout_reason(exc, self.http.settings), None
            except (httpx.HTTPError, httpx.InvalidURL, httpx.CookieConflict, UnicodeError, ValueError) as exc:
                # Any other failure of the exchange is this provider's failure, with its reason;
                # only one that may go differently next time is tried again.
                reason, retryable = exchange_failure(exc)
                if not retryable:
                    raise self.error(f"{last_reason}; then {reason}" if attempt else reason) from None
                last_reason, last_status = reason, None
            else:
                if 200 <= response.status < 300 or response.status in accept_status:
                    return response
                last_reason, last_status = status_reason(response), response.status
                if response.status not in RETRYABLE_STATUS:
                    raise self.error(last_reason, status=response.status)
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                if response.status == 429:
                    await self.http.note_rate_limited(self.provider, retry_after, response.sent_at)
                    # The lab's pace was lost: the key's other machines now send at their own
                    # pace too, so a 429 is that crowd, not a broken API. Keep trying, spread out,
                    # for as long as the budget allows (speed, never the results).
                    contended = self.http.lab_lost()
            if attempt >= attempts - 1 and not contended:
                break
            if retry_after is not None:
                await self.wait_as_asked(retry_after, "Retry-After", reason=last_reason, status=last_status)
                attempt += 1
                continue
            wait = self._spread_out() if contended else self._backoff(attempt)
            if wait >= self.remaining():
                break
            await self.http.sleep(wait)
            attempt += 1
        suffix = f" after {attempt + 1} attempts" if attempt else ""
        raise self.error(last_reason + suffix, status=last_status, retryable=True)

    async def wait_as_asked(self, seconds: float, header: str, *, reason: str = "",
                            status: int | None = None) -> None:
        """Wait as the server asked (``header`` says how: Retry-After, Backoff), within the time
        budget left: a longer wait (a day, ``inf``) is not waited at all but fails at once."""
        left = self.remaining()
        if not seconds < left:  # infinity too
            prefix = f"{reason}; " if reason else ""
            raise self.error(f"{prefix}server asked to wait {shown_wait(seconds)} ({header}), more than the "
                             f"{max(left, 0):.0f} s left in this provider's budget", status=status, retryable=True)
        await self.http.sleep(seconds)

    def _spread_out(self) -> float:
        """A wait after a 429 from a crowd of machines on one key: one to three intervals, at
        random, so they do not come back together."""
        return random.uniform(1.0, 3.0) * max(self.policy.min_interval, self.http.settings.backoff_seconds / 2)

    def _backoff(self, attempt: int) -> float:
        base = self.http.settings.backoff_seconds
        return base * (2 ** attempt) + random.uniform(0, base / 4)

    async def _send_once(self, method: str, url: str, **kwargs: Any) -> FetchedResponse:
        if self.remaining() <= 0:
            raise self.error(f"gave up: this provider's time budget of "
                             f"{self.http.settings.provider_budget:.0f} s ran out", retryable=True)
        client = self.http._client
        if client is None:
            raise RuntimeError("HttpClient used outside 'async with'")
        async with contextlib.AsyncExitStack() as places:
            # A lane's place and pace first (one request a second …), then the provider's own.
            lane = self.http.lane(self.provider, url, kwargs.get("params"))
            lane_turn = await self._places(places, lane) if lane else None
            await self._places(places, self.provider, turn=False)
            interval = self.http.interval(self.provider)
            start = self.http.pace_book.reserve(self.provider, interval)
            wait = start - self.http.clock()
            if wait > 0:
                if wait >= self.remaining():
                    raise self.error(f"gave up: the next request allowed by this API's pace "
                                     f"({self.policy.min_interval:g} s apart) would pass the time budget",
                                     retryable=True)
                await self.http.sleep(wait)
            turn = await places.enter_async_context(self._start_turn(interval, self.provider))
            self.requests_sent += 1
            self.http.request_counts[self.provider] = self.http.request_counts.get(self.provider, 0) + 1
            sent_at = self.http.clock()
            try:
                response = await asyncio.wait_for(self._read(client, method, url, (lane_turn, turn), **kwargs),
                                                  timeout=max(self.remaining(), 0.001))
                response.sent_at = sent_at
                return response
            except asyncio.TimeoutError:
                raise self.error(f"gave up: no complete answer within this provider's time budget of "
                                 f"{self.http.settings.provider_budget:.0f} s", retryable=True) from None

    async def _places(self, places: contextlib.AsyncExitStack, key: str, turn: bool = True) -> Turn | None:
        """One of ``key``'s in-flight places (here and on the machine); with ``turn``, its turn to start."""
        await places.enter_async_context(self.http._slot(key))
        try:
            await places.enter_async_context(self.http._machine_slot(key, self.http.clock() + self.remaining()))
        except TimeoutError:
            raise self.error("gave up: other lit-search processes kept this API busy for the whole "
                             "time budget", retryable=True) from None
        return await places.enter_async_context(self._start_turn(self.http.interval(key), key)) if turn else None

    @contextlib.asynccontextmanager
    async def _start_turn(self, interval: float, key: str) -> AsyncIterator[Turn | None]:
        """``key``'s turn to start (net/start_turn.py), its pace waited out; None when it is
        unpaced. A turn or pace past the time budget ends the provider."""
        if interval <= 0:
            yield None
            return
        try:
            async with start_turn(self.http.pace_book, self.http.pace_keeper, key,
                                  lambda: self.http.interval(key), self.http.clock, self.http.sleep,
                                  self.http.clock() + self.remaining()) as turn:
                yield turn
        except TurnTimeout as timeout:
            if timeout.reason == "pace":
                raise self.error(f"gave up: the next request allowed by this API's pace "
                                 f"({self.http.policy(key).min_interval:g} s apart) would pass the time budget",
                                 retryable=True) from None
            raise self.error("gave up: other lit-search requests kept this API busy for the whole time budget",
                             retryable=True) from None

    async def _read(self, client: httpx.AsyncClient, method: str, url: str, turns: tuple[Turn | None, ...],
                    **kwargs: Any) -> FetchedResponse:
        cap = self.http.settings.max_response_bytes
        named_by = kwargs.pop("other_origins", None)
        anonymous = ANONYMOUS_AGENT if named_by else None
        trusted = trusted_origin(self.http.settings, named_by, url) if named_by else None
        # follow_redirects=False from the caller: an API that never redirects; a 3xx is its answer.
        follow = kwargs.pop("follow_redirects", True) is not False

        async def sent(event: str, info: Any) -> None:
            # The API times arrivals: the next request's pace counts from when these headers
            # really left (a new connection, a busy loop), and only then may it start.
            if event.endswith("send_request_headers.complete"):
                for turn in turns:
                    if turn is not None:
                        await turn.started()

        for hops in range(MAX_HOPS):
            # The trust holds while every hop stays on the user's origin: a hop elsewhere, and
            # anything it redirects to, is judged by its addresses.
            trusted = trusted if trusted is not None and same_origin_as_any(httpx.URL(url), [trusted]) else None
            if anonymous and trusted is None:
                await self._refuse_local_address(url)
            async with client.stream(method, url, extensions={"trace": sent}, **kwargs) as response:
                if response.status_code in REDIRECT_STATUSES and follow:
                    try:
                        method, url, kwargs = next_request(response, method, kwargs, hops, anonymous)
                    except RedirectRefused as refused:
                        raise self.error(str(refused), status=response.status_code) from None
                    continue
                return FetchedResponse(response.status_code, response.headers, await self._body(response, cap),
                                       str(response.url))
        raise AssertionError("unreachable: next_request ends the loop")  # pragma: no cover

    async def _refuse_local_address(self, url: str) -> None:
        """An open copy (and each redirect it makes) is fetched from public addresses only
        (addresses.py says why)."""
        target = httpx.URL(url)
        local = await local_address_of(target)
        if local is not None:
            raise self.error(f"{shown_origin(target)} is a private or local address ({local}); open copies are "
                             "fetched from public hosts only")

    async def _body(self, response: httpx.Response, cap: int) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise self.error(f"response of {int(declared):,} bytes exceeds the {cap:,}-byte cap; not read")
        if response.is_stream_consumed:
            # A transport that handed over a response already read into memory (an in-memory
            # transport such as httpx.MockTransport): its content is decoded and complete.
            if len(response.content) > cap:
                raise self.error(f"response exceeds the {cap:,}-byte cap; not read")
            return response.content
        try:
            body = BoundedBody(response.headers.get("content-encoding", ""), cap)
            async for chunk in response.aiter_raw():
                body.feed(chunk)
            return body.finish()
        except BodyError as broken:
            raise self.error(str(broken), status=response.status_code, retryable=broken.retryable) from None

    def _redact(self, text: str) -> str:
        return self.http.settings.redact(text)
