"""A provider's outcome keeps its failure as the typed error (its kind, status, whether a retry
may help) until an output says it in one line."""

from __future__ import annotations

from litsearch.core.errors import NotCached, ProviderError
from litsearch.search.pipeline import ProviderOutcome


def test_a_failure_told_differently_keeps_its_kind_and_facts():
    error = NotCached("offline: not cached", provider="openalex", status=None, retryable=False)
    told = error.with_message("offline: not in the cache [redacted]")
    assert type(told) is NotCached and (told.provider, told.status, told.retryable) == ("openalex", None, False)
    assert (told.message, str(told)) == ("offline: not in the cache [redacted]",) * 2
    assert error.message == "offline: not cached"  # the original is left as it was
    limited = ProviderError("HTTP 429", provider="pubmed", status=429, retryable=True).with_message("HTTP 429: x")
    assert (type(limited), limited.status, limited.retryable, str(limited)) == (ProviderError, 429, True, "HTTP 429: x")


def test_the_outcomes_line_is_its_failures_message():
    failed = ProviderOutcome("pubmed", "q", "search", failure=ProviderError("HTTP 503", provider="pubmed", status=503))
    assert failed.error == "HTTP 503" and failed.failure.status == 503
    assert ProviderOutcome("pubmed", "q", "combined").error is None
