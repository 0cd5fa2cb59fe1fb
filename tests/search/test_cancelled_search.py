"""A search cancelled (Ctrl-C, SIGTERM, a caller's timeout, an MCP client gone) ends every
provider's request with it: none runs on past the search into the cache and client its caller
closes next ("cache disabled: … is closed" printed after the interrupt's one line)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from litsearch.core.filters import Filters
from litsearch.search import pipeline
from litsearch.search.options import checked_options


def test_a_cancelled_search_leaves_no_provider_task_running(monkeypatch):
    started, ended = [], []

    async def never_answers(http, plan, options):
        started.append(plan.provider)
        try:
            await asyncio.Event().wait()
        finally:
            ended.append(plan.provider)

    monkeypatch.setattr(pipeline, "_bounded", never_answers)
    http = SimpleNamespace(clock=lambda: 0.0, settings=SimpleNamespace(provider_budget=30.0))
    options = checked_options("coral reef bleaching", providers="openalex,pubmed,arxiv", filters=Filters())

    async def cancel_mid_search():
        search = asyncio.ensure_future(pipeline._run_search(options, http, pipeline._Silent()))
        while len(started) < 3:
            await asyncio.sleep(0)
        search.cancel()
        try:
            await search
        except asyncio.CancelledError:
            pass
        # the search has unwound: every provider's task had ended by then, none is left running
        return sorted(ended), [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]

    ended_when_cancelled, still_running = asyncio.run(cancel_mid_search())
    assert ended_when_cancelled == ["arxiv", "openalex", "pubmed"]
    assert still_running == []
