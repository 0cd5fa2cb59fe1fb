"""Replay saturation rules over recorded deep-search sessions, to choose the stop's defaults.

``bench/deep_benchmark.py --dump FILE`` runs every session to its budget and records, per
session, the order papers were judged, the judge's verdicts, the relevant papers some provider
holds that the judge would confirm ("findable"), and after each batch how many relevant papers
were still to chase. The papers shown before a stop do not depend on the stop, so any rule of the
form "the last W judged held at most Y relevant, and every relevant paper is chased" can be
replayed here without running a session again.

Per rule it prints: how many sessions it called saturated; how many of those were right
(strict: the judge had confirmed ≥ 0.9 of the findable papers; vs the budget: ≥ 0.9 of what
going on to the budget confirmed); how many of the wrong ones could not have been right (even
the budget confirmed less than 0.9 of the findable papers: no stop before it could be right);
the papers judged per session (at the stop, else the budget); and the recall of the findable
papers there.

    .venv/bin/python bench/deep_benchmark.py --no-naive --seed 7 --dump /tmp/seed7.jsonl
    .venv/bin/python bench/deep_stop_study.py /tmp/seed7.jsonl [/tmp/seed11.jsonl …]
    .venv/bin/python bench/deep_stop_study.py /tmp/seed7.jsonl --windows 80,120 --yields 1,2
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from litsearch.deep.session import Options  # noqa: E402

RIGHT_SHARE = 0.9  # as bench/deep_benchmark.py: the stop was right when ≥ 0.9 was confirmed


@dataclass
class Recorded:
    collection: str
    query: str
    order: list[str | None]
    said: list[bool]  # the judge's verdict on each paper of ``order``: relevant or not
    findable: set[str]
    checks: list[tuple[int, int, int]]  # after each batch: judged so far, relevant in it, still to chase
    stop_at: int | None  # where the session's own rule (the defaults) stopped it, as recorded

    @classmethod
    def from_line(cls, line: str) -> "Recorded":
        data = json.loads(line)
        checks, before = [], 0
        for check in data["checks"]:
            judged = check["judged"]
            checks.append((judged, sum(data["said"][before:judged]), check["pending"]))
            before = judged
        return cls(data["collection"], str(data["query"]), data["order"], data["said"], set(data["findable"]),
                   checks, data["stop_at"])

    def confirmed(self, judged: int) -> int:
        """Findable papers the judge had confirmed among the first ``judged``."""
        return len({doc for doc, said in zip(self.order[:judged], self.said[:judged]) if said and doc in self.findable})


def saturated_at(session: Recorded, window: int, allowed: int, since_find: bool = True) -> int | None:
    """Papers judged when the rule first fires (checked after every batch), else None. With
    ``since_find`` (the product's rule), only the batches after the first one that held a paper
    judged relevant count towards the window; without it, every batch (the rule before 0.4.36)."""
    first_find = next((index for index, (_, relevant, _) in enumerate(session.checks) if relevant), None)
    for index, (judged, _, pending) in enumerate(session.checks):
        seen = relevant = 0
        oldest = 0 if not since_find else (first_find + 1 if first_find is not None else index + 1)
        for earlier in range(index, oldest - 1, -1):  # whole batches, the newest first (deep/stop.py)
            before = session.checks[earlier - 1][0] if earlier else 0
            seen += session.checks[earlier][0] - before
            relevant += session.checks[earlier][1]
            if seen >= window:
                break
        if seen >= window and not pending and relevant <= allowed:
            return judged
    return None


def study(sessions: list[Recorded], window: int, allowed: int, since_find: bool = True) -> dict[str, float]:
    figures = {"sessions": len(sessions), "saturated": 0, "right": 0, "right_vs_budget": 0, "could_not": 0,
               "judged": 0.0, "recall": 0.0}
    for session in sessions:
        stop = saturated_at(session, window, allowed, since_find)
        end = len(session.order)
        judged = stop if stop is not None else end
        wanted = len(session.findable)
        if stop is not None:
            figures["saturated"] += 1
            at_stop, at_end = session.confirmed(stop), session.confirmed(end)
            figures["right"] += bool(wanted) and at_stop >= RIGHT_SHARE * wanted
            figures["right_vs_budget"] += at_stop >= RIGHT_SHARE * at_end
            figures["could_not"] += not (bool(wanted) and at_end >= RIGHT_SHARE * wanted)
        figures["judged"] += judged / len(sessions)
        figures["recall"] += (session.confirmed(judged) / wanted if wanted else 1.0) / len(sessions)
    return figures


def numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dumps", nargs="+", type=Path, help="files written by deep_benchmark.py --dump")
    parser.add_argument("--windows", type=numbers, default=[60, 80, 100, 120, 160], help="stop windows to try")
    parser.add_argument("--yields", type=numbers, default=[0, 1, 2, 3], help="stop yields to try")
    parser.add_argument("--every-batch", action="store_true", help="replay the rule before 0.4.36: every batch "
                        "counts towards the window, those judged before the first relevant paper too")
    args = parser.parse_args()
    sessions = [Recorded.from_line(line) for path in args.dumps for line in path.read_text().splitlines()
                if line.strip()]
    if not sessions:
        print("no sessions in the dumps")
        return 1
    print(f"{len(sessions)} sessions from {len(args.dumps)} dump(s)")
    # The replay must be the rule: with the defaults it stops where deep/stop.py stopped each session.
    defaults = Options()
    same = sum(saturated_at(session, defaults.stop_window, defaults.stop_yield, not args.every_batch)
               == session.stop_at for session in sessions)
    print(f"the replay of the defaults ({defaults.stop_window}, {defaults.stop_yield}) stops where the sessions "
          f"stopped in {same} of {len(sessions)}")
    print(f"{'window':>6} {'yield':>5} | {'saturated':>9} {'right':>11} {'vs budget':>9} {'could not':>9} | "
          f"{'judged':>6} {'recall':>6}")
    for window in args.windows:
        for allowed in args.yields:
            if allowed >= window:
                continue
            f = study(sessions, window, allowed, not args.every_batch)
            share = f"{f['right'] / f['saturated']:.2f}" if f["saturated"] else "-"
            print(f"{window:>6} {allowed:>5} | {f['saturated']:>9} {f['right']:>5} ({share:>4}) "
                  f"{f['right_vs_budget']:>9} {f['could_not']:>9} | {f['judged']:>6.0f} {f['recall']:>6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
