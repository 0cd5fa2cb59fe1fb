"""The seconds of lit-search's own work in a deep-search round, and a fingerprint of what it chose.

``record`` runs one seeded session (the simulated judge of bench/deep_benchmark.py against the
fake providers, pacing off) to its budget and writes, into a folder: the session file after every
round (``round-NN.json``) and ``fingerprint.json``: every round's batch, in order, and the final
session document (its timestamps left out). With ``--sequential`` (a round's requests one after
another, the hash seed fixed) two runs of the same code give the same fingerprint, so comparing
the fingerprints before and after a change to scoring shows whether the change moved any batch,
score or field (``cmp before/fingerprint.json after/fingerprint.json``).

Each round's file is saved as a ``deep next`` saves it (the document and its papers file,
deep/session_file.py) and read back: the session read must be the session written, field for field.

``time`` replays, on a recorded session file, what a ``lit-search deep next`` process does besides
waiting for the network: read and check the session, record a batch's verdicts, save, score every
candidate, set aside the excess, choose the next batch, save again with ``--changed`` records new or
changed (what a round's arrivals do: the recorded sessions changed or added 100-300 a round). It
prints the CPU seconds of each part (the best of ``--repeat`` runs, each from the same files: the
machine is shared, and the slower runs measure the neighbours). A session of version 1 (one
document) is first saved as version 2 in a scratch folder.

    nice .venv/bin/python bench/deep_round_speed.py record reviews/cohen_ACEInhibitors /tmp/ace --sequential
    nice .venv/bin/python bench/deep_round_speed.py time /tmp/ace/round-15.json
    nice .venv/bin/python bench/deep_round_speed.py time /tmp/ace/round-15.json --candidates 5000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests"), str(REPO / "bench")]

from deep_benchmark import RANKING, unpaced_client  # noqa: E402
from deep_world import Judge, World, judge_batch, load_world  # noqa: E402


async def recorded_session(world: World, text: str, judge: Judge, budget: int, folder: Path) -> dict:
    from litsearch.core.filters import Filters
    from litsearch.deep.rounds import Timing, expand, judge as record, start
    from litsearch.deep.session import Options, as_document
    from litsearch.deep.session_file import load, save
    from litsearch.runtime.files import write_file_atomically
    from litsearch.runtime.settings import settings_from_env

    def same(read, written) -> bool:
        return {**as_document(read), "saved_at": ""} == {**as_document(written), "saved_at": ""}

    order: list = []
    batches, own = [], []
    async with unpaced_client(settings_from_env(world.env)) as http:
        session = await start(http, text, [], Filters(), Options(batch=20, max_judged=budget))
        batches.append(list(session.batch))
        while not session.done:
            record(session, judge_batch(world, judge, session, order), [])
            if session.done:
                break
            timing = Timing()
            await expand(http, session, timing)
            own.append(timing.own_seconds)
            batches.append(list(session.batch))
            path = folder / f"round-{session.round:02d}.json"
            save(path, session, write_file_atomically)
            session.store = None  # the next round's file is written whole, as a file of its own
            if not same(load(path), session):
                raise SystemExit(f"{path}: the session read back is not the session saved")
    document = as_document(session)
    for stamp in ("created_at", "saved_at"):
        document.pop(stamp)
    return {"batches": batches, "stop_reason": session.stop_reason, "own_seconds": own, "final": document}


async def _one_after_another(*jobs):
    return [await job for job in jobs]


def record_main(args: argparse.Namespace) -> int:
    if args.sequential:
        # A round's actions run at once and note what they did as they finish, and the fake
        # providers order some answers by string hashes: run one after another, with the hash
        # seed fixed, two runs of the same code give the same fingerprint.
        if os.environ.get("PYTHONHASHSEED") != "0":
            os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
        from types import SimpleNamespace

        from litsearch.deep import expand

        expand.asyncio = SimpleNamespace(gather=_one_after_another)
    collection = load_world(RANKING, args.collection)
    qid, text = next(iter(collection.queries.items()))
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    relevant = set(collection.qrels[qid])
    judge = Judge(relevant, qid, seed=args.seed)
    with World(collection) as world:
        run = asyncio.run(recorded_session(world, text, judge, args.max_judged or max(300, 3 * len(relevant)), folder))
    own = run.pop("own_seconds")
    (folder / "fingerprint.json").write_text(json.dumps(run, ensure_ascii=False, indent=0, sort_keys=True),
                                             encoding="utf-8")
    print(f"{args.collection} query {qid}: {len(run['batches'])} rounds, {len(run['final']['candidates']):,} "
          f"candidates, stop {run['stop_reason']}; own s per round: max {max(own or [0]):.3f}, "
          f"mean {sum(own) / max(1, len(own)):.3f}; written to {folder}")
    return 0


def time_main(args: argparse.Namespace) -> int:
    import shutil
    from dataclasses import replace

    from litsearch.deep.paper_store import papers_path
    from litsearch.deep.pool import Pool
    from litsearch.deep.rounds import judge
    from litsearch.deep.score import explain, next_order, score_candidates
    from litsearch.deep.session_file import load, save
    from litsearch.runtime.files import write_file_atomically
    from litsearch.deep.verdicts import Verdicts

    parts: dict[str, list[float]] = {}

    def timed(name, work):
        started = time.process_time()
        value = work()
        parts.setdefault(name, []).append(time.process_time() - started)
        return value

    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "source.json"
        session = load(args.session)
        save(source, grown(session, args.candidates) if args.candidates else session, write_file_atomically)
        target = Path(scratch) / "session.json"
        for _ in range(args.repeat):
            for path in (source, papers_path(source)):
                shutil.copyfile(path, Path(scratch) / path.name.replace("source", "session"))
            session = timed("read", lambda: load(target))
            verdicts = Verdicts({key: "not" for key in session.batch}, [])
            timed("judge", lambda: judge(session, verdicts, []))
            timed("write", lambda: save(target, session, write_file_atomically))
            timed("score", lambda: score_candidates(session))
            timed("choose", lambda: (Pool(session).set_aside(),
                                     explain(session, [c.key for c in next_order(session)[: session.options.batch]])))
            for candidate in [c for c in session.candidates.values() if c.verdict is None][: args.changed]:
                candidate.paper = replace(candidate.paper)  # a record a round's arrivals changed: written again
            timed("write again", lambda: save(target, session, write_file_atomically))
        sizes = [os.path.getsize(source), os.path.getsize(papers_path(source))]
    best = {name: min(values) for name, values in parts.items()}
    print(f"{args.session}: {len(session.candidates):,} candidates, document {sizes[0] / 1e6:.1f} MB + papers "
          f"{sizes[1] / 1e6:.1f} MB; CPU s, best of {args.repeat}: "
          + ", ".join(f"{name} {value:.3f}" for name, value in best.items())
          + f"; total {sum(best.values()):.3f} (score + choose {best['score'] + best['choose']:.3f})")
    return 0


def grown(session, size: int):
    """``session`` with copies of its unjudged candidates added up to ``size`` candidates (each
    copy a paper of its own: a numbered title, no identifier), for a pool as large as the cap
    when no recorded session reached it."""
    from dataclasses import replace

    from litsearch.deep.session import Candidate

    originals = [c for c in session.candidates.values() if c.verdict is None]
    copy = 0
    while len(session.candidates) < size and originals:
        copy += 1
        for candidate in originals:
            if len(session.candidates) >= size:
                break
            paper = replace(candidate.paper, title=f"{candidate.paper.title} ({copy})", doi=None, pmid=None,
                            semantic_scholar_id=None, arxiv_id=None, openalex_id=None, external_ids={})
            key = session.new_key()
            session.candidates[key] = Candidate(key=key, paper=paper, terms=dict(candidate.terms),
                                                evidence=[dict(e) for e in candidate.evidence], why=candidate.why)
    return session


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    recording = steps.add_parser("record", help="run a seeded session; write its files and fingerprint")
    recording.add_argument("collection", help="cacm, or reviews/<name>")
    recording.add_argument("folder")
    recording.add_argument("--seed", type=int, default=2026)
    recording.add_argument("--max-judged", type=int, default=0, help="default max(300, 3 x relevant)")
    recording.add_argument("--sequential", action="store_true",
                           help="run a round's requests one after another (two runs give the same fingerprint)")
    timing = steps.add_parser("time", help="time a deep next's own work on a recorded session file")
    timing.add_argument("session")
    timing.add_argument("--repeat", type=int, default=5)
    timing.add_argument("--candidates", type=int, default=0,
                        help="grow the pool to this many candidates first (copies of its unjudged ones)")
    timing.add_argument("--changed", type=int, default=300,
                        help="records a round changed or added, written again by the second save (default 300)")
    args = parser.parse_args()
    return record_main(args) if args.step == "record" else time_main(args)


if __name__ == "__main__":
    sys.exit(main())
