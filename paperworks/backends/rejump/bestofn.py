"""ReJump-guided Best-of-N: of N candidate traces, keep the one whose metric is largest (the paper's
selection uses the filtered average jump distance), against picking one at random."""

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
