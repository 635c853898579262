"""ReJump-guided Best-of-N: of N candidate traces, keep the one whose metric is largest (the paper's
selection uses the filtered average jump distance), against picking one at random.

The authors' repository (``rejump_extractor/`` and the ``analysis/`` notebooks) holds no Best-of-N selection
code, so two details are this project's choices: ties go to the earliest candidate (candidates come in random
order, so this is a random tie-break) and a trace without a walk scores −∞; the random baseline is the
expected accuracy of a uniform pick (the group's share of correct candidates), not one realised draw.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def best_of_n(candidates: Sequence[T], score: Callable[[T], float | None]) -> int:
    """Index of the candidate with the largest score (None counts as −∞; ties go to the earliest)."""
    if not candidates:
        raise ValueError("best_of_n: no candidates")
    best, best_score = 0, float("-inf")
    for i, cand in enumerate(candidates):
        s = score(cand)
        value = float("-inf") if s is None else float(s)
        if value > best_score:
            best, best_score = i, value
    return best


def selection_accuracy(groups: Sequence[Sequence[T]], correct: Callable[[T], bool],
                       score: Callable[[T], float | None]) -> tuple[float, float]:
    """``(accuracy of the best-scored candidate, expected accuracy of a uniformly random one)`` over groups."""
    if not groups:
        raise ValueError("selection_accuracy: no groups")
    chosen = [correct(g[best_of_n(g, score)]) for g in groups]
    rand = [sum(correct(c) for c in g) / len(g) for g in groups]
    return sum(chosen) / len(groups), sum(rand) / len(groups)


def random_choice_accuracy(groups: Sequence[Sequence[T]], correct: Callable[[T], bool], seed: int = 0) -> float:
    """Accuracy of one seeded random pick per group (the realised, not the expected, baseline)."""
    rng = random.Random(seed)
    return sum(correct(rng.choice(list(g))) for g in groups) / len(groups)


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample standard deviation / √n; 0 for a single value)."""
    if not xs:
        raise ValueError("mean_se: no values")
    n = len(xs)
    mean = sum(xs) / n
    if n == 1:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, (var / n) ** 0.5
