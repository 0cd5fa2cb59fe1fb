"""Fault families for `lit-search zotero push`, as for the search: the Zotero Web API's listing
(the first request), its writes, and the desktop connector, each × every fault (5xx, hang, cut
body, corrupt gzip, HTML or invalid JSON with status 200, a redirect loop, a redirect to another
origin, a body over the size cap, 429 without Retry-After).

The contract (``check``): exit 3 (Zotero could not be used, or a paper failed), no traceback,
one error line or, when the writes failed, every paper named FAILED with its reason and the
summary line; bounded time; the key never printed and never sent to another origin (redirects
are not followed)."""

from __future__ import annotations

import gzip
import json

import pytest
from fault_support import HANG, run_cli

import fake_apis
import fake_zotero
from fake_server import Answer, FakeServer
from scratch import scratch_folder  # noqa: E402

BOUND_SECONDS = 12.0


def quiet(fake: FakeServer) -> FakeServer:
    fake._httpd.handle_error = lambda request, address: None  # a client that stops reading is the point
    return fake


@pytest.fixture
def other_origin():
    with FakeServer() as fake:
        fake.route("/", lambda request: Answer(200, "[]"))
        yield quiet(fake)


def faults(other_url: str, route: str) -> dict[str, Answer]:
    return {
        "server error": Answer(503, "Service Unavailable", content_type="text/plain"),
        "hang": Answer(hang=True),
        "cut body": Answer(200, "[" + '{"data": {"key": "X"}},' * 3000, cut_body=True),
        "corrupt gzip": Answer(200, b"\x1f\x8b\x08\x00 not gzip", headers={"Content-Encoding": "gzip"}),
        "html with status 200": Answer(200, "<html><body>Maintenance</body></html>", content_type="text/html"),
        "invalid json": Answer(200, '{"successful": {"0": ', content_type="application/json"),
        "redirect loop": Answer(302, "", headers={"Location": route + "again"}),
        "redirect to another origin": Answer(302, "", headers={"Location": other_url + "/steal"}),
        "rate limited without retry-after": Answer(429, "Too Many Requests", content_type="text/plain"),
        "gzip bomb": Answer(200, gzip.compress(b"[" + b" " * 30_000_000 + b"]"), headers={"Content-Encoding": "gzip"}),
        # waits past any budget: not waited, the push fails at once with the reason (issue 31)
        "backoff a day": Answer(200, "[]", headers={"Backoff": "86400"}),
        "backoff inf": Answer(200, "[]", headers={"Backoff": "inf"}),
        "retry-after a day": Answer(429, "Too Many Requests", content_type="text/plain",
                                    headers={"Retry-After": "86400"}),
        "retry-after inf": Answer(503, "Service Unavailable", content_type="text/plain", headers={"Retry-After": "inf"}),
        "a page repeated for ever": Answer(200, json.dumps([{"key": f"K{n:07d}", "data": {"key": f"K{n:07d}",
                                                                                         "name": "x"}}
                                                            for n in range(100)])),
    }


def push(monkeypatch, capsys, env, via, papers=3):
    path = scratch_folder(prefix="litsearch-zotero-fault-") + "/results.json"
    results = [{"title": f"Fault paper {n}", "doi": f"10.5555/fault.{n}", "year": 2021, "journal": "J",
                "authors": ["A Author"]} for n in range(papers)]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"results": results}, handle)
    env = {**env, "LITSEARCH_CACHE_DIR": scratch_folder(prefix="litsearch-zotero-fault-"),
           "LITSEARCH_PROVIDER_BUDGET": "4", **HANG}
    if via == "connector":
        env.update(ZOTERO_API_KEY="", ZOTERO_LIBRARY_ID="")
    for name in ("ZOTERO_API_KEY", "ZOTERO_LIBRARY_ID", "ZOTERO_LIBRARY_TYPE"):
        monkeypatch.delenv(name, raising=False)
    return run_cli(monkeypatch, capsys, env, ["zotero", "push", "--from", path, "--collection", "Faults"])


def check(run, other_origin) -> None:
    assert "Traceback" not in run.stderr + run.stdout
    assert run.exit_code == 3, run.stderr + run.stdout
    assert run.seconds < BOUND_SECONDS, f"took {run.seconds:.1f} s"
    errors = [line for line in run.stderr.splitlines() if line.startswith("lit-search zotero:")]
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED: ")]
    assert len(errors) == 1 or (len(failed) == 3 and run.stdout.rstrip().endswith("3 failed.")), run.stderr + run.stdout
    assert fake_zotero.KEY not in run.stderr + run.stdout
    assert other_origin.requests == []  # nothing followed there, so no key went there


# (where the fault sits, the route it replaces)
PLACES = {"web api listing": "/api/", "web api write": "/api/", "connector": "/local/"}


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("fault", ["server error", "hang", "cut body", "corrupt gzip", "html with status 200",
                                   "invalid json", "redirect loop", "redirect to another origin",
                                   "rate limited without retry-after", "gzip bomb", "backoff a day", "backoff inf",
                                   "retry-after a day", "retry-after inf", "a page repeated for ever"])
def test_zotero_fault_matrix(place, fault, other_origin, monkeypatch, capsys):
    with FakeServer() as server:
        quiet(server)
        zotero = fake_zotero.FakeZotero()
        env = fake_apis.install(server)
        env.update(zotero.install(server))
        answer = faults(other_origin.url, PLACES[place])[fault]
        if place == "web api write":
            normal = zotero.web_api
            server.route("/api/", lambda request: answer if request.method == "POST" and
                         request.path.endswith("/items") else normal(request))
        else:
            server.route(PLACES[place], lambda request: answer)
        run = push(monkeypatch, capsys, env, "connector" if place == "connector" else "api")
    check(run, other_origin)
    if place == "web api write":
        assert run.stdout.rstrip().endswith("0 created, 0 skipped as duplicates, 3 failed.")
