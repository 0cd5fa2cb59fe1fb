"""What ``doctor`` shows and ``doctor --check`` tests of a lab's Redis (net/shared_state.py)."""

from __future__ import annotations

import secrets
from typing import Any, Callable

from .lab_cache import LabCache
from .lab_pace import LabPace
from .shared_state import PREFIX, SharedState, SharedStateLost, forget_link


async def lab_report(url: str, redact: Callable[[str], str], deep: bool = False) -> dict[str, Any]:
    """What ``doctor`` shows of the lab's Redis: where (no password), reachable, one PING's
    latency; ``deep`` (doctor --check): the server's version, a pace script run on Redis's
    clock, a write read back and removed, and the lab cache's size."""
    state = SharedState(url, redact=redact, warn=lambda message: None)
    report: dict[str, Any] = {"url": state.shown, "reachable": False, "latency_ms": None, "error": None}
    try:
        report["latency_ms"] = round(await state.latency() * 1000, 1)
        report["reachable"] = True
        if deep:
            server = await state.run(lambda client: client.info("server"))
            report["server"] = f"Redis {server.get('redis_version', '?')}"
            pace, token = LabPace(state), secrets.token_hex(8)
            await pace.take("doctor:probe", token)
            await pace.release("doctor:probe", token)
            probe = f"{PREFIX}doctor:{token}"
            await state.run(lambda client: client.set(probe, token, ex=60))
            read_back = await state.run(lambda client: client.get(probe))
            await state.run(lambda client: client.delete(probe, *[f"{PREFIX}pace:doctor:probe:{part}"
                                                                  for part in ("turn", "next", "slow")]))
            report["scripts"] = True
            report["writes"] = read_back == token.encode()
            report["cache_bytes"] = await LabCache(state, 0).size()
    except SharedStateLost:
        report["error"] = state.last_failure or "unreachable"
    finally:
        await state.aclose()
        forget_link(url)  # a check is not a loss: the next search tries the lab again
    return report
