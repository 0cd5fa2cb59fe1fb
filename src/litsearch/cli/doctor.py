"""``lit-search doctor [--check]``: what this installation can do and what a missing key or
contact email costs, provider by provider; with ``--check``, one cheap request to each API
(reachable, status, latency and the rate-limit or budget headers it answers with).

Key and email values are never shown, only whether they are set. The command always exits 0:
it reports problems, it does not have them.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit, urlunsplit

from .. import __version__
from ..core.config import CACHE_SIZE_VARIABLE, DB_FILENAME, Settings, data_folder
from ..core.errors import EXIT_CODES_HELP, ExitCode, ProviderError
from ..core.sanitize import json_text, safe_text
from ..runtime.settings import settings_from_env
from .common import new_parser, run_command, write_output
from .interrupt import run_async

PROG = "lit-search doctor"
EMAIL_VARIABLE = "LITSEARCH_EMAIL"
EMAIL_FALLBACKS = ("OPENALEX_EMAIL", "UNPAYWALL_EMAIL")  # read when LITSEARCH_EMAIL is not set
DATA_FOLDER_VARIABLE = "LITSEARCH_CACHE_DIR"
CHECK_BUDGET_SECONDS = 15.0  # one request per API; arXiv's pace alone never needs more
# Headers worth reporting: every API's rate-limit, quota or budget header, and Retry-After.
LIMIT_HEADER = re.compile(r"^(x-)?(rate-?limit|ratelimit)|^retry-after$", re.I)

DESCRIPTION = """\
Show the package and Python versions, each provider's base URL, which API keys and contact
email are set (never their values) and, for each one missing, what it costs with the APIs'
published limits; then the data folder and its size, and the lab's shared state
(LITSEARCH_SHARED_STATE: its address without a password, reachable, latency). --check also
sends one cheap request to each API (a lookup of one known paper) and reports reachable /
status / latency and the rate-limit or budget headers the API answered with, and tests the
shared state (a script on Redis's clock, a write read back, the lab cache's size)."""

EPILOG = f"""\
semantic re-ranker: --install semantic installs what `--rerank semantic` needs: the libraries of
  the `semantic` extra when they are missing (pip, into this Python), then the model (about 23 MB,
  once, checked against its pinned SHA-256) into the data folder. LITSEARCH_RERANK_MODEL=DIR uses
  another model folder instead (an ONNX file and its tokenizer.json).
{EXIT_CODES_HELP}
  Here: 0 (whatever it finds), 2 for a usage error, 3 when --install could not install."""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("--check", action="store_true", help="send one cheap request to each API")
    parser.add_argument("--install", choices=("semantic",),
                        help="semantic: install the optional semantic re-ranker (its libraries and its model)")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown",
                        help="readable report (default), or JSON for scripts")
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: doctor_command(argv))


def doctor_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    settings, problems = usable_settings()
    if args.install == "semantic":
        install_semantic(settings)
    report = diagnose(settings)
    report["environment_problems"] = problems
    report["shared_state"] = shared_state_report(settings, deep=args.check)
    if args.check:
        checks = run_async(check_all(settings))
        from ..providers.base import get_provider

        for entry in report["providers"]:
            entry["check"] = checks[entry["name"]]
            # The check's answer carried today's allowance: show it as it is now.
            entry["budget"] = get_provider(entry["name"]).budget_today(settings)
    from ..render.doctor import doctor_markdown

    write_output(json_text(report) if args.format == "json" else doctor_markdown(report), settings)
    return ExitCode.OK


def shared_state_report(settings: Settings, deep: bool) -> dict[str, Any]:
    """The lab's Redis (LITSEARCH_SHARED_STATE): where, without a password, whether it answers
    and how fast; with --check, scripts, a write and the lab cache's size too."""
    from ..core.environment import SHARED_STATE_VARIABLE

    if not settings.shared_state:
        return {"variable": SHARED_STATE_VARIABLE, "set": False}
    from ..net.lab_report import lab_report

    return {"variable": SHARED_STATE_VARIABLE, "set": True, "checked": deep,
            **run_async(lab_report(settings.shared_state, settings.redact, deep=deep))}


