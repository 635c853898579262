"""Eviction policies as score functions: at a miss, the cached expert with the HIGHEST score is evicted.

A score function sees one cached entry and the current step, all as scalars (no arrays, so numba
calls it without reference counting)::

    score(layer, last, ins, freq, next_use, act, act_tok, cur_layer, n_layers, now, token) -> float

``layer``: the entry's layer; ``last``/``ins``: when it was last touched / inserted (a counter of
accesses and prefetch loads, so never tied); ``freq``: accesses of its expert so far; ``next_use``: the
row of its next access (future knowledge: Belady only); ``act``/``act_tok``: its activation count,
decayed by ``ACT_DECAY`` per token, as of token ``act_tok``; ``cur_layer``/``now``/``token``: the
current row's layer, index and token. Write a new policy as such a function, wrap it with
:func:`paperworks.backends.specmd._jit.njit`, and pass ``Policy("name", fn)`` to
:func:`paperworks.backends.specmd.simulator.simulate`: the built-in Least-Stale is no more special than
that (its ``lists`` fast path is an optional speed-up with identical results).

Pinning rule (the simulator's, for every policy): while a row runs, all of its experts are pinned, so a
victim is chosen among the other entries; when every slot holds one of the row's experts (a row wider than the
cache, e.g. a prefill chunk), the row's remaining experts stream through uncached. Under that rule Belady
(farthest next use, with ``offline_admission``) is the offline optimum of demand misses without prefetching;
with prefetch hints it is a strong offline reference, not a proven optimum (free prefetch loads can make it
worth evicting an entry that a later hint brings back).

Least-Stale (SpecMD) is a RECONSTRUCTION: the paper's code is not public. Rule used here: evict the
entry whose layer comes round last from the current layer, i.e. the largest
``(layer - cur_layer - 1) mod L``, least recently used first on ties, and never evict a prefetched
expert before it has been used (its protection lapses once its layer has run without using it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from paperworks.backends.specmd._jit import njit

ACT_DECAY = 0.9
"""Per-token decay of the activation counts that the activation-aware policy ranks by."""
_BIG = 4294967296.0  # 2**32: separates a primary from a tie-breaking key (rows < 2**32)


@njit
def lru_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float, act_tok: float,
              cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Least recently used."""
    return -last


@njit
def fifo_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float, act_tok: float,
               cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """First in, first out."""
    return -ins


@njit
def lfu_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float, act_tok: float,
              cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Least frequently used (counts over the whole trace so far), LRU on ties."""
    return -freq * _BIG - last


@njit
def random_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float,
                 act_tok: float, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Uniformly random victim."""
    return np.random.random()


@njit
def belady_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float,
                 act_tok: float, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Belady's MIN: evict the entry used furthest in the future (offline; needs the whole trace). With
    ``Policy.offline_admission`` the simulator also streams through a missed expert that is needed later than
    everything it could displace, which makes it the optimum of demand misses under the pinning rule."""
    return next_use


@njit
def least_stale_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float,
                      act_tok: float, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Least-Stale (reconstructed): evict the layer that comes round last, LRU within a layer."""
    dist = layer - cur_layer - 1.0  # (layer - cur - 1) mod L without a float modulo
    if dist < 0.0:
        dist += n_layers
    return dist * _BIG - last


@njit
def activation_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float,
                     act_tok: float, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """Activation-aware, in the spirit of MoE-Infinity: keep experts with high (decayed) activation
    counts, favouring earlier layers (whose misses prefetching can hide least); evict the lowest."""
    keep = (act * ACT_DECAY ** (token - act_tok) + 1e-3) * (1.0 - layer / (n_layers + 1.0))
    return -keep * _BIG - last


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
    builtin: int = -1
    """Index into :func:`builtin_score`'s table for the built-in policies (their kernel compiles once and is
    cached on disk); -1 for new policies, whose ``score`` gets a kernel of its own (compiled per process)."""
    lists: int = 0
    """Fast path with identical results: 1 = one recency list (LRU), 2 = per-layer recency lists taken in
    Least-Stale's layer order; 0 = scan every slot's score (any policy)."""
    offline_admission: bool = False
    """Belady's admission rule (needs the future): at each row keep, besides the pinned experts, only the
    ``capacity - pinned`` entries and missed experts with the nearest next uses, streaming the other missed
    experts through uncached; load a prefetch hint only if its expert is needed sooner than the entry it would
    evict (and never one that is not used again)."""


@njit
def builtin_score(pid: int, layer: float, last: float, ins: float, freq: float, next_use: float, act: float,
                  act_tok: float, cur_layer: int, n_layers: int, now: int, token: int) -> float:
    """The built-in policy ``pid``'s score (0 LRU, 1 LFU, 2 FIFO, 3 random, 4 Belady, 5 activation-aware,
    6 Least-Stale): one compiled kernel serves them all."""
    a = (layer, last, ins, freq, next_use, act, act_tok, cur_layer, n_layers, now, token)
    if pid == 0:
        return lru_score(*a)
    if pid == 1:
        return lfu_score(*a)
    if pid == 2:
        return fifo_score(*a)
    if pid == 3:
        return random_score(*a)
    if pid == 4:
        return belady_score(*a)
    if pid == 5:
        return activation_score(*a)
    return least_stale_score(*a)


POLICIES: dict[str, Policy] = {
    "lru": Policy("lru", lru_score, builtin=0, lists=1),
    "lfu": Policy("lfu", lfu_score, builtin=1),
    "fifo": Policy("fifo", fifo_score, builtin=2),
    "random": Policy("random", random_score, builtin=3),
    "belady": Policy("belady", belady_score, online=False, builtin=4, offline_admission=True),
    "moe-infinity": Policy("moe-infinity", activation_score, builtin=5),
    "least-stale": Policy("least-stale", least_stale_score, protect_prefetched=True, builtin=6, lists=2),
}
"""The built-in policies by name."""


def get_policy(policy: str | Policy) -> Policy:
    """``policy`` itself, or the built-in policy of that name."""
    if isinstance(policy, Policy):
        return policy
    if policy not in POLICIES:
        raise ValueError(f"unknown policy '{policy}'; known: {', '.join(POLICIES)}")
    return POLICIES[policy]
