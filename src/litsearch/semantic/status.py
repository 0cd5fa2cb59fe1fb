"""What ``lit-search doctor`` says of the re-ranker: whether it is ready (libraries, model, a
load that works), what it is asked to cost and what it costs as measured."""

from __future__ import annotations

import os
from typing import Any, Mapping

from .encoder import BATCH_SIZE, EXTRA_HINT, MAX_TOKENS, ModelUnusable, load_encoder, missing_libraries
from .install import install_line
from .location import RERANK_MODEL_VARIABLE, installed_folder, locate_model
from .model_source import DOWNLOAD_URL_VARIABLE, MODEL_LICENCE, MODEL_NAME, download_size
from .rerank import BUDGET_VARIABLE, CANDIDATES, THREADS_VARIABLE, RerankSettings, default_mode

# Measured by bench/relevance_benchmark.py on this project's 2-core machine (docs/ranking.md,
# "Meaning"): CPU seconds a search spends embedding its candidates, the process's peak memory
# with the model, and what the extra adds to an environment.
MEASURED_CPU_SECONDS = 2.5  # more than the lexical search alone (1.8 on ADI, 2.5 on SciFact)
MEASURED_PEAK_MB = 350
EXTRA_INSTALL_MB = 170


def readiness(env: Mapping[str, str] = os.environ, try_loading: bool = True) -> dict[str, Any]:
    """The re-ranker's state, for doctor's report and its JSON."""
    missing = missing_libraries()
    location = locate_model(env)
    problem = None
    if missing:
        problem = f"{', '.join(missing)} not installed ({EXTRA_HINT})"
    elif location is None:
        problem = "no model installed (`lit-search doctor --install semantic`)"
    elif not location.usable:
        problem = location.problem
    elif try_loading:
        try:
            settings = RerankSettings.from_env(env)
            load_encoder(location, settings.threads)
        except ModelUnusable as failure:
            problem = str(failure)
        except Exception as error:  # a variable doctor reports rather than stops at
            problem = str(error)
    return {
        "ready": problem is None,
        "problem": problem,
        "default_rerank": default_mode(env) if problem is None else "none",
        "libraries_missing": missing,
        "model": {"name": MODEL_NAME if location is None or location.pinned else str(location.onnx),
                  "licence": MODEL_LICENCE if location is None or location.pinned else None,
                  "origin": location.origin if location else None,
                  "folder": str(location.folder if location else installed_folder(env)),
                  "variable": RERANK_MODEL_VARIABLE, "download_url_variable": DOWNLOAD_URL_VARIABLE,
                  "download_bytes": download_size(), "install_line": install_line(env)},
        "cost": {"candidates": CANDIDATES, "max_tokens": MAX_TOKENS, "batch_size": BATCH_SIZE,
                 "cpu_seconds_per_search": MEASURED_CPU_SECONDS, "peak_memory_mb": MEASURED_PEAK_MB,
                 "extra_install_mb": EXTRA_INSTALL_MB, "budget_variable": BUDGET_VARIABLE,
                 "threads_variable": THREADS_VARIABLE},
    }
