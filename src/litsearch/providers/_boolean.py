"""Boolean query text as PubMed and Europe PMC read it: brackets that balance, operators with
a term on each side, tokens joined back. Each API keeps its own rule for which operator is
dangling (Europe PMC's NOT may open a query; PubMed's may not)."""

from __future__ import annotations

from typing import Callable, Collection

# (operator, the token kept before it or None, the token after it or None) -> drop it?
Dangling = Callable[[str, "str | None", "str | None"], bool]


def balanced(text: str, opening: str, closing: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == opening) - (char == closing)
        if depth < 0:
            return False
    return depth == 0


def without_dangling(tokens: list[str], operators: Collection[str], dangling: Dangling) -> list[str]:
    """``tokens`` with every operator ``dangling`` refuses and every empty ``()`` removed,
    again until nothing changes (a removal may leave another operator dangling)."""
    while True:
        kept: list[str] = []
        for index, token in enumerate(tokens):
            before = kept[-1] if kept else None
            after = tokens[index + 1] if index + 1 < len(tokens) else None
            if token in operators and dangling(token, before, after):
                continue
            if token == ")" and before == "(":
                kept.pop()
                continue
            kept.append(token)
        if kept == tokens:
            return kept
        tokens = kept


def join_tokens(tokens: list[str]) -> str:
    return " ".join(tokens).replace("( ", "(").replace(" )", ")")
