"""Fusing the lexical order with the model's similarities: CombSUM of z-scores.

Each list of scores (the lexical score that ordered the candidates, and the cosine similarity
of each candidate to the topic) is standardised over the candidates (minus its mean, over its
standard deviation) and the two are added. Reciprocal-rank fusion was measured first and lost:
it keeps only positions, so a paper the lexical model is sure of (a score far above the next)
is moved down as easily as one it barely preferred; standardised scores keep that confidence
and need no constant tuned per collection (Montague & Aslam, "Relevance score normalization
for metasearch", 2001; Fox & Shaw, CombSUM, 1994). Ties keep the lexical order.
"""

from __future__ import annotations

import math
from typing import Sequence


def standardised(values: Sequence[float]) -> list[float]:
    """(value - mean) / standard deviation; all 0 when the values do not differ."""
    count = len(values)
    if not count:
        return []
    mean = sum(values) / count
    spread = math.sqrt(sum((value - mean) ** 2 for value in values) / count)
    if spread <= 1e-12:
        return [0.0] * count
    return [(value - mean) / spread for value in values]


def fused_order(lexical: Sequence[float], similarity: Sequence[float]) -> list[int]:
    """The candidates' positions (0 = the lexical first) in the fused order."""
    if len(lexical) != len(similarity):
        raise ValueError("one similarity per lexical score")
    fused = [a + b for a, b in zip(standardised(lexical), standardised(similarity))]
    return sorted(range(len(fused)), key=lambda position: (-fused[position], position))
