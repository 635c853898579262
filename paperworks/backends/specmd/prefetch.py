"""Prefetchers: speculation of the experts a later layer will need, written as a trace's hints.

:func:`speculative_hints` models a predictor (as in SpecMD's speculative prefetching) that, at each
row, guesses the experts of the row ``ahead`` steps later (the next layer for ``ahead=1``, wrapping to
the next token's first layers) and is right about each expert with probability ``accuracy``; a wrong
guess names another expert of the same layer that the row does not use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperworks.backends.specmd.trace import Trace


@dataclass
class PrefetchConfig:
    """A speculative prefetcher's settings."""

    ahead: int = 1
    """How many layers ahead to speculate (1 = the next layer)."""
    accuracy: float = 0.8
    """Probability that each predicted expert is one the target row really uses."""
    seed: int = 0
    """Random seed of the mistakes."""


def speculative_hints(trace: Trace, cfg: PrefetchConfig | None = None) -> Trace:
    """A copy of ``trace`` whose hints at row i predict row ``i + ahead``'s experts with ``accuracy``."""
    cfg = cfg or PrefetchConfig()
    if cfg.ahead < 1:
        raise ValueError(f"PrefetchConfig.ahead must be >= 1; got {cfg.ahead}")
    rng = np.random.default_rng(cfg.seed)
    n, k = trace.experts.shape
    E = trace.n_experts
    hints = np.full((n, k), -1, np.int32)
    if n > cfg.ahead:
        target = trace.experts[cfg.ahead:].astype(np.int64)  # [n-ahead, k]
        lay = trace.layer[cfg.ahead:].astype(np.int64)
        wrong = rng.random(target.shape) >= cfg.accuracy
        # a wrong guess: an expert of that layer the target row does not use (rejection, few rounds)
        guess = rng.integers(0, E, target.shape)
        for _ in range(8):
            clash = (guess[:, :, None] == target[:, None, :]).any(-1) | _dups(guess)
            if not clash.any():
                break
            guess = np.where(clash, rng.integers(0, E, target.shape), guess)
        pred = np.where(wrong & ~clash, guess, target)
        pred = np.where(target >= 0, pred + lay[:, None] * E, -1)
        hints[: n - cfg.ahead] = pred
    return trace.with_hints(hints, prefetch=f"speculative ahead={cfg.ahead} accuracy={cfg.accuracy}")


def _dups(a: np.ndarray) -> np.ndarray:
    """True where a row's value also appears earlier in that row."""
    eq = a[:, :, None] == a[:, None, :]
    return np.tril(eq, k=-1).any(-1)
