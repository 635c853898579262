"""Eviction policies as score functions: at a miss, the cached expert with the HIGHEST score is evicted.

A score function has the signature ``score(S, s, cur_layer, n_layers, now, token) -> float``, where
``S`` is the simulator's float64 state table (one row per cache slot, columns ``F_*`` below), ``s``
the slot, ``cur_layer``/``now``/``token`` the current row's layer, row index and token. Write a new
policy as such a function, wrap it with :func:`paperworks.backends.specmd._jit.njit`, and pass
``Policy("name", fn)`` to :func:`paperworks.backends.specmd.simulator.simulate` - the built-in
Least-Stale is no more special than that.

Least-Stale (SpecMD) is a RECONSTRUCTION: the paper's code is not public. Rule used here: evict the
entry whose layer comes round last from the current layer, i.e. the largest
``(layer - cur_layer - 1) mod L``, least recently used first on ties, and never evict a prefetched
expert before it has been used (its protection lapses once its layer has run without using it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from paperworks.backends.specmd._jit import njit

F_LAYER, F_LAST, F_INS, F_FREQ, F_NEXT, F_ACT, F_ACTTOK, F_KEY = range(8)
"""Columns of the slot state table: layer, last-use row, insertion row, access count of the key so far,
next-use row (Belady only; future knowledge), decayed activation count, token of that count, key."""
N_FIELDS = 8
ACT_DECAY = 0.9
"""Per-token decay of the activation counts that the activation-aware policy ranks by."""
_BIG = 4294967296.0  # 2**32: separates a primary from a tie-breaking key (rows < 2**32)


@njit
def lru_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Least recently used."""
    return -S[s, F_LAST]


@njit
def fifo_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """First in, first out."""
    return -S[s, F_INS]


@njit
def lfu_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Least frequently used (counts over the whole trace so far), LRU on ties."""
    return -S[s, F_FREQ] * _BIG - S[s, F_LAST]


@njit
def random_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Uniformly random victim."""
    return np.random.random()


@njit
def belady_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Belady's MIN: evict the entry used furthest in the future (offline; needs the whole trace)."""
    return S[s, F_NEXT]


@njit
def least_stale_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Least-Stale (reconstructed): evict the layer that comes round last, LRU within a layer."""
    dist = (S[s, F_LAYER] - cur_layer - 1) % n_layers
    return dist * _BIG - S[s, F_LAST]


@njit
def activation_score(S: Any, s: int, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Activation-aware, in the spirit of MoE-Infinity: keep experts with high (decayed) activation
    counts, favouring earlier layers (whose misses prefetching can hide least); evict the lowest."""
    act = S[s, F_ACT] * ACT_DECAY ** (token - S[s, F_ACTTOK])
    keep = (act + 1e-3) * (1.0 - S[s, F_LAYER] / (n_layers + 1.0))
    return -keep * _BIG - S[s, F_LAST]


@dataclass(frozen=True)
class Policy:
    """An eviction policy for the simulator."""

    name: str
    """Label in results and plots."""
    score: Callable[..., float]
    """Score function (highest is evicted); numba-compiled for speed, plain Python works but is slow."""
    protect_prefetched: bool = False
    """Never evict a prefetched expert before its first use (until its layer has run)."""
    online: bool = True
    """False for policies that read the future (Belady)."""


POLICIES: dict[str, Policy] = {
    "lru": Policy("lru", lru_score),
    "lfu": Policy("lfu", lfu_score),
    "fifo": Policy("fifo", fifo_score),
    "random": Policy("random", random_score),
    "belady": Policy("belady", belady_score, online=False),
    "moe-infinity": Policy("moe-infinity", activation_score),
    "least-stale": Policy("least-stale", least_stale_score, protect_prefetched=True),
}
"""The built-in policies by name."""


def get_policy(policy: str | Policy) -> Policy:
    """``policy`` itself, or the built-in policy of that name."""
    if isinstance(policy, Policy):
        return policy
    if policy not in POLICIES:
        raise ValueError(f"unknown policy '{policy}'; known: {', '.join(POLICIES)}")
    return POLICIES[policy]
