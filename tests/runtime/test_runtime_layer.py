"""The run-time layer every door stands on, in process: going online (the cache and the store
opened as the work needs them), the one redacting log filter and its one-line mode, the
console's bounded lines and the one renderer of a result."""

from __future__ import annotations

import asyncio
import logging

import pytest

from litsearch.core.errors import StoreError
from litsearch.runtime.console import MAX_MESSAGE_LINE, Console, bounded
from litsearch.runtime.logs import ONE_LINE_CHARS, RedactingFilter, redact_logs
from litsearch.runtime.online import online, opened_cache
from litsearch.runtime.settings import load_settings, redactor, settings_from_env

KEY = "sentinel-key-0123456789"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path))
    return tmp_path


def _damaged(data) -> None:
    (data / "lit-search.sqlite3").write_bytes(b"this is not a database\n" * 200)


def _seen(mode="normal", store_needed=False):
    async def work(http, store):
        return http.cache.mode, http.cache.store is not None, store

    return asyncio.run(online(settings_from_env({}), work, mode=mode, console=Console(None, quiet=True),
                              store_needed=store_needed))


def test_online_runs_the_work_with_the_cache_and_the_store(data):
    mode, caching, store = _seen()
    assert (mode, caching, store is not None) == ("normal", True, True)
    assert (data / "lit-search.sqlite3").exists()


@pytest.mark.parametrize("mode", ["refresh", "offline"])
def test_online_passes_the_mode_to_the_cache(data, mode):
    assert _seen(mode)[:2] == (mode, True)


def test_no_cache_opens_no_store_unless_the_work_needs_one(data):
    assert _seen("off") == ("off", False, None)
    assert not (data / "lit-search.sqlite3").exists()
    assert _seen("off", store_needed=True)[2] is not None


def test_a_damaged_store_only_switches_the_cache_off_with_one_warning(data, capsys):
    _damaged(data)
    assert _seen() == ("normal", False, None)
    warning = capsys.readouterr().err
    assert warning.startswith("lit-search: cache disabled: the lit-search database at") and warning.count("\n") == 1
    assert (data / "lit-search.sqlite3").read_bytes() == b"this is not a database\n" * 200


@pytest.mark.parametrize("mode,needed", [("offline", False), ("normal", True)])
def test_a_store_the_work_cannot_do_without_must_open(data, mode, needed):
    _damaged(data)
    with pytest.raises(StoreError, match="is damaged"):
        _seen(mode, store_needed=needed)


def test_offline_opens_the_store_read_only_and_creates_nothing(data):
    with opened_cache(settings_from_env({}), "offline", None) as (cache, store):
        assert store.read_only and cache.mode == "offline"
    assert not (data / "lit-search.sqlite3").exists()


def test_without_a_console_a_disabled_cache_says_nothing(data, capsys):
    _damaged(data)
    with opened_cache(settings_from_env({}), "normal", None) as (cache, store):
        assert store is None and cache.store is None
    assert capsys.readouterr().err == ""


def _record(message: str, *args, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("litsearch", logging.WARNING, __file__, 1, message, args, exc_info)


def test_the_log_filter_removes_keys_from_the_message_and_its_arguments():
    settings = settings_from_env({"OPENALEX_API_KEY": KEY})
    record = _record("GET %s failed\nretrying", f"https://api.openalex.org/works?api_key={KEY}")
    assert RedactingFilter(settings).filter(record) is True
    assert record.getMessage() == "GET https://api.openalex.org/works?api_key=[redacted] failed\nretrying"
    assert record.args == ()


def test_the_one_line_mode_folds_cuts_and_drops_the_traceback():
    settings = settings_from_env({"OPENALEX_API_KEY": KEY})
    try:
        raise ValueError(f"url with {KEY}")
    except ValueError:
        import sys

        record = _record("crash  in\n%s", KEY + " " + "x" * 3000, exc_info=sys.exc_info())
    RedactingFilter(settings, one_line=True).filter(record)
    message = record.getMessage()
    assert message.startswith("crash in [redacted] xxx") and "\n" not in message
    assert len(message) <= ONE_LINE_CHARS and message.endswith("…")
    assert record.exc_info is None and record.exc_text is None
    kept = _record("a\nb", exc_info=(ValueError, ValueError("v"), None))
    RedactingFilter(settings).filter(kept)
    assert kept.getMessage() == "a\nb" and kept.exc_info is not None


def test_one_line_mode_keeps_a_line_of_exactly_the_limit():
    record = _record("y" * ONE_LINE_CHARS)
    RedactingFilter(settings_from_env({}), one_line=True).filter(record)
    assert record.getMessage() == "y" * ONE_LINE_CHARS


def test_redact_logs_filters_every_root_handler(monkeypatch):
    root = logging.getLogger()
    handlers = [logging.StreamHandler(), logging.StreamHandler()]
    monkeypatch.setattr(root, "handlers", handlers)
    redact_logs(settings_from_env({}))
    assert all(any(isinstance(f, RedactingFilter) for f in handler.filters) for handler in handlers)


def test_console_lines_are_bounded_and_redacted(capsys):
    settings = settings_from_env({"OPENALEX_API_KEY": KEY})
    console = Console(settings, quiet=True, prefix="lit-search mcp")
    console.say("not shown with -q")
    console.warn(f"key {KEY}\x1b[31m {'z' * 2000}")
    line = capsys.readouterr().err
    assert line.startswith("lit-search mcp: key [redacted]") and "\x1b" not in line
    assert line.endswith("z…\n") and len(line.rstrip("\n")) <= MAX_MESSAGE_LINE  # cut, then the key removed
    Console(None).say("shown")
    assert capsys.readouterr().err == "lit-search: shown\n"


def test_bounded_cuts_each_line_on_its_own():
    exact, longer = "a" * MAX_MESSAGE_LINE, "b" * (MAX_MESSAGE_LINE + 1)
    assert bounded(f"{exact}\n{longer}") == f"{exact}\n{'b' * (MAX_MESSAGE_LINE - 1)}…"


def test_settings_read_the_declared_services(monkeypatch):
    from litsearch.core.errors import ConfigError
    from litsearch.providers import registry

    assert set(settings_from_env({}).services) == set(registry.services())
    assert redactor({"NCBI_API_KEY": "bad\x01key-abc"}).redact("bad\x01key-abc") == "[redacted]"
    monkeypatch.setenv("LITSEARCH_READ_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="LITSEARCH_READ_TIMEOUT"):
        load_settings()
