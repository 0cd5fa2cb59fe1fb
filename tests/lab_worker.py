"""One machine of a lab run (tests/lab_run.py): searches each topic given, one after the other,
through the Python API in this one process, on Semantic Scholar only, and prints one JSON line
per search: the topic, how many papers came back, and Semantic Scholar's error if it failed.
Exit 0 when every search returned its papers, 3 when one did not.

With ``LAB_READY`` and ``LAB_GO`` set (paths), it writes the first once its imports are done and
waits for the second: the machines then start together, and a run measures the pace, not
Python's start-up on a loaded machine."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

START_WAIT_SECONDS = 120.0


def main(topics: list[str]) -> int:
    from litsearch.api import search
    from litsearch.search import pipeline  # noqa: F401  (imported before the start, as search() would)

    ready, go = os.environ.get("LAB_READY"), os.environ.get("LAB_GO")
    if ready and go:
        Path(ready).write_text("ready")
        deadline = time.monotonic() + START_WAIT_SECONDS
        while not Path(go).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    code = 0
    for topic in topics:
        result = search(topic, providers=["semantic_scholar"], verify=False)
        errors = [outcome.error for outcome in result.outcomes if outcome.error]
        print(json.dumps({"topic": topic, "papers": len(result.results), "errors": errors}), flush=True)
        if errors or not result.results:
            code = 3
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
