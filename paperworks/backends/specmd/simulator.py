"""The expert-cache simulator: a fully associative cache of ``capacity`` experts, driven by a Stream.

Per row (one token, or a prefill chunk, at one layer): the row's experts are pinned (they must all be
resident to compute the layer); each access hits, hits a prefetched-not-yet-used entry, or misses and
loads the expert (evicting the policy's highest-scoring unpinned entry; with no candidate the expert
streams through uncached). Then the row's prefetch hints load experts not already cached, evicting the
same way (a hint with no candidate is dropped). A collision miss is a miss on an expert that was evicted
earlier during the same token. The hot loop is one numba-compiled function shared by all policies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from paperworks.backends.specmd._jit import njit
from paperworks.backends.specmd.policies import (
    F_ACT, F_ACTTOK, F_FREQ, F_INS, F_KEY, F_LAST, F_LAYER, F_NEXT, N_FIELDS, Policy, get_policy,
)
from paperworks.backends.specmd.policies import ACT_DECAY as _DECAY
from paperworks.backends.specmd.trace import Stream

HIT, MISS, PREFETCH_HIT = 0, 1, 2
"""Outcome codes of an access."""


@njit
def _victim(score: Any, S: Any, pf: Any, pf_layer_row: Any, layer_row: Any, pinned: Any, r: int,
            cap: int, cur_layer: int, n_layers: int, tok: int, protect: bool) -> int:
    best = -np.inf
    bs = -1
    for s in range(cap):
        k = int(S[s, F_KEY])
        if pinned[k] == r:
            continue
        if protect and pf[s] >= 0 and layer_row[int(S[s, F_LAYER])] <= pf_layer_row[s]:
            continue
        v = score(S, s, cur_layer, n_layers, r, tok)
        if v > best or bs < 0:
            best = v
            bs = s
    return bs


@njit
def _kernel(score: Any, protect: bool, capacity: int, n_layers: int, n_keys: int, seed: int,
            row_ptr: Any, keys: Any, row_layer: Any, row_token: Any, hint_ptr: Any, hint_keys: Any,
            next_acc: Any, next_hint: Any, outcome: Any, collision: Any, acc_pf: Any, hint_loaded: Any) -> Any:
    np.random.seed(seed)
    cap = capacity
    S = np.zeros((max(cap, 1), N_FIELDS))
    pf = np.full(max(cap, 1), -1, np.int64)  # hint index that loaded the slot, until first use
    pf_layer_row = np.zeros(max(cap, 1), np.int64)
    slot_of = np.full(n_keys, -1, np.int64)
    pinned = np.full(n_keys, -1, np.int64)
    evicted_tok = np.full(n_keys, -1, np.int64)
    count = np.zeros(n_keys)
    act = np.zeros(n_keys)
    act_tok = np.zeros(n_keys)
    layer_row = np.full(n_layers, -1, np.int64)  # last row that ran each layer
    used = 0
    evictions = 0
    wasted = 0
    for r in range(len(row_layer)):
        cur = row_layer[r]
        tok = row_token[r]
        for a in range(row_ptr[r], row_ptr[r + 1]):
            pinned[keys[a]] = r
        for a in range(row_ptr[r], row_ptr[r + 1]):
            k = keys[a]
            count[k] += 1.0
            act[k] = act[k] * _DECAY ** (tok - act_tok[k]) + 1.0
            act_tok[k] = tok
            s = slot_of[k]
            if s >= 0:
                if pf[s] >= 0:
                    outcome[a] = 2
                    acc_pf[a] = pf[s]
                    pf[s] = -1
                else:
                    outcome[a] = 0
            else:
                outcome[a] = 1
                if evicted_tok[k] == tok:
                    collision[a] = True
                if used < cap:
                    s = used
                    used += 1
                else:
                    s = _victim(score, S, pf, pf_layer_row, layer_row, pinned, r, cap, cur, n_layers, tok, protect)
                    if s < 0:
                        continue
                    old = int(S[s, F_KEY])
                    slot_of[old] = -1
                    evicted_tok[old] = tok
                    evictions += 1
                    if pf[s] >= 0:
                        wasted += 1
                slot_of[k] = s
                pf[s] = -1
                S[s, F_KEY] = k
                S[s, F_LAYER] = k // (n_keys // n_layers)
                S[s, F_INS] = r
            S[s, F_LAST] = r
            S[s, F_FREQ] = count[k]
            S[s, F_NEXT] = next_acc[a]
            S[s, F_ACT] = act[k]
            S[s, F_ACTTOK] = tok
        for h in range(hint_ptr[r], hint_ptr[r + 1]):
            k = hint_keys[h]
            if slot_of[k] >= 0:
                continue
            if used < cap:
                s = used
                used += 1
            else:
                s = _victim(score, S, pf, pf_layer_row, layer_row, pinned, r, cap, cur, n_layers, tok, protect)
                if s < 0:
                    continue
                old = int(S[s, F_KEY])
                slot_of[old] = -1
                evicted_tok[old] = tok
                evictions += 1
                if pf[s] >= 0:
                    wasted += 1
            hint_loaded[h] = True
            slot_of[k] = s
            pf[s] = h
            pf_layer_row[s] = r
            S[s, F_KEY] = k
            S[s, F_LAYER] = k // (n_keys // n_layers)
            S[s, F_INS] = r
            S[s, F_LAST] = r
            S[s, F_FREQ] = count[k]
            S[s, F_NEXT] = next_hint[h]
            S[s, F_ACT] = act[k]
            S[s, F_ACTTOK] = act_tok[k]
        layer_row[cur] = r
    return evictions, wasted


@dataclass
class SimResult:
    """What one simulation measured."""

    policy: str
    """Policy name."""
    capacity: int
    """Cache slots (experts)."""
    accesses: int
    """Demand accesses."""
    hits: int
    """Accesses found in the cache (including prefetched entries)."""
    prefetch_hits: int
    """Hits on an entry a prefetch loaded and nothing used before."""
    misses: int
    """Accesses that had to load the expert on demand."""
    collision_misses: int
    """Misses on an expert evicted earlier during the same token."""
    prefetches: int
    """Experts loaded by prefetch hints."""
    wasted_prefetches: int
    """Prefetched experts evicted before any use."""
    evictions: int
    """Entries evicted."""
    outcome: np.ndarray
    """int8 [A]: HIT, MISS or PREFETCH_HIT per access."""
    acc_pf: np.ndarray
    """int64 [A]: for PREFETCH_HIT accesses, the hint index that loaded the expert; else -1."""
    hint_loaded: np.ndarray
    """bool [H]: whether each hint loaded an expert."""

    @property
    def hit_rate(self) -> float:
        """Hits per access."""
        return self.hits / max(self.accesses, 1)

    def summary(self) -> dict[str, float | int | str]:
        """The scalar figures as a dict."""
        return {"policy": self.policy, "capacity": self.capacity, "accesses": self.accesses, "hits": self.hits,
                "hit_rate": round(self.hit_rate, 5), "prefetch_hits": self.prefetch_hits, "misses": self.misses,
                "collision_misses": self.collision_misses, "prefetches": self.prefetches,
                "wasted_prefetches": self.wasted_prefetches, "evictions": self.evictions}


def simulate(stream: Stream, policy: str | Policy, capacity: int, seed: int = 0,
             use_hints: bool = True, next_uses: tuple[np.ndarray, np.ndarray] | None = None) -> SimResult:
    """Run ``stream`` through a cache of ``capacity`` experts managed by ``policy``.

    ``use_hints=False`` ignores the stream's prefetch hints; ``next_uses`` may pass a precomputed
    :meth:`Stream.next_uses` (Belady's knowledge of the future) to save time across runs.
    """
    pol = get_policy(policy)
    if capacity < 0:
        raise ValueError(f"capacity must be >= 0; got {capacity}")
    na, nh = next_uses if next_uses is not None else stream.next_uses()
    hptr = stream.hint_ptr if use_hints else np.zeros_like(stream.hint_ptr)
    A, H = len(stream.keys), len(stream.hint_keys)
    outcome = np.zeros(A, np.int8)
    collision = np.zeros(A, np.bool_)
    acc_pf = np.full(A, -1, np.int64)
    hint_loaded = np.zeros(H, np.bool_)
    ev, wasted = _kernel(pol.score, pol.protect_prefetched, int(capacity), stream.n_layers, stream.n_keys, seed,
                         stream.row_ptr, stream.keys, stream.row_layer, stream.row_token, hptr, stream.hint_keys,
                         na, nh, outcome, collision, acc_pf, hint_loaded)
    misses = int((outcome == MISS).sum())
    pfh = int((outcome == PREFETCH_HIT).sum())
    return SimResult(policy=pol.name, capacity=int(capacity), accesses=A, hits=A - misses, prefetch_hits=pfh,
                     misses=misses, collision_misses=int(collision.sum()), prefetches=int(hint_loaded.sum()),
                     wasted_prefetches=int(wasted), evictions=int(ev), outcome=outcome, acc_pf=acc_pf,
                     hint_loaded=hint_loaded)
