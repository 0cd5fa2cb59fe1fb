"""Live progress on a terminal: one status line per provider, rewritten in place as each one
answers (searching… / 25 results in 0.6 s / failed: reason), then one for the DOI checks and
open-access lookups. Only when stderr is a terminal and not with -q; stdout is untouched.

Written with plain ANSI cursor movement (up a few lines, clear the line, write, back down):
for a handful of lines that changes a few times, a terminal UI library (rich) would add a
dependency and most of the start-up time a search is trying to save.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Callable, TextIO

from ..core.sanitize import safe_text

_CLEAR_LINE = "\r\x1b[K"


class LiveStatus:
    """A ``SearchProgress`` (search/pipeline.py) that draws on a terminal."""

    def __init__(self, stream: TextIO | None = None, clock=time.monotonic, width: Callable[[], int] | None = None):
        self.stream = stream or sys.stderr  # looked up now: stderr may be replaced after import
        self.clock = clock
        self.width = width or self._terminal_columns
        self.lines: list[str] = []  # providers, then "enrichment"
        self.started_at = clock()

    @classmethod
    def wanted(cls, quiet: bool, stream: TextIO | None = None) -> bool:
        stream = stream or sys.stderr
        return not quiet and stream.isatty()

    def started(self, providers: list[str]) -> None:
        self.started_at = self.clock()
        for provider in providers:
            self._add(provider, "searching…")

    def finished(self, outcome) -> None:
        if outcome.error:
            text = f"failed: {outcome.error}"
        else:
            count = len(outcome.records)
            text = f"{count} result{'' if count == 1 else 's'} in {outcome.seconds:.1f} s"
            if outcome.cached and outcome.cached == outcome.requests + outcome.cached:
                text += " (from the cache)"
        self._set(outcome.provider, text)

    def enriching(self, rows: int) -> None:
        self._add("enrichment", f"checking DOIs and open-access copies of {rows} row{'' if rows == 1 else 's'}…")

    def enriched(self, report) -> None:
        if "enrichment" in self.lines:
            self._set("enrichment", f"done in {self.clock() - self.started_at:.1f} s in all")

    def _add(self, name: str, text: str) -> None:
        self.lines.append(name)
        self.stream.write(self._line(name, text) + "\n")
        self.stream.flush()

    def _set(self, name: str, text: str) -> None:
        if name not in self.lines:
            return self._add(name, text)
        up = len(self.lines) - self.lines.index(name)
        self.stream.write(f"\x1b[{up}A{_CLEAR_LINE}{self._line(name, text)}\x1b[{up}B\r")
        self.stream.flush()

    def _line(self, name: str, text: str) -> str:
        """One status line, cut to the terminal's width less one column: a line that wrapped
        would push the others down, and the next rewrite (so many lines up) would land on the
        wrapped tail instead of its own line. The width is asked each time: a window resized
        during the search is still drawn right."""
        from ..render.terminal import fit

        # API text (an error reason) goes through the sanitizer: no escape sequence of its own.
        return fit(f"lit-search: {name:<17} " + safe_text(" ".join(text.split())), max(20, self.width() - 1))

    def _terminal_columns(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):  # not a terminal after all, or no descriptor
            columns = 0
        return columns or 80  # a terminal that reports no size (0 columns) gets the usual 80


class StepStatus:
    """One status line for a deep-search step on a terminal, rewritten in place while its requests
    run (a round asks several providers for up to half a minute at their pace): the requests sent
    so far per provider and the seconds; then one closing line. Read from the HTTP client's own
    counts, so the step itself is untouched. Only when stderr is a terminal and not with -q."""

    def __init__(self, what: str, stream: TextIO | None = None, clock=time.monotonic,
                 width: Callable[[], int] | None = None):
        self.what = what  # "deep start", "deep next"
        self.line = LiveStatus(stream, clock, width)
        self.clock = clock
        self.started_at = clock()
        self.before: dict[str, int] = {}
        self.drawn = False

    def text(self, counts: dict[str, int], done: bool = False) -> str:
        from ..providers.base import provider_label

        sent = {name: n - self.before.get(name, 0) for name, n in counts.items() if n - self.before.get(name, 0) > 0}
        total = sum(sent.values())
        said = ", ".join(f"{provider_label(name)} {n}" for name, n in sorted(sent.items(), key=lambda kv: -kv[1]))
        seconds = self.clock() - self.started_at
        if done:
            return f"{total:,} request{'' if total == 1 else 's'} in {seconds:.1f} s" + (f" ({said})" if said else "")
        return (f"{total:,} request{'' if total == 1 else 's'} so far" + (f" ({said})" if said else "")
                + f", {seconds:.0f} s…")

    def show(self, text: str) -> None:
        stream = self.line.stream
        stream.write(_CLEAR_LINE + self.line._line(self.what, text))
        stream.flush()
        self.drawn = True

    async def follow(self, http, interval: float = 1.0) -> None:
        """Redraw the line every ``interval`` seconds from ``http.request_counts`` until cancelled."""
        import asyncio

        self.before = dict(http.request_counts)
        self.started_at = self.clock()
        while True:
            self.show(self.text(http.request_counts))
            await asyncio.sleep(interval)

    def close(self, http) -> None:
        """The closing line (what the step sent in all), on its own line."""
        if self.drawn:
            self.show(self.text(http.request_counts, done=True))
            self.line.stream.write("\n")
            self.line.stream.flush()


async def followed(http, status: "StepStatus | None", work):
    """Await ``work`` (a coroutine) while ``status`` follows ``http``'s requests (None: just await it)."""
    import asyncio

    if status is None:
        return await work
    ticker = asyncio.create_task(status.follow(http))
    try:
        return await work
    finally:
        ticker.cancel()
        try:
            await ticker
        except asyncio.CancelledError:
            pass
        status.close(http)
