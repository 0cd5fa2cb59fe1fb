"""What a door does before a search that may re-rank: the re-ranker's variables checked, and on
an explicit ``--rerank semantic`` (or an MCP tool's ``rerank="semantic"``) with the libraries
here but no model yet, the model fetched once, saying so in one line."""

from __future__ import annotations

import os
from typing import Callable, Mapping

from .encoder import missing_libraries
from .install import ModelInstallError, install_model
from .location import locate_model
from .rerank import RerankSettings, default_mode, fell_back


def prepared_mode(requested: str | None, env: Mapping[str, str] = os.environ,
                  say: Callable[[str], None] = lambda line: None) -> tuple[str | None, str | None]:
    """(the mode to search with, a one-line note when the model could not be fetched: the
    search then keeps the lexical order). ConfigError for a re-ranker variable that cannot be
    used, before any work."""
    if requested == "none":
        return requested, None
    if (requested or default_mode(env)) != "semantic":
        return requested, None
    RerankSettings.from_env(env)
    if requested == "semantic" and not missing_libraries() and locate_model(env) is None:
        try:
            install_model(env, say)
        except ModelInstallError as error:
            return "none", fell_back(f"the model could not be fetched: {error}")
    return requested, None
