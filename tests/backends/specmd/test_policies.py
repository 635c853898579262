"""Each policy's hits on hand-built traces equal hand-computed values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paperworks.backends.specmd._jit import njit
from paperworks.backends.specmd.policies import POLICIES, Policy, least_stale_score
from paperworks.backends.specmd.simulator import HIT, MISS, PREFETCH_HIT, simulate
from paperworks.backends.specmd.trace import Trace, to_stream


def one_layer(seq: str) -> Trace:
    """A single-layer trace, one access per token: 'ABCA' -> experts 0 1 2 0."""
    ex = [ord(c) - ord("A") for c in seq]
    return Trace(token=np.arange(len(ex)), layer=np.zeros(len(ex)), experts=np.array(ex)[:, None], n_layers=1,
                 n_experts=8)


def rows(spec: list[tuple[int, int, list[int]]], n_layers: int, n_experts: int,
         hints: list[list[int]] | None = None) -> Trace:
    """A trace from (token, layer, experts) rows, with optional global-key hints per row."""
    k = max(len(e) for _, _, e in spec)
    ex = np.full((len(spec), k), -1)
    for i, (_, _, e) in enumerate(spec):
        ex[i, : len(e)] = e
    h = np.zeros((len(spec), 0))
    if hints is not None:
        w = max(1, max(len(x) for x in hints))
        h = np.full((len(spec), w), -1)
        for i, x in enumerate(hints):
            h[i, : len(x)] = x
    return Trace(token=[t for t, _, _ in spec], layer=[la for _, la, _ in spec], experts=ex, n_layers=n_layers,
                 n_experts=n_experts, hints=h)


def hits(trace: Trace, policy: str | Policy, cap: int, **kw: Any) -> int:
    return simulate(to_stream(trace), policy, cap, **kw).hits


@pytest.mark.parametrize(("policy", "seq", "cap", "expected"), [
    ("lru", "ABACA", 2, 2),        # C evicts B (least recent); A hits twice
    ("fifo", "ABACA", 2, 1),       # C evicts A (first in); only the first re-use of A hits
    ("lru", "AABCA", 2, 1),        # C evicts A (B is more recent)
    ("lfu", "AABCA", 2, 2),        # C evicts B (A was used twice)
    ("lru", "ABCADAB", 2, 1),
    ("belady", "ABCADAB", 2, 3),   # C and D are never needed again: they stream through, A and B stay
    ("belady", "ABCBACB", 2, 3),   # the first C streams through (needed after A and B): B, A, B hit
    ("random", "ABCABC", 3, 3),    # room for all: every re-use hits
])
def test_single_layer_policies(policy: str, seq: str, cap: int, expected: int) -> None:
    assert hits(one_layer(seq), policy, cap) == expected


def test_least_stale_versus_lru_on_a_layer_cycle() -> None:
    # 3 layers, one expert each (keys 0, 2, 4), 2 tokens, 2 slots: LRU always evicts what comes next.
    tr = rows([(0, 0, [0]), (0, 1, [0]), (0, 2, [0]), (1, 0, [0]), (1, 1, [0]), (1, 2, [0])], 3, 2)
    lru = simulate(to_stream(tr), "lru", 2)
    ls = simulate(to_stream(tr), "least-stale", 2)
    assert lru.hits == 0 and lru.collision_misses == 2  # token 1 misses keys 2 and 4, evicted during token 1
    # Least-Stale: at layer 2 it evicts layer 1's expert (comes round last); token 1 hits layers 0 and 2
    assert ls.hits == 2 and ls.collision_misses == 0
    assert list(ls.outcome) == [MISS, MISS, MISS, HIT, MISS, HIT]


def test_activation_aware_keeps_early_layers() -> None:
    # key 0 (layer 0) and key 2 (layer 1) used once each at token 0; at token 1 key 1 misses:
    # LRU evicts key 0 (older), the activation-aware policy evicts key 2 (later layer), so it misses key 2 next.
    tr = rows([(0, 0, [0]), (0, 1, [0]), (1, 0, [1]), (1, 1, [0])], 2, 2)
    assert hits(tr, "lru", 2) == 1
    assert hits(tr, "moe-infinity", 2) == 0


@pytest.mark.slow
def test_prefetch_hit_and_least_stale_protection() -> None:
    # row 0 (layer 0) prefetches key 2 (layer 1, expert 0); row 1 needs key 3; row 2 (next token, layer 1) key 2.
    tr = rows([(0, 0, [0]), (0, 1, [1]), (1, 1, [0])], 2, 2, hints=[[2], [], []])
    protected = simulate(to_stream(tr), "least-stale", 2)
    assert list(protected.outcome) == [MISS, MISS, PREFETCH_HIT]  # key 0 evicted, the prefetched key 2 kept
    unprotected = simulate(to_stream(tr), Policy("ls-unprotected", least_stale_score), 2)
    assert list(unprotected.outcome) == [MISS, MISS, MISS]  # same rule without protection evicts key 2
    assert unprotected.wasted_prefetches == 1
    assert simulate(to_stream(tr), "least-stale", 2, use_hints=False).prefetches == 0


def test_next_layer_prefetch_hit() -> None:
    tr = rows([(0, 0, [0]), (0, 1, [0])], 2, 2, hints=[[2], []])
    res = simulate(to_stream(tr), "lru", 2)
    assert (res.hits, res.prefetch_hits, res.prefetches) == (1, 1, 1)
    assert res.acc_pf[1] == 0


@njit
def _mru_score(layer: float, last: float, ins: float, freq: float, next_use: float, act: float, act_tok: float,
               cur_layer: int, n_layers: int, now: int, token: int) -> float:
    return last


def test_custom_policy_plugs_in() -> None:
    assert hits(one_layer("ABCA"), Policy("mru", _mru_score), 2) == 1  # C evicts B, A hits


def test_pinned_row_and_bypass() -> None:
    # a row of 3 experts through a 2-slot cache: the third streams through uncached, nothing pinned is evicted
    tr = rows([(0, 0, [0, 1, 2]), (1, 0, [0, 1, 2])], 1, 3)
    res = simulate(to_stream(tr), "lru", 2)
    assert res.hits == 2 and res.evictions == 0


def test_builtins_registered() -> None:
    assert set(POLICIES) == {"lru", "lfu", "fifo", "random", "belady", "moe-infinity", "least-stale"}
    assert not POLICIES["belady"].online
    with pytest.raises(ValueError, match="unknown policy"):
        simulate(to_stream(one_layer("A")), "nope", 1)
