"""Fusing the lexical order with the model's similarities: CombSUM of two similarities on the
same 0-1 scale (Fox & Shaw, 1994).

For each candidate, the lexical score that ordered it, divided by the best candidate's (so the
lexical first has 1, as the ``lexical`` term is scaled), plus its cosine similarity to the topic
(0-1 for a sentence encoder's unit vectors on related text). Nothing is tuned per collection: the
two similarities are added as they are, so the fused order keeps the lexical model's confidence
(a paper far ahead in score stays ahead of a lukewarm meaning match) and the model's (a paper
much closer in meaning moves up past near-ties).

Measured on the judged collections (docs/ranking.md, "Meaning"), against the alternatives:
reciprocal-rank fusion keeps only positions, so a paper the lexical model is sure of moves
down as easily as one it barely preferred, and it lost nDCG@10 on SciFact (-0.035) and ADI;
standardised scores (z-scores added) gained less on ADI and SciFact, because over a pool of near
misses the standardisation gives the cosine's small differences as much weight as the lexical
score's large ones. Ties keep the lexical order.
"""

from __future__ import annotations

from typing import Sequence


def relative_to_best(values: Sequence[float]) -> list[float]:
    """Each value over the largest (all 0 when none is above 0)."""
    best = max(values, default=0.0)
    return [value / best for value in values] if best > 0 else [0.0] * len(values)


def fused_order(lexical: Sequence[float], similarity: Sequence[float]) -> list[int]:
    """The candidates' positions (0 = the lexical first) in the fused order."""
    if len(lexical) != len(similarity):
        raise ValueError("one similarity per lexical score")
    fused = [a + b for a, b in zip(relative_to_best(lexical), similarity)]
    return sorted(range(len(fused)), key=lambda position: (-fused[position], position))