def usable_settings() -> tuple[Settings, list[str]]:
    """(settings without the variables that cannot be used, one line per such variable): doctor
    reports a bad value instead of stopping at it, and checks the APIs without it."""
    from ..core.config import EnvironmentProblem

    env = dict(os.environ)
    problems: list[str] = []
    while True:
        try:
            return settings_from_env(env), problems
        except EnvironmentProblem as problem:
            problems.append(str(problem))
            env.pop(problem.variable, None)
            env.pop(problem.variable.lower() if problem.variable.isupper() else problem.variable.upper(), None)


def diagnose(settings: Settings) -> dict[str, Any]:
    """Everything doctor reports without sending a request: each provider as it declares
    itself (providers/registry.py), with what this environment sets."""
    from ..providers.base import get_provider
    from ..providers.registry import providers as provider_names

    folder = data_folder()
    providers = []
    for name in provider_names():
        declared = settings.service(name)
        pace = settings.pace(name)
        key_variable = declared.key.variable if declared.key else None
        key_set = bool(settings.key(name))
        missing = []
        if declared.key and not key_set:
            missing.append({"variable": key_variable, "costs": declared.key.benefit})
        if declared.email.benefit and not settings.email:
            missing.append({"variable": EMAIL_VARIABLE, "costs": declared.email.benefit})
        providers.append({
            "name": name,
            "label": declared.label,
            "optional": declared.optional,
            "base_url": _shown_url(settings.base_urls.get(name, "")),
            "base_url_variable": declared.url_variable,
            "key_variable": key_variable,
            "key_set": key_set,
            "pace": _pace_words(pace.min_interval, pace.max_in_flight),
            "limits": declared.limits,
            "capabilities": sorted(declared.capabilities),
            "auto_choice": declared.auto_choice,
            "missing": missing,
            "budget": get_provider(name).budget_today(settings),  # a daily allowance as last seen (OpenAlex)
            "check": None,
        })
    return {
        "version": __version__,
        "python": platform.python_version(),
        "executable": sys.executable,
        # Every variable named, as the text report names it (scripts need the name, not only the state).
        "contact_email_set": bool(settings.email),
        "contact_email": {"variable": EMAIL_VARIABLE, "fallbacks": list(EMAIL_FALLBACKS), "set": bool(settings.email)},
        "proxies": environment_proxies(),
        "data_folder": {"variable": DATA_FOLDER_VARIABLE, "path": str(folder), "exists": folder.is_dir(),
                        "bytes": _size(folder),
                        "database": str(folder / DB_FILENAME),
                        **_database_state(folder / DB_FILENAME, settings),
                        "cache_max_bytes": settings.cache_max_bytes,
                        "cache_max_variable": CACHE_SIZE_VARIABLE,
                        "database_bytes": sum(_size(folder / (DB_FILENAME + suffix))
                                              for suffix in ("", "-wal", "-shm"))},
        "providers": providers,
        "semantic": semantic_readiness(),
    }


def semantic_readiness() -> dict[str, Any]:
    from ..semantic.status import readiness

    return readiness()


# The libraries of the `semantic` extra (pyproject.toml), for an environment that lacks them.
SEMANTIC_REQUIREMENTS = ("onnxruntime>=1.17", "tokenizers>=0.15", "numpy>=1.24")


def install_semantic(settings: Settings, run=None) -> None:
    """The extra's libraries (pip, into this Python) when missing, then the model: each step says
    one line; ModelInstallError (exit 3) when one fails."""
    import subprocess

    from ..semantic.encoder import missing_libraries
    from ..semantic.install import ModelInstallError, install_model
    from .common import Console

    console = Console(settings)
    if missing_libraries():
        command = [sys.executable, "-m", "pip", "install", "--quiet", *SEMANTIC_REQUIREMENTS]
        console.say("installing " + ", ".join(SEMANTIC_REQUIREMENTS) + " with pip into " + sys.prefix)
        done = (run or subprocess.run)(command, capture_output=True, text=True)
        if done.returncode != 0:
            tail = " ".join((done.stderr or done.stdout or "").split())[-200:]
            raise ModelInstallError(f"pip could not install the semantic extra's libraries: {tail}")
    folder = install_model(say=console.say)
    console.say(f"semantic re-ranker installed: model in {folder}")


