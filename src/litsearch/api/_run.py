"""Run a coroutine from synchronous code, even inside a running event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any, Awaitable, Callable, TypeVar

from ..core.config import Settings
from ..net.http import HttpClient
from ..runtime.settings import settings_from_env

T = TypeVar("T")


def settings() -> Settings:
    return settings_from_env()


def run_sync(coroutine: Awaitable[T]) -> T:
    try:
        asyncio.get_running_loop()
        in_a_loop = True
    except RuntimeError:
        in_a_loop = False
    if not in_a_loop:
        # The usual case, no loop yet: run outside the except clause, or every error the work
        # raises would show "During handling of … RuntimeError: no running event loop" first
        return asyncio.run(coroutine)
    # Called from async code (e.g. Jupyter): run in a fresh loop on a worker thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def call_provider(provider: str, work: Callable[[Any], Awaitable[T]]) -> T:
    """``work(session)`` for one provider, through the paced HTTP layer."""
    async def go() -> T:
        async with HttpClient(settings()) as http:
            return await work(http.session(provider))

    return run_sync(go())
