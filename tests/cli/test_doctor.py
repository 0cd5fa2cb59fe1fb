"""`lit-search doctor [--check] [--format json]` (issue 13, item 5), run as a user runs it
(a subprocess) against the fake APIs: what is set (never the values), what each missing key
or email costs, the data folder, and with --check one request per API with its limit headers."""

from __future__ import annotations

import json
import re
import os
import socket
import subprocess

import pytest

import fake_apis
from litsearch.providers import registry
from command import lit_search_command
from fake_server import Answer, FakeServer

KEY_VARIABLES = ("SEMANTIC_SCHOLAR_API_KEY", "OPENALEX_API_KEY", "NCBI_API_KEY", "TAVILY_API_KEY")
CANARY = "Canary+Key/With=Specials 42"


def doctor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if k not in KEY_VARIABLES and not k.startswith("LITSEARCH_") and k not in ("OPENALEX_EMAIL", "UNPAYWALL_EMAIL")
             and not k.upper().endswith("_PROXY")}
    return subprocess.run([*lit_search_command(), "doctor", *args], env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


def by_name(report: dict) -> dict[str, dict]:
    return {entry["name"]: entry for entry in report["providers"]}


def test_nothing_set_names_each_missing_variable_and_what_it_costs(tmp_path):
    run = doctor({"LITSEARCH_CACHE_DIR": str(tmp_path / "data")}, "--format", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["version"] and report["python"].count(".") == 2
    assert report["contact_email_set"] is False
    assert report["data_folder"] == {**report["data_folder"], "path": str(tmp_path / "data"), "exists": False}
    providers = by_name(report)
    # Every provider the registry lists, in its order (a new provider shows up by its declaration alone).
    assert list(providers) == list(registry.providers())
    assert [name for name in providers if name in ("semantic_scholar", "openalex", "pubmed", "arxiv", "crossref",
                                                   "web", "unpaywall")] == ["semantic_scholar", "openalex", "pubmed",
                                                                            "arxiv", "crossref", "web", "unpaywall"]
    missing = {name: {m["variable"]: m["costs"] for m in entry["missing"]} for name, entry in providers.items()}
    assert "dedicated 1 request/s" in missing["semantic_scholar"]["SEMANTIC_SCHOLAR_API_KEY"]
    assert "13 Feb 2026" in missing["openalex"]["OPENALEX_API_KEY"]
    assert "10/s" in missing["pubmed"]["NCBI_API_KEY"]
    assert "3 requests/s instead of 1" in missing["crossref"]["LITSEARCH_EMAIL"]
    assert "no open-access links" in missing["unpaywall"]["LITSEARCH_EMAIL"]
    assert missing["arxiv"] == {}
    assert "10x" in providers["openalex"]["limits"] and "USD" in providers["openalex"]["limits"]
    assert providers["crossref"]["pace"] == "1 request/s, 1 at a time"  # the public pool
    assert providers["pubmed"]["pace"] == "3 requests/s, 3 at a time"
    assert all(entry["check"] is None for entry in providers.values())

    text = doctor({"LITSEARCH_CACHE_DIR": str(tmp_path / "data")})
    assert text.returncode == 0
    assert ("Not set: LITSEARCH_EMAIL, NCBI_API_KEY, OPENALEX_API_KEY, SEMANTIC_SCHOLAR_API_KEY."
            in text.stdout)
    assert "Optional, for --providers ...,web: TAVILY_API_KEY." in text.stdout
    assert "`https://api.semanticscholar.org`" in text.stdout  # whole, not defanged


def test_keys_set_are_reported_as_set_and_never_shown(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "lit-search.sqlite3").write_bytes(b"\0" * 4096)
    env = {name: f"{CANARY}-{name}" for name in KEY_VARIABLES}
    env.update(LITSEARCH_EMAIL="researcher@example.org", LITSEARCH_CACHE_DIR=str(data),
               LITSEARCH_OPENALEX_URL="https://user:secret-password@api.openalex.org")
    for form in ((), ("--format", "json")):
        run = doctor(env, *form)
        assert run.returncode == 0, run.stderr
        for value in (*env.values(), "secret-password"):
            if value not in (str(data), env["LITSEARCH_OPENALEX_URL"]):
                assert value not in run.stdout + run.stderr
        assert "Canary" not in run.stdout and "researcher@" not in run.stdout
    report = json.loads(run.stdout)
    assert report["contact_email_set"] is True
    assert all(entry["missing"] == [] for entry in report["providers"])
    assert all(entry["key_set"] for entry in report["providers"] if entry["key_variable"])
    assert by_name(report)["openalex"]["base_url"] == "https://api.openalex.org"
    assert by_name(report)["crossref"]["pace"] == "3 requests/s, 3 at a time"  # the polite pool
    assert report["data_folder"]["database_bytes"] == 4096 and report["data_folder"]["bytes"] >= 4096
    text = doctor(env)
    assert "Every key and the contact email the default search uses are set." in text.stdout


def test_check_reports_reachable_status_latency_and_the_limit_headers(tmp_path):
    with FakeServer() as server:
        env = {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
        run = doctor(env, "--check", "--format", "json")
        assert run.returncode == 0, run.stderr
        checks = {name: entry["check"] for name, entry in by_name(json.loads(run.stdout)).items()}
        sent = {request.path for request in server.requests}
    for name in ("semantic_scholar", "openalex", "pubmed", "arxiv", "crossref"):
        assert checks[name]["reachable"] is True and checks[name]["status"] == 200, (name, checks[name])
        assert isinstance(checks[name]["latency_ms"], int)
    assert checks["openalex"]["limits"]["x-ratelimit-remaining-usd"] == "0.9412"
    assert checks["crossref"]["limits"] == {"x-rate-limit-interval": "1s", "x-rate-limit-limit": "1"}
    assert checks["unpaywall"]["checked"] is False and "LITSEARCH_EMAIL" in checks["unpaywall"]["skipped"]
    assert checks["web"]["checked"] is False  # every Tavily request costs a credit
    # One cheap request each: one paper by DOI where the API has a free lookup.
    assert "/s2/graph/v1/paper/DOI:10.1038/nbt.2647" in sent
    assert "/openalex/works/doi:10.1038/nbt.2647" in sent
    assert "/crossref/works/10.1038/nbt.2647" in sent
    # One request per provider checked, whichever providers the registry lists.
    assert len(server.requests) == sum(1 for check in checks.values() if check["checked"]) >= 5

    with FakeServer() as server:
        env = {**fake_apis.install(server), "LITSEARCH_CACHE_DIR": str(tmp_path / "data"),
               "LITSEARCH_EMAIL": "researcher@example.org"}
        text = doctor(env, "--check")
        [unpaywall] = server.requests_to("/unpaywall/v2/10.1038/nbt.2647")
    assert unpaywall.param("email") == "researcher@example.org"
    assert "- check: reachable, HTTP 200 in " in text.stdout
    assert "x-ratelimit-remaining-usd: 0.9412" in text.stdout


def test_check_of_failing_apis_still_exits_0_and_says_what_fixes_it(tmp_path):
    with socket.socket() as refused:
        refused.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        with FakeServer() as server:
            env = fake_apis.install(server, {"/s2/graph/v1/paper/": [Answer(429, '{"message": "Too Many Requests"}')],
                                             "/openalex/works": [Answer(503, "down")]})
            env.update(LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                       LITSEARCH_ARXIV_URL=f"http://127.0.0.1:{refused.getsockname()[1]}")
            run = doctor(env, "--check", "--format", "json")
    assert run.returncode == 0, run.stderr
    checks = {name: entry["check"] for name, entry in by_name(json.loads(run.stdout)).items()}
    assert checks["semantic_scholar"]["status"] == 429
    assert "SEMANTIC_SCHOLAR_API_KEY" in checks["semantic_scholar"]["error"]
    assert checks["openalex"]["status"] == 503 and checks["openalex"]["reachable"] is True
    assert checks["arxiv"]["reachable"] is False and "connection" in checks["arxiv"]["error"].lower()
    assert checks["pubmed"]["status"] == 200


@pytest.mark.parametrize("args", [["--bogus"], ["who", "episodes"]])
def test_bad_arguments_are_a_usage_error(tmp_path, args):
    run = doctor({"LITSEARCH_CACHE_DIR": str(tmp_path)}, *args)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stderr.count("\n") <= 3


def test_the_proxy_in_use_is_shown_without_its_password(tmp_path):
    env = {"LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
    assert "- proxy: none (direct connections)" in doctor(env).stdout
    env.update(https_proxy="http://alice:s3cret-pass@proxy.uni.example:3128", NO_PROXY="localhost,.uni.example")
    text = doctor(env).stdout
    assert "- proxy: HTTPS_PROXY `http://proxy.uni.example:3128`; NO_PROXY `localhost,.uni.example`" in text
    report = json.loads(doctor(env, "--format", "json").stdout)
    assert report["proxies"] == {"HTTPS_PROXY": "http://proxy.uni.example:3128", "NO_PROXY": "localhost,.uni.example"}
    assert "s3cret" not in text and "alice" not in text


def test_json_names_every_variable_the_text_names(tmp_path):
    """Issue 20, item 12: a script reading the JSON learns which variable to set, as a person
    reading the text does."""
    env = {"LITSEARCH_CACHE_DIR": str(tmp_path / "data")}
    report = json.loads(doctor(env, "--format", "json").stdout)
    text = doctor(env).stdout
    assert report["contact_email"] == {"variable": "LITSEARCH_EMAIL", "fallbacks": ["OPENALEX_EMAIL", "UNPAYWALL_EMAIL"],
                                       "set": False}
    assert report["data_folder"]["variable"] == "LITSEARCH_CACHE_DIR"
    providers = by_name(report)
    assert providers["openalex"]["base_url_variable"] == "LITSEARCH_OPENALEX_URL"
    assert providers["web"]["base_url_variable"] == "LITSEARCH_TAVILY_URL"
    named_in_json = set(re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", json.dumps(report)))
    named_in_text = set(re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", text.replace("\\_", "_")))
    assert named_in_text <= named_in_json, named_in_text - named_in_json
    assert {"LITSEARCH_EMAIL", "LITSEARCH_CACHE_DIR", "LITSEARCH_OPENALEX_URL"} <= named_in_text