async def check_all(settings: Settings) -> dict[str, dict[str, Any]]:
    """One probe per provider, all at once (each within its own pace), no cache."""
    import httpx

    from ..net.http import HttpClient
    from ..providers.registry import providers

    ALL_PROVIDERS = providers()
    try:
        async with HttpClient(settings) as http:
            results = await asyncio.gather(*(_check(http, name) for name in ALL_PROVIDERS))
    except (ValueError, OSError, httpx.HTTPError, httpx.InvalidURL) as error:  # e.g. a proxy httpx cannot use
        reason = f"no request could be sent ({type(error).__name__}: {' '.join(str(error).split())[:120]})"
        failed = {"checked": True, "reachable": False, "status": None, "latency_ms": None, "limits": {},
                  "error": settings.redact(reason)}
        return {name: dict(failed) for name in ALL_PROVIDERS}
    return dict(zip(ALL_PROVIDERS, results))


async def _check(http: Any, name: str) -> dict[str, Any]:
    from ..providers.base import get_provider

    provider = get_provider(name)
    session = http.session(name, budget=min(http.settings.provider_budget, CHECK_BUDGET_SECONDS))
    started = time.monotonic()
    try:
        response = await provider.probe(session)
    except ProviderError as error:
        return {"checked": True, "reachable": error.status is not None, "status": error.status,
                "latency_ms": None, "limits": {}, "error": provider.explain(error, http.settings)}
    if response is None:
        return {"checked": False, "reachable": None, "status": None, "latency_ms": None, "limits": {},
                "error": None, "skipped": provider.probe_skipped(http.settings)}
    limits = {key.lower(): safe_text(value)[:100] for key, value in response.headers.items()
              if LIMIT_HEADER.search(key)}
    error = None
    if response.status >= 400:
        failure = ProviderError(f"HTTP {response.status}", provider=name, status=response.status)
        error = provider.explain(failure, http.settings)
    return {"checked": True, "reachable": True, "status": response.status,
            "latency_ms": round((time.monotonic() - started) * 1000), "limits": dict(sorted(limits.items())),
            "error": error}


def _pace_words(interval: float, in_flight: int) -> str:
    """The pace lit-search keeps, in words: "3 requests/s, 3 at a time"."""
    if interval <= 0:
        rate = "no pace"
    elif interval >= 1:
        rate = "1 request/s" if interval == 1 else f"1 request every {interval:g} s"
    else:
        rate = f"{1 / interval:.3g} requests/s"
    return f"{rate}, {in_flight} at a time"


PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


def environment_proxies() -> dict[str, str]:
    """The proxy variables httpx reads (either case), without user names or passwords, and
    never as written when they cannot be read (a scheme-less 'user:pw@host' included)."""
    from ..core.environment import shown_proxy

    found = {}
    for name in PROXY_VARIABLES:
        value = os.environ.get(name) or os.environ.get(name.lower())
        if value:
            found[name] = safe_text(" ".join(value.split()))[:300] if name == "NO_PROXY" else shown_proxy(value)
    return found


def _shown_url(url: str) -> str:
    """The base URL without any user:password part."""
    try:
        parts = urlsplit(url)
        if parts.username or parts.password:
            parts = parts._replace(netloc=(parts.hostname or "") + (f":{parts.port}" if parts.port else ""))
    except ValueError:
        return "(not a valid URL)"
    return urlunsplit(parts)


def _database_state(path: Path, settings: Settings) -> dict[str, Any]:
    """``cache_bytes``: bytes of cached answers (what LITSEARCH_CACHE_MAX_MB caps), None when
    the database cannot be read; ``database_problem``: why, in one line (a folder or a named
    pipe where the file should be, a damaged file), else None."""
    from ..core.errors import StoreError
    from ..library.schema import check_file_kind
    from ..library.store import Store
    from ..net.response_store import ResponseStore

    try:
        if not check_file_kind(path):
            return {"cache_bytes": 0, "database_problem": None}
        with Store.open(path, redact=settings.redact, read_only=True) as store:
            return {"cache_bytes": ResponseStore(store).size(), "database_problem": None}
    except StoreError as problem:
        return {"cache_bytes": None, "database_problem": str(problem)}


def _size(path: Path) -> int:
    """Bytes in a file, or in every file under a folder; 0 when missing or unreadable."""
    try:
        if path.is_file():
            return path.stat().st_size
        total = 0
        for root, _dirs, files in os.walk(path):
            for file in files:
                try:
                    total += os.lstat(os.path.join(root, file)).st_size
                except OSError:
                    pass
        return total
    except OSError:
        return 0
