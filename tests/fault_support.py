"""Shared harness for the fault tests: one provider misbehaves, the other three are healthy.

Each scenario runs the real ``lit-search`` entry point (``litsearch.cli.main``) twice, for
Markdown and JSON, against the fake APIs, with short settings so a full matrix runs in
seconds: a 6 s provider budget, 0.5 s timeouts and a 0.05 s first backoff. The contract
checked for every scenario (``check_contract``):
- the search finishes within the bound: budget + 2 s margin (+3 s for the test's own work on a
  loaded 2-core machine: parsing, merging, rendering twice); in-process runs start with a fresh
  pace book, as separate ``lit-search`` processes do, and the modules a search loads are loaded
  before the first run is timed;
- the healthy providers' papers are shown;
- the failed provider is named, with a one-line reason, in the Markdown footer and in
  JSON ``errors``; a provider that recovered is not;
- the exit code is 0 while any provider answered (3 only when all failed), and no traceback.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass

import fake_apis
from fake_server import Answer, FakeServer
from litsearch import cli
from litsearch.core.config import data_folder
from litsearch.net.pacing import PROCESS_PACE_BOOK
from scratch import scratch_folder  # noqa: E402

PROVIDERS = ("semantic_scholar", "openalex", "pubmed", "arxiv")
FIRST_ROUTE = {
    "semantic_scholar": "/s2/graph/v1/paper/search",
    "openalex": "/openalex/works",
    "pubmed": "/eutils/esearch.fcgi",
    "arxiv": "/arxiv/query",
}
BUDGET_SECONDS = 6.0  # room for arXiv's 3 s pace between a failure and its retry
MARGIN_SECONDS = 2.0
BOUND_SECONDS = BUDGET_SECONDS + MARGIN_SECONDS + 3.0
# Healthy fakes answer within this read timeout even when the machine is loaded (0.5 s was not
# always enough at load 10-20: a search through run_cli lost arXiv to "read timeout after 0.5 s");
# a scenario where a server hangs asks for HANG's short one.
HEALTHY_READ_TIMEOUT = "2"
HANG = {"LITSEARCH_READ_TIMEOUT": "0.5"}
SHORT_SETTINGS = {
    "LITSEARCH_PROVIDER_BUDGET": str(BUDGET_SECONDS),
    "LITSEARCH_READ_TIMEOUT": HEALTHY_READ_TIMEOUT,
    "LITSEARCH_CONNECT_TIMEOUT": "0.5",
    "LITSEARCH_BACKOFF": "0.05",
    "LITSEARCH_EMAIL": "faults@example.org",
}
ALL = ",".join(PROVIDERS)
TOPIC = "CRISPR off-target effects"


def _load_what_a_search_loads() -> None:
    """The modules a search imports on its first run, loaded now: otherwise the first scenario
    of each test process pays seconds of imports inside its timed run on a loaded machine."""
    import jinja2  # noqa: F401 (the table's templates)

    from litsearch.cli import search  # noqa: F401
    from litsearch.providers.base import providers_for
    from litsearch.render import search_json, table  # noqa: F401
    from litsearch.search import pipeline  # noqa: F401

    providers_for("search")


_load_what_a_search_loads()


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str
    seconds: float


def run_cli(monkeypatch, capsys, env: dict[str, str], args: list[str]) -> Run:
    for name in ("SEMANTIC_SCHOLAR_API_KEY", "NCBI_API_KEY", "OPENALEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {**SHORT_SETTINGS, **env}.items():
        monkeypatch.setenv(name, value)
    # Each scenario is judged alone: no pace carried over from the previous run, neither the
    # process's own nor the machine-wide one beside the cache (tests/net/test_shared_pace.py
    # checks that back-to-back runs do keep it).
    PROCESS_PACE_BOOK.clear()
    shutil.rmtree(data_folder() / "pace", ignore_errors=True)
    capsys.readouterr()
    started = time.monotonic()
    code = cli.main(args)
    seconds = time.monotonic() - started
    out = capsys.readouterr()
    return Run(code, out.out, out.err, seconds)


def run_fault(monkeypatch, capsys, server: FakeServer, routes: dict, extra_env: dict | None = None,
              topic: str = TOPIC) -> tuple[Run, Run, dict]:
    """Markdown and JSON runs with ``routes`` overridden; returns both runs and the JSON."""
    env = {"LITSEARCH_READ_TIMEOUT": HEALTHY_READ_TIMEOUT, **fake_apis.install(server, routes)}
    # A private response cache per scenario: a later scenario's server may get the same port.
    env["LITSEARCH_CACHE_DIR"] = scratch_folder(prefix="fault-")
    env.update(extra_env or {})
    # --no-verify: these scenarios are about the four search APIs; enrichment has its own tests.
    common = [topic, "--providers", ALL, "--limit", "20", "--no-verify"]
    markdown = run_cli(monkeypatch, capsys, env, common)
    as_json = run_cli(monkeypatch, capsys, env, common + ["--format", "json"])
    payload = json.loads(as_json.stdout) if as_json.stdout.strip() else {}
    return markdown, as_json, payload


def check_contract(markdown: Run, as_json: Run, payload: dict, failed: str | None,
                   reason: str | None = None) -> None:
    for run in (markdown, as_json):
        assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
        assert run.seconds < BOUND_SECONDS, f"took {run.seconds:.1f} s (bound {BOUND_SECONDS} s)"
        assert run.exit_code == 0, run.stderr
    errors = {e["provider"]: e["message"] for e in payload["errors"]}
    healthy = [p for p in PROVIDERS if p != failed]
    # Provenance says which providers' records made it into the merged results.
    found_by = {name for r in payload["results"] for name in r["provider_scores"]}
    for provider in healthy:
        assert provider not in errors, errors
        assert f"- {provider}: searched," in markdown.stdout
        assert provider in found_by, f"{provider}'s results are missing"
    if failed is None:
        assert errors == {}
        return
    assert list(errors) == [failed]
    message = errors[failed]
    assert "\n" not in message and len(message) < 400
    if reason:
        assert reason.lower() in message.lower(), message
    footer = [line for line in markdown.stdout.splitlines() if line.startswith(f"- {failed}: failed, ")]
    assert len(footer) == 1, markdown.stdout[-800:]
    assert failed not in found_by


def persistent(answer: Answer) -> list[Answer]:
    return [answer]


def once_then_ok(answer: Answer) -> list:
    """The fault once, then the provider's normal responder (via a sentinel None)."""
    return [answer, None]
