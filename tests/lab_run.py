"""A lab on one key, run for real: ``machines`` processes, each with its own data folder (its own
machine), each running ``searches`` searches one after the other (tests/lab_worker.py, through
the Python API: one process per machine, as a user's session or a notebook), all on one
Semantic Scholar key, against the fake APIs with Semantic Scholar's limit enforced per key
(fake_rate_limit.py). With ``shared_state`` the machines share a Redis; ``kill`` ends that Redis
(SIGKILL) once ``kill_after`` requests have arrived.

Used by tests/cli/test_lab_cli.py (counts from the fake's arrivals, no timing asserts) and by
bench/pace_under_load.py --lab (the wall-time figures).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import fake_apis
from fake_rate_limit import KeyRateLimit
from fake_server import FakeServer
from scratch import scratch_folder  # noqa: E402

KEY = "lab-one-key-5f3a9c0e7b2d4816"
TOPICS = ("CRISPR off-target effects", "protein folding dynamics", "bacterial quorum sensing",
          "coral reef bleaching", "sleep spindles memory", "graphene thermal transport",
          "malaria vaccine trials", "soil carbon sequestration", "gut microbiome obesity",
          "neutrino oscillation", "antibiotic resistance genes", "glacier mass balance")
S2_SEARCH = "/s2/graph/v1/paper/search"
# Each topic ends with the machine's and the search's number as words ("machine3 search1"): they
# reach Semantic Scholar as typed. A form like "3-1" does not (lit-search sends inner hyphens as
# spaces, "3 1"), and reading the machine from the last word had read the search's number.
MACHINE_WORD = re.compile(r"\bmachine(\d+)\b")


@dataclass
class LabRun:
    limit: KeyRateLimit
    wall_seconds: float
    exit_codes: list[int] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)  # one per machine's process
    stdout: list[str] = field(default_factory=list)
    killed_at: float | None = None  # when the lab's Redis was dead (the fake server's clock)

    @property
    def requests(self) -> int:
        return len(self.limit.arrivals)

    def machines_asking_after_kill(self) -> set[int]:
        """The machines that sent a request after Redis was killed (named in their topics)."""
        return {machine_of(arrival.query) for arrival in self.limit.arrivals
                if self.killed_at is not None and arrival.time > self.killed_at}


def machine_of(query: str) -> int:
    """The machine whose topic this request searched; ValueError when no machine is named."""
    found = MACHINE_WORD.search(query)
    if found is None:
        raise ValueError(f"no machine named in the query {query!r}")
    return int(found.group(1))


WORKER = Path(__file__).resolve().parent / "lab_worker.py"


def machine_script(machine: int, searches: int) -> list[list[str]]:
    """The one process a machine runs: its searches on distinct topics, so no machine is
    answered from another's cache (the cache is shared with the lab too)."""
    topics = [f"{TOPICS[(machine * searches + search) % len(TOPICS)]} machine{machine} search{search}"
              for search in range(searches)]
    return [[sys.executable, str(WORKER), *topics]]


def run_lab(machines: int, searches: int, shared_state: str | None = None, kill=None,
            kill_after: int | None = None, timeout: float = 240.0) -> LabRun:
    folder = Path(scratch_folder(prefix="litsearch-lab-"))
    with FakeServer() as server:
        limit = KeyRateLimit(fake_apis.s2_search)
        env = {**os.environ, **fake_apis.install(server, {S2_SEARCH: limit}), "SEMANTIC_SCHOLAR_API_KEY": KEY}
        for name in ("NCBI_API_KEY", "OPENALEX_API_KEY", "LITSEARCH_SHARED_STATE"):
            env.pop(name, None)
        if shared_state:
            env["LITSEARCH_SHARED_STATE"] = shared_state
        queues = [machine_script(machine, searches) for machine in range(machines)]
        processes: list[tuple[subprocess.Popen, Path]] = []
        for machine, (command,) in enumerate(queues):
            out = folder / f"machine-{machine}"
            machine_env = {**env, "LITSEARCH_CACHE_DIR": str(out), "LAB_READY": f"{out}.ready",
                           "LAB_GO": str(folder / "go")}
            with open(f"{out}.out", "w") as stdout, open(f"{out}.err", "w") as stderr:
                processes.append((subprocess.Popen(command, env=machine_env, stdout=stdout, stderr=stderr,
                                                   stdin=subprocess.DEVNULL), out))
        run = LabRun(limit, 0.0)
        begun = time.monotonic()
        while not all(Path(f"{out}.ready").exists() for _, out in processes):
            if time.monotonic() - begun > timeout or any(process.poll() is not None for process, _ in processes):
                break
            time.sleep(0.02)
        (folder / "go").write_text("go")
        started = time.monotonic()
        killed = kill is None
        while any(process.poll() is None for process, _ in processes):
            if not killed and len(limit.arrivals) >= (kill_after or 0):
                kill()
                # Taken once Redis is gone (reaped), not before the signal: a request that arrives
                # later records its start in Redis after it left, so its machine must find Redis
                # gone and say so. Before the kill had landed, a machine could still reach Redis.
                run.killed_at = time.monotonic()
                killed = True
            if time.monotonic() - started > timeout:
                for process, _ in processes:
                    process.kill()
                    process.wait()
                raise TimeoutError(f"the lab run took more than {timeout:.0f} s")
            time.sleep(0.02)
        for process, out in processes:
            run.exit_codes.append(process.wait())
            run.stdout.append(Path(f"{out}.out").read_text())
            run.stderr.append(Path(f"{out}.err").read_text())
        run.wall_seconds = time.monotonic() - started
    shutil.rmtree(folder, ignore_errors=True)
    return run
